package explorer_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// liveGraph is a synthetic model with fairness tasks and one liveness
// property, to test the liveness engine alone. Edge a of state s is
// edges[s][a]: a target, the task taking it and the messages it sends.
type liveGraph struct {
	init  []int
	edges map[int][]edge
	goal  func(s int) bool
	when  func(s int) bool // nil: eventually goal
	term  bool             // the property is termination
}

type edge struct{ to, task, msgs int }

func (g *liveGraph) Initial() ([][]byte, error) {
	var out [][]byte
	for _, s := range g.init {
		out = append(out, enc(s))
	}
	return out, nil
}
func (g *liveGraph) Properties() []properties.Info { return nil }
func (g *liveGraph) NewWorker() explorer.Worker    { return liveWorker{g} }
func (g *liveGraph) Tasks() []string               { return []string{"t0", "t1", "t2", "t3"} }
func (g *liveGraph) Liveness() []explorer.LiveProperty {
	p := explorer.LiveProperty{Info: properties.Info{Name: "goal", Kind: properties.Eventually}, Instances: 1, LeadsTo: g.when != nil}
	if g.term {
		p.Info = properties.Info{Name: properties.Termination, Kind: properties.Terminates}
	}
	return []explorer.LiveProperty{p}
}
func (g *liveGraph) Describe(b []byte) ([]explorer.Var, error) {
	return []explorer.Var{{Name: "s", Value: dec(b)}}, nil
}
func (g *liveGraph) Label(b []byte, a int) (string, error) {
	s := dec(b)
	return fmt.Sprintf("%d->%d", s, g.edges[s][a].to), nil
}

type liveWorker struct{ g *liveGraph }

func (w liveWorker) Successors(b []byte, emit func(explorer.Transition, []byte)) (int, error) {
	es := w.g.edges[dec(b)]
	for _, e := range es {
		emit(explorer.Transition{Task: int32(e.task), Messages: int32(e.msgs), Fault: e.task < 0}, enc(e.to))
	}
	return len(es), nil
}
func (w liveWorker) Check([]byte, uint64) (int, error) { return -1, nil }
func (w liveWorker) ValidEnd([]byte) (bool, error)     { return true, nil }
func (w liveWorker) Live(b []byte, _, _ int) (bool, bool, error) {
	s := dec(b)
	when := w.g.when != nil && w.g.when(s)
	return when, w.g.goal(s), nil
}

func is(states ...int) func(int) bool {
	return func(s int) bool { return slices.Contains(states, s) }
}

