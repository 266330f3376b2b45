package automatontest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// Check checks m with cfg and returns the result, whatever its verdict,
// for the test to read. It fails the test when the search cannot run (a
// configuration the explorer refuses) or when the model itself fails (a
// step that panics or returns an error: Status Failed), printing the path
// to the failing state:
//
//	r := automatontest.Check(t, sys, explorer.Config{Properties: []string{"uniqueness"}})
//	if r.Status != explorer.Violated { t.Errorf(...) }
func Check(t testing.TB, m explorer.Model, cfg explorer.Config) *explorer.Result {
	t.Helper()
	r, err := explorer.Check(m, cfg)
	if err != nil {
		t.Fatalf("vacheck: %v", err)
		return nil
	}
	if r.Status == explorer.Failed {
		t.Fatalf("vacheck: the model failed: %s\n%s", r.Reason, story(t, m, r))
	}
	return r
}

// strategies are the searches CheckStrategies runs: breadth first on one
// worker and on two, and depth first.
var strategies = []struct {
	name     string
	strategy explorer.Strategy
	workers  int
}{
	{"bfs/1", explorer.BFS, 1},
	{"bfs/2", explorer.BFS, 2},
	{"dfs", explorer.DFS, 1},
}

// CheckStrategies checks m with cfg three times, breadth first on one
// worker, breadth first on two and depth first (cfg's own Strategy and
// Workers are replaced), and fails the test unless the three searches
// agree on what Figures writes: the status, the violated properties and,
// when they explored the whole state space (Result.Exhaustive), the
// distinct states, the transitions, the terminal states and the states
// cut at the model's bound. A search that stopped at its first
// counterexample (without cfg.Continue) is compared on its status alone,
// since where it stopped depends on the order. Metrics and liveness are
// analyses of the state graph (which depth-first search has a second,
// breadth-first search build), so the first search alone computes the
// metrics of cfg and checks its liveness properties; the other two check
// the rest and are compared with it on their counts. The three searches
// test the model's successors in three orders, not the explorer's graph
// analyses three times. Exact counts are the
// same for every strategy and worker count, so a difference is a bug in
// the model (a step that depends on more than its state) or in the
// explorer. Under partial-order reduction the counts may depend on the
// strategy; CheckStrategies then fails where they do.
//
// It returns the result of the first search, for the test to pin:
//
//	r := automatontest.CheckStrategies(t, sys, explorer.Config{})
//	if r.States != 1234 { t.Errorf(...) }
func CheckStrategies(t testing.TB, m explorer.Model, cfg explorer.Config) *explorer.Result {
	t.Helper()
	var first *explorer.Result
	var want string
	safety, dropped := withoutLiveness(m, cfg.Properties)
	for i, s := range strategies {
		cfg.Strategy, cfg.Workers = s.strategy, s.workers
		if i > 0 {
			cfg.Metrics, cfg.Properties = nil, safety
		}
		r := Check(t, m, cfg)
		if r == nil {
			return nil
		}
		got, _, _ := strings.Cut(Figures(r), "\n") // the metrics are on the lines after
		if !cfg.Continue && !r.Exhaustive {
			// A search that stopped at its first counterexample: which
			// properties it found violated there, and after how many
			// states, depends on the order.
			got = r.Status.String()
		}
		if i == 0 {
			first, want = r, got
			continue
		}
		if dropped {
			// The verdicts on liveness are the first search's; the counts
			// must agree.
			_, got, _ = strings.Cut(got, ": ")
			if _, w, _ := strings.Cut(want, ": "); got == w {
				continue
			}
		}
		if got != want {
			t.Errorf("vacheck: %s and %s disagree:\n%s: %s\n%s: %s", strategies[0].name, s.name,
				strategies[0].name, want, s.name, got)
		}
	}
	return first
}

// Figures writes what a result says that does not depend on the search
// order: the status, the violated properties (sorted), and for a search
// that explored the whole state space the counts and each metric's range,
// one item a line, as in
//
//	ok: 39 states, 76 transitions, 1 terminal
//	messages: 5..5
//
// A bounded search adds the states cut at the bound ("12 cut"); a metric
// with a reachable cycle that adds to it reads "5..unbounded", and one
// with no complete execution (no terminal state) says so.
func Figures(r *explorer.Result) string {
	var b strings.Builder
	b.WriteString(r.Status.String())
	var violated []string
	for _, v := range r.Violations {
		violated = append(violated, v.Property)
	}
	slices.Sort(violated)
	if violated = slices.Compact(violated); len(violated) > 0 {
		fmt.Fprintf(&b, " %s", strings.Join(violated, ", "))
	}
	if !r.Exhaustive {
		return b.String()
	}
	fmt.Fprintf(&b, ": %d states, %d transitions, %d terminal", r.States, r.Transitions, r.Terminal)
	if r.Cut > 0 {
		fmt.Fprintf(&b, ", %d cut", r.Cut)
	}
	for _, mt := range r.Metrics {
		switch {
		case !mt.Executions && mt.Unbounded:
			fmt.Fprintf(&b, "\n%s: unbounded, no complete execution", mt.Name)
		case !mt.Executions:
			fmt.Fprintf(&b, "\n%s: no complete execution", mt.Name)
		case mt.Unbounded:
			fmt.Fprintf(&b, "\n%s: %d..unbounded", mt.Name, mt.Min)
		default:
			fmt.Fprintf(&b, "\n%s: %d..%d", mt.Name, mt.Min, mt.Max)
		}
	}
	return b.String()
}

// withoutLiveness returns props (every property of m when nil) without
// m's liveness properties, and whether there were any.
func withoutLiveness(m explorer.Model, props []string) ([]string, bool) {
	lm, ok := m.(explorer.LiveModel)
	if !ok {
		return props, false
	}
	if props == nil {
		props = []string{properties.DeadlockFreedom}
		for _, p := range m.Properties() {
			props = append(props, p.Name)
		}
		return props, len(lm.Liveness()) > 0
	}
	safety := slices.DeleteFunc(slices.Clone(props), func(name string) bool {
		return slices.ContainsFunc(lm.Liveness(), func(p explorer.LiveProperty) bool { return p.Name == name })
	})
	return safety, len(safety) < len(props)
}
