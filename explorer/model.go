package explorer

import (
	"math/rand/v2"

	"github.com/vacheck/vacheck/properties"
	"github.com/zeebo/xxh3"
)

// Model is what the explorer searches: a transition system whose states are
// canonical byte encodings (equal states have equal encodings). The
// automaton package builds Models from I/O automata; tests build small ones
// by hand.
type Model interface {
	// Initial returns the initial states, in a fixed order.
	Initial() ([][]byte, error)
	// Properties returns the invariants Worker.Check evaluates, in the
	// order of the indices it returns.
	Properties() []properties.Info
	// NewWorker returns a worker with its own scratch memory; the explorer
	// gives each goroutine its own.
	NewWorker() Worker
}

// InitialStreamer is an optional interface of a Model with very many
// initial states: InitialStates yields them one at a time, in the order of
// Initial, until yield returns false, so that a search stops at a state,
// memory or time limit before building them all. Each state yielded is the
// search's to keep.
type InitialStreamer interface {
	InitialStates(yield func(st []byte) bool) error
}

// InitialSampler is an optional interface of a Model that can draw one of
// its initial states uniformly at random without building them all (every
// arrangement of 200 IDs, say), for random simulation. SampleInitial uses
// only r for randomness, so the same r state draws the same initial state;
// the state returned is the caller's to keep.
type InitialSampler interface {
	SampleInitial(r *rand.Rand) ([]byte, error)
}

// InitialIndexer is an optional interface of a Model that builds its k-th
// initial state (0-based, in the order of Initial or InitialStreamer)
// without those before it, for a caller that names initial states by
// index (the interactive explorer's init=K). It returns false for k past
// the last, and an error wrapping errors.ErrUnsupported when this model
// cannot (the caller then streams the states up to k).
type InitialIndexer interface {
	InitialAt(k int) (st []byte, ok bool, err error)
}

// EachInitial yields the initial states of m, one at a time when m is an
// InitialStreamer (so that a caller can stop before they are all built),
// until yield returns false.
func EachInitial(m Model, yield func(st []byte) bool) error { return eachInitial(m, yield) }

// eachInitial is EachInitial.
func eachInitial(m Model, yield func(st []byte) bool) error {
	if is, ok := m.(InitialStreamer); ok {
		return is.InitialStates(yield)
	}
	initial, err := m.Initial()
	if err != nil {
		return err
	}
	for _, st := range initial {
		if !yield(st) {
			break
		}
	}
	return nil
}

// Transition describes one transition out of a state.
type Transition struct {
	// Task is the fairness task the transition belongs to (a process's
	// locally controlled actions, or a channel's deliveries); -1 for faults.
	Task int32
	// Messages is the number of messages the transition sends, not counting
	// messages a process sends to itself.
	Messages int32
	// Action is the transition's action index: its place among the
	// transitions enabled in the state, in the worker's fixed order.
	Action uint32
	// Fault marks a fault transition (a crash): optional, so a state whose
	// only transitions are faults counts as terminal.
	Fault bool
}

// Worker checks states and computes their successors. A Worker is used by
// one goroutine at a time.
//
// Expand is the one way the explorer asks for successors: breadth-first
// and depth-first search, the liveness graph, the depth limit and trace
// replay all go through it, so a wrapper (symmetry, metrics) that forwards
// Expand keeps every path of the model it wraps. A hand-written Worker
// that only lists successors implements Expand with ExpandBySuccessors.
type Worker interface {
	// Expand checks s for the invariants of x.Want and, unless the check
	// failed or s violates one of x.Stop, lists its successors as x
	// asks. A panic in the model is returned as an error: of the check in
	// Expanded.CheckErr, of the expansion as the error.
	Expand(s []byte, x *Expansion) (Expanded, error)
	// Check returns, as a mask, every invariant among want (bits indexing
	// Model.Properties) that s violates: 0 when s violates none of them.
	Check(s []byte, want uint64) (uint64, error)
	// ValidEnd reports whether the terminal state s is a valid end state of
	// the spec; a terminal state that is not is a deadlock.
	ValidEnd(s []byte) (bool, error)
}

