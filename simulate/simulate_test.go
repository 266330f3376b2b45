package simulate

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// chiCritical are the chi-square statistics that a uniform choice exceeds
// with probability 0.001, by degrees of freedom (3, 4): the tests run with
// fixed seeds, so they are deterministic, and the uniform choice passes
// them with room to spare.
var chiCritical = map[int]float64{3: 16.27, 4: 18.47}

// fan: four transitions out of the initial state, the i-th sending i
// messages, so the messages of a run say which one it took.
func fan() *graph {
	return &graph{init: []int{0}, next: func(s int) []edge {
		if s != 0 {
			return nil
		}
		return []edge{{to: 1, msgs: 1}, {to: 2, msgs: 2}, {to: 3, msgs: 3}, {to: 4, msgs: 4}}
	}}
}

// twoLevel: the initial state offers a terminal transition (1 message) and
// one to a state that offers three (2, 3 and 4 messages). Uniform per step
// takes them with probabilities 1/2, 1/6, 1/6, 1/6; uniform over the four
// complete runs would take each with 1/4.
func twoLevel() *graph {
	return &graph{init: []int{0}, next: func(s int) []edge {
		switch s {
		case 0:
			return []edge{{to: 10, msgs: 1}, {to: 1}}
		case 1:
			return []edge{{to: 11, msgs: 2}, {to: 12, msgs: 3}, {to: 13, msgs: 4}}
		}
		return nil
	}}
}

// counts returns the runs per value 1..k of the first metric.
func counts(t *testing.T, res *Result, k int) []int64 {
	t.Helper()
	out := make([]int64, k)
	for _, b := range res.Metrics[0].Histogram {
		if b.Lo != b.Hi || b.Lo < 1 || b.Lo > int64(k) {
			t.Fatalf("histogram bin %+v: want one bin per value 1..%d", b, k)
		}
		out[b.Lo-1] = b.Runs
	}
	return out
}

// firstHalf is a biased choice: it keeps the first transition with
// probability 1/2, and otherwise picks uniformly among the others.
type firstHalf struct{ keepFirst bool }

func (p *firstHalf) take(r *rand.Rand, k int) bool {
	if k == 1 {
		p.keepFirst = r.IntN(2) == 0
		return true
	}
	return !p.keepFirst && (k == 2 || r.IntN(k-1) == 0)
}

// coin replaces the choice with probability 1/2, whatever k: the last
// transitions win.
type coin struct{}

func (coin) take(r *rand.Rand, k int) bool { return k == 1 || r.IntN(2) == 0 }

// offByOne is reservoir sampling with 1/(k+1) instead of 1/k.
type offByOne struct{}

func (offByOne) take(r *rand.Rand, k int) bool { return k == 1 || r.IntN(k+1) == 0 }

func TestUniformChoice(t *testing.T) {
	tests := []struct {
		name string
		m    *graph
		p    []float64
	}{
		{"fan of 4", fan(), []float64{0.25, 0.25, 0.25, 0.25}},
		{"uniform per step, not per run", twoLevel(), []float64{1. / 2, 1. / 6, 1. / 6, 1. / 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := simulate(t, tt.m, Config{Runs: 20000, Seed: 7, Workers: 2, Metrics: []string{"messages"}})
			obs := counts(t, res, 4)
			x := chiSquare(obs, tt.p)
			t.Logf("uniform: chi-square %.2f, counts %v", x, obs)
			if x > chiCritical[3] {
				t.Errorf("uniform choice: chi-square %.1f > %.2f with counts %v", x, chiCritical[3], obs)
			}
			// The mutants: each biased choice must be caught.
			for _, mut := range []struct {
				name string
				pick func() picker
			}{
				{"first with probability 1/2", func() picker { return &firstHalf{} }},
				{"replace with probability 1/2", func() picker { return coin{} }},
				{"replace with probability 1/(k+1)", func() picker { return offByOne{} }},
			} {
				// One picker per worker: firstHalf has state.
				res := simulate(t, tt.m, Config{Runs: 20000, Seed: 7, Workers: 1, Metrics: []string{"messages"}, pick: mut.pick()})
				obs := counts(t, res, 4)
				if x := chiSquare(obs, tt.p); x <= chiCritical[3] {
					t.Errorf("mutant %q not caught: chi-square %.1f <= %.2f with counts %v", mut.name, x, chiCritical[3], obs)
				}
			}
		})
	}
}

