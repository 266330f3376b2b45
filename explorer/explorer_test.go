package explorer_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/internal/offheap"
	"github.com/vacheck/vacheck/properties"
)

// graph is a synthetic Model: states are integers, encoded as 4 bytes, with
// successors given by a function. It tests the explorer alone.
type graph struct {
	init  []int
	next  func(s int) []int
	bad   func(s int) bool // the invariant "good" fails here
	end   func(s int) bool // valid end states; nil: every terminal state
	panic func(s int) bool // Successors panics here
}

func enc(s int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(s)) }
func dec(b []byte) int { return int(binary.BigEndian.Uint32(b)) }

func (g *graph) Initial() ([][]byte, error) {
	var out [][]byte
	for _, s := range g.init {
		out = append(out, enc(s))
	}
	return out, nil
}

func (g *graph) Properties() []properties.Info {
	return []properties.Info{{Name: "good", Kind: properties.Invariant, Doc: "no bad state"}}
}

func (g *graph) NewWorker() explorer.Worker { return graphWorker{g} }

// Describe and Label make traces readable: the state is its number and
// action a of state s is "s->t".
func (g *graph) Describe(b []byte) ([]explorer.Var, error) {
	return []explorer.Var{{Name: "s", Value: dec(b)}}, nil
}

func (g *graph) Label(b []byte, a int) (string, error) {
	s := dec(b)
	return fmt.Sprintf("%d->%d", s, g.next(s)[a]), nil
}

type graphWorker struct{ g *graph }

func (w graphWorker) Successors(b []byte, emit func(explorer.Transition, []byte)) (int, error) {
	s := dec(b)
	if w.g.panic != nil && w.g.panic(s) {
		panic(fmt.Sprintf("step from %d", s))
	}
	next := w.g.next(s)
	for _, t := range next {
		emit(explorer.Transition{}, enc(t))
	}
	return len(next), nil
}

func (w graphWorker) Check(b []byte, want uint64) (uint64, error) {
	if want&1 != 0 && w.g.bad != nil && w.g.bad(dec(b)) {
		return 1, nil
	}
	return 0, nil
}

func (w graphWorker) Expand(b []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	return explorer.ExpandBySuccessors(w, b, x)
}

func (w graphWorker) ValidEnd(b []byte) (bool, error) {
	return w.g.end == nil || w.g.end(dec(b)), nil
}

func edges(adj map[int][]int) func(int) []int {
	return func(s int) []int { return adj[s] }
}

// configs are the searches that must agree on every figure.
var configs = []explorer.Config{
	{Strategy: explorer.BFS, Workers: 1},
	{Strategy: explorer.BFS, Workers: 2},
	{Strategy: explorer.BFS, Workers: 3},
	{Strategy: explorer.BFS, Workers: 8},
	{Strategy: explorer.DFS},
}