// Expansion is what Worker.Expand is asked to do with a state. The search
// keeps one per goroutine and changes only what differs from one call to
// the next.
type Expansion struct {
	// Want names the invariants to check s for first (bits indexing
	// Model.Properties); 0 checks nothing.
	Want uint64
	// Stop names the invariants after whose violation s is not expanded
	// (broken model assumptions): Expand checks them too when Want has
	// them.
	Stop uint64
	// Reduce asks for only a subset of the enabled transitions that is
	// enough for invariants, assertions and deadlocks (a stubborn set
	// whose transitions are invisible to the invariants), given that the
	// explorer expands s fully whenever one of the subset's successors was
	// visited before (the cycle proviso). A model that is not Reducible
	// expands fully and says so in Expanded.All. The search never sets
	// Offer with Reduce.
	Reduce bool
	// Offer, when not nil, is asked about each transition before its
	// successor is built, with key a 64-bit hash of the successor's
	// encoding (a function of the encoding alone, like a fingerprint, and
	// independent of it); Expand builds the successor and calls Emit only
	// when Offer returns true, before it offers the next transition. While
	// Offer runs, what the worker says of the last transition
	// (TypedWorker, MeasureWorker) is about t.
	Offer func(t Transition, key uint64) bool
	// Emit is called with each successor built, in action order. next is
	// valid only during the call.
	Emit func(t Transition, next []byte)
}

// Expanded is what Worker.Expand did with a state.
type Expanded struct {
	// Violated is every invariant among Want that s violates.
	Violated uint64
	// CheckErr is the error of the check (the model panicked while
	// loading or checking s): s was then not expanded.
	CheckErr error
	// Expanded reports whether s was expanded: the check did not fail and
	// s violates none of Stop.
	Expanded bool
	// Enabled is the number of transitions enabled in s, whether offered,
	// emitted or left out by Reduce; 0 when s was not expanded.
	Enabled int
	// All reports whether every enabled transition was offered or emitted:
	// false only for a proper subset chosen under Reduce.
	All bool
}

// Successors calls emit for each transition enabled in s, in action order,
// and returns their number: w.Expand with nothing to check. An error of
// the model while loading s is returned as the error.
func Successors(w Worker, s []byte, emit func(t Transition, next []byte)) (int, error) {
	x := Expansion{Emit: emit}
	r, err := w.Expand(s, &x)
	if err == nil {
		err = r.CheckErr
	}
	return r.Enabled, err
}

// SuccessorLister is the core of a hand-written Worker: it lists the
// successors of a state and checks invariants.
type SuccessorLister interface {
	// Successors calls emit once for each transition enabled in s, in a
	// fixed order (the i-th call is the transition with action index i;
	// t.Action need not be set), and returns their number. next is valid
	// only during the call.
	Successors(s []byte, emit func(t Transition, next []byte)) (int, error)
	// Check is Worker.Check.
	Check(s []byte, want uint64) (uint64, error)
}

// ExpandBySuccessors implements Worker.Expand for w from its Successors
// and Check: it checks s for x.Want, then builds every successor, sets its
// action index, and offers it (with a key hashed from the successor it
// built) before it emits it. It never reduces. A model whose successors
// are costly to build and cheap to tell apart implements Expand itself.
func ExpandBySuccessors(w SuccessorLister, s []byte, x *Expansion) (r Expanded, err error) {
	if x.Want != 0 {
		r.Violated, r.CheckErr = w.Check(s, x.Want)
		if r.CheckErr != nil || r.Violated&x.Stop != 0 {
			return r, nil
		}
	}
	var a uint32
	r.Enabled, err = w.Successors(s, func(t Transition, next []byte) {
		t.Action = a
		a++
		if x.Offer == nil || x.Offer(t, SuccessorKey(next)) {
			x.Emit(t, next)
		}
	})
	r.Expanded, r.All = err == nil, true
	return r, err
}

// SuccessorKey is the key ExpandBySuccessors offers for a successor st: a
// hash of its encoding with a seed of its own, so independent of its
// fingerprint. A worker that builds a successor before it offers it can
// offer this key.
func SuccessorKey(st []byte) uint64 { return xxh3.HashSeed(st, 0x6b6579) }

// Reducible is an optional interface of a Model that allows partial-order
// reduction (Config.Reduction PartialOrder): its workers honour
// Expansion.Reduce.
type Reducible interface {
	Reducible() bool
}

// Var is one state variable of a state, for traces.
type Var struct {
	Name  string
	Value any // marshals to JSON; formats with %v
}

// Describer is an optional interface of a Model whose states and actions can
// be shown to people.
type Describer interface {
	// Describe returns the variables of state s in a fixed order.
	Describe(s []byte) ([]Var, error)
	// Label returns the name of the transition with action index a in s,
	// such as receive(5)_{2,3}.
	Label(s []byte, a int) (string, error)
}

// Bounder is an optional interface of a Worker whose model declares a state
// constraint (a bound, like TLC's state constraints), so that a model with
// unbounded counters stays finite. InBound reports whether s lies within
// it. The search counts the states outside it apart, as TLC does:
//
//   - a state outside the constraint is checked against the properties
//     but not expanded, and counted in Result.Cut, not in Result.States
//     (the search keeps its fingerprint, so it checks and counts it once);
//   - deadlock-freedom is decided among the states within the constraint,
//     which are all expanded;
//   - the run is Bounded only if the constraint cut at least one state.
//
// A search over workers that are Bounders checks each state when it
// stores it, not when it expands it, so a Worker implements Bounder only
// when its model declares a constraint.
type Bounder interface {
	InBound(s []byte) (bool, error)
}

