package explorer_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// checkedGraph is a graph whose property may be an assertion (a state that
// breaks it is not expanded), whose check may fail, which may bound its
// states (a state outside the bound is stored but not expanded), and whose
// workers, when expand is set, are no explorer.Bounders: the breadth-first
// search then checks each state when it expands it instead of when it
// stores it, unless the states are bounded. A worker that is a Bounder
// (its bound may cut nothing) has its states checked when they are stored.
type checkedGraph struct {
	*graph
	assert    bool
	bad2      func(s int) bool // a second property, "good2", fails here
	assert2   bool             // good2 is an assertion
	checkFail func(s int) bool // Check returns an error here
	cut       func(s int) bool // outside the bound
	expand    bool
	keyed     bool             // with expand: successors are offered by keys of the graph's own
	collide   bool             // keyed: most keys share a slot of the table of recent keys
	noGoal    func(s int) bool // with liveChecked: termination's goal fails here
}

func (g *checkedGraph) Properties() []properties.Info {
	p := append(g.graph.Properties(), properties.Info{Name: "good2", Kind: properties.Invariant, Doc: "no bad2 state"})
	if g.assert {
		p[0].Kind = properties.Assertion
	}
	if g.assert2 {
		p[1].Kind = properties.Assertion
	}
	return p
}

func (g *checkedGraph) NewWorker() explorer.Worker {
	w := checkedWorker{graphWorker{g.graph}, g}
	if !g.expand || g.cut != nil {
		return boundedChecked{w}
	}
	return w
}

type checkedWorker struct {
	graphWorker
	g *checkedGraph
}

func (w checkedWorker) Check(b []byte, want uint64) (uint64, error) {
	s := dec(b)
	if w.g.checkFail != nil && w.g.checkFail(s) {
		return 0, fmt.Errorf("the check of state %d failed", s)
	}
	mask, err := w.graphWorker.Check(b, want)
	if want&2 != 0 && w.g.bad2 != nil && w.g.bad2(s) {
		mask |= 2
	}
	return mask, err
}

// Expand offers the successors by keys of its own when the graph is
// keyed: a multiple of the state's number (0 for state 0, which no recent
// key may match), or with collide the number shifted past the table's
// slots, which then take three keys in turn: repeated successors reach the
// local set, insertFresh and phase 2.
func (w checkedWorker) Expand(b []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	if !w.g.keyed || x.Offer == nil {
		return explorer.ExpandBySuccessors(w, b, x)
	}
	keyed := *x
	keyed.Offer = nil
	keyed.Emit = func(t explorer.Transition, next []byte) {
		if x.Offer(t, w.key(dec(next))) {
			x.Emit(t, next)
		}
	}
	return explorer.ExpandBySuccessors(w, b, &keyed)
}

func (w checkedWorker) key(s int) uint64 {
	if w.g.collide {
		return uint64(s)<<12 | uint64(s%3)
	}
	return uint64(s) * 0x9e3779b97f4a7c15
}

// Live says that termination's goal holds in every terminal state but
// those of noGoal.
func (w checkedWorker) Live(b []byte, _, _ int) (bool, bool, error) {
	return false, w.g.noGoal == nil || !w.g.noGoal(dec(b)), nil
}

// liveChecked is a checkedGraph with termination to check as well, on the
// state graph the breadth-first search records (or, when it did not
// expand every state it stored, builds again).
type liveChecked struct{ *checkedGraph }

func (liveChecked) Tasks() []string { return []string{"t0"} }
func (liveChecked) Liveness() []explorer.LiveProperty {
	return []explorer.LiveProperty{{Info: properties.Info{Name: properties.Termination, Kind: properties.Terminates}, Instances: 1}}
}

// boundedChecked is a checkedWorker that is a Bounder.
type boundedChecked struct{ checkedWorker }

func (w boundedChecked) InBound(b []byte) (bool, error) {
	return w.g.cut == nil || !w.g.cut(dec(b)), nil
}

