package explorer_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
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
	// keyed: the workers are KeyedExpanders whose keys are unique (1) or
	// share few slots of the table of recent keys (2).
	keyed int
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
func (g *liveGraph) NewWorker() explorer.Worker {
	if g.keyed > 0 {
		return keyedLiveWorker{liveWorker{g}}
	}
	return liveWorker{g}
}
func (g *liveGraph) Tasks() []string { return []string{"t0", "t1", "t2", "t3"} }
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

func (w liveWorker) Expand(b []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	return explorer.ExpandBySuccessors(w, b, x)
}

// keyedLiveWorker offers each successor's key before it builds it.
type keyedLiveWorker struct{ liveWorker }

func (w keyedLiveWorker) Expand(b []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	if x.Offer == nil {
		return w.liveWorker.Expand(b, x)
	}
	es := w.g.edges[dec(b)]
	for a, e := range es {
		t := explorer.Transition{Task: int32(e.task), Messages: int32(e.msgs), Action: uint32(a), Fault: e.task < 0}
		key := uint64(e.to) * 0x9e3779b97f4a7c15
		if w.g.keyed == 2 {
			key = uint64(e.to)<<12 | uint64(e.to%2)
		}
		if x.Offer(t, key) {
			x.Emit(t, enc(e.to))
		}
	}
	return explorer.Expanded{Expanded: true, Enabled: len(es), All: true}, nil
}

func (w liveWorker) Check([]byte, uint64) (uint64, error) { return 0, nil }
func (w liveWorker) ValidEnd([]byte) (bool, error)        { return true, nil }
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
			// 0 is terminal and meets the goal, but a fault leads on from it
			// to 1 and the terminal state 2, which misses it: an execution
			// that ends at 0 ends well, the one that goes on does not.
			name:     "termination: a fault out of a state that ends well",
			g:        &liveGraph{init: []int{0}, goal: is(0, 3), term: true, edges: map[int][]edge{0: {{1, -1, 0}}, 1: {{2, 0, 0}}}},
			fairness: explorer.Weak, violated: true, prefix: []string{"0->1", "1->2"},
		},
		{
			name:     "termination: a fault out of a state that ends well, to one that ends well",
			g:        &liveGraph{init: []int{0}, goal: is(0, 3), term: true, edges: map[int][]edge{0: {{1, -1, 0}}, 1: {{3, 0, 0}}}},
			fairness: explorer.Weak,
		},
		{
			// An execution takes finitely many faults: crash and recovery for
			// ever between two states that end well is no counterexample,
			// nor is a cycle that needs a fault to close, nor a fault
			// self-loop.
			name:     "termination: a cycle of faults between states that end well",
			g:        &liveGraph{init: []int{0}, goal: is(0, 1), term: true, edges: map[int][]edge{0: {{1, -1, 0}}, 1: {{0, -1, 0}}}},
			fairness: explorer.Weak,
		},
		{
			name:     "termination: a cycle closed by a fault",
			g:        &liveGraph{init: []int{0}, goal: is(0), term: true, edges: map[int][]edge{0: {{1, -1, 0}}, 1: {{0, 0, 0}}}},
			fairness: explorer.NoFairness,
		},
		{
			name:     "termination: a fault self-loop at a state that ends well",
			g:        &liveGraph{init: []int{0}, goal: is(0), term: true, edges: map[int][]edge{0: {{0, -1, 0}}}},
			fairness: explorer.Strong,
		},
		{
			// After the fault, the tasks cycle for ever without a fault.
			name:     "termination: a fair cycle after a fault out of a state that ends well",
			g:        &liveGraph{init: []int{0}, goal: is(0), term: true, edges: map[int][]edge{0: {{1, -1, 0}}, 1: {{2, 0, 0}, {0, -1, 0}}, 2: {{1, 0, 0}}}},
			fairness: explorer.Weak, violated: true, prefix: []string{"0->1"}, cycle: []string{"1->2", "2->1"}, cycleTask: []string{"t0"},
		},
		{
			// {0,1} keeps t1 enabled without taking it (unfair); the self-loop
			// at 2 is fair and never ends.
			name:     "termination: a fair cycle never ends",
			g:        &liveGraph{init: []int{0}, goal: is(2), term: true, edges: map[int][]edge{0: {{1, 0, 0}, {2, 1, 0}}, 1: {{0, 0, 0}, {2, 1, 0}}, 2: {{2, 1, 0}}}},
			fairness: explorer.Weak, violated: true, cycle: []string{"2->2"}, prefix: []string{"0->2"}, cycleTask: []string{"t1"},
		},
	}
	// BFS records the graph while it searches; DFS has it built by a
	// second search: both give the same verdicts and lassos.
	configs := []explorer.Config{{Workers: 1}, {Workers: 2}, {Workers: 3}, {Strategy: explorer.DFS}}
	for _, tt := range tests {
		for _, cfg := range configs {
			for keyed := range 3 {
				t.Run(fmt.Sprintf("%s/%v/%d/keyed=%d", tt.name, cfg.Strategy, cfg.Workers, keyed), func(t *testing.T) {
					cfg.Fairness = tt.fairness
					tt.g.keyed = keyed
					checkLiveCase(t, tt.g, cfg, tt.violated, tt.prefix, tt.cycle, tt.cycleTask)
				})
			}
		}
	}
}