func check(t *testing.T, m explorer.Model, cfg explorer.Config) *explorer.Result {
	t.Helper()
	r, err := explorer.Check(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCompleteSearchesAgree(t *testing.T) {
	tests := []struct {
		name                          string
		g                             *graph
		states, transitions, terminal int64
		bfsDepth                      int
	}{
		{"cycle", &graph{init: []int{0}, next: edges(map[int][]int{0: {1}, 1: {2}, 2: {0}})}, 3, 3, 0, 2},
		{"self-loop", &graph{init: []int{0}, next: edges(map[int][]int{0: {0, 1}, 1: {1}})}, 2, 3, 0, 1},
		{"DAG with joins", &graph{init: []int{0}, next: edges(map[int][]int{0: {1, 2}, 1: {3}, 2: {3}, 3: {4}})}, 5, 5, 1, 3},
		{"two initial states sharing a successor", &graph{init: []int{0, 5, 0}, next: edges(map[int][]int{0: {1}, 5: {1}})}, 3, 2, 1, 1},
		{"diamond lattice 20x20", &graph{init: []int{0}, next: func(s int) []int {
			x, y := s%100, s/100
			var out []int
			if x < 19 {
				out = append(out, s+1)
			}
			if y < 19 {
				out = append(out, s+100)
			}
			return out
		}}, 400, 2 * 19 * 20, 1, 38},
	}
	for _, tt := range tests {
		for _, cfg := range configs {
			t.Run(fmt.Sprintf("%s/%s/workers=%d", tt.name, cfg.Strategy, cfg.Workers), func(t *testing.T) {
				r := check(t, tt.g, cfg)
				if r.Status != explorer.OK {
					t.Fatalf("status %v (%s), want ok", r.Status, r.Reason)
				}
				if r.States != tt.states || r.Transitions != tt.transitions || r.Terminal != tt.terminal {
					t.Errorf("states %d, transitions %d, terminal %d; want %d, %d, %d",
						r.States, r.Transitions, r.Terminal, tt.states, tt.transitions, tt.terminal)
				}
				if cfg.Strategy == explorer.BFS && r.Depth != tt.bfsDepth {
					t.Errorf("depth %d, want %d", r.Depth, tt.bfsDepth)
				}
				for _, p := range r.Properties {
					if p.Verdict != explorer.Holds {
						t.Errorf("%s: %v, want holds", p.Name, p.Verdict)
					}
				}
			})
		}
	}
}

func TestDeadlockIsATerminalStateThatIsNotAValidEnd(t *testing.T) {
	// 0 -> 1 -> 2 (valid end) and 0 -> 3 (stuck).
	g := &graph{init: []int{0}, next: edges(map[int][]int{0: {1, 3}, 1: {2}}), end: func(s int) bool { return s == 2 }}
	for _, cfg := range configs {
		r := check(t, g, cfg)
		if r.Status != explorer.Violated || len(r.Violations) != 1 || r.Violations[0].Property != properties.DeadlockFreedom {
			t.Fatalf("%s/%d: got %v %+v, want a deadlock", cfg.Strategy, cfg.Workers, r.Status, r.Violations)
		}
		if got := explorer.Actions(r.Violations[0].Trace.Steps); !slices.Equal(got, []string{"0->3"}) {
			t.Errorf("%s/%d: trace %v, want [0->3]", cfg.Strategy, cfg.Workers, got)
		}
	}
}

func TestBFSReportsTheShortestThenLowestCounterexample(t *testing.T) {
	// Bad state 9 is reachable in 3 steps via 0->1->2->9 and in 2 steps via
	// 0->5->9 and 0->6->9; the lowest action sequence among the shortest
	// goes through 5.
	g := &graph{
		init: []int{0},
		next: edges(map[int][]int{0: {1, 6, 5}, 1: {2}, 2: {9}, 5: {9}, 6: {9}}),
		bad:  func(s int) bool { return s == 9 },
	}
	for _, w := range []int{1, 2, 3, 8} {
		r := check(t, g, explorer.Config{Workers: w})
		if r.Status != explorer.Violated {
			t.Fatalf("workers %d: status %v", w, r.Status)
		}
		if got := explorer.Actions(r.Violations[0].Trace.Steps); !slices.Equal(got, []string{"0->6", "6->9"}) {
			t.Errorf("workers %d: trace %v, want [0->6 6->9] (action 1 before action 2)", w, got)
		}
	}
	r := check(t, g, explorer.Config{Strategy: explorer.DFS})
	if got := explorer.Actions(r.Violations[0].Trace.Steps); !slices.Equal(got, []string{"0->1", "1->2", "2->9"}) {
		t.Errorf("dfs: trace %v, want the first path depth first", got)
	}
}

// TestCanonicalCounterexampleOnRandomGraphs compares the BFS counterexample
// with a brute-force search for the lexicographically smallest shortest path
// (initial index, then action indices), for several worker counts.
func TestCanonicalCounterexampleOnRandomGraphs(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		n := 30 + rng.IntN(200)
		adj := randomEdges(rng, n, 4)
		bad := map[int]bool{}
		for k := 0; k < 3; k++ {
			bad[1+rng.IntN(n-1)] = true
		}
		g := &graph{init: []int{0, rng.IntN(n)}, next: edges(adj), bad: func(s int) bool { return bad[s] }}
		want := bruteForce(g)
		for _, w := range []int{1, 2, 3, 5} {
			r := check(t, g, explorer.Config{Workers: w})
			var got []int
			if r.Status == explorer.Violated {
				tr := r.Violations[0].Trace
				got = append(got, tr.Initial)
				for _, s := range tr.Steps {
					got = append(got, s.ActionIndex)
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d workers %d: counterexample %v, want %v", seed, w, got, want)
			}
		}
	}
}

// randomEdges gives each of n states fewer than out edges to random
// states.
func randomEdges(rng *rand.Rand, n, out int) map[int][]int {
	adj := map[int][]int{}
	for s := 0; s < n; s++ {
		for k := rng.IntN(out); k > 0; k-- {
			adj[s] = append(adj[s], rng.IntN(n))
		}
	}
	return adj
}

// bruteForce returns the smallest (initial index, actions...) path to a bad
// state among the shortest ones, by breadth-first enumeration of paths in
// lexicographic order, or nil.
func bruteForce(g *graph) []int {
	type path struct {
		state int
		seq   []int
	}
	var frontier []path
	seen := map[int]bool{}
	for i, s := range g.init {
		if !seen[s] {
			seen[s] = true
			frontier = append(frontier, path{s, []int{i}})
		}
	}
	for len(frontier) > 0 {
		for _, p := range frontier {
			if g.bad(p.state) {
				return p.seq
			}
		}
		var next []path
		for _, p := range frontier {
			for a, t := range g.next(p.state) {
				if !seen[t] {
					seen[t] = true
					next = append(next, path{t, append(slices.Clone(p.seq), a)})
				}
			}
		}
		frontier = next
	}
	return nil
}

func TestPanickingStepIsAnErrorWithItsTrace(t *testing.T) {
	g := &graph{init: []int{0}, next: edges(map[int][]int{0: {1}, 1: {2}, 2: {3}}), panic: func(s int) bool { return s == 2 }}
	for _, cfg := range configs {
		r := check(t, g, cfg)
		if r.Status != explorer.Failed || !strings.Contains(r.Reason, "step from 2") {
			t.Fatalf("%s/%d: status %v reason %q, want a failure naming the panic", cfg.Strategy, cfg.Workers, r.Status, r.Reason)
		}
		if r.Failure == nil || !slices.Equal(explorer.Actions(r.Failure.Steps), []string{"0->1", "1->2"}) {
			t.Errorf("%s/%d: failure trace %v, want the path to state 2", cfg.Strategy, cfg.Workers, r.Failure)
		}
	}
}

// chain is 0 -> 1 -> 2 -> ... without end, wide enough to take a while.
func chain(width int) *graph {
	return &graph{init: []int{0}, next: func(s int) []int {
		out := make([]int, width)
		for k := range out {
			out[k] = s + 1 + k
		}
		return out
	}}
}

func TestLimitsEndTheSearchAsIncomplete(t *testing.T) {
	for _, strat := range []explorer.Strategy{explorer.BFS, explorer.DFS} {
		r := check(t, chain(1), explorer.Config{Strategy: strat, MaxStates: 100})
		if r.Status != explorer.Incomplete || !strings.Contains(r.Reason, "--max-states 100") || r.States != 100 || r.Limit != explorer.StateLimit {
			t.Errorf("%v max-states: %v %q states %d, limit %v", strat, r.Status, r.Reason, r.States, r.Limit)
		}
		r = check(t, chain(1), explorer.Config{Strategy: strat, MaxDepth: 10})
		if r.Status != explorer.Incomplete || !strings.Contains(r.Reason, "--max-depth 10") || r.States != 11 || r.Limit != explorer.DepthLimit {
			t.Errorf("%v max-depth: %v %q states %d, limit %v", strat, r.Status, r.Reason, r.States, r.Limit)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r = check(t, chain(1), explorer.Config{Strategy: strat, Context: ctx})
		if r.Status != explorer.Incomplete || r.Limit != explorer.Interrupted {
			t.Errorf("%v cancelled: %v %q, limit %v", strat, r.Status, r.Reason, r.Limit)
		}
		start := time.Now()
		r = check(t, chain(1), explorer.Config{Strategy: strat, Timeout: 100 * time.Millisecond})
		if r.Status != explorer.Incomplete || !strings.Contains(r.Reason, "--timeout") || r.Limit != explorer.TimeLimit {
			t.Errorf("%v timeout: %v %q, limit %v", strat, r.Status, r.Reason, r.Limit)
		}
		if time.Since(start) > 30*time.Second {
			t.Errorf("%v: the timeout did not stop the search", strat)
		}
		for _, p := range r.Properties {
			if p.Verdict != explorer.Unknown {
				t.Errorf("%v: %s is %v after an incomplete search, want unknown", strat, p.Name, p.Verdict)
			}
		}
	}
	// A depth limit that leaves nothing unexplored does not make the search
	// incomplete.
	g := &graph{init: []int{0}, next: edges(map[int][]int{0: {1}, 1: {2}})}
	if r := check(t, g, explorer.Config{MaxDepth: 2}); r.Status != explorer.OK || r.Limit != explorer.NoLimit {
		t.Errorf("max-depth equal to the depth: %v %q, limit %v, want ok", r.Status, r.Reason, r.Limit)
	}
	// Nor does one whose last level leads only back to stored states (a
	// breadth-first search knows its levels; every worker count), but a
	// single new state beyond it does.
	back := edges(map[int][]int{0: {1, 2}, 1: {3}, 2: {3, 0}, 3: {1, 3}})
	beyond := edges(map[int][]int{0: {1, 2}, 1: {3}, 2: {3, 0}, 3: {1, 4}})
	for _, w := range []int{1, 2, 3} {
		if r := check(t, &graph{init: []int{0}, next: back}, explorer.Config{Workers: w, MaxDepth: 2}); r.Status != explorer.OK || r.States != 4 {
			t.Errorf("%d workers, max-depth 2, successors all stored: %v %q %d states, want ok, 4", w, r.Status, r.Reason, r.States)
		}
		if r := check(t, &graph{init: []int{0}, next: beyond}, explorer.Config{Workers: w, MaxDepth: 2}); r.Status != explorer.Incomplete {
			t.Errorf("%d workers, max-depth 2, a new state beyond: %v, want incomplete", w, r.Status)
		}
	}
}

func TestBFSMaxStatesStopsAtALevelBoundary(t *testing.T) {
	// Level k of chain(3) from 0 holds states 2k+1 ... ; the state limit is
	// checked after each level, so the count is the same for every worker
	// count.
	var want int64 = -1
	for _, w := range []int{1, 2, 3} {
		r := check(t, chain(3), explorer.Config{Workers: w, MaxStates: 50})
		if want < 0 {
			want = r.States
		}
		if r.States != want || r.Status != explorer.Incomplete {
			t.Errorf("workers %d: %v with %d states, want incomplete with %d", w, r.Status, r.States, want)
		}
	}
}

func TestContinueFindsACounterexamplePerProperty(t *testing.T) {
	g := &graph{
		init: []int{0},
		next: edges(map[int][]int{0: {1, 2}, 1: {3}}),
		bad:  func(s int) bool { return s == 1 },
		end:  func(s int) bool { return s == 3 },
	}
	r := check(t, g, explorer.Config{})
	if len(r.Violations) != 1 {
		t.Fatalf("without Continue: %d violations, want 1", len(r.Violations))
	}
	r = check(t, g, explorer.Config{Continue: true})
	var got []string
	for _, v := range r.Violations {
		got = append(got, v.Property)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"deadlock-freedom", "good"}) {
		t.Errorf("with Continue: violations %v, want deadlock-freedom and good", got)
	}
}

func TestPropertySelection(t *testing.T) {
	g := &graph{init: []int{0}, next: edges(map[int][]int{0: {1}}), bad: func(s int) bool { return s == 1 }}
	r := check(t, g, explorer.Config{Properties: []string{properties.DeadlockFreedom}})
	if r.Status != explorer.OK {
		t.Errorf("with only deadlock-freedom selected: %v, want ok", r.Status)
	}
	if _, err := explorer.Check(g, explorer.Config{Properties: []string{"nonsense"}}); err == nil {
		t.Error("an unknown property was accepted")
	}
}

func TestReplayDetectsImpureModels(t *testing.T) {
	calls := 0
	g := &graph{init: []int{0}, bad: func(s int) bool { return s >= 2 }}
	g.next = func(s int) []int {
		calls++
		return []int{s + calls} // never the same twice
	}
	r := check(t, g, explorer.Config{Workers: 1})
	if r.Err == nil {
		t.Errorf("an impure model replayed without complaint: %+v", r.Violations)
	}
}

// TestMemoryLimit: a search that outgrows --max-memory ends as incomplete,
// and the visited set never doubles past the limit (the doubling is one
// allocation the memory monitor would only see afterwards).
func TestMemoryLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("grows the heap to the limit")
	}
	const limit = 96 << 20
	// BFS on a binary tree, whose levels double (a chain's levels are a few
	// states each, and a search of millions of levels spends its time
	// between levels); DFS on a chain, where it goes deep.
	tree := &graph{init: []int{0}, next: func(s int) []int { return []int{2*s + 1, 2*s + 2} }}
	for _, tc := range []struct {
		strat explorer.Strategy
		g     *graph
	}{{explorer.BFS, tree}, {explorer.DFS, chain(3)}} {
		strat := tc.strat
		r := check(t, tc.g, explorer.Config{Strategy: strat, MaxMemory: limit, Timeout: time.Minute})
		if r.Status != explorer.Incomplete || !strings.Contains(r.Reason, "--max-memory") || r.Limit != explorer.MemoryLimit {
			t.Errorf("%v: %v %q, limit %v, want incomplete on the memory limit", strat, r.Status, r.Reason, r.Limit)
		}
		if r.PeakMemory > limit*5/4 {
			t.Errorf("%v: peak memory %d MiB, limit %d MiB", strat, r.PeakMemory>>20, limit>>20)
		}
	}
}

