package automatontest

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/report"
)

// Verify checks m with cfg and fails the test unless the search completes
// and every checked property holds; on failure it prints the report, with
// each counterexample as a story of steps. It returns the result so that a
// test can also pin its figures:
//
//	r := automatontest.Verify(t, sys, explorer.Config{})
//	if r.States != 1234 { t.Errorf(...) }
func Verify(t testing.TB, m explorer.Model, cfg explorer.Config) *explorer.Result {
	t.Helper()
	r, err := explorer.Check(m, cfg)
	if err != nil {
		t.Fatalf("vacheck: %v", err)
	}
	if r.Status != explorer.OK {
		t.Fatalf("vacheck: %v\n%s", r.Status, story(t, m, r))
	}
	return r
}

// ExpectViolation checks m for the one property prop and fails the test
// unless the search finds a counterexample to it: the test of a broken
// twin. The counterexample is logged as a story (shown with go test -v).
// It returns the result so that a test can pin the trace's length:
//
//	r := automatontest.ExpectViolation(t, broken, properties.MutualExclusion)
//	if n := len(r.Violations[0].Trace.Steps); n != 7 { t.Errorf(...) }
func ExpectViolation(t testing.TB, m explorer.Model, prop string) *explorer.Result {
	t.Helper()
	r, err := explorer.Check(m, explorer.Config{Properties: []string{prop}})
	if err != nil {
		t.Fatalf("vacheck: %v", err)
	}
	if r.Status != explorer.Violated || len(r.Violations) == 0 || r.Violations[0].Property != prop {
		t.Fatalf("vacheck: expected a violation of %s, got %v (%s)\n%s", prop, r.Status, r.Reason, story(t, m, r))
	}
	t.Logf("vacheck: %s is violated, as expected:\n%s", prop, story(t, m, r))
	return r
}

// story renders r as the CLI's text report, under the model's name when it
// has one (automaton.Config.Name) and the test's name otherwise.
func story(t testing.TB, m explorer.Model, r *explorer.Result) string {
	name := t.Name()
	if nm, ok := m.(interface{ Name() string }); ok && nm.Name() != "" {
		name = nm.Name()
	}
	var b strings.Builder
	_ = report.Text(&b, report.Run{Spec: name, Result: r})
	return b.String()
}

// CheckReduction checks that partial-order reduction keeps what it must
// keep, for a test of a new PartialOrder, Commuter or Silencer on small
// instances. It searches m without reduction and with it, breadth first
// and depth first, and fails the test unless every search completes and
//
//   - gives the same verdict on every safety property of m and on
//     deadlock-freedom, and finds the same number of terminal states (a
//     reduction keeps every terminal state);
//   - reaches the same set of visible valuations, when m can project its
//     states on what the invariants see (automaton.System's
//     VisibleProjection): a reduction may skip states, never a valuation
//     of the visible variables, or an invariant that reads them could
//     fail unseen;
//   - on every mutant (m with a seeded bug, built by the caller), gives the
//     same verdicts as without reduction, or refuses the mutant as a model
//     failure on an assumption of the reduction (automaton.Assumption).
//
// It returns the full result and the reduced ones of m.
func CheckReduction(t testing.TB, m explorer.Model, mutants ...explorer.Model) (full *explorer.Result, reduced []*explorer.Result) {
	t.Helper()
	full, reduced = checkVerdicts(t, "", m, false)
	if vp, ok := m.(visibleProjector); ok && vp.VisibleProjection() != nil {
		proj := vp.VisibleProjection()
		want := reachedValuations(t, m, proj, explorer.Config{})
		for _, st := range []explorer.Strategy{explorer.BFS, explorer.DFS} {
			got := reachedValuations(t, m, proj, explorer.Config{Strategy: st, Reduction: explorer.PartialOrder})
			var lost []string
			for val := range want {
				if !got[val] {
					lost = append(lost, val)
				}
			}
			if len(lost) > 0 {
				slices.Sort(lost)
				t.Errorf("vacheck, %v with partial-order reduction: %d of %d visible valuations are never reached, e.g. %s", st, len(lost), len(want), lost[0])
			}
			for val := range got {
				if !want[val] {
					t.Errorf("vacheck, %v with partial-order reduction: reaches visible valuation %s, which the full search does not", st, val)
					break
				}
			}
		}
	}
	for k, mu := range mutants {
		checkVerdicts(t, fmt.Sprintf("mutant %d: ", k+1), mu, true)
	}
	return full, reduced
}

