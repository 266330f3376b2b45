package explorer_test

import (
	"errors"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// TestShardPartitionsTheInitialStates: the K parts take every index once,
// in round-robin, and Global maps a part's local index back.
func TestShardPartitionsTheInitialStates(t *testing.T) {
	for n := 0; n <= 11; n++ {
		for K := 1; K <= 5; K++ {
			owner := make([]int, n)
			for i := range owner {
				owner[i] = -1
			}
			for k := range K {
				sh := explorer.Shard{Index: k, Count: K}
				local := 0
				for i := range n {
					if !sh.Has(i) {
						continue
					}
					if owner[i] >= 0 {
						t.Fatalf("n=%d K=%d: index %d in parts %d and %d", n, K, i, owner[i], k)
					}
					owner[i] = k
					if g := sh.Global(local); g != i {
						t.Errorf("n=%d K=%d part %d: Global(%d) = %d, want %d", n, K, k, local, g, i)
					}
					local++
				}
			}
			for i, k := range owner {
				if k != i%K {
					t.Errorf("n=%d K=%d: index %d in part %d, want %d", n, K, i, k, i%K)
				}
			}
		}
	}
}

// TestShardsOfDisjointComponentsAddUp: initial states 0, 10, 20, 30 each
// start a chain of their own; the parts' counts add up to the whole's, and
// a counterexample names the initial state by its index in the whole
// enumeration.
func TestShardsOfDisjointComponentsAddUp(t *testing.T) {
	g := &graph{
		init: []int{0, 10, 20, 30},
		next: func(s int) []int {
			if s%10 < 4 {
				return []int{s + 1}
			}
			return nil
		},
		bad: func(s int) bool { return s == 33 },
	}
	whole := check(t, g, explorer.Config{Workers: 2, Continue: true})
	var states, trans int64
	for k := range 3 {
		for _, w := range []int{1, 3} {
			var expanded int64
			cfg := explorer.Config{Workers: w, Continue: true, Shard: explorer.Shard{Index: k, Count: 3},
				OnExpand: func(x explorer.ExpandInfo) error {
					if x.Fingerprint != explorer.Fingerprint(x.State) {
						t.Errorf("OnExpand: the fingerprint is not the state's")
					}
					expanded++
					return nil
				}}
			if w > 1 {
				cfg.OnExpand = nil // called from several goroutines
			}
			r := check(t, g, cfg)
			if w == 1 && expanded != r.States {
				t.Errorf("part %d: OnExpand called %d times for %d states", k, expanded, r.States)
			}
			if w == 3 {
				continue
			}
			states += r.States
			trans += r.Transitions
			if k == 0 {
				// Initial states 0 and 30 (indices 0 and 3): 33 is bad.
				if r.Status != explorer.Violated || r.Violations[0].Trace.Initial != 3 {
					t.Fatalf("part 0: %v %+v, want the violation from initial state index 3", r.Status, r.Violations)
				}
			} else if r.Status != explorer.OK {
				t.Errorf("part %d: %v", k, r.Status)
			}
		}
	}
	if states != whole.States || trans != whole.Transitions {
		t.Errorf("parts: %d states, %d transitions; whole: %d, %d", states, trans, whole.States, whole.Transitions)
	}
}

// TestOnExpandErrorFailsTheSearch: an error of the hook is a model failure
// at the state, with its trace.
func TestOnExpandErrorFailsTheSearch(t *testing.T) {
	g := chain(1)
	boom := errors.New("boom")
	r := check(t, g, explorer.Config{Workers: 1, OnExpand: func(x explorer.ExpandInfo) error {
		if x.Depth == 2 {
			return boom
		}
		return nil
	}})
	if r.Status != explorer.Failed || !errors.Is(r.Err, boom) || r.Failure == nil || len(r.Failure.Steps) != 2 {
		t.Fatalf("status %v, err %v, failure %+v; want failed at depth 2", r.Status, r.Err, r.Failure)
	}
}

// TestShardRefusals: a part is a BFS without symmetry or partial-order
// reduction, and its index lies in 0..K-1.
func TestShardRefusals(t *testing.T) {
	g := chain(1)
	sh := explorer.Shard{Index: 1, Count: 2}
	for name, cfg := range map[string]explorer.Config{
		"dfs":      {Strategy: explorer.DFS, Shard: sh},
		"por":      {Reduction: explorer.PartialOrder, Shard: sh},
		"symmetry": {Symmetry: true, Shard: sh},
		"index":    {Shard: explorer.Shard{Index: 2, Count: 2}},
		"negative": {Shard: explorer.Shard{Index: -1, Count: 2}},
		"hook dfs": {Strategy: explorer.DFS, OnExpand: func(explorer.ExpandInfo) error { return nil }},
	} {
		_, err := explorer.Check(g, cfg)
		var ce *explorer.ConfigError
		if !errors.As(err, &ce) || (ce.Field != "Shard" && ce.Field != "OnExpand") {
			t.Errorf("%s: err %v, want a ConfigError of Shard", name, err)
		}
	}
}