// refDFS is a reference of the explorer's depth-first order with a
// predecessor map: states are marked and checked when generated, expanded
// when popped, and the lowest action is explored first. It returns the
// path (action labels) to the first state where stop holds, checked when
// the state is generated (at is false) or when it is expanded (at is
// true).
func refDFS(g *graph, stop func(s int) bool, at bool) []string {
	type pred struct{ parent, s int }
	parent := map[int]pred{}
	path := func(s int) []string {
		var out []string
		for {
			p, ok := parent[s]
			if !ok {
				break
			}
			out = append(out, fmt.Sprintf("%d->%d", p.parent, s))
			s = p.parent
		}
		slices.Reverse(out)
		return out
	}
	seen := map[int]bool{}
	var stack []int
	for k := len(g.init) - 1; k >= 0; k-- {
		seen[g.init[k]] = true
		stack = append(stack, g.init[k])
	}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if at && stop(s) {
			return path(s)
		}
		var fresh []int
		for _, t := range g.next(s) {
			if seen[t] {
				continue
			}
			seen[t] = true
			parent[t] = pred{s, t}
			if !at && stop(t) {
				return path(t)
			}
			fresh = append(fresh, t)
		}
		for k := len(fresh) - 1; k >= 0; k-- {
			stack = append(stack, fresh[k])
		}
	}
	return nil
}