// TestDeferredChecksChangeNothing runs random graphs with states that
// break one property or two, assertions, failing checks, panicking steps, invalid end states, a bound,
// limits and termination to check, breadth first on 1 to 3 workers, once checking each state when
// it is stored (a Bounder worker) and once when it is expanded (with keys hashed from the
// successors, and with keys of the graph's own): every figure,
// verdict, counterexample and failure must be the same (but for the
// transitions of a failed search, as between worker counts).
func TestDeferredChecksChangeNothing(t *testing.T) {
	for seed := uint64(1); seed <= 120; seed++ {
		rng := rand.New(rand.NewPCG(seed, 23))
		n := 10 + rng.IntN(200)
		adj := randomEdges(rng, n, 5)
		bad, bad2, badEnd, boom, failing, cut := map[int]bool{}, map[int]bool{}, map[int]bool{}, map[int]bool{}, map[int]bool{}, map[int]bool{}
		for k := rng.IntN(4); k > 0; k-- {
			s := rng.IntN(n)
			bad[s] = true
			if rng.IntN(2) == 0 {
				bad2[s] = true // a state that breaks both
			}
		}
		for k := rng.IntN(3); k > 0; k-- {
			bad2[rng.IntN(n)] = true
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
			for k := 1 + rng.IntN(2); k > 0; k-- {
				failing[rng.IntN(n)] = true
			}
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
		// With termination, the graph is recorded while checks are deferred.
		live := seed%10 < 4
		noGoal := map[int]bool{}
		for k := rng.IntN(3); k > 0; k-- {
			noGoal[rng.IntN(n)] = true
		}
		for _, w := range []int{1, 2, 3} {
			cfg.Workers = w
			var got [3]*explorer.Result
			for k := range got {
				m := &checkedGraph{graph: g, assert: assert, bad2: func(s int) bool { return bad2[s] }, checkFail: func(s int) bool { return failing[s] },
					expand: k > 0, keyed: k == 2, collide: seed%2 == 1}
				if len(cut) > 0 {
					// Bounded: checked when stored, with or without expand.
					m.cut = func(s int) bool { return cut[s] }
				}
				if live {
					m.noGoal = func(s int) bool { return noGoal[s] }
					got[k] = check(t, liveChecked{m}, cfg)
				} else {
					got[k] = check(t, m, cfg)
				}
			}
			for _, b := range got[1:] {
				a := got[0]
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
}

// TestDeferredChecksRecordOnlyExpandedStates: a state that breaks an
// assertion is not expanded, so when checks are deferred to expansion the
// graph recorded for termination lacks its edges, and the graph is built
// again, as when checks are made at storage: from 0, state 1 breaks the
// assertion and leads to the cycle 1 -> 3 -> 1, which only the graph built
// again shows. A step that panics there fails the run.
func TestDeferredChecksRecordOnlyExpandedStates(t *testing.T) {
	adj := map[int][]int{0: {1, 2}, 1: {3}, 3: {1}}
	g := &graph{init: []int{0}, next: func(s int) []int { return adj[s] }, bad: func(s int) bool { return s == 1 }}
	for _, w := range []int{1, 2} {
		var want string
		for k := 0; k < 3; k++ {
			m := &checkedGraph{graph: g, assert: true, expand: k > 0, keyed: k == 2}
			r := check(t, liveChecked{m}, explorer.Config{Workers: w, Continue: true})
			got := fmt.Sprint(r.Status, r.Properties, r.Violations)
			if k == 0 {
				want = got
				if r.Graph == nil || r.Graph.Recorded || !strings.Contains(got, "{{termination termination } violated}") {
					t.Fatalf("%d workers: %s, graph %+v; want termination violated on a graph built again", w, got, r.Graph)
				}
			} else if got != want {
				t.Errorf("%d workers, checked when expanded (keyed %v): %s; checked when stored: %s", w, k == 2, got, want)
			}
		}
	}
	// A step that panics in state 3, which only the graph built again
	// expands, fails the run there as it would in the search.
	boom := &graph{init: g.init, next: g.next, bad: g.bad, panic: func(s int) bool { return s == 3 }}
	for k := 0; k < 3; k++ {
		m := &checkedGraph{graph: boom, assert: true, expand: k > 0, keyed: k == 2}
		r := check(t, liveChecked{m}, explorer.Config{Continue: true})
		if r.Status != explorer.Failed || !strings.Contains(r.Reason, "the model panicked while the state graph for liveness was built") {
			t.Errorf("expand %v keyed %v: %v %q; want the panic as a failure", k > 0, k == 2, r.Status, r.Reason)
		}
	}
}

// TestDeferredChecksEndingTheSearchDiscardTheRecording: under --continue,
// the checks of level 1 decide every property checked (state 1 breaks
// good, state 2 good2) and end the search after that level was expanded
// and recorded. Its edges lead to states never stored in general, so the
// recording is discarded and the graph built again, even here, where they
// lead back to state 0 only.
func TestDeferredChecksEndingTheSearchDiscardTheRecording(t *testing.T) {
	adj := map[int][]int{0: {1, 2}, 1: {0}, 2: {0}}
	g := &graph{init: []int{0}, next: func(s int) []int { return adj[s] }, bad: func(s int) bool { return s == 1 }}
	for _, keyed := range []bool{false, true} {
		m := &checkedGraph{graph: g, bad2: func(s int) bool { return s == 2 }, expand: true, keyed: keyed}
		r := check(t, liveChecked{m}, explorer.Config{Continue: true, Properties: []string{"good", "good2", properties.Termination}})
		if r.Graph == nil || r.Graph.Recorded || r.States != 3 {
			t.Errorf("keyed %v: %d states, graph %+v; want 3 states and the graph built again", keyed, r.States, r.Graph)
		}
		if got := fmt.Sprint(r.Properties); !strings.Contains(got, "{{termination termination } violated}") {
			t.Errorf("keyed %v: %s; want termination violated (the cycle 0 -> 1 -> 0)", keyed, got)
		}
	}
}

// haltGraph is a checkedGraph that cancels a context at one state: as the
// search stores the level of that state (phase 2), when its workers are
// Bounders (which the search asks about every state it stores); otherwise
// as the search expands that state, after which the level's checks are
// settled and the search stops before it stores the next one.
type haltGraph struct {
	*checkedGraph
	stopAt int
	cancel context.CancelCauseFunc
}

func (g *haltGraph) NewWorker() explorer.Worker {
	w := haltWorker{checkedWorker{graphWorker{g.graph}, g.checkedGraph}, g}
	if g.expand {
		return w
	}
	return haltBounder{w}
}

type haltWorker struct {
	checkedWorker
	sg *haltGraph
}

func (w haltWorker) halt(b []byte) {
	if w.sg.cancel != nil && dec(b) == w.sg.stopAt {
		w.sg.cancel(errors.New("stopped by the test"))
		time.Sleep(100 * time.Millisecond) // for the search to see it
	}
}

func (w haltWorker) Expand(b []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	w.halt(b)
	return w.checkedWorker.Expand(b, x)
}

type haltBounder struct{ haltWorker }

func (w haltBounder) InBound(b []byte) (bool, error) {
	w.halt(b)
	return true, nil
}

// TestDeferredChecksSurviveACheckpoint: with --continue, a search stopped
// while it stores a level whose state breaks two properties saves that
// level unchecked, with the violations found before it; resumed, it finds
// what the uninterrupted search finds, also when the second property is an
// assertion (whose breakers are not expanded). (Resumed, the level was once
// checked again against fewer properties: the first one found, and then
// the state space, changed.)
func TestDeferredChecksSurviveACheckpoint(t *testing.T) {
	// 0 -> 1 -> 3 -> 5 -> 7 and 0 -> 2 -> 4 -> 6: state 1 breaks good,
	// state 2 good and good2, state 7 good2.
	adj := map[int][]int{0: {1, 2}, 1: {3}, 2: {4}, 3: {5}, 4: {6}, 5: {7}}
	bad, bad2 := map[int]bool{1: true, 2: true}, map[int]bool{2: true, 7: true}
	for _, expand := range []bool{false, true} {
		for _, assert := range []bool{false, true} {
			mk := func() *checkedGraph {
				g := &graph{init: []int{0}, next: edges(adj), bad: func(s int) bool { return bad[s] }}
				return &checkedGraph{graph: g, bad2: func(s int) bool { return bad2[s] }, assert2: assert, expand: expand}
			}
			cfg := explorer.Config{Workers: 2, Continue: true}
			want := check(t, mk(), cfg)

			file := filepath.Join(t.TempDir(), "search.vck")
			ctx, cancel := context.WithCancelCause(context.Background())
			stopped := cfg
			stopped.Context = ctx
			stopped.Checkpoint = &explorer.Checkpoint{File: file, Every: time.Hour, Build: "b", Model: "m"}
			// Stopped as state 1 is stored: state 2, of the same level, breaks
			// two properties (and with assert one that keeps it from being
			// expanded, so that it is never asked for its bound).
			r := check(t, &haltGraph{checkedGraph: mk(), stopAt: 1, cancel: cancel}, stopped)
			if r.Status == want.Status && r.States == want.States {
				t.Fatalf("expand %v: the search was not stopped (%v, %d states)", expand, r.Status, r.States)
			}
			resumed := cfg
			resumed.Checkpoint = &explorer.Checkpoint{File: file, Every: time.Hour, Build: "b", Model: "m", Resume: true}
			got := check(t, mk(), resumed)
			if got.Status != want.Status || got.States != want.States || got.Transitions != want.Transitions || got.Depth != want.Depth ||
				fmt.Sprint(got.Violations) != fmt.Sprint(want.Violations) {
				t.Errorf("expand %v assert %v: resumed %v %d states %d transitions depth %d %v; uninterrupted %v %d %d depth %d %v",
					expand, assert, got.Status, got.States, got.Transitions, got.Depth, got.Violations,
					want.Status, want.States, want.Transitions, want.Depth, want.Violations)
			}
		}
	}
}

// sloppyGraph's workers fail the check of state 1 even when they are
// asked to check nothing.
type sloppyGraph struct{ *checkedGraph }

func (g sloppyGraph) NewWorker() explorer.Worker {
	return sloppyWorker{checkedWorker{graphWorker{g.graph}, g.checkedGraph}}
}

type sloppyWorker struct{ checkedWorker }

func (w sloppyWorker) Expand(b []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	if dec(b) == 1 {
		return explorer.Expanded{CheckErr: errors.New("state 1 checked")}, nil
	}
	return w.checkedWorker.Expand(b, x)
}

// TestKeyedCheckAskedForNothing: a worker that fails a check it
// was not asked for, and so does not expand the state, fails the search,
// instead of leaving the state counted as terminal.
func TestKeyedCheckAskedForNothing(t *testing.T) {
	g := &graph{init: []int{0}, next: edges(map[int][]int{0: {1}, 1: {2}, 2: {3}})}
	for _, w := range []int{1, 2} {
		m := sloppyGraph{&checkedGraph{graph: g, expand: true, keyed: true}}
		r := check(t, m, explorer.Config{Workers: w, Properties: []string{properties.DeadlockFreedom}})
		if r.Status != explorer.Failed || !strings.Contains(r.Reason, "state 1 checked") {
			t.Fatalf("%d workers: %v %d states, %q; want the search to fail with the check's error", w, r.Status, r.States, r.Reason)
		}
	}
}

// TestContinueDecidesAssertions: under --continue, the search goes on after
// every selected property has a counterexample until each assertion has
// one too or every state is explored, since an assertion's verdict is
// reported whatever was selected. On the chain 0 -> 1 -> 2 -> 3, good
// fails at 1; the assertion good2 never fails (it holds, after 4 states), or
// fails at 3.
func TestContinueDecidesAssertions(t *testing.T) {
	g := &graph{init: []int{0}, next: func(s int) []int {
		if s < 3 {
			return []int{s + 1}
		}
		return nil
	}, bad: func(s int) bool { return s == 1 }}
	for _, bad2 := range []func(int) bool{nil, func(s int) bool { return s == 3 }} {
		want := explorer.Holds
		if bad2 != nil {
			want = explorer.ViolatedVerdict
		}
		for _, strat := range []explorer.Strategy{explorer.BFS, explorer.DFS} {
			for k := 0; k < 3; k++ {
				m := &checkedGraph{graph: g, bad2: bad2, assert2: true, expand: k > 0, keyed: k == 2}
				r := check(t, m, explorer.Config{Strategy: strat, Continue: true, Properties: []string{"good"}})
				got := map[string]explorer.Verdict{}
				for _, p := range r.Properties {
					got[p.Name] = p.Verdict
				}
				if r.States != 4 || got["good"] != explorer.ViolatedVerdict || got["good2"] != want {
					t.Errorf("%v, expand %v keyed %v, good2 failing %v: %d states, %v; want 4 states, good violated, good2 %v",
						strat, k > 0, k == 2, bad2 != nil, r.States, got, want)
				}
			}
		}
	}
}

// TestExhaustive: a search that stops at its first violation says that it
// did not explore every state; one that goes on (Continue) until no state
// is left, or finds nothing, says that it did.
func TestExhaustive(t *testing.T) {
	g := &graph{init: []int{0}, next: func(s int) []int {
		if s < 3 {
			return []int{s + 1}
		}
		return nil
	}, bad: func(s int) bool { return s == 1 }}
	for _, strat := range []explorer.Strategy{explorer.BFS, explorer.DFS} {
		for _, tt := range []struct {
			cont bool
			bad  func(int) bool
			want bool
		}{{false, g.bad, false}, {true, g.bad, true}, {false, func(int) bool { return false }, true}} {
			// good2 holds, so that Continue goes on to the last state.
			m := &checkedGraph{graph: &graph{init: g.init, next: g.next, bad: tt.bad}, bad2: func(int) bool { return false }}
			r := check(t, m, explorer.Config{Strategy: strat, Continue: tt.cont, Properties: []string{"good", "good2"}})
			if r.Exhaustive != tt.want {
				t.Errorf("%v, continue %v: %v after %d states, exhaustive %v; want %v", strat, tt.cont, r.Status, r.States, r.Exhaustive, tt.want)
			}
		}
	}
}

// TestEveryViolationOfAState: a state that breaks two properties is a
// counterexample to both, whether the search goes on after the first
// (Continue) or not, whatever the search and however it checks (when it
// stores a state, when it expands it, with keys); an initial state too.
// Checks name one property at a time, and the second property, broken
// only where the first is, was once reported holding. When the second is
// an assertion, the state is not expanded.
func TestEveryViolationOfAState(t *testing.T) {
	next := edges(map[int][]int{0: {1}, 1: {2}, 2: {3}})
	for _, at := range []int{0, 1} { // the state that breaks both
		for _, assert := range []bool{false, true} {
			for k := 0; k < 3; k++ {
				for _, cont := range []bool{false, true} {
					for _, cfg := range configs {
						bad := func(s int) bool { return s == at }
						g := &checkedGraph{graph: &graph{init: []int{0}, next: next, bad: bad}, bad2: bad, assert2: assert, expand: k > 0, keyed: k == 2}
						cfg.Continue = cont
						r := check(t, g, cfg)
						got := map[string]explorer.Verdict{}
						for _, p := range r.Properties {
							got[p.Name] = p.Verdict
						}
						name := fmt.Sprintf("state %d, assert %v, expand %v, keyed %v, continue %v, %v/%d", at, assert, k > 0, k == 2, cont, cfg.Strategy, cfg.Workers)
						if got["good"] != explorer.ViolatedVerdict || got["good2"] != explorer.ViolatedVerdict {
							t.Errorf("%s: good %v, good2 %v; want both violated", name, got["good"], got["good2"])
						}
						for _, v := range r.Violations {
							if len(v.Trace.Steps) != at {
								t.Errorf("%s: the counterexample to %s has %d steps, want %d", name, v.Property, len(v.Trace.Steps), at)
							}
						}
						if want := int64(at + 1); cont && assert && r.States != want {
							t.Errorf("%s: %d states; the state that breaks an assertion is expanded", name, r.States)
						}
					}
				}
			}
		}
	}
}

// TestCheckpointBeforeLiveness: a search that keeps checkpoints saves the
// end of its safety search when a liveness phase follows, so that stopped
// in that phase it can be resumed, which only redoes the liveness phase;
// so does a search with --continue stopped after a violation.
func TestCheckpointBeforeLiveness(t *testing.T) {
	adj := map[int][]int{0: {1, 2}, 1: {3}, 2: {3, 4}, 4: {5}}
	mk := func() liveChecked {
		g := &graph{init: []int{0}, next: edges(adj), bad: func(s int) bool { return s == 4 }}
		return liveChecked{&checkedGraph{graph: g, noGoal: func(s int) bool { return s == 5 }}}
	}
	for _, cfg := range []explorer.Config{{Workers: 2, Continue: true}, {Strategy: explorer.DFS, Continue: true}} {
		want := check(t, mk(), cfg)
		file := filepath.Join(t.TempDir(), "ckpt")
		ctx, cancel := context.WithCancelCause(context.Background())
		saves := 0
		stopped := cfg
		stopped.Context = ctx
		stopped.Checkpoint = &explorer.Checkpoint{File: file, Every: time.Hour, Build: "b", Model: "m",
			Saved: func(s explorer.CheckpointSaved) {
				saves++
				cancel(errors.New("stopped by the test")) // now, in the liveness phase
			}}
		r := check(t, mk(), stopped)
		// The stop comes in the liveness phase, or, when the monitor sees
		// it first, just before: the safety search is done and saved.
		if saves != 1 || r.Status != explorer.Violated || !strings.Contains(r.Reason, "stopped by the test") || !r.Exhaustive {
			t.Fatalf("%v: %d saves, %v (%s), exhaustive %v; want one save, then a stop after the safety search", cfg.Strategy, saves, r.Status, r.Reason, r.Exhaustive)
		}
		resumed := cfg
		resumed.Checkpoint = &explorer.Checkpoint{File: file, Every: time.Hour, Build: "b", Model: "m", Resume: true}
		got := check(t, mk(), resumed)
		if got.Status != want.Status || got.States != want.States || got.Depth != want.Depth || fmt.Sprint(got.Properties) != fmt.Sprint(want.Properties) {
			t.Errorf("%v resumed: %v %d states depth %d %v; uninterrupted %v %d depth %d %v",
				cfg.Strategy, got.Status, got.States, got.Depth, got.Properties, want.Status, want.States, want.Depth, want.Properties)
		}
	}
}

// TestAssertionStatesAreStoredOnce: an initial state that breaks an
// assertion is stored and not expanded; reached again from another initial
// state, it is not stored a second time, in any search.
func TestAssertionStatesAreStoredOnce(t *testing.T) {
	next := edges(map[int][]int{0: {1, 2}, 2: {3}})
	for _, cfg := range configs {
		g := &checkedGraph{graph: &graph{init: []int{1, 0}, next: next, bad: func(s int) bool { return s == 3 }},
			bad2: func(s int) bool { return s == 1 }, assert2: true}
		cfg.Continue = true
		if r := check(t, g, cfg); r.States != 4 {
			t.Errorf("%v/%d: %d states, want 4", cfg.Strategy, cfg.Workers, r.States)
		}
	}
}

// TestDepthLimitLeavesOutWhatIsNotExpanded: at the depth limit, a state
// the search does not expand (it breaks an assertion) has no successor
// beyond the limit, whether states are checked when stored or when
// expanded; and a step that panics there fails nothing.
func TestDepthLimitLeavesOutWhatIsNotExpanded(t *testing.T) {
	next := edges(map[int][]int{0: {1, 3}, 1: {2}, 3: {0}})
	for _, expand := range []bool{false, true} {
		for _, w := range []int{1, 2} {
			for _, panics := range []bool{false, true} {
				gr := &graph{init: []int{0}, next: next, bad: func(int) bool { return false }}
				if panics {
					gr.panic = func(s int) bool { return s == 1 }
				}
				g := &checkedGraph{graph: gr, bad2: func(s int) bool { return s == 1 }, assert2: true, expand: expand}
				r := check(t, g, explorer.Config{Workers: w, MaxDepth: 1, Continue: true})
				if r.Status != explorer.Violated || r.Reason != "" || !r.Exhaustive || r.States != 3 {
					t.Errorf("expand %v, %d workers, panics %v: %v %q, %d states, exhaustive %v; want violated (good2), complete, 3 states",
						expand, w, panics, r.Status, r.Reason, r.States, r.Exhaustive)
				}
			}
		}
	}
}

// TestEndCheckpointKeepsTheDepth: a search whose last level holds only
// states that break an assertion ends a level up; resumed from the
// checkpoint at the end of its safety search, it reports the same depth.
func TestEndCheckpointKeepsTheDepth(t *testing.T) {
	next := edges(map[int][]int{0: {1, 2}})
	for _, expand := range []bool{false, true} {
		for _, w := range []int{1, 2} {
			mk := func() liveChecked {
				return liveChecked{&checkedGraph{graph: &graph{init: []int{0}, next: next, bad: func(int) bool { return false }},
					bad2: func(s int) bool { return s > 0 }, assert2: true, expand: expand}}
			}
			cfg := explorer.Config{Workers: w, Continue: true}
			want := check(t, mk(), cfg)
			file := filepath.Join(t.TempDir(), "ckpt")
			cfg.Checkpoint = &explorer.Checkpoint{File: file, Every: time.Hour, Build: "b", Model: "m"}
			check(t, mk(), cfg)
			cfg.Checkpoint = &explorer.Checkpoint{File: file, Every: time.Hour, Build: "b", Model: "m", Resume: true}
			if got := check(t, mk(), cfg); got.Depth != want.Depth || got.States != want.States || got.Status != want.Status {
				t.Errorf("expand %v, %d workers: resumed %v depth %d, %d states; uninterrupted %v depth %d, %d", expand, w, got.Status, got.Depth, got.States, want.Status, want.Depth, want.States)
			}
		}
	}
}
