package simulate

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/zeebo/xxh3"
	"golang.org/x/sync/errgroup"
)

// Simulate runs cfg.Runs random runs of m and checks its safety
// properties, assertions and deadlock-freedom in every state they visit.
// Each run starts from an initial state drawn uniformly (from the model's
// explorer.InitialSampler, or from its list of initial states when it has
// at most MaxInitialEnumerated of them) and takes, at each step, one of
// the enabled transitions chosen uniformly, until it reaches a terminal
// state, a violation or cfg.MaxSteps steps. The counterexamples found are
// shrunk before they are returned.
//
// The result is the same for every number of workers. It never says that
// the properties hold: a simulation is not a proof, so a result without a
// violation is Incomplete. The error is non-nil only for a Config or model
// Simulate cannot run with (ErrConfig), or a model that fails to draw an
// initial state or to replay and describe a counterexample it found.
func Simulate(m explorer.Model, cfg Config) (*Result, error) {
	var live []explorer.LiveProperty
	if lm, ok := m.(explorer.LiveModel); ok {
		live = lm.Liveness()
	}
	cfg, err := cfg.validate(m.Properties(), live)
	if err != nil {
		return nil, err
	}
	s := &sim{cfg: cfg, m: m}
	if err := s.setup(); err != nil {
		return nil, err
	}
	return s.run()
}

// sim is one simulation.
type sim struct {
	cfg   Config
	m     explorer.Model // the model run: the one given, or its instrumented form
	props []properties.Info
	// want are the invariants and assertions checked; stop the
	// assertions; deadlock says that deadlock-freedom is checked.
	want, stop uint64
	deadlock   bool
	checked    []bool // per property of all (props, then deadlock-freedom)
	metrics    []metric
	sample     func(r *rand.Rand) ([]byte, error)
	tracked    string

	next    atomic.Int64 // the next run to hand out
	done    atomic.Int64
	steps   atomic.Int64
	stopped atomic.Int32 // a stop* reason
	start   time.Time

	// After the runs: the shortest run that violated each property (the
	// deadlock-freedom last), and the first that failed.
	first   []*found
	failure *found
}

// Why a simulation stopped handing out runs.
const (
	running int32 = iota
	stopTimeout
	stopContext
)

// metric is one metric asked for, and how a run measures it.
type metric struct {
	name string
	kind metricKind
	typ  string // kindTyped: the message type
}

type metricKind uint8

const (
	kindMessages metricKind = iota
	kindSteps
	kindTyped
	kindTime
)

// timeCap is the causal depth at which an instrumented model stops
// tracking time (explorer.TrackWorker.Track gives -1).
const timeCap = 255

// setup reads the metrics (instrumenting the model for time), the
// properties to check, and how to draw initial states.
func (s *sim) setup() error {
	cfg := s.cfg
	for _, name := range cfg.Metrics {
		mt := metric{name: name}
		switch {
		case name == MetricMessages:
			mt.kind = kindMessages
		case name == MetricSteps:
			mt.kind = kindSteps
		case name == explorer.MetricTime:
			mt.kind = kindTime
		default:
			mt.kind, mt.typ = kindTyped, strings.TrimPrefix(name, "messages:")
		}
		s.metrics = append(s.metrics, mt)
	}
	for _, mt := range s.metrics {
		if mt.kind != kindTime {
			continue
		}
		in, ok := s.m.(explorer.Instrumenter)
		if !ok {
			return configError("Metrics", `"time"`, "this model cannot measure it (it is not an explorer.Instrumenter); allowed: %s", strings.ReplaceAll(allowedMetrics, ", time", ""))
		}
		im, err := in.Instrument([]string{explorer.MetricTime})
		if err != nil {
			return configError("Metrics", `"time"`, "%v", err)
		}
		if tw, ok := im.NewWorker().(explorer.TrackWorker); !ok || tw.TrackedMetrics()[0].Kind != explorer.PathSum {
			return configError("Metrics", `"time"`, "the instrumented model's workers do not measure it as a sum along the run (explorer.TrackWorker, explorer.PathSum)")
		}
		s.m = im
		s.tracked = "the causal depth of every process and message (--metric time)"
	}
	w := s.m.NewWorker()
	if _, ok := w.(explorer.CoverWorker); cfg.Coverage && !ok {
		return configError("", "", "coverage: this model's workers do not describe their transitions (explorer.CoverWorker)")
	}
	for _, mt := range s.metrics {
		if mt.kind == kindTyped {
			if _, ok := w.(explorer.TypedWorker); !ok {
				return configError("Metrics", fmt.Sprintf("%q", mt.name), "this model cannot count messages by type; allowed: messages, steps")
			}
		}
	}
	s.props = s.m.Properties()
	selected := func(name string) bool {
		if cfg.Properties == nil {
			return true
		}
		for _, p := range cfg.Properties {
			if p == name {
				return true
			}
		}
		return false
	}
	for k, p := range s.props {
		on := p.Kind == properties.Assertion || selected(p.Name)
		s.checked = append(s.checked, on)
		if on {
			s.want |= 1 << uint(k)
		}
		if p.Kind == properties.Assertion {
			s.stop |= 1 << uint(k)
		}
	}
	s.deadlock = selected(properties.DeadlockFreedom)
	s.checked = append(s.checked, s.deadlock)
	return s.samplerFor()
}

