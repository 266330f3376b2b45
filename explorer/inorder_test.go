package explorer_test

import (
	"sync"
	"testing"
	"time"

	"github.com/vacheck/vacheck/explorer"
)

// withInOrder is a graph that offers ord as its in-order model.
type withInOrder struct {
	*graph
	ord explorer.Model
}

func (m withInOrder) InOrder() (explorer.Model, bool) { return m.ord, true }

// TestInOrderSearchIsTimedAndReported: the search for a counterexample
// without overtaking is part of the run: its time is in Elapsed, and it
// reports progress in its own phase, with the time since the run began
// and how far it is. The graph's shortest counterexample 0→1→3 takes the
// step 0→1, which its in-order model lacks; that model's counterexample
// 0→2→4 is the one shown. The in-order model's 201 states of level 1 take
// 1 ms each to expand: at least 201 ms, which the run's Elapsed left out
// before (and no progress was reported meanwhile).
func TestInOrderSearchIsTimedAndReported(t *testing.T) {
	const wide = 200
	next := func(skip01 bool) func(int) []int {
		return func(s int) []int {
			switch s {
			case 0:
				out := []int{1, 2}
				if skip01 {
					out = out[1:]
				}
				for k := range wide {
					out = append(out, 10+k)
				}
				return out
			case 1:
				return []int{3}
			case 2:
				return []int{4}
			}
			return nil
		}
	}
	bad := func(s int) bool { return s == 3 || s == 4 }
	m := withInOrder{
		graph: &graph{init: []int{0}, next: next(false), bad: bad},
		ord:   slowGraph{&graph{init: []int{0}, next: next(true), bad: bad}},
	}
	var mu sync.Mutex
	var seen []explorer.Progress
	cfg := explorer.Config{Workers: 1, ProgressEvery: time.Millisecond, Progress: func(p explorer.Progress) {
		mu.Lock()
		seen = append(seen, p)
		mu.Unlock()
	}}
	r := check(t, m, cfg)
	if r.Status != explorer.Violated || len(r.Violations) != 1 {
		t.Fatalf("%v, %d violations; want the one violation", r.Status, len(r.Violations))
	}
	var labels []string
	for _, st := range r.Violations[0].Trace.Steps {
		labels = append(labels, st.Action)
	}
	if len(labels) != 2 || labels[0] != "0->2" || labels[1] != "2->4" {
		t.Errorf("counterexample %v, want the in-order one [0->2 2->4]", labels)
	}
	if r.Elapsed < wide*time.Millisecond {
		t.Errorf("Elapsed %s leaves out the in-order search, which took at least %s", r.Elapsed, wide*time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	found := false
	for _, p := range seen {
		if p.Phase != explorer.FindingInOrder {
			continue
		}
		found = true
		if p.InOrder == nil || p.States != r.States || p.InOrder.MaxDepth != 2 || p.Elapsed < p.InOrder.Elapsed || p.Elapsed > r.Elapsed {
			t.Fatalf("progress in the in-order search: %+v (in order: %+v); want the run's %d states, the in-order search's to depth 2, the time since the run began", p, p.InOrder, r.States)
		}
	}
	if !found {
		t.Errorf("no progress reported while looking for the in-order counterexample (%d reports)", len(seen))
	}
}
