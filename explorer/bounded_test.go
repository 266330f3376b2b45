package explorer_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// boundedGraph is a graph whose model declares a bound (a Bounder worker):
// states at least limit are stored and checked but not expanded.
type boundedGraph struct {
	*graph
	limit int
}

func (g boundedGraph) NewWorker() explorer.Worker {
	return boundedWorker{graphWorker{g.graph}, g.limit}
}

type boundedWorker struct {
	graphWorker
	limit int
}

func (w boundedWorker) InBound(b []byte) (bool, error) { return dec(b) < w.limit, nil }

func (w boundedWorker) Expand(b []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	return explorer.ExpandBySuccessors(w, b, x)
}

// verdicts maps each property to its verdict.
func verdicts(r *explorer.Result) map[string]explorer.Verdict {
	out := map[string]explorer.Verdict{}
	for _, p := range r.Properties {
		out[p.Name] = p.Verdict
	}
	return out
}

// TestCutStatesMakeTheRunBounded: a search that cut states is never OK. It
// is Bounded and its properties, deadlock-freedom included, hold within the
// constraint only. The states outside the constraint are checked but
// neither expanded nor counted among the distinct states (Result.Cut
// counts them apart, once each, as TLC counts states outside its
// constraints); a violation within the bound is still a violation, and so
// is one outside it; a bound that cuts nothing changes nothing.
func TestCutStatesMakeTheRunBounded(t *testing.T) {
	for _, cfg := range configs {
		// chain(2) from 0: every state s has successors s+1, s+2; the bound
		// 10 keeps 0..9 (10 states, by hand) and cuts 10 and 11, which 9
		// and 8 reach (11 twice: counted once).
		r := check(t, boundedGraph{chain(2), 10}, cfg)
		v := verdicts(r)
		if r.Status != explorer.Bounded || r.States != 10 || r.Cut != 2 || r.Terminal != 0 ||
			v["good"] != explorer.HoldsWithinBound || v[properties.DeadlockFreedom] != explorer.HoldsWithinBound {
			t.Errorf("%v/%d: %v, %d states, %d cut, %d terminal, verdicts %v; want bounded, 10, 2, 0, good and deadlock-freedom holds-within-bound",
				cfg.Strategy, cfg.Workers, r.Status, r.States, r.Cut, r.Terminal, v)
		}
		// A state outside the constraint is checked: 11 violates "good",
		// with a shortest path to it as BFS's counterexample (six steps: five
		// of +2 and one of +1, by hand).
		g := chain(2)
		g.bad = func(s int) bool { return s == 11 }
		r = check(t, boundedGraph{g, 10}, cfg)
		if r.Status != explorer.Violated || verdicts(r)["good"] != explorer.ViolatedVerdict || len(r.Violations) != 1 ||
			cfg.Strategy == explorer.BFS && len(r.Violations[0].Trace.Steps) != 6 {
			t.Errorf("%v/%d: a violation outside the constraint: %v %v", cfg.Strategy, cfg.Workers, r.Status, verdicts(r))
		}
		// A state within the constraint all of whose successors lie
		// outside it has successors: not a deadlock.
		g = &graph{init: []int{0}, next: edges(map[int][]int{0: {1}, 1: {20, 21}}), end: func(int) bool { return false }}
		r = check(t, boundedGraph{g, 20}, cfg)
		if r.Status != explorer.Bounded || r.States != 2 || r.Cut != 2 || verdicts(r)[properties.DeadlockFreedom] != explorer.HoldsWithinBound {
			t.Errorf("%v/%d: successors only outside the constraint: %v, %d states, %d cut, %v", cfg.Strategy, cfg.Workers, r.Status, r.States, r.Cut, verdicts(r))
		}
		if r.Status.String() != "bounded" || explorer.HoldsWithinBound.String() != "holds-within-bound" {
			t.Errorf("names: %q, %q", r.Status, explorer.HoldsWithinBound)
		}
		// A violation found within the bound is Violated.
		g = chain(2)
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

// stopInLiveness is chain(1) up to n−1 with a liveness property whose
// predicates stop the search (as a timeout would) the first time they are
// asked: in the liveness phase, when the graph is built after the search.
type stopInLiveness struct {
	*graph
	stop func(error)
}

func (m stopInLiveness) NewWorker() explorer.Worker {
	return stopLiveWorker{graphWorker{m.graph}, m.stop}
}
func (m stopInLiveness) Tasks() []string { return []string{"t"} }
func (m stopInLiveness) Liveness() []explorer.LiveProperty {
	return []explorer.LiveProperty{{Info: properties.Info{Name: "reaches-end", Kind: properties.Eventually}, Instances: 1}}
}

type stopLiveWorker struct {
	graphWorker
	stop func(error)
}

func (w stopLiveWorker) Live(b []byte, _, _ int) (bool, bool, error) {
	if dec(b) == 0 {
		w.stop(errors.New("stopped in the liveness phase"))
		// Give the search's monitor the time to see the stop before the
		// state graph is built (the builder looks every 256 states).
		time.Sleep(50 * time.Millisecond)
	}
	return false, dec(b) == 999, nil
}

// TestLimitAfterTheSafetySearchKeepsItsVerdicts: a limit reached in the
// liveness phase (here a stop, as --timeout or SIGINT) leaves the finished
// safety verdicts as they are; only the liveness property is unknown, and
// the run is incomplete. It used to turn every verdict into unknown.
func TestLimitAfterTheSafetySearchKeepsItsVerdicts(t *testing.T) {
	const n = 1000
	g := &graph{init: []int{0}, next: func(s int) []int {
		if s == n-1 {
			return nil
		}
		return []int{s + 1}
	}}
	// Breadth first, the search records the liveness predicates as it goes,
	// so this model would stop the safety search itself: depth first builds
	// the graph afterwards. TestLivenessPhaseInterrupted stops a breadth-first
	// run in its liveness phase by other means.
	for _, cfg := range []explorer.Config{{Strategy: explorer.DFS}} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cfg.Context = ctx
		r := check(t, stopInLiveness{g, cancel}, cfg)
		cancel(nil)
		v := verdicts(r)
		if r.Status != explorer.Incomplete || r.States != n || !strings.Contains(r.Reason, "stopped in the liveness phase") ||
			v["good"] != explorer.Holds || v[properties.DeadlockFreedom] != explorer.Holds || v["reaches-end"] != explorer.Unknown {
			t.Errorf("%v/%d: %v %q, %d states, verdicts %v; want incomplete, %d states, good and deadlock-freedom hold, reaches-end unknown",
				cfg.Strategy, cfg.Workers, r.Status, r.Reason, r.States, v, n)
		}
	}
	// A stop during the safety search leaves everything unknown.
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("stopped at once"))
	r := check(t, stopInLiveness{g, cancel}, explorer.Config{Context: ctx, Workers: 2})
	for name, v := range verdicts(r) {
		if r.Status != explorer.Incomplete || v != explorer.Unknown {
			t.Errorf("a stop before the end: %v, %s %v", r.Status, name, v)
		}
	}
}

