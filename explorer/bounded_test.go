package explorer_test

import (
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// boundedGraph is a graph whose model declares a bound (a Bounder worker):
// states at least limit are stored and checked but not expanded.
type boundedGraph struct {
	*graph
	limit int
}

func (g boundedGraph) NewWorker() explorer.Worker { return boundedWorker{graphWorker{g.graph}, g.limit} }

type boundedWorker struct {
	graphWorker
	limit int
}

func (w boundedWorker) InBound(b []byte) (bool, error) { return dec(b) < w.limit, nil }

// verdicts maps each property to its verdict.
func verdicts(r *explorer.Result) map[string]explorer.Verdict {
	out := map[string]explorer.Verdict{}
	for _, p := range r.Properties {
		out[p.Name] = p.Verdict
	}
	return out
}

// TestCutStatesMakeTheRunBounded: a search that cut states is never OK. It
// is Bounded, its invariants hold within the bound only, and
// deadlock-freedom is unknown (a terminal state may lie past the cut); a
// violation within the bound is still a violation; a bound that cuts
// nothing changes nothing.
func TestCutStatesMakeTheRunBounded(t *testing.T) {
	for _, cfg := range configs {
		// chain(2) from 0: every state s has successors s+1, s+2; the bound
		// 10 cuts 10 and 11.
		r := check(t, boundedGraph{chain(2), 10}, cfg)
		v := verdicts(r)
		if r.Status != explorer.Bounded || r.States != 12 || r.Cut != 2 || r.Terminal != 0 ||
			v["good"] != explorer.HoldsWithinBound || v[properties.DeadlockFreedom] != explorer.Unknown {
			t.Errorf("%v/%d: %v, %d states, %d cut, %d terminal, verdicts %v; want bounded, 12, 2, 0, good holds-within-bound, deadlock unknown",
				cfg.Strategy, cfg.Workers, r.Status, r.States, r.Cut, r.Terminal, v)
		}
		if r.Status.String() != "bounded" || explorer.HoldsWithinBound.String() != "holds-within-bound" {
			t.Errorf("names: %q, %q", r.Status, explorer.HoldsWithinBound)
		}
		// A violation found within the bound is Violated.
		g := chain(2)
		g.bad = func(s int) bool { return s == 7 }
		r = check(t, boundedGraph{g, 10}, cfg)
		if r.Status != explorer.Violated || verdicts(r)["good"] != explorer.ViolatedVerdict {
			t.Errorf("%v/%d: a violation within the bound: %v %v", cfg.Strategy, cfg.Workers, r.Status, verdicts(r))
		}
		// A deadlock found within the bound is Violated too.
		g = &graph{init: []int{0}, next: edges(map[int][]int{0: {1, 20}, 20: {21}, 21: {22}}), end: func(int) bool { return false }}
		r = check(t, boundedGraph{g, 20}, cfg)
		if r.Status != explorer.Violated || r.Cut != 1 || verdicts(r)[properties.DeadlockFreedom] != explorer.ViolatedVerdict || verdicts(r)["good"] != explorer.Unknown {
			t.Errorf("%v/%d: a deadlock within the bound: %v, %d cut, %v", cfg.Strategy, cfg.Workers, r.Status, r.Cut, verdicts(r))
		}
		// A bound nothing reaches: OK, holds.
		g = &graph{init: []int{0}, next: edges(map[int][]int{0: {1, 2}, 1: {2}})}
		r = check(t, boundedGraph{g, 100}, cfg)
		if r.Status != explorer.OK || r.Cut != 0 || verdicts(r)["good"] != explorer.Holds || verdicts(r)[properties.DeadlockFreedom] != explorer.Holds {
			t.Errorf("%v/%d: a bound that cuts nothing: %v, %d cut, %v", cfg.Strategy, cfg.Workers, r.Status, r.Cut, verdicts(r))
		}
	}
}
