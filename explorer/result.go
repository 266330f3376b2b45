package explorer

import (
	"fmt"
	"slices"
	"time"

	"github.com/vacheck/vacheck/internal/hll"
	"github.com/vacheck/vacheck/properties"
)

// Status is the outcome of a search. The zero value is invalid.
type Status uint8

const (
	// OK: the search completed and every checked property holds.
	OK Status = 1 + iota
	// Violated: a property has a counterexample.
	Violated
	// Incomplete: a limit (states, depth, time, memory) ended the search
	// before it completed and no property was violated.
	Incomplete
	// Failed: the model itself failed (a transition panicked).
	Failed
	// Bounded: the search explored every state within the model's
	// constraint (Bounder) and found no violation, but reached states
	// outside it (Result.Cut > 0), which it checked and did not expand: the
	// properties hold within the constraint only. Deadlock-freedom is
	// decided among the states within it, which were all expanded. A
	// violation found in a bounded search is still Violated.
	Bounded
)

func (s Status) String() string {
	switch s {
	case OK:
		return "ok"
	case Violated:
		return "violated"
	case Incomplete:
		return "incomplete"
	case Failed:
		return "error"
	case Bounded:
		return "bounded"
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Verdict is the outcome for one property.
type Verdict uint8

const (
	// Holds: the search completed without a counterexample.
	Holds Verdict = 1 + iota
	// ViolatedVerdict: a counterexample was found.
	ViolatedVerdict
	// Unknown: the search stopped before it could tell.
	Unknown
	// Skipped: the property was not selected.
	Skipped
	// HoldsWithinBound: the search explored every state within the model's
	// constraint without a counterexample, but reached states outside it
	// (Status Bounded).
	HoldsWithinBound
)

func (v Verdict) String() string {
	switch v {
	case Holds:
		return "holds"
	case ViolatedVerdict:
		return "violated"
	case Unknown:
		return "unknown"
	case Skipped:
		return "skipped"
	case HoldsWithinBound:
		return "holds-within-bound"
	}
	return fmt.Sprintf("Verdict(%d)", uint8(v))
}

// PropertyResult is the verdict on one property.
type PropertyResult struct {
	properties.Info
	Verdict Verdict
}

// Step is one transition of a counterexample: its action and the state it
// leads to.
type Step struct {
	Action      string
	ActionIndex int
	State       []Var
}

// Trace is a path from an initial state.
type Trace struct {
	Initial      int   // index of the initial state
	InitialState []Var // nil when the model is not a Describer
	// InitialParams names the initial state by the parameter values that
	// select exactly it (InitialNamer): empty when the run's own
	// parameters do, nil when the model cannot name it.
	InitialParams map[string]string
	Steps         []Step
	// Cycle, for a lasso, is the cycle a fair execution repeats forever
	// after Steps; it returns to the state where it starts.
	Cycle []Step
	// CycleTasks names the fairness tasks the cycle takes.
	CycleTasks []string
	// Explanation says in words what the last state means, when the model
	// is an Explainer.
	Explanation []string
}

// Actions returns the actions of the steps, such as receive(5)_{2,3}.
func Actions(steps []Step) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = s.Action
	}
	return out
}

// Violation is a counterexample to one property.
type Violation struct {
	Property string
	Kind     properties.Kind
	// Process is the process (0-based) a per-process property failed for,
	// or -1.
	Process int
	Trace   Trace
	// Unreached marks the violation of a reachability property
	// (properties.Reachable) by a search that explored every state without
	// meeting it: there is no trace.
	Unreached bool
}

