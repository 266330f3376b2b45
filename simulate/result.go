package simulate

import (
	"context"
	"fmt"
	"time"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// Result is the outcome of a simulation with its figures. Everything but
// Elapsed and Workers is the same for every number of workers, given the
// Config, unless a timeout or the Context stopped the simulation.
type Result struct {
	// Status is Violated when a property was violated, Failed when the
	// model failed in a run, and otherwise Incomplete: a simulation
	// without a violation proves nothing. It is never OK.
	Status explorer.Status
	// Reason says in words why the status is what it is.
	Reason string
	// Limit is TimeLimit or Interrupted when Config.Timeout or
	// Config.Context stopped the simulation before its runs were done.
	Limit explorer.Limit
	Seed  uint64
	// Asked is Config.Runs; Runs the runs done.
	Asked, Runs int
	MaxSteps    int
	// Ends says how the runs ended.
	Ends Ends
	// Steps is the number of steps taken in all runs.
	Steps int64
	// Distinct is the estimated number of distinct states the runs
	// visited (Sketch), within about ±2% (two standard errors,
	// SketchError).
	Distinct float64
	// Properties are the verdicts, the model's properties in order and
	// deadlock-freedom last.
	Properties []PropertyResult
	// Violations holds one counterexample per property violated, from
	// the shortest run to a violation of it (the first of the shortest),
	// shrunk; in the order of Properties.
	Violations []Violation
	// Metrics are the statistics of the metrics asked for, over the
	// complete runs.
	Metrics []Stats
	// Failure is the run, from the first that failed, to the state where
	// the model failed, with the error in FailureErr.
	Failure    *Failure
	FailureErr error
	// Tracked names what the model tracked in its states for the metric
	// time, or is "".
	Tracked string
	// Coverage is what the runs fired, with Config.Coverage.
	Coverage *explorer.Coverage
	Workers  int
	Elapsed  time.Duration
}

// Ends counts the runs by how they ended.
type Ends struct {
	// ValidEnd: in a terminal state that is a valid end state.
	ValidEnd int64
	// Deadlock: in a terminal state that is not a valid end state (a
	// violation of deadlock-freedom, when it is checked).
	Deadlock int64
	// Violation: in a state that violates an invariant or assertion.
	Violation int64
	// StepCap: after Config.MaxSteps steps, with transitions still
	// enabled.
	StepCap int64
	// Cut: in a state beyond the model's declared bound
	// (explorer.Bounder), which is not expanded.
	Cut int64
	// Failed: the model failed (a transition panicked).
	Failed int64
}

// Complete returns the number of runs that ended in a terminal state:
// the runs the metrics measure.
func (e Ends) Complete() int64 { return e.ValidEnd + e.Deadlock }

// PropertyResult is what the simulation found of one property.
type PropertyResult struct {
	properties.Info
	// Checked says that the property was checked in every state visited.
	Checked bool
	// Runs is the number of runs that violated it.
	Runs int64
}

// Violation is a counterexample to one property, shrunk.
type Violation struct {
	// Property, Kind and Trace are those of a counterexample of
	// explorer.Check; the trace starts from the run's initial state
	// (Trace.Initial is -1: it was drawn, not listed) and every step of
	// it was replayed by its action label, so it is a run of the model.
	explorer.Violation
	// Initial is the run's initial state, in the model's encoding, from
	// which the trace replays.
	Initial []byte
	// Run is the run (0-based) it comes from, the shortest to a violation
	// of the property (the first of those); Found is the number of steps
	// that run took to reach the violation, before shrinking.
	Run, Found int
	// Shrunk says that the trace was shrunk (Config.ShrinkSteps is not
	// -1). Replays is the number of candidate traces shrinking replayed,
	// and ReplayedSteps their steps; Exhausted says that it stopped at
	// Config.ShrinkSteps rather than at a trace it could not shorten.
	Shrunk        bool
	Replays       int
	ReplayedSteps int64
	Exhausted     bool
}

// Failure is a run to a state where the model failed.
type Failure struct {
	Run   int
	Trace explorer.Trace
}

// merge adds up the figures of the runners.
func (s *sim) merge(runners []*runner) *Result {
	res := &Result{Seed: s.cfg.Seed, Asked: s.cfg.Runs, Runs: int(s.done.Load()), MaxSteps: s.cfg.MaxSteps, Workers: s.cfg.Workers, Tracked: s.tracked}
	var sk Sketch
	tallies := make([]tally, len(s.metrics))
	capped := make([]int64, len(s.metrics))
	for i := range tallies {
		tallies[i] = tally{}
	}
	n := len(s.props) + 1
	first := make([]*found, n)
	runs := make([]int64, n)
	var failure *found
	for _, r := range runners {
		sk.Merge(&r.sketch)
		for i := range tallies {
			tallies[i].merge(r.tallies[i])
			capped[i] += r.capped[i]
		}
		res.Ends.ValidEnd += r.ends.ValidEnd
		res.Ends.Deadlock += r.ends.Deadlock
		res.Ends.Violation += r.ends.Violation
		res.Ends.StepCap += r.ends.StepCap
		res.Ends.Cut += r.ends.Cut
		res.Ends.Failed += r.ends.Failed
		res.Steps += r.steps
		for p := range first {
			runs[p] += r.violRuns[p]
			if f := r.found[p]; f != nil && (first[p] == nil || shorter(len(f.acts), f.run, first[p])) {
				first[p] = f
			}
		}
		if f := r.failure; f != nil && (failure == nil || f.run < failure.run) {
			failure = f
		}
	}
	res.Distinct = sk.Estimate()
	if s.cfg.Coverage {
		// Sums over the runs: the same for any number of workers.
		cover := explorer.NewCoverageCounter(s.m)
		for _, r := range runners {
			cover.Merge(r.cover)
		}
		res.Coverage = cover.Coverage()
	}
	for i, mt := range s.metrics {
		st := tallies[i].stats(mt.name)
		st.Capped = capped[i]
		if mt.kind == kindTime {
			st.Cap = timeCap
		}
		res.Metrics = append(res.Metrics, st)
	}
	all := append(append([]properties.Info(nil), s.props...), properties.DeadlockInfo)
	for p, info := range all {
		res.Properties = append(res.Properties, PropertyResult{Info: info, Checked: s.checked[p], Runs: runs[p]})
	}
	s.first, s.failure = first, failure
	return res
}

// finish shrinks the counterexamples, rebuilds the failure's trace and
// sets the status.
func (s *sim) finish(res *Result, ctx context.Context) error {
	all := append(append([]properties.Info(nil), s.props...), properties.DeadlockInfo)
	for p, f := range s.first {
		if f == nil {
			continue
		}
		v, err := s.shrink(p, all[p], f)
		if err != nil {
			return fmt.Errorf("simulate: the counterexample to %s found in run %d: %w", all[p].Name, f.run, err)
		}
		res.Violations = append(res.Violations, v)
	}
	if f := s.failure; f != nil {
		t, err := s.replay(f.init, f.acts)
		if err != nil {
			return fmt.Errorf("simulate: the run %d in which the model failed: %w", f.run, err)
		}
		res.Failure, res.FailureErr = &Failure{Run: f.run, Trace: t}, f.err
	}
	switch s.stopped.Load() {
	case stopTimeout:
		res.Limit = explorer.TimeLimit
	case stopContext:
		res.Limit = explorer.Interrupted
	}
	stopped := ""
	switch res.Limit {
	case explorer.TimeLimit:
		stopped = fmt.Sprintf("time limit (%s) reached after %d of %d runs", s.cfg.Timeout, res.Runs, res.Asked)
	case explorer.Interrupted:
		why := "interrupted"
		if c := context.Cause(ctx); c != nil && c != context.Canceled {
			why = c.Error()
		}
		stopped = fmt.Sprintf("%s after %d of %d runs", why, res.Runs, res.Asked)
	}
	switch {
	case res.Failure != nil:
		res.Status, res.Reason = explorer.Failed, res.FailureErr.Error()
	case len(res.Violations) > 0:
		res.Status, res.Reason = explorer.Violated, stopped
	case stopped != "":
		res.Status, res.Reason = explorer.Incomplete, stopped+"; no violation in the runs done (simulation: not a proof)"
	default:
		res.Status = explorer.Incomplete
		res.Reason = fmt.Sprintf("no violation in %d runs (simulation: not a proof)", res.Runs)
	}
	return nil
}