func TestUniformInitialState(t *testing.T) {
	// Five initial states, each with one transition sending 1..5
	// messages: the messages of a run say where it started.
	g := &graph{init: []int{0, 1, 2, 3, 4}, next: func(s int) []edge {
		if s < 5 {
			return []edge{{to: 10 + s, msgs: int32(s + 1)}}
		}
		return nil
	}}
	p := []float64{0.2, 0.2, 0.2, 0.2, 0.2}
	t.Run("listed", func(t *testing.T) {
		obs := counts(t, simulate(t, g, Config{Runs: 10000, Seed: 3, Metrics: []string{"messages"}}), 5)
		if x := chiSquare(obs, p); x > chiCritical[4] {
			t.Errorf("chi-square %.1f > %.2f with counts %v", x, chiCritical[4], obs)
		}
	})
	t.Run("sampled", func(t *testing.T) {
		draws := 0
		obs := counts(t, simulate(t, sampled{g, &draws}, Config{Runs: 10000, Seed: 3, Workers: 1, Metrics: []string{"messages"}}), 5)
		if x := chiSquare(obs, p); x > chiCritical[4] {
			t.Errorf("chi-square %.1f > %.2f with counts %v", x, chiCritical[4], obs)
		}
		if draws != 10001 {
			t.Errorf("the model's sampler drew %d initial states for 10000 runs and a first to see that it can", draws)
		}
	})
	t.Run("a sampler that cannot draw", func(t *testing.T) {
		// The model lists its few initial states instead.
		obs := counts(t, simulate(t, refusing{g}, Config{Runs: 10000, Seed: 3, Metrics: []string{"messages"}}), 5)
		if x := chiSquare(obs, p); x > chiCritical[4] {
			t.Errorf("chi-square %.1f > %.2f with counts %v", x, chiCritical[4], obs)
		}
		many := &graph{init: make([]int, MaxInitialEnumerated+1), next: func(int) []edge { return nil }}
		_, err := Simulate(refusing{many}, Config{Runs: 1})
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "cannot sample its initial states") || !strings.Contains(err.Error(), "no sampler here") {
			t.Errorf("got %v, want a configuration error with the sampler's reason", err)
		}
	})
	t.Run("too many to list", func(t *testing.T) {
		many := &graph{init: make([]int, MaxInitialEnumerated+1), next: func(int) []edge { return nil }}
		_, err := Simulate(many, Config{Runs: 1})
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "cannot sample its initial states") {
			t.Errorf("got %v, want a configuration error saying the spec cannot sample its initial states", err)
		}
	})
}

// grid is a random walk on an 8x8 grid with a bit z that flips: it never
// stops, and its invariant fails at (3,3), which the shortest runs reach
// in 6 steps.
func grid() *graph {
	return &graph{init: []int{0}, bad: func(s int) bool { return s%8 == 3 && s/8%8 == 3 }, next: func(s int) []edge {
		x, y, z := s%8, s/8%8, s/64
		var out []edge
		if x < 7 {
			out = append(out, edge{to: s + 1, label: "incx", msgs: 1})
		}
		if y < 7 {
			out = append(out, edge{to: s + 8, label: "incy", msgs: 1})
		}
		if x > 0 {
			out = append(out, edge{to: s - 1, label: "decx"})
		}
		if y > 0 {
			out = append(out, edge{to: s - 8, label: "decy"})
		}
		return append(out, edge{to: x + 8*y + 64*(1-z), label: "flip"})
	}}
}

func TestShrinkInvariant(t *testing.T) {
	res := simulate(t, grid(), Config{Runs: 200, Seed: 1, MaxSteps: 500})
	if res.Status != explorer.Violated || len(res.Violations) != 1 {
		t.Fatalf("status %v, %d violations; want one violation of good", res.Status, len(res.Violations))
	}
	v := res.Violations[0]
	got := explorer.Actions(v.Trace.Steps)
	want := []string{"incx", "incx", "incx", "incy", "incy", "incy"}
	if !slices.Equal(got, want) {
		t.Errorf("shrunk trace %v, want %v (found in run %d after %d steps, %d replays)", got, want, v.Run, v.Found, v.Replays)
	}
	if v.Found <= len(want) {
		t.Errorf("the run found it in %d steps: the test does not shrink anything", v.Found)
	}
	if v.Trace.Initial != -1 || len(v.Trace.InitialState) != 1 || v.Trace.Steps[5].State[0].Value != 27 {
		t.Errorf("trace %+v: want it from the drawn initial state (Initial -1) to state 27, every state described", v.Trace)
	}
	if p := res.Properties[0]; p.Name != "good" || !p.Checked || p.Runs != res.Ends.Violation || p.Runs == 0 {
		t.Errorf("property %+v; ends %+v", p, res.Ends)
	}
	// Without shrinking, the trace is the run's own.
	raw := simulate(t, grid(), Config{Runs: 200, Seed: 1, MaxSteps: 500, ShrinkSteps: -1})
	if n := len(raw.Violations[0].Trace.Steps); n != v.Found {
		t.Errorf("unshrunk trace of %d steps, want the %d of the run", n, v.Found)
	}
}