// Result is the outcome of a search with its figures.
type Result struct {
	Status   Status
	Strategy Strategy
	Workers  int
	// States counts the distinct states explored: reached, checked and
	// expanded. Under a constraint (Bounder) the states outside it are
	// counted in Cut instead.
	States int64
	// Unchecked counts the states of States that a stop (Timeout,
	// MaxMemory, Context) left stored and not yet checked against the
	// properties: the verdicts say nothing of them. It is 0 but in an
	// incomplete search that checked states as it expanded them.
	Unchecked   int64
	Transitions int64 // successors computed, including those already seen
	Depth       int   // largest BFS level reached (DFS: largest stack depth)
	Terminal    int64 // terminal states found
	// Exhaustive says that the safety search explored every reachable
	// state (within the model's bound, if it declares one), so that the
	// counts are those of the whole state space, even if a limit stopped
	// the liveness phase after it. A search that stopped at a violation,
	// at a limit or on an error did not: its figures are those of the
	// states it reached until then.
	Exhaustive bool
	// Cut counts the distinct states outside the model's constraint
	// (Bounder): each was checked against the properties once (the search
	// keeps its fingerprint, so it counts it once however often it is
	// reached) and not expanded. They are not in States; a state limit
	// (MaxStates) counts them with States.
	Cut int64
	// Reduction is the reduction the search applied; Reduced is the number
	// of states it expanded with only some of their enabled transitions.
	Reduction Reduction
	Reduced   int64
	// Symmetry describes the group whose orbits the search stored one
	// state of (Config.Symmetry), or is "". States and Terminal then count
	// orbits, and RawStates and RawTerminal the states of the model they
	// hold (the sum of the orbits' sizes): the counts of a search without
	// symmetry.
	Symmetry               string
	RawStates, RawTerminal int64
	Elapsed                time.Duration
	PeakMemory             uint64 // the most memory the Go runtime held, sampled
	Properties             []PropertyResult
	Violations             []Violation
	// Witnesses holds, for each reachability property met, a path to the
	// first state that met it (a shortest one, breadth first), in the
	// order of the model's properties.
	Witnesses []Violation
	// Reason says why an incomplete search stopped, what failed, or for a
	// bounded one how many states the bound cut.
	Reason string
	// Limit names the limit that stopped the search before it ended, or
	// NoLimit (also when a violation ended it). Reason says the same in
	// words.
	Limit Limit
	// Failure is the path to the state whose expansion failed, with the
	// error, when Status is Failed.
	Failure *Trace
	Err     error
	// Fairness is the assumption liveness was checked under.
	Fairness Fairness
	// Graph describes the explicit state graph built for liveness and
	// metrics, if one was.
	Graph *GraphStats
	// Metrics are the exhaustive figures asked for.
	Metrics []Metric
	// Tracked names what the model tracked in its states for the metrics
	// it tracks (TrackWorker.Tracks: causal depths for time, say), so that
	// the counts are those of that larger state space; empty otherwise.
	Tracked string
	// Bitstate gives the figures of the bitstate table of a search with
	// Config.Bitstate: its fill and the states it may have omitted.
	Bitstate *BitstateStats
	// Coverage is what the search fired, with Config.Coverage.
	Coverage *Coverage

	// For Swarm's union over its jobs: the sketch of the distinct states
	// stored (bitstate searches), and the coverage counter.
	sketch *hll.Sketch
	cover  *CoverageCounter
}

// StatesPerSecond returns the distinct states stored per second.
func (r *Result) StatesPerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.States) / r.Elapsed.Seconds()
}

// CollisionProbability estimates the probability that two distinct states
// of the search had the same 64-bit fingerprint, so that one of them was
// never explored: n(n-1)/2 pairs, each colliding with probability 2^-64.
func (r *Result) CollisionProbability() float64 {
	if r.States < 2 {
		return 0 // no pair: and never n(n-1) = -0 for n = 0
	}
	n := float64(r.States)
	return n * (n - 1) / 2 / 18446744073709551616.0
}