func TestLivenessUnderFairness(t *testing.T) {
	tests := []struct {
		name      string
		g         *liveGraph
		fairness  explorer.Fairness
		violated  bool
		prefix    []string
		cycle     []string
		cycleTask []string
	}{
		{
			// State 0 loops on task t0 while t1 (to the goal) stays enabled:
			// weak fairness forces t1.
			name: "cycle that weak fairness excludes",
			g: &liveGraph{init: []int{0}, goal: is(1), edges: map[int][]edge{
				0: {{0, 0, 0}, {1, 1, 0}}, 1: {{1, 0, 0}},
			}},
			fairness: explorer.Weak,
		},
		{
			name: "the same cycle without fairness",
			g: &liveGraph{init: []int{0}, goal: is(1), edges: map[int][]edge{
				0: {{0, 0, 0}, {1, 1, 0}}, 1: {{1, 0, 0}},
			}},
			fairness: explorer.NoFairness, violated: true, cycle: []string{"0->0"}, cycleTask: []string{"t0"},
		},
		{
			// 0 <-> 2 on t0; t1 (to the goal) is enabled only at 0, so it is
			// not continuously enabled: weakly fair, strongly unfair.
			name: "cycle that weak fairness allows",
			g: &liveGraph{init: []int{0}, goal: is(1), edges: map[int][]edge{
				0: {{2, 0, 0}, {1, 1, 0}}, 2: {{0, 0, 0}}, 1: {{1, 0, 0}},
			}},
			fairness: explorer.Weak, violated: true, cycle: []string{"0->2", "2->0"}, cycleTask: []string{"t0"},
		},
		{
			name: "the same cycle under strong fairness",
			g: &liveGraph{init: []int{0}, goal: is(1), edges: map[int][]edge{
				0: {{2, 0, 0}, {1, 1, 0}}, 2: {{0, 0, 0}}, 1: {{1, 0, 0}},
			}},
			fairness: explorer.Strong,
		},
		{
			name:     "self-loop away from the goal",
			g:        &liveGraph{init: []int{0}, goal: is(9), edges: map[int][]edge{0: {{1, 0, 0}}, 1: {{1, 2, 0}}}},
			fairness: explorer.Weak, violated: true, prefix: []string{"0->1"}, cycle: []string{"1->1"}, cycleTask: []string{"t2"},
		},
		{
			// The cycle {0,1} keeps t2 enabled without taking it: unfair. It
			// leads to {2,3}, whose cycle keeps t1 (to the goal at 4) enabled
			// everywhere: unfair too; and to the fair cycle {5,6} that never
			// meets the goal.
			name: "nested components",
			g: &liveGraph{init: []int{0}, goal: is(4), edges: map[int][]edge{
				0: {{1, 0, 0}, {2, 2, 0}}, 1: {{0, 0, 0}, {2, 2, 0}, {5, 3, 0}},
				2: {{3, 0, 0}, {4, 1, 0}}, 3: {{2, 0, 0}, {4, 1, 0}},
				5: {{6, 0, 0}}, 6: {{5, 0, 0}},
				4: {{4, 0, 0}},
			}},
			fairness: explorer.Weak, violated: true, prefix: []string{"0->1", "1->5"}, cycle: []string{"5->6", "6->5"}, cycleTask: []string{"t0"},
		},
		{
			name: "nested components, no escape",
			g: &liveGraph{init: []int{0}, goal: is(4), edges: map[int][]edge{
				0: {{1, 0, 0}, {2, 2, 0}}, 1: {{0, 0, 0}, {2, 2, 0}},
				2: {{3, 0, 0}, {4, 1, 0}}, 3: {{2, 0, 0}, {4, 1, 0}},
				4: {{4, 0, 0}},
			}},
			fairness: explorer.Weak,
		},
		{
			name:     "terminal state that misses the goal",
			g:        &liveGraph{init: []int{0}, goal: is(2), edges: map[int][]edge{0: {{1, 0, 0}, {2, 0, 0}}}},
			fairness: explorer.Weak, violated: true, prefix: []string{"0->1"},
		},
		{
			name:     "a fault alone does not keep a state from being terminal",
			g:        &liveGraph{init: []int{0}, goal: is(2), edges: map[int][]edge{0: {{1, 0, 0}}, 1: {{2, -1, 0}}}},
			fairness: explorer.Weak, violated: true, prefix: []string{"0->1"},
		},
		{
			// 3 leads to the goal 4 only; 1 can loop for ever, but 1 is not a
			// trigger state.
			name: "leads-to",
			g: &liveGraph{init: []int{0}, goal: is(4), when: is(3), edges: map[int][]edge{
				0: {{1, 0, 0}, {3, 0, 0}}, 1: {{1, 0, 0}}, 3: {{4, 1, 0}}, 4: {{4, 0, 0}},
			}},
			fairness: explorer.Weak,
		},
		{
			name: "leads-to violated after the trigger",
			g: &liveGraph{init: []int{0}, goal: is(4), when: is(1), edges: map[int][]edge{
				0: {{1, 0, 0}, {3, 0, 0}}, 1: {{1, 0, 0}}, 3: {{4, 1, 0}}, 4: {{4, 0, 0}},
			}},
			fairness: explorer.Weak, violated: true, prefix: []string{"0->1"}, cycle: []string{"1->1"}, cycleTask: []string{"t0"},
		},
		{
			name:     "termination: every fair run ends in a goal state",
			g:        &liveGraph{init: []int{0}, goal: is(2), term: true, edges: map[int][]edge{0: {{1, 0, 0}}, 1: {{2, 1, 0}}}},
			fairness: explorer.Weak,
		},
		{
			// {0,1} keeps t1 enabled without taking it (unfair); the self-loop
			// at 2 is fair and never ends.
			name:     "termination: a fair cycle never ends",
			g:        &liveGraph{init: []int{0}, goal: is(2), term: true, edges: map[int][]edge{0: {{1, 0, 0}, {2, 1, 0}}, 1: {{0, 0, 0}, {2, 1, 0}}, 2: {{2, 1, 0}}}},
			fairness: explorer.Weak, violated: true, cycle: []string{"2->2"}, prefix: []string{"0->2"}, cycleTask: []string{"t1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := explorer.Check(tt.g, explorer.Config{Fairness: tt.fairness})
			if err != nil {
				t.Fatal(err)
			}
			if !tt.violated {
				if r.Status != explorer.OK {
					t.Fatalf("status %v %+v, want ok", r.Status, r.Violations)
				}
				return
			}
			if r.Status != explorer.Violated || len(r.Violations) != 1 {
				t.Fatalf("status %v, %d violations; want one", r.Status, len(r.Violations))
			}
			tr := r.Violations[0].Trace
			if got := explorer.Actions(tr.Steps); !slices.Equal(got, tt.prefix) {
				t.Errorf("prefix %v, want %v", got, tt.prefix)
			}
			if got := explorer.Actions(tr.Cycle); !slices.Equal(got, tt.cycle) {
				t.Errorf("cycle %v, want %v", got, tt.cycle)
			}
			if !slices.Equal(tr.CycleTasks, tt.cycleTask) {
				t.Errorf("cycle tasks %v, want %v", tr.CycleTasks, tt.cycleTask)
			}
		})
	}
}