// samplerFor sets s.sample: the model's own sampler, or a uniform draw
// from its list of initial states when it has few.
func (s *sim) samplerFor() error {
	// A model may have the method and still be unable to draw (an
	// automaton.System whose spec streams its initial states without a
	// sampler says so with an error): a first draw tells.
	var cannot error
	if is, ok := s.m.(explorer.InitialSampler); ok {
		if cannot = probe(is); cannot == nil {
			s.sample = is.SampleInitial
			return nil
		}
	}
	var initial [][]byte
	over := false
	yield := func(st []byte) bool {
		if len(initial) == MaxInitialEnumerated {
			over = true
			return false
		}
		initial = append(initial, append([]byte(nil), st...))
		return true
	}
	var err error
	if is, ok := s.m.(explorer.InitialStreamer); ok {
		err = is.InitialStates(yield)
	} else {
		var all [][]byte
		if all, err = s.m.Initial(); err == nil {
			for _, st := range all {
				if !yield(st) {
					break
				}
			}
		}
	}
	switch {
	case err != nil:
		return fmt.Errorf("simulate: listing the initial states: %w", err)
	case over && cannot != nil:
		return configError("", "", "this spec cannot sample its initial states: it has more than %d of them, and its model cannot draw one uniformly without listing them all (%v); choose parameters with fewer initial states", MaxInitialEnumerated, cannot)
	case over:
		return configError("", "", "this spec cannot sample its initial states: it has more than %d of them, and its model cannot draw one uniformly without listing them all (explorer.InitialSampler); choose parameters with fewer initial states", MaxInitialEnumerated)
	case len(initial) == 0:
		return configError("", "", "the model has no initial state")
	}
	s.sample = func(r *rand.Rand) ([]byte, error) {
		return append([]byte(nil), initial[r.IntN(len(initial))]...), nil
	}
	return nil
}

// probe draws one initial state from is with a random source of its own,
// and returns the error if it cannot.
func probe(is explorer.InitialSampler) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the model panicked: %v", p)
		}
	}()
	_, err = is.SampleInitial(rand.New(rand.NewPCG(0, 0)))
	return err
}

func (s *sim) run() (*Result, error) {
	cfg := s.cfg
	s.start = time.Now()
	ctx := cfg.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, cfg.Timeout, errTimeout)
		defer cancel()
	}
	finished := make(chan struct{})
	var watch sync.WaitGroup
	watch.Add(1)
	go func() {
		defer watch.Done()
		var tick <-chan time.Time
		if cfg.Progress != nil {
			t := time.NewTicker(cfg.ProgressEvery)
			defer t.Stop()
			tick = t.C
		}
		for {
			select {
			case <-finished:
				return
			case <-ctx.Done():
				if context.Cause(ctx) == errTimeout {
					s.stopped.CompareAndSwap(running, stopTimeout)
				} else {
					s.stopped.CompareAndSwap(running, stopContext)
				}
				return
			case <-tick:
				cfg.Progress(Progress{Runs: int(s.done.Load()), Asked: cfg.Runs, Steps: s.steps.Load(), Elapsed: time.Since(s.start)})
			}
		}
	}()
	runners := make([]*runner, cfg.Workers)
	var g errgroup.Group
	for w := range runners {
		r := s.newRunner()
		runners[w] = r
		g.Go(r.loop)
	}
	err := g.Wait()
	close(finished)
	watch.Wait()
	if err != nil {
		return nil, err
	}
	elapsed := time.Since(s.start)
	res := s.merge(runners)
	if err := s.finish(res, ctx); err != nil {
		return nil, err
	}
	res.Elapsed = elapsed
	return res, nil
}

// errTimeout is the cause of the context that Config.Timeout ends.
var errTimeout = errors.New("simulate: timeout")

