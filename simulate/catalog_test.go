package simulate_test

import (
	"flag"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/simulate"
	"github.com/vacheck/vacheck/specs"
)

// long adds the large instances: .ci/run passes it (go test ./simulate
// -args -long).
var long = flag.Bool("long", false, "also run the large simulations (tens of seconds)")

func build(t testing.TB, spec string, flags map[string]string) explorer.Model {
	t.Helper()
	s, err := specs.Lookup(spec)
	if err != nil {
		t.Fatal(err)
	}
	p, err := specs.NewParams(s, flags)
	if err != nil {
		t.Fatal(err)
	}
	p.SetSampling(true) // a model that draws its initial states: --ids all at N=64
	m, err := s.Build(p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// harmonic is H_n = 1 + 1/2 + ... + 1/n.
func harmonic(n int) float64 {
	h := 0.0
	for k := n; k >= 1; k-- {
		h += 1 / float64(k)
	}
	return h
}

// TestChangRobertsBrokenShrunk: the simulation finds the broken twin's
// violation of uniqueness, and the counterexample it shows, shrunk, is a
// run of the model (replayed here step by step by its labels) no longer
// than the shortest counterexample plus a small slack.
func TestChangRobertsBrokenShrunk(t *testing.T) {
	m := build(t, "chang-roberts-broken", map[string]string{"n": "5"})
	res, err := simulate.Simulate(m, simulate.Config{Runs: 100, Seed: 1, Workers: 2, Properties: []string{properties.Uniqueness, properties.DeadlockFreedom}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != explorer.Violated || len(res.Violations) != 1 || res.Violations[0].Property != properties.Uniqueness {
		t.Fatalf("status %v, violations %v: want uniqueness violated", res.Status, res.Violations)
	}
	v := res.Violations[0]
	// 38 steps: the shortest counterexample over every arrangement, by
	// the exhaustive breadth-first search of 761,160 states
	// (vacheck check chang-roberts-broken --n 5). The broken twin
	// forwards every ID whatever its value, so the shortest is 38 from
	// every arrangement, the one the run drew too.
	const shortest, slack = 38, 4
	if n := len(v.Trace.Steps); n > shortest+slack {
		t.Errorf("shrunk to %d steps, want at most %d+%d (found in %d steps)", n, shortest, slack, v.Found)
	}
	d := m.(explorer.Describer)
	w := m.NewWorker()
	cur := v.Initial
	for k, st := range v.Trace.Steps {
		next := []byte(nil)
		if _, err := explorer.Successors(w, cur, func(tr explorer.Transition, succ []byte) {
			if l, err := d.Label(cur, int(tr.Action)); err == nil && l == st.Action && next == nil {
				next = append([]byte(nil), succ...)
			}
		}); err != nil {
			t.Fatal(err)
		}
		if next == nil {
			t.Fatalf("step %d, %s, is not enabled", k+1, st.Action)
		}
		cur = next
	}
	uniq := slices.IndexFunc(m.Properties(), func(p properties.Info) bool { return p.Name == properties.Uniqueness })
	if mask, err := w.Check(cur, 1<<uint(uniq)); err != nil || mask == 0 {
		t.Errorf("the trace's last state does not violate uniqueness (%v)", err)
	}
}

// arrangements is chang-roberts --ids increasing with an initial state
// drawn among every arrangement of the IDs 1..n, built from a random
// --ids list: it lets the mean over arrangements be tested without the
// spec's own sampler.
type arrangements struct {
	explorer.Model
	t *testing.T
	n int
}

func (a arrangements) SampleInitial(r *rand.Rand) ([]byte, error) {
	var ids []string
	for _, p := range r.Perm(a.n) {
		ids = append(ids, strconv.Itoa(p+1))
	}
	init, err := build(a.t, "chang-roberts", map[string]string{"n": strconv.Itoa(a.n), "ids": strings.Join(ids, ",")}).Initial()
	if err != nil {
		return nil, err
	}
	return init[0], nil
}

// TestChangRobertsMean: over random arrangements, Chang-Roberts sends
// N·H_N messages on average (Chang & Roberts 1979; docs/algorithms/chang-roberts.md),
// never fewer than 2N-1 nor more than N(N+1)/2.
func TestChangRobertsMean(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds, twenty under the race detector: run without -short")
	}
	const n = 24
	m := arrangements{build(t, "chang-roberts", map[string]string{"n": strconv.Itoa(n), "ids": "increasing"}), t, n}
	res, err := simulate.Simulate(m, simulate.Config{Runs: 300, Seed: 1, Metrics: []string{"messages", "steps"}})
	if err != nil {
		t.Fatal(err)
	}
	checkMean(t, res, n)
	// Each message is one send and one receive.
	if msgs, steps := res.Metrics[0], res.Metrics[1]; steps.Mean != 2*msgs.Mean || steps.Min != 2*msgs.Min {
		t.Errorf("steps %+v, messages %+v: want twice as many steps", steps, msgs)
	}
}

// TestChangRobertsMean64 is the example, with the spec's own
// sampler: vacheck simulate chang-roberts --n 64 --ids all --runs 10000
// --metric messages.
func TestChangRobertsMean64(t *testing.T) {
	if !*long {
		t.Skip("large instance: run with -args -long")
	}
	const n = 64
	m := build(t, "chang-roberts", map[string]string{"n": strconv.Itoa(n), "ids": "all"})
	if _, ok := m.(explorer.InitialSampler); !ok {
		t.Fatal("chang-roberts cannot draw an arrangement (explorer.InitialSampler)")
	}
	res, err := simulate.Simulate(m, simulate.Config{Runs: 10000, Seed: 1, Metrics: []string{"messages"}})
	if err != nil {
		t.Fatal(err)
	}
	checkMean(t, res, n)
}

func checkMean(t *testing.T, res *simulate.Result, n int) {
	t.Helper()
	if res.Ends.ValidEnd != int64(res.Asked) || res.Status != explorer.Incomplete {
		t.Fatalf("ends %+v, status %v: want every run at a valid end, no violation", res.Ends, res.Status)
	}
	s := res.Metrics[0]
	// The mean over arrangements is N·H_N (Chang & Roberts 1979): each
	// ID travels to the first larger one, k hops with probability
	// 1/(k(k+1)), and the largest travels N.
	want := float64(n) * harmonic(n)
	if math.Abs(s.Mean-want) > 0.02*want {
		t.Errorf("mean %.2f messages, want within 2%% of N·H_N = %.2f", s.Mean, want)
	}
	if s.Min < int64(2*n-1) || s.Max > int64(n*(n+1)/2) {
		t.Errorf("min %d, max %d: outside [2N-1, N(N+1)/2] = [%d, %d]", s.Min, s.Max, 2*n-1, n*(n+1)/2)
	}
	t.Logf("N=%d: mean %.2f (N·H_N %.2f), sd %.2f, min %d, p50 %d, p99 %d, max %d; %d steps, ~%.0f distinct states",
		n, s.Mean, want, s.StdDev, s.Min, s.P50, s.P99, s.Max, res.Steps, res.Distinct)
}