// The mutant of shrinking: a trace replayed by action index instead of
// label (an index means another transition once an earlier step is
// dropped) must not pass as a run that reaches the violation.
func TestShrunkTraceIsARun(t *testing.T) {
	m := grid()
	res := simulate(t, m, Config{Runs: 50, Seed: 9, MaxSteps: 500})
	for _, v := range res.Violations {
		if !reachesByLabels(t, m, v.Initial, v.Trace) {
			t.Errorf("the shrunk trace %v is not a run to a violation", explorer.Actions(v.Trace.Steps))
		}
	}
	// A trace with a step dropped and the indices kept is caught.
	v := res.Violations[0]
	broken := v.Trace
	broken.Steps = append(slices.Clone(broken.Steps[:2]), broken.Steps[3:]...)
	if reachesByLabels(t, m, v.Initial, broken) {
		t.Error("a trace with a step dropped passed as a run to the violation")
	}
}

// reachesByLabels replays t from init, each step by the first transition
// of its label, and reports whether every step is enabled and the last
// state violates the invariant.
func reachesByLabels(t *testing.T, m *graph, init []byte, tr explorer.Trace) bool {
	t.Helper()
	cur := dec(init)
	for _, st := range tr.Steps {
		next := -1
		for _, e := range m.next(cur) {
			if e.label == st.Action {
				next = e.to
				break
			}
		}
		if next < 0 {
			return false
		}
		cur = next
	}
	return m.bad(cur)
}

func TestShrinkDeadlock(t *testing.T) {
	// A cycle 0 → 1 → 2 → 0, with a way out of 2 to 9, a terminal state
	// that is not a valid end, and a valid end 8 out of 1.
	g := &graph{init: []int{0}, end: func(s int) bool { return s == 8 }, next: func(s int) []edge {
		switch s {
		case 0:
			return to(1)
		case 1:
			return to(2, 2, 2, 8)
		case 2:
			return to(0, 0, 0, 0, 0, 9)
		}
		return nil
	}}
	res := simulate(t, g, Config{Runs: 100, Seed: 2})
	if res.Ends.Deadlock == 0 || res.Ends.ValidEnd == 0 || res.Ends.Deadlock+res.Ends.ValidEnd != 100 {
		t.Fatalf("ends %+v", res.Ends)
	}
	if len(res.Violations) != 1 || res.Violations[0].Property != properties.DeadlockFreedom {
		t.Fatalf("violations %+v, want one of deadlock-freedom", res.Violations)
	}
	got := explorer.Actions(res.Violations[0].Trace.Steps)
	if want := []string{"0->1", "1->2", "2->9"}; !slices.Equal(got, want) {
		t.Errorf("shrunk trace %v, want %v", got, want)
	}
	// Unchecked, the deadlocks are counted and reported as nothing.
	res = simulate(t, g, Config{Runs: 100, Seed: 2, Properties: []string{"good"}})
	if len(res.Violations) != 0 || res.Ends.Deadlock == 0 || res.Properties[1].Checked {
		t.Errorf("deadlock-freedom not asked for: violations %v, ends %+v, %+v", res.Violations, res.Ends, res.Properties[1])
	}
}

func TestDeterministicAcrossWorkers(t *testing.T) {
	cfg := Config{Runs: 1000, Seed: 11, MaxSteps: 60, ShrinkSteps: 20000, Metrics: []string{"messages", "steps"}}
	var first *Result
	for _, w := range []int{1, 2, 4, 7} {
		cfg.Workers = w
		res := simulate(t, grid(), cfg)
		if first == nil {
			first = res
			continue
		}
		if !sameFigures(first, res) {
			t.Errorf("workers %d: %+v\nworkers 1: %+v", w, res, first)
		}
	}
	// Another seed gives other runs.
	cfg.Seed = 12
	if other := simulate(t, grid(), cfg); other.Steps == first.Steps && other.Ends == first.Ends {
		t.Errorf("seeds 11 and 12 gave the same runs: %+v", other.Ends)
	}
}