// TestDFSCounterexampleIsItsDiscoveryPath checks on random graphs that the
// DFS counterexamples, built from the DFS path (DFS keeps no predecessors),
// are the paths along which the search found the states: for an invariant,
// a deadlock and a model that panics.
func TestDFSCounterexampleIsItsDiscoveryPath(t *testing.T) {
	traces := 0
	for seed := uint64(1); seed <= 60; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		n := 20 + rng.IntN(300)
		adj := map[int][]int{}
		for s := 0; s < n; s++ {
			for k := rng.IntN(4); k > 0; k-- {
				if t := rng.IntN(n); !slices.Contains(adj[s], t) {
					adj[s] = append(adj[s], t)
				}
			}
		}
		target := 1 + rng.IntN(n-1)
		is := func(s int) bool { return s == target }
		for _, c := range []struct {
			name string
			g    *graph
			at   bool
		}{
			{"invariant", &graph{init: []int{0}, next: edges(adj), bad: is}, false},
			{"deadlock", &graph{init: []int{0}, next: edges(adj), end: func(s int) bool { return s != target }}, true},
			{"panic", &graph{init: []int{0}, next: edges(adj), panic: is}, true},
		} {
			want := refDFS(c.g, is, c.at)
			if c.name == "deadlock" && len(adj[target]) > 0 {
				// target is not terminal: the first deadlock is elsewhere.
				want = refDFS(c.g, func(s int) bool { return len(adj[s]) == 0 && s == target }, true)
			}
			r := check(t, c.g, explorer.Config{Strategy: explorer.DFS})
			var got []string
			found := false
			switch {
			case r.Failure != nil:
				got, found = explorer.Actions(r.Failure.Steps), true
			case len(r.Violations) > 0:
				got, found = explorer.Actions(r.Violations[0].Trace.Steps), true
			}
			if found {
				traces++
			}
			if found != (want != nil) || !slices.Equal(got, want) {
				t.Errorf("seed %d, %s at %d: trace %v (found %v), want %v", seed, c.name, target, got, found, want)
			}
			if r.Err != nil && r.Failure == nil {
				t.Errorf("seed %d, %s: %v", seed, c.name, r.Err)
			}
		}
	}
	if traces < 40 {
		t.Errorf("only %d counterexamples in 180 searches: the graphs are too sparse to test much", traces)
	}
}