// Explainer is an optional interface of a Model that can say in words why a
// state is as it is, e.g. who waits for whom in a deadlock. Reports print
// the explanation after a counterexample's last state.
type Explainer interface {
	Explain(s []byte) ([]string, error)
}

// InitialNamer is an optional interface of a Model that names its initial
// states by the parameter values that select exactly one of them, so that a
// counterexample can say how to re-run its scenario alone (`--ids 2,1,3
// --initiators 1,2`) rather than "initial state #3". InitialParams returns,
// for the initial state st, the parameters (flag without dashes → value)
// that, put over the run's own, give a model whose only initial state is
// st: an empty map when the run's own parameters already do (the model has
// one initial state), and nil when the model cannot name st.
type InitialNamer interface {
	InitialParams(st []byte) (map[string]string, error)
}

// LiveModel is an optional interface of a Model that offers liveness
// properties. They are checked on the explicit state graph under the
// fairness the Config asks for.
type LiveModel interface {
	// Liveness describes the liveness properties, in the order of the k
	// that LiveWorker.Live takes.
	Liveness() []LiveProperty
	// Tasks names the fairness tasks, indexed by Transition.Task.
	Tasks() []string
}

// LiveProperty describes one liveness property of a LiveModel.
type LiveProperty struct {
	properties.Info
	// Instances is how many times the property is checked: 1, or N for a
	// property per process (starvation-freedom).
	Instances int
	// LeadsTo is set for "When leads-to Goal"; otherwise the property is
	// "eventually Goal" from the initial states. For Kind Terminates, Goal
	// is the goal of a finished run and is asked only of terminal states;
	// for Kind Stable (properties.Stable) the property is "eventually
	// always Goal", and When is not asked.
	LeadsTo bool
}

// LiveWorker is the Worker of a LiveModel: it evaluates the predicates of
// instance i of liveness property k in state s.
type LiveWorker interface {
	Live(s []byte, k, i int) (when, goal bool, err error)
}

// StepWorker is an optional interface of a Worker whose transitions are
// named steps of processes, for fairness per step (Config.FairSteps). It
// is asked from inside the Emit or Offer callback of Expand.
type StepWorker interface {
	// StepName names the step of the transition being emitted, such as
	// "send", or is "" for a transition that is no named step of a
	// process (a delivery, a fault).
	StepName() string
}

// TypedWorker is an optional interface of a Worker that can tell how many
// of the messages the transition being emitted sent were of a type, for
// the metric "messages:TYPE". It is asked from inside the Emit or Offer
// callback of Expand, after TrackTypes(true).
type TypedWorker interface {
	TrackTypes(on bool)
	SentOfType(typ string) int
}

// Instrumenter is an optional interface of a Model that computes metrics
// by tracking more than its plain states hold, such as "time" (causal
// depth). Check calls Instrument
// with the metrics asked for that it does not compute itself (every one
// but messages, messages:TYPE and steps) and searches the Model it
// returns, whose workers are TrackWorkers (or MeasureWorkers); an error
// says why the model cannot offer one of them.
type Instrumenter interface {
	Instrument(metrics []string) (Model, error)
}

// MeasureWorker is the Worker of an instrumented Model that knows the
// metrics time, sync-delay and messages-per-entry by name. Its first three
// methods describe the transition being emitted and are asked from inside
// the Emit or Offer callback of Expand.
//
// Deprecated: implement TrackWorker, which declares the kind of each
// metric instead; Check still adapts a MeasureWorker.
type MeasureWorker interface {
	// TimeIncrease is how much the transition raised the largest causal
	// depth of the run, or -1 when the depth reached the model's tracking
	// cap (the time is then unbounded).
	TimeIncrease() int32
	// SyncDelay is the synchronisation delay (message hops since the last
	// exit) of the enter the transition performs, when that enter is the
	// first since an exit and by a process that was waiting at it; -1
	// otherwise, -2 when the hops reached the tracking cap.
	SyncDelay() int32
	// Served appends to out the entry key of every message the transition
	// sent to another process and that serves a critical-section entry.
	Served(out []int32) []int32
	// EntryKeys is the number of entry keys (0 .. EntryKeys()-1).
	EntryKeys() int
	// EntryName says which entry a key is, for reports.
	EntryName(key int) string
	// Entered reports whether the entry of key has taken place in state s.
	Entered(s []byte, key int) (bool, error)
}