// runner does runs on one goroutine, with its own worker, random source
// and figures.
type runner struct {
	s    *sim
	wk   explorer.Worker
	pw   pickExpander // wk, when it is one
	bd   explorer.Bounder
	tw   explorer.TypedWorker
	trk  explorer.TrackWorker // the instrumented model's, for time
	tbuf []int32
	pick picker
	src  *rand.ChaCha8
	rng  *rand.Rand
	x    explorer.Expansion

	// The run being done: its state, the successor chosen so far, the
	// transitions offered and the live (non-fault) ones, and what the
	// choice measures.
	init, cur, next []byte
	acts            []uint32
	k, live         int
	chosen          explorer.Transition
	typed           []int64 // per metric: what the chosen transition adds
	timeUp          int32
	measure         []int64 // per metric: the run's figure so far
	timeCapped      bool
	// With Config.Coverage: what the chosen transition fired (its Sent
	// copied from the worker's), and the runner's counts.
	cw    explorer.CoverWorker
	fired explorer.Fired
	cover *explorer.CoverageCounter

	// The runner's figures.
	sketch   Sketch
	tallies  []tally
	capped   []int64
	ends     Ends
	steps    int64
	found    []*found // per property (deadlock last): the shortest run to a violation of it
	violRuns []int64  // per property: the runs that violated it
	failure  *found
}

// pickExpander is a worker that can expand a state for a caller that
// keeps one successor (automaton's workers): Offer is asked about every
// enabled transition, with its Action, Task and Fault only, before any is
// performed, and Emit is called with the one Offer took last. A run takes
// the same transitions through it as through Expand, for less work: the
// worker performs one transition per state instead of all.
type pickExpander interface {
	ExpandPick(s []byte, x *explorer.Expansion) (explorer.Expanded, error)
}

// found is a run that violated a property or failed: which run, its
// initial state and the actions it took.
type found struct {
	run  int
	init []byte
	acts []uint32
	err  error // a failure: the model's error
}

func (s *sim) newRunner() *runner {
	n := len(s.props) + 1
	r := &runner{
		s: s, wk: s.m.NewWorker(), pick: s.cfg.pick,
		src:      rand.NewChaCha8([32]byte{}),
		tallies:  make([]tally, len(s.metrics)),
		capped:   make([]int64, len(s.metrics)),
		typed:    make([]int64, len(s.metrics)),
		measure:  make([]int64, len(s.metrics)),
		found:    make([]*found, n),
		violRuns: make([]int64, n),
	}
	if r.pick == nil {
		r.pick = uniform{}
	}
	r.rng = rand.New(r.src)
	r.bd, _ = r.wk.(explorer.Bounder)
	r.pw, _ = r.wk.(pickExpander)
	r.tw, _ = r.wk.(explorer.TypedWorker)
	for _, mt := range s.metrics {
		if mt.kind == kindTime {
			r.trk, _ = r.wk.(explorer.TrackWorker)
		}
	}
	for k := range r.tallies {
		r.tallies[k] = tally{}
		if s.metrics[k].kind == kindTyped {
			r.tw.TrackTypes(true)
		}
	}
	if s.cfg.Coverage {
		r.cw, _ = r.wk.(explorer.CoverWorker)
		r.cw.TrackCoverage(true)
		r.cover = explorer.NewCoverageCounter(s.m)
	}
	r.x = explorer.Expansion{Want: s.want, Stop: s.want, Offer: r.offer, Emit: r.emit}
	return r
}

// seed sets the random source to the one of run k: ChaCha8 keyed by the
// simulation's seed and k.
func (r *runner) seed(k int) {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[0:], r.s.cfg.Seed)
	binary.LittleEndian.PutUint64(key[8:], uint64(k))
	copy(key[16:], "vacheck simulate")
	r.src.Seed(key)
}

func (r *runner) loop() error {
	s := r.s
	for s.stopped.Load() == running {
		k := int(s.next.Add(1) - 1)
		if k >= s.cfg.Runs {
			return nil
		}
		if err := r.do(k); err != nil {
			return err
		}
		s.done.Add(1)
	}
	return nil
}

// offer is Expansion.Offer: the picker decides whether the transition
// replaces the one chosen so far.
func (r *runner) offer(t explorer.Transition, _ uint64) bool {
	if !t.Fault {
		r.live++
	}
	r.k++
	return r.pick.take(r.rng, r.k)
}

// emit keeps the successor the picker took, and what it measures.
func (r *runner) emit(t explorer.Transition, next []byte) {
	r.next = append(r.next[:0], next...)
	r.chosen = t
	for i, mt := range r.s.metrics {
		if mt.kind == kindTyped {
			r.typed[i] = int64(r.tw.SentOfType(mt.typ))
		}
	}
	if r.trk != nil {
		r.tbuf = r.trk.Track(0, r.tbuf[:0])
		r.timeUp = r.tbuf[0]
	}
	if r.cw != nil {
		f := r.cw.Fired(t)
		f.Sent = append(r.fired.Sent[:0], f.Sent...)
		r.fired = f
	}
}