// checkLiveCase checks g under cfg and compares the lasso with the one
// expected (none when violated is false).
func checkLiveCase(t *testing.T, g *liveGraph, cfg explorer.Config, violated bool, prefix, cycle, cycleTask []string) {
	t.Helper()
	r, err := explorer.Check(g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if recorded := cfg.Strategy != explorer.DFS; r.Graph == nil || r.Graph.Recorded != recorded {
		t.Errorf("graph %+v, want one recorded during the search: %v", r.Graph, recorded)
	}
	if !violated {
		if r.Status != explorer.OK {
			t.Fatalf("status %v %+v, want ok", r.Status, r.Violations)
		}
		return
	}
	if r.Status != explorer.Violated || len(r.Violations) != 1 {
		t.Fatalf("status %v, %d violations; want one", r.Status, len(r.Violations))
	}
	tr := r.Violations[0].Trace
	if got := explorer.Actions(tr.Steps); !slices.Equal(got, prefix) {
		t.Errorf("prefix %v, want %v", got, prefix)
	}
	if got := explorer.Actions(tr.Cycle); !slices.Equal(got, cycle) {
		t.Errorf("cycle %v, want %v", got, cycle)
	}
	if !slices.Equal(tr.CycleTasks, cycleTask) {
		t.Errorf("cycle tasks %v, want %v", tr.CycleTasks, cycleTask)
	}
}

func TestMetrics(t *testing.T) {
	// Two ways from 0 to the terminal state 3: via 1 (1+2 messages) or via
	// 2 (4+0), and a zero-message cycle 1 <-> 4 that does not change the
	// bounds.
	for keyed := range 3 {
		t.Run(fmt.Sprintf("keyed=%d", keyed), func(t *testing.T) { testMetrics(t, keyed) })
	}
}

func testMetrics(t *testing.T, keyed int) {
	g := &liveGraph{init: []int{0}, goal: is(3), keyed: keyed, edges: map[int][]edge{
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

// stopAt wraps a liveGraph and cancels a context the first time the
// explorer describes a state (when it replays a witness, after the safety
// search) or evaluates a liveness predicate (with DFS, only while it builds
// the state graph after the safety search).
type stopAt struct {
	*liveGraph
	cancel   func()
	describe bool
}

func (m stopAt) NewWorker() explorer.Worker { return stopWorker{liveWorker{m.liveGraph}, m} }
func (m stopAt) Describe(b []byte) ([]explorer.Var, error) {
	if m.describe {
		m.cancel()
	}
	return m.liveGraph.Describe(b)
}

type stopWorker struct {
	liveWorker
	m stopAt
}

func (w stopWorker) Live(b []byte, k, i int) (bool, bool, error) {
	if !w.m.describe {
		w.m.cancel()
	}
	return w.liveWorker.Live(b, k, i)
}

// longChain is 0 -> 1 -> ... -> n-1 (terminal, the goal), one message a
// step.
func longChain(n int) *liveGraph {
	g := &liveGraph{init: []int{0}, goal: is(n - 1), edges: map[int][]edge{}}
	for i := 0; i+1 < n; i++ {
		g.edges[i] = []edge{{i + 1, 0, 1}}
	}
	return g
}

// TestLivenessPhaseInterrupted: a run interrupted after its safety search,
// while the state graph is built or checked, ends incomplete with the
// verdicts and metrics it finished: the safety verdicts hold, the rest is
// unknown or missing.
func TestLivenessPhaseInterrupted(t *testing.T) {
	verdicts := func(r *explorer.Result) map[string]explorer.Verdict {
		out := map[string]explorer.Verdict{}
		for _, p := range r.Properties {
			out[p.Name] = p.Verdict
		}
		return out
	}
	t.Run("while checking metrics", func(t *testing.T) {
		for _, workers := range []int{1, 2} {
			ctx, cancel := context.WithCancel(context.Background())
			m := stopAt{liveGraph: longChain(20000), cancel: cancel, describe: true}
			r, err := explorer.Check(m, explorer.Config{Workers: workers, Context: ctx, Metrics: []string{"messages", "steps"}})
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != explorer.Incomplete || !strings.Contains(r.Reason, "interrupted") {
				t.Fatalf("workers %d: %v %q, want incomplete, interrupted", workers, r.Status, r.Reason)
			}
			v := verdicts(r)
			if v[properties.DeadlockFreedom] != explorer.Holds || v["goal"] != explorer.Holds {
				t.Errorf("workers %d: verdicts %v; deadlock-freedom and goal were finished and hold", workers, v)
			}
			// The witnesses of the first metric cancel the run: the
			// second is not computed.
			if len(r.Metrics) != 1 || r.Metrics[0].Name != "messages" || r.Metrics[0].Min != 19999 || r.Metrics[0].Max != 19999 {
				t.Errorf("workers %d: metrics %+v, want messages 19999 alone", workers, r.Metrics)
			}
			if r.States != 20000 {
				t.Errorf("workers %d: %d states, want 20000", workers, r.States)
			}
		}
	})
	t.Run("while building the graph", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		m := stopAt{liveGraph: longChain(20000), cancel: cancel}
		r, err := explorer.Check(m, explorer.Config{Strategy: explorer.DFS, Context: ctx, Metrics: []string{"messages"}})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != explorer.Incomplete || !strings.Contains(r.Reason, "interrupted") || !strings.Contains(r.Reason, "state graph") {
			t.Fatalf("%v %q, want incomplete, interrupted while building the state graph", r.Status, r.Reason)
		}
		v := verdicts(r)
		if v[properties.DeadlockFreedom] != explorer.Holds || v["goal"] != explorer.Unknown {
			t.Errorf("verdicts %v; want deadlock-freedom holds (the safety search finished), goal unknown", v)
		}
		if len(r.Metrics) != 0 || r.Graph != nil {
			t.Errorf("metrics %+v and graph %+v from an unfinished graph", r.Metrics, r.Graph)
		}
	})
}

// boundedLive is a liveGraph whose state bound is beyond the model's
// bound (explorer.Bounder): they are stored but not expanded.
type boundedLive struct {
	*liveGraph
	bound int
}

func (m boundedLive) NewWorker() explorer.Worker {
	return boundedLiveWorker{liveWorker{m.liveGraph}, m.bound}
}

type boundedLiveWorker struct {
	liveWorker
	bound int
}

func (w boundedLiveWorker) InBound(b []byte) (bool, error) { return dec(b) != w.bound, nil }

// TestLivenessGraphRebuilt: when the BFS did not expand every state it
// stored (a bound, an assertion), the graph is built by a second search,
// with the same verdict and lasso as DFS gives.
func TestLivenessGraphRebuilt(t *testing.T) {
	// 0 -> 1 -> 2 <-> 3 on t0, t1 to the goal 5 from 2 (weakly unfair to
	// skip, since t1 is enabled at 2 only); 4 lies beyond the bound.
	g := &liveGraph{init: []int{0}, goal: is(5), edges: map[int][]edge{
		0: {{1, 0, 0}, {4, 0, 0}}, 1: {{2, 0, 0}}, 2: {{3, 0, 0}, {5, 1, 0}}, 3: {{2, 0, 0}}, 5: {{5, 0, 0}},
	}}
	for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}, {Strategy: explorer.DFS}} {
		r, err := explorer.Check(boundedLive{g, 4}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if r.Cut != 1 || r.Graph == nil || r.Graph.Recorded {
			t.Errorf("%v/%d: %d cut, graph %+v; want 1 cut and a graph built again", cfg.Strategy, cfg.Workers, r.Cut, r.Graph)
		}
		if r.Status != explorer.Violated || len(r.Violations) != 1 {
			t.Fatalf("%v/%d: %v %+v, want the goal violated", cfg.Strategy, cfg.Workers, r.Status, r.Violations)
		}
		tr := r.Violations[0].Trace
		if got := explorer.Actions(tr.Steps); !slices.Equal(got, []string{"0->1", "1->2"}) {
			t.Errorf("%v/%d: prefix %v", cfg.Strategy, cfg.Workers, got)
		}
		if got := explorer.Actions(tr.Cycle); !slices.Equal(got, []string{"2->3", "3->2"}) {
			t.Errorf("%v/%d: cycle %v", cfg.Strategy, cfg.Workers, got)
		}
	}
}