// TestTraceThroughLargeActionIndices: the visited set keeps action indices
// below 65535 in its records and larger ones apart; a counterexample that
// takes an initial state and an action of large index is rebuilt exactly.
func TestTraceThroughLargeActionIndices(t *testing.T) {
	const wide = 70000
	init := make([]int, wide)
	for i := range init {
		init[i] = i
	}
	// Initial state wide-1 leads through its action wide-2 to the
	// state 3*wide-2, and on to the bad state 4*wide.
	g := &graph{init: init, bad: func(s int) bool { return s == 4*wide }}
	g.next = func(s int) []int {
		switch {
		case s == wide-1:
			out := make([]int, wide)
			for k := range out {
				out[k] = 2*wide + k
			}
			return out
		case s == 3*wide-2:
			return []int{4 * wide}
		}
		return nil
	}
	for _, cfg := range configs {
		r := check(t, g, cfg)
		if r.Status != explorer.Violated || len(r.Violations) != 1 {
			t.Fatalf("%v/%d: %v, want one violation", cfg.Strategy, cfg.Workers, r.Status)
		}
		tr := r.Violations[0].Trace
		if tr.Initial != wide-1 || len(tr.Steps) != 2 || tr.Steps[0].ActionIndex != wide-2 || tr.Steps[1].ActionIndex != 0 {
			t.Errorf("%v/%d: trace from initial %d through %+v", cfg.Strategy, cfg.Workers, tr.Initial, tr.Steps)
		}
	}
}

