package explorer

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vacheck/vacheck/internal/hll"
	"github.com/vacheck/vacheck/properties"
	"golang.org/x/sync/errgroup"
)

// Why a search stopped early.
const (
	running int32 = iota
	stopTimeout
	stopMemory
	stopContext
)

type search struct {
	m        Model
	tracked  []TrackedMetric // the metrics the model tracks (instrument)
	tracks   string          // what tracking them adds to the states
	cfg      Config
	props    []properties.Info
	deadlock int    // index of deadlock-freedom in results: len(props)
	want     uint64 // invariants still to be checked
	assert   uint64 // assertions: violating states are never expanded
	checkDL  bool
	shards   []*visitedSet
	workers  []Worker
	// initial holds the initial states built so far, by index; inits are
	// the indices of those that are new (not equal to an earlier one).
	initial  [][]byte
	inits    []int      // the initial states stored, by index
	initRefs []stateRef // and their references in the visited set
	// initStop[k] says that inits[k] broke a model assumption (an
	// assertion): stored, and not expanded.
	initStop []bool

	states, transitions, terminal atomic.Int64
	cut                           atomic.Int64
	raw, rawTerminal              atomic.Int64 // under symmetry: the states the orbits stored hold
	depth                         atomic.Int64
	queue                         atomic.Int64
	stop                          atomic.Int32
	peak                          atomic.Uint64
	start                         time.Time
	// unchecked counts the states stored and never checked: those a stop
	// left in a level whose checks were deferred (checkLevel).
	unchecked atomic.Int64
	// explored counts the states of the BFS levels expanded before the one
	// under way (Progress.Explored).
	explored atomic.Int64

	violations []found
	failure    *found
	failErr    error
	incomplete string
	limit      Limit // the limit that made the search incomplete

	// reduce: the search explores under partial-order reduction
	// (Expansion.Reduce).
	reduce bool
	// reduced counts the states expanded with fewer than all their enabled
	// transitions.
	reduced atomic.Int64

	// rec records the state graph for liveness and metrics during a BFS.
	rec *graphRecorder
	// livePhase says that liveness properties or metrics are asked for: a
	// phase on the state graph follows the safety search.
	livePhase bool
	// phase is what the search is doing, for progress reports (a Phase);
	// expanded counts, roughly, the states of the BFS level being expanded
	// that the workers have expanded.
	phase    atomic.Int32
	expanded atomic.Int64
	// safetyDone says that the safety search explored every state (within
	// the model's bound) and was not ended by a limit or a counterexample:
	// its verdicts are final whatever happens in the liveness phase;
	// finished, that every phase completed before a limit was reached.
	safetyDone, finished bool
	// exhausted says that the safety search ended because no state was
	// left to expand (not because it was stopped, found what it looked
	// for, or failed): a stop that comes after it cannot undo that.
	exhausted bool
	// liveVerdict is the verdict on each liveness property; a property the
	// liveness phase did not finish (a limit reached) is Unknown.
	liveVerdict    []Verdict
	liveViolations []Violation
	graph          *GraphStats
	metrics        []Metric

	// bits is the bitstate table of a search with Config.Bitstate, and
	// sketch estimates the distinct states it stored (bitstate.go); order
	// draws the order of successors with Config.OrderSeed.
	bits   *bitstate
	sketch *hll.Sketch
	order  *rand.Rand
	// cover counts each worker's transitions with Config.Coverage
	// (coverage.go).
	cover []*CoverageCounter

	// Checkpoints (checkpoint.go): the model's digest, when the last one
	// was saved, the search time before this process resumed, and what it
	// resumed from.
	hash     uint64
	lastSave time.Time
	prior    time.Duration
	resume   *resumed
	// save is what a save at a stop is expected to take, which the
	// Timeout leaves room for.
	save saveBudget
}

// selected reports whether the property name is to be checked.
func (s *search) selected(name string) bool {
	if s.cfg.Properties == nil {
		return true
	}
	for _, p := range s.cfg.Properties {
		if p == name {
			return true
		}
	}
	return false
}