func TestMetrics(t *testing.T) {
	// Two ways from 0 to the terminal state 3: via 1 (1+2 messages) or via
	// 2 (4+0), and a zero-message cycle 1 <-> 4 that does not change the
	// bounds.
	g := &liveGraph{init: []int{0}, goal: is(3), edges: map[int][]edge{
		0: {{1, 0, 1}, {2, 0, 4}}, 1: {{3, 0, 2}, {4, 0, 0}}, 4: {{1, 0, 0}}, 2: {{3, 0, 0}},
	}}
	r, err := explorer.Check(g, explorer.Config{Metrics: []string{"messages", "steps"}, Properties: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Metrics) != 2 {
		t.Fatalf("%d metrics", len(r.Metrics))
	}
	m := r.Metrics[0]
	if m.Min != 3 || m.Max != 4 || m.Unbounded {
		t.Errorf("messages: min %d max %d unbounded %v; want 3, 4, bounded", m.Min, m.Max, m.Unbounded)
	}
	if got := explorer.Actions(m.MinWitness.Steps); !slices.Equal(got, []string{"0->1", "1->3"}) {
		t.Errorf("min witness %v", got)
	}
	if got := explorer.Actions(m.MaxWitness.Steps); !slices.Equal(got, []string{"0->2", "2->3"}) {
		t.Errorf("max witness %v", got)
	}
	if s := r.Metrics[1]; !s.Unbounded || s.Min != 2 {
		t.Errorf("steps: min %d unbounded %v; want 2 and unbounded (the cycle 1 <-> 4 takes steps)", s.Min, s.Unbounded)
	} else if got := explorer.Actions(s.MaxWitness.Cycle); !slices.Equal(got, []string{"1->4", "4->1"}) {
		t.Errorf("steps: unbounded witness cycle %v", got)
	}
}