// visibleProjector is implemented by automaton.System.
type visibleProjector interface {
	VisibleProjection() func(s []byte) (string, error)
}

// checkVerdicts searches m without and with reduction (BFS, DFS) and
// compares verdicts and terminal states; with refuse, a reduced search may
// also end in a model failure on an assumption.
func checkVerdicts(t testing.TB, label string, m explorer.Model, refuse bool) (full *explorer.Result, reduced []*explorer.Result) {
	t.Helper()
	props := []string{properties.DeadlockFreedom}
	for _, p := range m.Properties() {
		props = append(props, p.Name)
	}
	verdicts := func(r *explorer.Result) string {
		var out []string
		for _, v := range r.Violations {
			out = append(out, v.Property)
		}
		slices.Sort(out)
		return fmt.Sprintf("%v, violated %v", r.Status, out)
	}
	run := func(cfg explorer.Config) *explorer.Result {
		cfg.Properties, cfg.Continue = props, true
		r, err := explorer.Check(m, cfg)
		if err != nil {
			t.Fatalf("vacheck: %s%v", label, err)
		}
		if r.Status != explorer.OK && r.Status != explorer.Violated &&
			!(refuse && cfg.Reduction != explorer.NoReduction && r.Status == explorer.Failed && strings.Contains(r.Reason, "assumption")) {
			t.Fatalf("vacheck, %s%v, reduction %v: %v (%s)", label, cfg.Strategy, cfg.Reduction, r.Status, r.Reason)
		}
		return r
	}
	full = run(explorer.Config{})
	for _, st := range []explorer.Strategy{explorer.BFS, explorer.DFS} {
		r := run(explorer.Config{Strategy: st, Reduction: explorer.PartialOrder})
		reduced = append(reduced, r)
		if r.Status == explorer.Failed {
			t.Logf("vacheck, %s%v with partial-order reduction: refused (%s)", label, st, r.Reason)
			continue
		}
		if got, want := verdicts(r), verdicts(full); got != want {
			t.Errorf("vacheck, %s%v with partial-order reduction: %s; without: %s", label, st, got, want)
		}
		if r.Terminal != full.Terminal && (len(full.Violations) == 0 || !refuse) {
			t.Errorf("vacheck, %s%v with partial-order reduction: %d terminal states; without: %d", label, st, r.Terminal, full.Terminal)
		}
	}
	return full, reduced
}

// reachedValuations searches m with cfg to the end, checking nothing but
// the model's assertions, and returns the visible valuations of every
// state it stores.
func reachedValuations(t testing.TB, m explorer.Model, proj func([]byte) (string, error), cfg explorer.Config) map[string]bool {
	t.Helper()
	rec := &recorder{proj: proj, seen: map[string]bool{}}
	cfg.Properties, cfg.Continue = []string{}, true
	r, err := explorer.Check(recordingModel{m, rec}, cfg)
	if err != nil {
		t.Fatalf("vacheck: %v", err)
	}
	if r.Status != explorer.OK && r.Status != explorer.Violated {
		t.Fatalf("vacheck, %v, reduction %v: %v (%s)", cfg.Strategy, cfg.Reduction, r.Status, r.Reason)
	}
	if rec.err != nil {
		t.Fatalf("vacheck: projecting a state: %v", rec.err)
	}
	return rec.seen
}

// recorder collects the visible valuations of the states a search checks.
type recorder struct {
	proj func([]byte) (string, error)
	mu   sync.Mutex
	seen map[string]bool
	err  error
}

func (r *recorder) record(s []byte) {
	key, err := r.proj(s)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil && r.err == nil {
		r.err = err
	}
	r.seen[key] = true
}

// recordingModel is a Model whose workers record every state the search
// checks (each state it stores, once).
type recordingModel struct {
	explorer.Model
	rec *recorder
}

func (m recordingModel) NewWorker() explorer.Worker {
	return recordingWorker{m.Model.NewWorker(), m.rec}
}

// Reducible implements explorer.Reducible as the model recorded does.
func (m recordingModel) Reducible() bool {
	r, ok := m.Model.(explorer.Reducible)
	return ok && r.Reducible()
}

type recordingWorker struct {
	explorer.Worker
	rec *recorder
}

func (w recordingWorker) Check(s []byte, want uint64) (uint64, error) {
	w.rec.record(s)
	return w.Worker.Check(s, want)
}

// Expand records s when the search checks it as it expands it.
func (w recordingWorker) Expand(s []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	if x.Want != 0 {
		w.rec.record(s)
	}
	return w.Worker.Expand(s, x)
}