// refBFS returns the states of g in the explorer's canonical BFS order:
// level by level, each level's new states in the order of their
// predecessor, then of the action.
func refBFS(g *graph) []int {
	seen := map[int]bool{}
	var order []int
	for _, s := range g.init {
		if !seen[s] {
			seen[s] = true
			order = append(order, s)
		}
	}
	for i := 0; i < len(order); i++ {
		for _, t := range g.next(order[i]) {
			if !seen[t] {
				seen[t] = true
				order = append(order, t)
			}
		}
	}
	return order
}

// TestMaxStatesStoresExactlyTheLimit: a state limit stores exactly that
// many states, in BFS the first ones in canonical order, whatever the
// number of workers (the limit used to be checked at a level's end only,
// so a wide level could take the count far past it). A violation among the
// states stored is found; one just past the limit is not.
func TestMaxStatesStoresExactlyTheLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 6))
	adj := map[int][]int{}
	for s := range 400 {
		for range 1 + rng.IntN(6) {
			adj[s] = append(adj[s], rng.IntN(400))
		}
	}
	g := &graph{init: []int{0, 7}, next: edges(adj)}
	order := refBFS(g)
	if len(order) < 300 {
		t.Fatalf("the random graph reaches only %d states", len(order))
	}
	for _, limit := range []int{1, 2, 3, 10, 57, 200, len(order) - 1} {
		for _, cfg := range configs {
			cfg.MaxStates = int64(limit)
			r := check(t, g, cfg)
			if r.Status != explorer.Incomplete || r.States != int64(limit) || !strings.Contains(r.Reason, "--max-states") {
				t.Errorf("limit %d, %v/%d: %v %q with %d states; want incomplete with %d", limit, cfg.Strategy, cfg.Workers, r.Status, r.Reason, r.States, limit)
			}
			if cfg.Strategy != explorer.BFS {
				continue
			}
			bad := *g
			bad.bad = func(s int) bool { return s == order[limit-1] }
			if r := check(t, &bad, cfg); r.Status != explorer.Violated {
				t.Errorf("limit %d, %v/%d: the last state within the limit is bad: %v with %d states", limit, cfg.Strategy, cfg.Workers, r.Status, r.States)
			}
			bad.bad = func(s int) bool { return s == order[limit] }
			if r := check(t, &bad, cfg); r.Status != explorer.Incomplete || r.States != int64(limit) {
				t.Errorf("limit %d, %v/%d: the first state past the limit is bad: %v with %d states", limit, cfg.Strategy, cfg.Workers, r.Status, r.States)
			}
		}
	}
	// A limit equal to the whole state space is a complete search.
	for _, cfg := range configs {
		cfg.MaxStates = int64(len(order))
		if r := check(t, g, cfg); r.Status != explorer.OK || r.States != int64(len(order)) {
			t.Errorf("limit = all %d states, %v/%d: %v with %d", len(order), cfg.Strategy, cfg.Workers, r.Status, r.States)
		}
	}
}