func TestEnds(t *testing.T) {
	cycle := func(s int) []edge { return to((s + 1) % 3) }
	t.Run("step cap", func(t *testing.T) {
		res := simulate(t, &graph{init: []int{0}, next: cycle}, Config{Runs: 10, MaxSteps: 7, Metrics: []string{"steps"}})
		if res.Ends != (Ends{StepCap: 10}) || res.Steps != 70 || res.Metrics[0].Runs != 0 {
			t.Errorf("ends %+v, steps %d, metric %+v: want 10 runs at the cap of 7 steps, none measured", res.Ends, res.Steps, res.Metrics[0])
		}
		if res.Status != explorer.Incomplete || !strings.Contains(res.Reason, "not a proof") {
			t.Errorf("status %v (%s): a simulation is never ok", res.Status, res.Reason)
		}
		if res.Distinct < 2.9 || res.Distinct > 3.1 {
			t.Errorf("distinct states %.2f, want about 3", res.Distinct)
		}
	})
	t.Run("bound", func(t *testing.T) {
		res := simulate(t, &graph{init: []int{0}, next: func(s int) []edge { return to(s + 1) }, bound: func(s int) bool { return s < 5 }}, Config{Runs: 4})
		if res.Ends != (Ends{Cut: 4}) || res.Steps != 20 {
			t.Errorf("ends %+v, steps %d: want 4 runs cut at state 5", res.Ends, res.Steps)
		}
	})
	t.Run("faults only is terminal", func(t *testing.T) {
		g := &graph{init: []int{0}, next: func(s int) []edge {
			if s == 0 {
				return []edge{{to: 1}, {to: 2, fault: true}}
			}
			if s == 1 {
				return []edge{{to: 2, fault: true}}
			}
			return nil
		}}
		res := simulate(t, g, Config{Runs: 1000, Seed: 5, Metrics: []string{"steps"}})
		// Half the runs crash at once (1 step, to 2), half step to 1 and
		// stop there: its only transition is a fault.
		if res.Ends.ValidEnd != 1000 || res.Metrics[0].Min != 1 || res.Metrics[0].Max != 1 {
			t.Errorf("ends %+v, steps %+v", res.Ends, res.Metrics[0])
		}
	})
	t.Run("model failure", func(t *testing.T) {
		g := &graph{init: []int{0}, next: func(s int) []edge { return to(s + 1) }, panic: func(s int) bool { return s == 2 }}
		res := simulate(t, g, Config{Runs: 3})
		if res.Status != explorer.Failed || res.Ends.Failed != 3 || res.Failure == nil || len(res.Failure.Trace.Steps) != 2 || !strings.Contains(res.Reason, "step from 2") {
			t.Errorf("status %v (%s), ends %+v, failure %+v", res.Status, res.Reason, res.Ends, res.Failure)
		}
	})
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{}, "Config.Runs 0: allowed: 1 to"},
		{Config{Runs: 1, MaxSteps: -1}, "Config.MaxSteps -1"},
		{Config{Runs: 1, Workers: 300}, "Config.Workers 300"},
		{Config{Runs: 1, Properties: []string{"goo"}}, `unknown property; a simulation checks good, deadlock-freedom`},
		{Config{Runs: 1, Metrics: []string{"sync-delay"}}, "not one figure per run"},
		{Config{Runs: 1, Metrics: []string{"mesages"}}, "unknown metric; allowed: messages, messages:TYPE"},
		{Config{Runs: 1, Metrics: []string{"steps", "steps"}}, "asked for twice"},
		{Config{Runs: 1, Metrics: []string{"time"}}, "cannot measure it"},
		{Config{Runs: 1, Metrics: []string{"messages:REQUEST"}}, "cannot count messages by type"},
		{Config{Runs: 1, ShrinkSteps: -2}, "Config.ShrinkSteps -2"},
	}
	for _, tt := range tests {
		_, err := Simulate(fan(), tt.cfg)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: got %v, want ErrConfig with %q", tt.cfg, err, tt.want)
		}
	}
}