// TestWorkerCountsAgreeOnEveryFigure runs random graphs with bad states,
// deadlocks, panics and state limits on 1, 2 and 3 workers and requires the
// same result: one worker inserts states as it expands them and takes a
// level out again where more workers would not have inserted it (a
// deadlock that ends the search, a failure), so the figures of stopped and
// failed searches are compared too, not only complete ones.
func TestWorkerCountsAgreeOnEveryFigure(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		n := 20 + rng.IntN(300)
		adj := randomEdges(rng, n, 5)
		bad, badEnd, boom := map[int]bool{}, map[int]bool{}, map[int]bool{}
		for k := rng.IntN(3); k > 0; k-- {
			bad[1+rng.IntN(n-1)] = true
		}
		for s := 0; s < n; s++ {
			if len(adj[s]) == 0 && rng.IntN(3) == 0 {
				badEnd[s] = true
			}
		}
		if seed%5 == 0 {
			boom[1+rng.IntN(n-1)] = true
		}
		g := &graph{init: []int{0, rng.IntN(n)}, next: edges(adj),
			bad:   func(s int) bool { return bad[s] },
			end:   func(s int) bool { return !badEnd[s] },
			panic: func(s int) bool { return boom[s] }}
		cfg := explorer.Config{Continue: seed%4 == 0}
		if seed%3 == 0 {
			cfg.MaxStates = int64(1 + rng.IntN(n))
		}
		var want *explorer.Result
		for _, w := range []int{1, 2, 3} {
			cfg.Workers = w
			r := check(t, g, cfg)
			if want == nil {
				want = r
				continue
			}
			// A worker that fails stops expanding its part of the level while
			// the others go on: a failed search's transitions and terminal
			// states depend on the worker count (its states do not).
			failed := r.Status == explorer.Failed && want.Status == explorer.Failed
			if r.Status != want.Status || r.States != want.States || r.Depth != want.Depth || r.Reason != want.Reason ||
				!failed && (r.Transitions != want.Transitions || r.Terminal != want.Terminal) {
				t.Fatalf("seed %d: workers %d give %v %d states %d transitions %d terminal depth %d %q; 1 worker %v %d %d %d depth %d %q",
					seed, w, r.Status, r.States, r.Transitions, r.Terminal, r.Depth, r.Reason,
					want.Status, want.States, want.Transitions, want.Terminal, want.Depth, want.Reason)
			}
			if fmt.Sprint(r.Violations) != fmt.Sprint(want.Violations) || fmt.Sprint(r.Failure) != fmt.Sprint(want.Failure) {
				t.Fatalf("seed %d: workers %d give %v / %v; 1 worker %v / %v", seed, w, r.Violations, r.Failure, want.Violations, want.Failure)
			}
		}
	}
}

// TestSearchesGiveTheirMemoryBack requires every search to give back, by
// the time Check returns, the memory it kept outside the Go heap (the
// visited set, the levels, the local sets): a test binary or a sweep runs
// many searches, and such memory is not collected with the Go heap.
func TestSearchesGiveTheirMemoryBack(t *testing.T) {
	for _, bug := range []bool{false, true} {
		for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}, {Workers: 3, MaxStates: 5000}, {Strategy: explorer.DFS}} {
			before := offheap.Mapped()
			if _, err := explorer.Check(torus(bug), cfg); err != nil {
				t.Fatal(err)
			}
			if after := offheap.Mapped(); after != before {
				t.Errorf("bug %v, %v with %d workers: %d bytes mapped before the search, %d after", bug, cfg.Strategy, cfg.Workers, before, after)
			}
		}
	}
}