func (s *search) result(selected func(string) bool, live []LiveProperty) *Result {
	r := &Result{
		Strategy: s.cfg.Strategy, Workers: s.cfg.Workers, Fairness: s.cfg.Fairness,
		Graph: s.graph, Metrics: s.metrics,
		States: s.states.Load() - s.cut.Load(), Unchecked: s.unchecked.Load(), Transitions: s.transitions.Load(),
		Depth: int(s.depth.Load()), Terminal: s.terminal.Load(), Cut: s.cut.Load(),
		Reduction: s.cfg.Reduction, Reduced: s.reduced.Load(),
		Elapsed: s.prior + time.Since(s.start), PeakMemory: s.peak.Load(),
		Tracked: s.tracks,
	}
	// A limit reached after the safety search finished (during the
	// liveness phase) leaves its verdicts as they are: only what was not
	// finished is unknown. One reached after every phase finished changes
	// nothing.
	if s.incomplete == "" && !s.finished {
		s.cutShort(s.limitReason())
	}
	safety := s.safetyDone && s.failure == nil
	complete := safety && s.incomplete == ""
	r.Exhaustive = safety
	bounded := r.Cut > 0
	all := append(append([]properties.Info(nil), s.props...), properties.DeadlockInfo)
	for k, p := range all {
		pr := PropertyResult{Info: p, Verdict: Unknown}
		met := slices.ContainsFunc(s.violations, func(f found) bool { return f.prop == k })
		switch {
		case !selected(p.Name) && p.Kind != properties.Assertion:
			pr.Verdict = Skipped
		case met && s.isReach(k):
			pr.Verdict = Holds // a witness, whatever else happened
		case met:
			pr.Verdict = ViolatedVerdict
		case !safety:
		case bounded && s.isReach(k):
			// A state that meets the reachability property may lie past
			// the constraint: unknown.
		case bounded:
			// Deadlock-freedom too: every state within the constraint was
			// expanded, and the states outside it are not asked.
			pr.Verdict = HoldsWithinBound
		case s.isReach(k):
			// Every state explored, none met it.
			pr.Verdict = ViolatedVerdict
			r.Violations = append(r.Violations, Violation{Property: p.Name, Kind: p.Kind, Process: -1, Unreached: true})
		default:
			pr.Verdict = Holds
		}
		r.Properties = append(r.Properties, pr)
	}
	for _, f := range s.violations {
		t, err := s.traceOf(f)
		if err != nil && r.Err == nil {
			r.Err = err
		}
		if err == nil {
			t = s.preferInOrder(f, t)
		}
		v := Violation{Property: all[f.prop].Name, Kind: all[f.prop].Kind, Process: -1, Trace: t}
		if s.isReach(f.prop) {
			r.Witnesses = append(r.Witnesses, v)
			continue
		}
		r.Violations = append(r.Violations, v)
	}
	// The search for a counterexample without overtaking (preferInOrder)
	// is part of the run's time and memory.
	r.Elapsed, r.PeakMemory = s.prior+time.Since(s.start), s.peak.Load()
	for k, p := range live {
		pr := PropertyResult{Info: p.Info, Verdict: Unknown}
		switch {
		case !selected(p.Name):
			pr.Verdict = Skipped
		case s.liveVerdict != nil && s.failure == nil:
			pr.Verdict = s.liveVerdict[k]
			if pr.Verdict == Holds && bounded {
				pr.Verdict = HoldsWithinBound
			}
		}
		r.Properties = append(r.Properties, pr)
	}
	r.Violations = append(r.Violations, s.liveViolations...)
	if q, ok := s.m.(*symModel); ok {
		r.Symmetry, r.RawStates, r.RawTerminal = q.group, s.raw.Load(), s.rawTerminal.Load()
	}
	if s.bits != nil {
		r.Bitstate, r.sketch = s.bits.stats(), s.sketch
	}
	if r.cover = s.covered(); r.cover != nil {
		r.Coverage = r.cover.Coverage()
	}
	switch {
	case s.failure != nil:
		r.Status, r.Reason, r.Err = Failed, s.failErr.Error(), s.failErr
		if s.failure.hasRef || s.failure.path != nil {
			if t, err := s.traceOf(*s.failure); err == nil {
				r.Failure = &t
			}
		}
	case len(r.Violations) > 0:
		r.Status = Violated
		r.Reason, r.Limit = s.incomplete, s.limit
	case !complete:
		r.Status, r.Reason, r.Limit = Incomplete, s.incomplete, s.limit
	case bounded:
		r.Status = Bounded
		r.Reason = fmt.Sprintf("%d states lie outside the model's constraint: checked, not expanded", r.Cut)
	default:
		r.Status = OK
	}
	return r
}