// streamed is a graph whose model yields its initial states one at a time
// (InitialStreamer) and counts how many it built.
type streamed struct {
	*graph
	built *int
}

func (m streamed) InitialStates(yield func([]byte) bool) error {
	for _, s := range m.init {
		*m.built++
		if !yield(enc(s)) {
			return nil
		}
	}
	return nil
}

// TestInitialStatesUnderTheLimits: the initial states count towards
// --max-states as they are built, and a model that yields them one at a
// time is asked for no more than the limit lets in (chang-roberts --n 9
// --ids all --max-states 10 used to build all 362,880 and store 3.6
// million states). A counterexample from a streamed initial state is
// replayed from its index.
func TestInitialStatesUnderTheLimits(t *testing.T) {
	init := make([]int, 10000)
	for k := range init {
		init[k] = 3 * k
	}
	g := &graph{init: init, next: func(s int) []int { return []int{s + 1} }}
	for _, cfg := range configs {
		built := 0
		cfg.MaxStates = 25
		r := check(t, streamed{g, &built}, cfg)
		if r.Status != explorer.Incomplete || r.States != 25 || built != 26 || !strings.Contains(r.Reason, "initial states") {
			t.Errorf("%v/%d: %v %q, %d states, %d initial states built; want incomplete, 25, 26", cfg.Strategy, cfg.Workers, r.Status, r.Reason, r.States, built)
		}
		built = 0
		bad := *g
		bad.bad = func(s int) bool { return s == 3*700+1 }
		r = check(t, streamed{&bad, &built}, explorer.Config{Strategy: cfg.Strategy, Workers: cfg.Workers})
		if r.Status != explorer.Violated || len(r.Violations) != 1 || r.Violations[0].Trace.Initial != 700 ||
			len(r.Violations[0].Trace.Steps) != 1 || r.Violations[0].Trace.Steps[0].Action != "2100->2101" {
			t.Errorf("%v/%d: %v %+v", cfg.Strategy, cfg.Workers, r.Status, r.Violations)
		}
	}
}

// bigStates is an infinite tree of wide fan-out whose states are 16 KiB.
type bigStates struct{ graph }

func (m *bigStates) Initial() ([][]byte, error) { return [][]byte{bigEnc(0)}, nil }
func (m *bigStates) NewWorker() explorer.Worker { return bigWorker{} }

func bigEnc(s int) []byte { return append(enc(s), make([]byte, 16<<10)...) }

type bigWorker struct{}

func (bigWorker) Successors(b []byte, emit func(explorer.Transition, []byte)) (int, error) {
	s := dec(b[:4])
	for k := range 100 {
		emit(explorer.Transition{}, bigEnc(s*100+k+1))
	}
	return 100, nil
}
func (bigWorker) Check([]byte, uint64) (uint64, error) { return 0, nil }
func (bigWorker) ValidEnd([]byte) (bool, error)        { return true, nil }
func (w bigWorker) Expand(b []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	return explorer.ExpandBySuccessors(w, b, x)
}

// TestMemoryLimitWithLargeStates: with large states the search samples
// the memory as its buffers grow, not only every few thousand states, so
// it stops near --max-memory (lamport --n 64 --requests 4 --max-memory
// 200MiB peaked at 511 MiB; now about 205 MiB).
func TestMemoryLimitWithLargeStates(t *testing.T) {
	const limit = 64 << 20
	for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}, {Strategy: explorer.DFS}} {
		cfg.MaxMemory = limit
		r := check(t, &bigStates{}, cfg)
		if r.Status != explorer.Incomplete || !strings.Contains(r.Reason, "--max-memory") || r.PeakMemory > limit*3/2 { // the model's own garbage (16 KiB per successor) counts too, and the GC runs late on a loaded machine
			t.Errorf("%v/%d: %v %q, peak %d MiB for a limit of %d MiB", cfg.Strategy, cfg.Workers, r.Status, r.Reason, r.PeakMemory>>20, limit>>20)
		}
	}
}