// do does run k.
func (r *runner) do(k int) error {
	s := r.s
	r.seed(k)
	init, err := r.sample()
	if err != nil {
		return fmt.Errorf("simulate: drawing the initial state of run %d: %w", k, err)
	}
	r.init = init
	r.cur = append(r.cur[:0], init...)
	r.acts = r.acts[:0]
	clear(r.measure)
	r.timeCapped = false
	steps := 0
	defer func() {
		r.steps += int64(steps)
		s.steps.Add(int64(steps))
		// A model that panics instead of returning an error fails the
		// run like one that returns it.
		if p := recover(); p != nil {
			r.fail(k, fmt.Errorf("the model panicked: %v", p))
		}
	}()
	for {
		r.sketch.Add(xxh3.Hash(r.cur))
		if r.bd != nil {
			in, err := r.bd.InBound(r.cur)
			if err != nil {
				r.fail(k, err)
				return nil
			}
			if !in {
				mask, err := r.wk.Check(r.cur, s.want)
				switch {
				case err != nil:
					r.fail(k, err)
				case mask != 0:
					r.violate(k, mask)
				default:
					r.ends.Cut++
				}
				return nil
			}
		}
		r.k, r.live = 0, 0
		var res explorer.Expanded
		if r.pw != nil {
			res, err = r.pw.ExpandPick(r.cur, &r.x)
		} else {
			res, err = r.wk.Expand(r.cur, &r.x)
		}
		if err == nil {
			err = res.CheckErr
		}
		switch {
		case err != nil:
			r.fail(k, err)
			return nil
		case res.Violated != 0:
			r.violate(k, res.Violated)
			return nil
		case r.live == 0:
			return r.terminal(k)
		case steps == s.cfg.MaxSteps:
			r.ends.StepCap++
			return nil
		case r.k != res.Enabled:
			r.fail(k, fmt.Errorf("the model's worker offered %d of the %d transitions it reports enabled: with Offer set, Expand offers every one", r.k, res.Enabled))
			return nil
		}
		steps++
		if r.cover != nil {
			r.cover.Add(r.fired)
		}
		r.acts = append(r.acts, r.chosen.Action)
		r.cur, r.next = r.next, r.cur
		for i, mt := range s.metrics {
			switch mt.kind {
			case kindMessages:
				r.measure[i] += int64(r.chosen.Messages)
			case kindSteps:
				r.measure[i]++
			case kindTyped:
				r.measure[i] += r.typed[i]
			case kindTime:
				if r.timeUp < 0 {
					r.timeCapped = true
				} else {
					r.measure[i] += int64(r.timeUp)
				}
			}
		}
	}
}

// sample draws the run's initial state.
func (r *runner) sample() (st []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the model panicked: %v", p)
		}
	}()
	return r.s.sample(r.rng)
}

// terminal ends run k in a terminal state: a valid end, or a deadlock.
func (r *runner) terminal(k int) error {
	ok, err := r.wk.ValidEnd(r.cur)
	if err != nil {
		r.fail(k, err)
		return nil
	}
	if ok {
		r.ends.ValidEnd++
	} else {
		r.ends.Deadlock++
		if r.s.deadlock {
			r.violate(k, 0)
		}
	}
	// A deadlocked run is complete too: its figures count, as they do in
	// the exhaustive metrics (executions that end in a terminal state).
	for i, mt := range r.s.metrics {
		if mt.kind == kindTime && r.timeCapped {
			r.capped[i]++
			continue
		}
		r.tallies[i].add(r.measure[i])
	}
	return nil
}

// violate records that run k violated the properties of mask, or when mask
// is 0 deadlock-freedom.
func (r *runner) violate(k int, mask uint64) {
	if mask != 0 {
		r.ends.Violation++
	}
	n := len(r.s.props)
	for p := 0; p <= n; p++ {
		if p < n && mask&(1<<uint(p)) == 0 || p == n && mask != 0 {
			continue
		}
		r.violRuns[p]++
		if f := r.found[p]; f == nil || shorter(len(r.acts), k, f) {
			r.found[p] = r.path(k, nil)
		}
	}
}

// shorter reports whether a run k of n steps to a violation is a better
// start for shrinking than f: shorter, or as short and earlier. The choice
// does not depend on which worker did which run.
func shorter(n, k int, f *found) bool {
	return n < len(f.acts) || n == len(f.acts) && k < f.run
}

// fail records that the model failed in run k.
func (r *runner) fail(k int, err error) {
	r.ends.Failed++
	if r.failure == nil || k < r.failure.run {
		r.failure = r.path(k, err)
	}
}

func (r *runner) path(k int, err error) *found {
	return &found{run: k, init: append([]byte(nil), r.init...), acts: append([]uint32(nil), r.acts...), err: err}
}
