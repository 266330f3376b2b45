package explorer_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vacheck/vacheck/explorer"
)

// callStopModel is a graph whose model code cancels the search's context at a
// chosen call and then slows down: every later call of the counted kind
// sleeps, and counts itself in after. A search that keeps calling the
// model after a stop shows it in after, whatever the machine's load: the
// test asserts a count, not a time.
type callStopModel struct {
	*graph
	cancel context.CancelFunc
	// trigger is the call (1-based, of Check when onCheck, else of
	// Successors) that cancels; calls counts them.
	trigger, calls int64
	onCheck        bool
	after          atomic.Int64
	mu             sync.Mutex
	checked        map[int]bool // the states Check was asked about
	done           atomic.Bool
}

func (m *callStopModel) NewWorker() explorer.Worker { return callStopWorker{m, graphWorker{m.graph}} }

type callStopWorker struct {
	m *callStopModel
	graphWorker
}

// tick counts a call of the model after the stop, and slows it; counted,
// it also counts a call of the kind that triggers the stop, and cancels
// the search's context at the trigger.
func (m *callStopModel) tick(counted bool) {
	if m.done.Load() {
		m.after.Add(1)
		time.Sleep(200 * time.Microsecond)
		return
	}
	if !counted {
		return
	}
	m.mu.Lock()
	m.calls++
	n := m.calls
	m.mu.Unlock()
	if n == m.trigger {
		m.cancel()
		m.done.Store(true)
	}
}

func (w callStopWorker) Check(b []byte, want uint64) (uint64, error) {
	w.m.mu.Lock()
	w.m.checked[dec(b)] = true
	w.m.mu.Unlock()
	w.m.tick(w.m.onCheck)
	return w.graphWorker.Check(b, want)
}

func (w callStopWorker) Successors(b []byte, emit func(explorer.Transition, []byte)) (int, error) {
	w.m.tick(!w.m.onCheck)
	return w.graphWorker.Successors(b, emit)
}

func (w callStopWorker) Expand(b []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	return explorer.ExpandBySuccessors(w, b, x)
}

// stopWide is the number of states of the wide level of the stop tests;
// stopAfter bounds the model calls a stop may still make: 256 states of
// each worker's range, and what the monitor's reaction takes at 200 µs a
// call, with room to spare on a loaded machine. Before the checks were
// interruptible, a stop checked the whole level: stopWide calls.
const (
	stopWide  = 40000
	stopAfter = stopWide / 8
)

// runStop runs m under cfg with m's context and checks what every stop
// test asks: an incomplete, interrupted search that stopped calling the
// model soon after the stop.
func runStop(t *testing.T, m *callStopModel, cfg explorer.Config) *explorer.Result {
	t.Helper()
	return runStopAs(t, m, m, cfg)
}

// runStopAs is runStop of m searched as model, which wraps it.
func runStopAs(t *testing.T, m *callStopModel, model explorer.Model, cfg explorer.Config) *explorer.Result {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m.cancel, m.checked = cancel, map[int]bool{}
	cfg.Context = ctx
	r := check(t, model, cfg)
	if r.Status != explorer.Incomplete || r.Limit != explorer.Interrupted {
		t.Fatalf("%d workers: %v, limit %v (%s), want incomplete and interrupted", cfg.Workers, r.Status, r.Limit, r.Reason)
	}
	if n := m.after.Load(); n > stopAfter {
		t.Errorf("%d workers: the model was called %d times after the stop, want at most %d", cfg.Workers, n, stopAfter)
	}
	return r
}

// checkedIn counts the states of [lo, hi) Check was asked about.
func (m *callStopModel) checkedIn(lo, hi int) int64 {
	var n int64
	for s := range m.checked {
		if s >= lo && s < hi {
			n++
		}
	}
	return n
}

// twoWideLevels is the graph 0 → 1..N → N+1..2N, N = stopWide, in which
// each state of level 1 has one successor.
func twoWideLevels() *graph {
	return &graph{init: []int{0}, next: func(s int) []int {
		switch {
		case s == 0:
			return fanOut(1)
		case s <= stopWide:
			return []int{s + stopWide}
		}
		return nil
	}}
}

// fanOut returns the stopWide states first, first+1, ...: the wide level
// of the stop tests.
func fanOut(first int) []int {
	out := make([]int, stopWide)
	for i := range out {
		out[i] = first + i
	}
	return out
}

// TestStopDuringExpansionLeavesLevelUnchecked stops a search whose checks
// are deferred to expansion at the first state of a wide level: the rest
// of the level, stored and not expanded, is left unchecked (it was checked
// whole before, however long that took), and the result counts it as
// such: States is what the visited set holds, Unchecked the part of it
// never checked.
func TestStopDuringExpansionLeavesLevelUnchecked(t *testing.T) {
	g := twoWideLevels()
	for _, w := range []int{1, 2} {
		// Successors is called once for state 0; the second call is the
		// first state of level 1.
		m := &callStopModel{graph: g, trigger: 2}
		r := runStop(t, m, explorer.Config{Workers: w})
		if r.States != 1+stopWide {
			t.Errorf("%d workers: %d states, want %d: levels 0 and 1 stored, level 2 rolled back", w, r.States, 1+stopWide)
		}
		if want := stopWide - m.checkedIn(1, stopWide+1); r.Unchecked != want || want == 0 {
			t.Errorf("%d workers: %d unchecked, want %d (the states of level 1 never checked, not 0)", w, r.Unchecked, want)
		}
	}
}

