package explorer_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// checkedGraph is a graph whose property may be an assertion (a state that
// breaks it is not expanded), whose check may fail, which may bound its
// states (a state outside the bound is stored but not expanded), and whose
// workers, when expand is set, are explorer.CheckExpanders: the
// breadth-first search then checks each state when it expands it instead
// of when it stores it, unless the states are bounded.
type checkedGraph struct {
	*graph
	assert    bool
	checkFail func(s int) bool // Check returns an error here
	cut       func(s int) bool // outside the bound
	expand    bool
}

func (g *checkedGraph) Properties() []properties.Info {
	p := g.graph.Properties()
	if g.assert {
		p[0].Kind = properties.Assertion
	}
	return p
}

func (g *checkedGraph) NewWorker() explorer.Worker {
	w := checkedWorker{graphWorker{g.graph}, g}
	if g.expand {
		return checkExpandWorker{w}
	}
	return w
}

type checkedWorker struct {
	graphWorker
	g *checkedGraph
}

func (w checkedWorker) Check(b []byte, want uint64) (int, error) {
	if s := dec(b); w.g.checkFail != nil && w.g.checkFail(s) {
		return -1, fmt.Errorf("the check of state %d failed", s)
	}
	return w.graphWorker.Check(b, want)
}

func (w checkedWorker) InBound(b []byte) (bool, error) {
	return w.g.cut == nil || !w.g.cut(dec(b)), nil
}

type checkExpandWorker struct{ checkedWorker }

func (w checkExpandWorker) Bounded() bool { return w.g.cut != nil }

func (w checkExpandWorker) CheckExpand(b []byte, want, stop uint64, emit func(explorer.Transition, []byte)) (p int, checkErr error, n int, err error) {
	if p, checkErr = w.Check(b, want); checkErr != nil || p >= 0 && stop&(1<<uint(p)) != 0 {
		return p, checkErr, 0, nil
	}
	n, err = w.Successors(b, emit)
	return p, nil, n, err
}

// TestDeferredChecksChangeNothing runs random graphs with bad states,
// assertions, failing checks, panicking steps, invalid end states, a bound
// and limits, breadth first on 1 to 3 workers, once checking each state when
// it is stored and once when it is expanded (CheckExpander): every figure,
// verdict, counterexample and failure must be the same (but for the
// transitions of a failed search, as between worker counts).
func TestDeferredChecksChangeNothing(t *testing.T) {
	for seed := uint64(1); seed <= 120; seed++ {
		rng := rand.New(rand.NewPCG(seed, 23))
		n := 10 + rng.IntN(200)
		adj := randomEdges(rng, n, 5)
		bad, badEnd, boom, failing, cut := map[int]bool{}, map[int]bool{}, map[int]bool{}, map[int]bool{}, map[int]bool{}
		for k := rng.IntN(4); k > 0; k-- {
			bad[rng.IntN(n)] = true
		}
		for s := 0; s < n; s++ {
			if len(adj[s]) == 0 && rng.IntN(3) == 0 {
				badEnd[s] = true
			}
		}
		if seed%7 == 0 {
			boom[1+rng.IntN(n-1)] = true
		}
		if seed%5 == 0 {
			failing[rng.IntN(n)] = true
		}
		if seed%8 == 0 {
			for k := 1 + rng.IntN(n/4); k > 0; k-- {
				cut[rng.IntN(n)] = true
			}
		}
		g := &graph{init: []int{0, rng.IntN(n)}, next: edges(adj),
			bad:   func(s int) bool { return bad[s] },
			end:   func(s int) bool { return !badEnd[s] },
			panic: func(s int) bool { return boom[s] }}
		cfg := explorer.Config{Continue: seed%4 < 2}
		switch seed % 3 {
		case 1:
			cfg.MaxStates = int64(1 + rng.IntN(n))
		case 2:
			cfg.MaxDepth = 1 + rng.IntN(6)
		}
		assert := seed%6 < 3
		for _, w := range []int{1, 2, 3} {
			cfg.Workers = w
			var got [2]*explorer.Result
			for k, expand := range []bool{false, true} {
				m := &checkedGraph{graph: g, assert: assert, checkFail: func(s int) bool { return failing[s] },
					cut: func(s int) bool { return cut[s] }, expand: expand}
				got[k] = check(t, m, cfg)
			}
			a, b := got[0], got[1]
			// A worker that fails stops expanding its part of the level while
			// the others go on, and the parts differ when the level holds
			// states that break an assertion (stored, then, to be checked):
			// a failed search's transitions and terminal states depend on them.
			failed := a.Status == explorer.Failed && b.Status == explorer.Failed
			if a.Status != b.Status || a.States != b.States || a.Cut != b.Cut || a.Depth != b.Depth || a.Reason != b.Reason ||
				!failed && (a.Transitions != b.Transitions || a.Terminal != b.Terminal) {
				t.Fatalf("seed %d, %d workers: checked when stored %v %d states %d transitions %d terminal depth %d %q; when expanded %v %d %d %d depth %d %q",
					seed, w, a.Status, a.States, a.Transitions, a.Terminal, a.Depth, a.Reason,
					b.Status, b.States, b.Transitions, b.Terminal, b.Depth, b.Reason)
			}
			if fmt.Sprint(a.Violations) != fmt.Sprint(b.Violations) || fmt.Sprint(a.Failure) != fmt.Sprint(b.Failure) ||
				fmt.Sprint(a.Properties) != fmt.Sprint(b.Properties) {
				t.Fatalf("seed %d, %d workers: checked when stored %v / %v / %v; when expanded %v / %v / %v",
					seed, w, a.Properties, a.Violations, a.Failure, b.Properties, b.Violations, b.Failure)
			}
		}
	}
}