// Check searches the state space of m as cfg says and checks the selected
// properties. Limits reached end the search with Status Incomplete; a
// panicking model ends it with Status Failed and the path to the state that
// failed. The error is non-nil only for a bad Config, or a checkpoint to
// resume that is refused (ErrCheckpoint).
func Check(m Model, cfg Config) (*Result, error) {
	props := m.Properties()
	var live []LiveProperty
	if lm, ok := m.(LiveModel); ok {
		live = lm.Liveness()
	}
	known := append([]properties.Info(nil), props...)
	for _, p := range live {
		known = append(known, p.Info)
	}
	cfg, err := cfg.validate(known)
	if err != nil {
		return nil, err
	}
	m, tracked, tracks, err := instrument(m, cfg.Metrics)
	if err != nil {
		return nil, err
	}
	s := &search{m: m, cfg: cfg, props: props, deadlock: len(props), start: time.Now(), tracked: tracked, tracks: tracks}
	if cfg.Reduction == PartialOrder {
		if err := s.checkReduction(live); err != nil {
			return nil, err
		}
	}
	if cfg.Bitstate > 0 {
		if err := s.checkBitstate(live); err != nil {
			return nil, err
		}
	}
	coverage := s.coverage(m)
	var quotient *symModel
	if cfg.Symmetry {
		if err := s.checkSymmetry(live); err != nil {
			return nil, err
		}
		if quotient, err = symmetric(m); err != nil {
			return nil, err
		}
		s.m, m = quotient, quotient
	}
	selected := s.selected
	for k, p := range props {
		if selected(p.Name) || p.Kind == properties.Assertion {
			s.want |= 1 << uint(k)
		}
		if p.Kind == properties.Assertion {
			s.assert |= 1 << uint(k)
		}
	}
	s.checkDL = selected(properties.DeadlockFreedom)
	s.livePhase = len(cfg.Metrics) > 0
	for _, p := range live {
		s.livePhase = s.livePhase || selected(p.Name)
	}
	if quotient != nil {
		quotient.want, quotient.checkDL = s.want, s.checkDL
	}
	s.shards = make([]*visitedSet, cfg.Workers)
	for i := range s.shards {
		s.shards[i] = newVisitedSet(i)
	}
	// The result is built before this runs: nothing reads the visited set
	// after Check returns.
	defer s.freeVisited()
	s.workers = make([]Worker, cfg.Workers)
	for i := range s.workers {
		s.workers[i] = m.NewWorker()
	}
	s.reduce = cfg.Reduction == PartialOrder
	if err := s.startCoverage(coverage); err != nil {
		return nil, err
	}
	s.startBitstate()
	if cfg.OrderSeed != 0 {
		s.order = rand.New(rand.NewPCG(cfg.OrderSeed, orderStream))
	}

	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); s.monitor(done) }()
	// The limits hold while a checkpoint is loaded too: the monitor runs.
	if end, err := s.startCheckpoint(live); err != nil || end {
		close(done)
		wg.Wait()
		if err != nil {
			return nil, err
		}
		s.sampleMemory()
		return s.result(selected, live), nil
	}
	// The initial states are stored (and built, for an InitialStreamer)
	// under the limits, like every other state.
	s.inits, s.initRefs, s.initStop, err = s.addInitial(s.workers[0])
	if err != nil {
		close(done)
		wg.Wait()
		return nil, fmt.Errorf("explorer: initial states: %w", err)
	}
	if err := s.resumeStack(); err != nil {
		close(done)
		wg.Wait()
		return nil, err
	}
	if cfg.Strategy == DFS {
		s.dfs()
		s.endBitstate()
	} else {
		s.recordGraph(live)
		defer s.rec.close()
		s.bfs()
	}
	s.safetyDone = s.failure == nil && s.incomplete == "" && s.exhausted && !s.done()
	if s.failure == nil && s.incomplete == "" && !s.stopped() && (s.violated() == 0 || cfg.Continue) {
		s.runLiveness(live)
		if s.incomplete == "" && s.failure == nil && s.stopped() {
			s.cutShort(s.limitReason()) // a limit reached during the liveness phase
		}
		if s.failure != nil && errors.Is(s.failErr, ErrConfig) {
			// A step of Config.FairSteps that no transition has: only
			// the state graph can tell.
			close(done)
			wg.Wait()
			return nil, s.failErr
		}
	}
	s.finished = s.safetyDone && s.incomplete == "" && (!s.stopped() || !s.livePhase)
	close(done)
	wg.Wait()
	s.sampleMemory()
	return s.result(selected, live), nil
}

// checkReduction refuses partial-order reduction for a model that does not
// allow it and for what it does not preserve; with every property selected
// (Properties nil) it selects the safety properties only.
func (s *search) checkReduction(live []LiveProperty) error {
	if r, ok := s.m.(Reducible); !ok || !r.Reducible() {
		return configError("Reduction", "por", "{Reduction por}: this model does not allow partial-order reduction (its processes are not declared independent); use {Reduction none}")
	}
	if len(s.cfg.Metrics) > 0 {
		return configError("Reduction", "por", "{Reduction por} explores only some interleavings, so it cannot compute {Metrics %s}; use {Reduction none}", s.cfg.Metrics[0])
	}
	if s.cfg.Properties == nil {
		s.cfg.Properties = s.safetyNames()
		return nil
	}
	for _, p := range live {
		if s.selected(p.Name) {
			return configError("Reduction", "por", "{Reduction por} preserves invariants, assertions and deadlocks, not the liveness property %s; use {Reduction none}, or select safety properties with {Properties}", p.Name)
		}
	}
	return nil
}

// safetyNames names deadlock-freedom and every invariant and assertion:
// what a reduction that does not preserve liveness checks by default.
func (s *search) safetyNames() []string {
	names := []string{properties.DeadlockFreedom}
	for _, p := range s.props {
		names = append(names, p.Name)
	}
	return names
}

// shard returns the visited-set shard of fingerprint h.
// freeVisited gives the visited set's memory back at once rather than at
// the next collection (it lives outside the Go heap).
func (s *search) freeVisited() {
	if s.bits != nil {
		s.bits.free()
	}
	for i, v := range s.shards {
		if v != nil {
			v.free()
			s.shards[i] = nil
		}
	}
}