// TestStopDuringStoredLevelCheck stops the check of a level the search
// stored and will not expand (here: the state limit cut it), which it
// checks on its own: the check ends soon after the stop, and the states
// it did not reach are counted unchecked.
func TestStopDuringStoredLevelCheck(t *testing.T) {
	// 0 → 1 → 2..N+1.
	g := &graph{init: []int{0}, next: func(s int) []int {
		switch s {
		case 0:
			return []int{1}
		case 1:
			return fanOut(2)
		}
		return nil
	}}
	for _, w := range []int{1, 2} {
		// Check is called for states 0 (stored) and 1 (expanded); the
		// third call is the first of the stored level's check.
		m := &callStopModel{graph: g, trigger: 3, onCheck: true}
		max := int64(2 + stopWide - 1)
		r := runStop(t, m, explorer.Config{Workers: w, MaxStates: max})
		if r.States != max {
			t.Errorf("%d workers: %d states, want %d", w, r.States, max)
		}
		if want := stopWide - 1 - m.checkedIn(2, stopWide+2); r.Unchecked != want || want == 0 {
			t.Errorf("%d workers: %d unchecked, want %d (the stored states never checked, not 0)", w, r.Unchecked, want)
		}
	}
}

// TestStopDuringDepthLimitLook stops the look beyond the depth limit
// (newBeyond), which asks the successors of every state of the last level
// when they all lead back: it ends soon after the stop, and the search is
// interrupted, not complete.
func TestStopDuringDepthLimitLook(t *testing.T) {
	// 0 → 1..N, each back to 0; the depth limit is 1.
	g := &graph{init: []int{0}, next: func(s int) []int {
		if s == 0 {
			return fanOut(1)
		}
		return []int{0}
	}}
	for _, w := range []int{1, 2} {
		// Successors: once for state 0, once for each state of level 1
		// as it is expanded, then the look beyond begins.
		m := &callStopModel{graph: g, trigger: 2 + stopWide}
		r := runStop(t, m, explorer.Config{Workers: w, MaxDepth: 1})
		if r.States != 1+stopWide || r.Unchecked != 0 {
			t.Errorf("%d workers: %d states, %d unchecked, want %d and 0", w, r.States, r.Unchecked, 1+stopWide)
		}
	}
}

// TestProgressExploredGrowsWithinALevel: Progress.Explored counts the
// states expanded as a wide level is expanded, where States stays put
// until the level is stored, and never exceeds States (a state is stored
// before it is expanded).
func TestProgressExploredGrowsWithinALevel(t *testing.T) {
	// 0 → 1..N, each slow to expand, → N+1..2N.
	g := &graph{init: []int{0}, next: func(s int) []int {
		switch {
		case s == 0:
			return fanOut(1)
		case s <= stopWide:
			if s%100 == 0 {
				time.Sleep(time.Millisecond)
			}
			return []int{s + stopWide}
		}
		return nil
	}}
	var mu sync.Mutex
	var reports []explorer.Progress
	cfg := explorer.Config{Workers: 2, ProgressEvery: time.Millisecond, Progress: func(p explorer.Progress) {
		mu.Lock()
		reports = append(reports, p)
		mu.Unlock()
	}}
	check(t, g, cfg)
	mu.Lock()
	defer mu.Unlock()
	within := false
	for _, p := range reports {
		if p.Explored > p.States {
			t.Errorf("%d states explored of %d stored", p.Explored, p.States)
		}
		// Level 1 under way: stored, partly expanded.
		within = within || p.Depth == 1 && p.States == 1+stopWide && p.Explored > 1 && p.Explored < 1+stopWide
	}
	if !within {
		t.Errorf("no report while level 1 was expanded counted its states in Explored: %+v", reports)
	}
}

// boundedStopModel is a callStopModel whose workers are Bounders, which
// phase 2 asks about each state it stores: the third call of InBound
// stops the search (the trigger of Check or Successors is never met), and
// later calls count and are slow.
type boundedStopModel struct {
	*callStopModel
	inBound *atomic.Int64
}

func (m boundedStopModel) NewWorker() explorer.Worker {
	return boundedStopWorker{callStopWorker{m.callStopModel, graphWorker{m.graph}}, m.inBound}
}

type boundedStopWorker struct {
	callStopWorker
	inBound *atomic.Int64
}

func (w boundedStopWorker) InBound([]byte) (bool, error) {
	if w.inBound.Add(1) == 3 {
		w.m.cancel()
		w.m.done.Store(true)
		return true, nil
	}
	w.m.tick(false)
	return true, nil
}

func (w boundedStopWorker) Expand(b []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	return explorer.ExpandBySuccessors(w, b, x)
}

// TestStopDuringLevelStore stops a search while it stores a wide level
// (phase 2, which asks a Bounder about each new state): the store ends
// soon after the stop, the level stored in part. It stored the whole level
// before, whatever the stop: 39,998 model calls after it.
func TestStopDuringLevelStore(t *testing.T) {
	// 0 → 1..N.
	g := &graph{init: []int{0}, next: func(s int) []int {
		if s == 0 {
			return fanOut(1)
		}
		return nil
	}}
	for _, w := range []int{2, 3} {
		m := &callStopModel{graph: g, trigger: -1, onCheck: true}
		r := runStopAs(t, m, boundedStopModel{m, new(atomic.Int64)}, explorer.Config{Workers: w})
		if r.States >= 1+stopWide || r.States < 3 {
			t.Errorf("%d workers: %d states, want fewer than the %d of the whole level, and the 3 stored before the stop", w, r.States, 1+stopWide)
		}
	}
}