// saveBeforeLiveness saves st, the end of a safety search that explored
// every state, when a liveness or metrics phase follows and the search
// keeps checkpoints: stopped in that phase (or as it ends: a consistent
// point all the same), the search keeps its safety part, and resuming it
// only builds the state graph again.
func (s *search) saveBeforeLiveness(st ckState) {
	if s.cfg.Checkpoint == nil || !s.livePhase || s.failure != nil || s.incomplete != "" ||
		s.violated() > 0 && !s.cfg.Continue || s.done() {
		return
	}
	s.saveCheckpoint(st)
}

func (s *search) shard(h uint64) int { return int(h % uint64(len(s.shards))) }

func (s *search) stopped() bool { return s.stop.Load() != running }

// done reports whether the violations found so far end the search: the
// first one does, and with Continue, one for every property still checked.
// The assertions count too: they are checked whatever was selected, and
// their verdict is reported (the channel bound, most often), so the search
// goes on until each has a counterexample or every state is explored.
func (s *search) done() bool {
	if s.violated() == 0 {
		return false
	}
	if !s.cfg.Continue {
		return true
	}
	dl, pending := !s.checkDL, s.want
	for _, f := range s.violations {
		dl = dl || f.prop == s.deadlock
		if f.prop < len(s.props) {
			pending &^= 1 << uint(f.prop)
		}
	}
	return dl && pending == 0
}

// violated returns how many properties the search found violated so far:
// its finds less the witnesses of reachability properties.
func (s *search) violated() int {
	n := 0
	for _, f := range s.violations {
		if !s.isReach(f.prop) {
			n++
		}
	}
	return n
}

// isReach reports whether property p (an index into the model's
// properties, or deadlock) is a reachability property, whose find is a
// witness rather than a violation.
func (s *search) isReach(p int) bool {
	return p >= 0 && p < len(s.props) && s.props[p].Kind == properties.Reachable
}

// eachBit calls fn with the index of every bit set in mask, lowest first.
func eachBit(mask uint64, fn func(p int)) {
	for ; mask != 0; mask &= mask - 1 {
		fn(bits.TrailingZeros64(mask))
	}
}

// addInitial builds and stores the initial states (level 0) in order,
// checking each, until a limit is reached. It returns the indices of the
// initial states that are new, in order, their references in the visited
// set, whether each broke an assertion (and is not to be expanded), and
// the model's error building them.
func (s *search) addInitial(w Worker) (out []int, refs []stateRef, stop []bool, err error) {
	var h uint64
	var r stateRef
	defer func() {
		if p := recover(); p != nil {
			s.fail(h, r, fmt.Errorf("the model panicked checking an initial state: %v", p))
		}
	}()
	err = eachShardInitial(s.m, s.cfg.Shard, func(st []byte) bool {
		i := len(s.initial)
		s.initial = append(s.initial, st)
		if s.resume != nil {
			return true // stored and checked before the checkpoint
		}
		if i&255 == 255 && (s.stopped() || s.overMemory()) {
			return false
		}
		h = fingerprint(st)
		m := s.shards[s.shard(h)]
		if m.Has(h) {
			return true
		}
		if s.cfg.MaxStates > 0 && s.states.Load() >= s.cfg.MaxStates {
			s.cutShort(StateLimit, fmt.Sprintf("state limit reached (--max-states %d) while building the initial states", s.cfg.MaxStates))
			return false
		}
		if g := m.growth(h); g > 0 && !roomFor(s, g) {
			return false
		}
		r, _ = m.Add(h, noRef, uint32(i))
		s.states.Add(1)
		o, err := orbitOf(w, st)
		if err != nil {
			s.fail(h, r, err)
			return false
		}
		s.raw.Add(o)
		broken := false
		if s.want != 0 {
			mask, err := w.Check(st, s.want)
			eachBit(mask, func(p int) { s.record(p, h, r) })
			if err != nil {
				s.fail(h, r, err)
				return false
			}
			broken = s.assert&mask != 0 // a model assumption: stored, not expanded
		}
		out, refs, stop = append(out, i), append(refs, r), append(stop, broken)
		return true
	})
	return out, refs, stop, err
}

// inBound reports whether st may be expanded: always, unless the worker
// declares a bound.
func inBound(w Worker, st []byte) (bool, error) {
	b, _ := w.(Bounder)
	return inBoundOf(b, st)
}

// inBoundOf is inBound for a worker that is the Bounder b, or none when b
// is nil.
func inBoundOf(b Bounder, st []byte) (bool, error) {
	if b == nil {
		return true, nil
	}
	return b.InBound(st)
}

// split returns the w-th of k nearly equal parts of [0, n).
func split(n, k, w int) (lo, hi int) {
	return n * w / k, n * (w + 1) / k
}

// parallel runs fn(w) for every worker w and waits for all of them.
func (s *search) parallel(fn func(w int)) {
	var g errgroup.Group
	for w := range s.workers {
		g.Go(func() error { fn(w); return nil })
	}
	_ = g.Wait()
}
