package explorer

import "github.com/vacheck/vacheck/properties"

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

// eachInitial yields the initial states of m, one at a time when m is an
// InitialStreamer.
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
	// Fault marks a fault transition (a crash): optional, so a state whose
	// only transitions are faults counts as terminal.
	Fault bool
}

// Worker computes successors and checks properties. A Worker is used by one
// goroutine at a time.
type Worker interface {
	// Successors calls emit once for each transition enabled in s, in a
	// fixed order: the i-th call is the transition with action index i. next
	// is valid only during the call. It returns the number of transitions.
	// A panic in the model is returned as an error.
	Successors(s []byte, emit func(t Transition, next []byte)) (int, error)
	// Check returns the index (into Model.Properties) of the first
	// invariant s violates among those whose bit is set in want, or -1.
	Check(s []byte, want uint64) (int, error)
	// ValidEnd reports whether the terminal state s is a valid end state of
	// the spec; a terminal state that is not is a deadlock.
	ValidEnd(s []byte) (bool, error)
}

// Reducer is an optional interface of a Worker whose model allows
// partial-order reduction (Config.Reduction PartialOrder).
type Reducer interface {
	// Reduced is Successors restricted to a subset of the enabled
	// transitions that is enough for invariants, assertions and deadlocks
	// (a stubborn set whose transitions are invisible to the invariants),
	// given that the explorer expands s fully whenever one of the subset's
	// successors was visited before (the cycle proviso). It calls emit with
	// each transition's action index in the order of Successors, and
	// returns the number of enabled transitions and whether the subset is
	// all of them.
	Reduced(s []byte, emit func(a uint32, t Transition, next []byte)) (enabled int, all bool, err error)
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

// CheckExpander is an optional interface of a Worker that checks a state
// and expands it in one call, reading the state once for both. A
// breadth-first search whose workers have it checks each state when it
// expands it, instead of when it stores it (the results are the same).
type CheckExpander interface {
	// CheckExpand is Check(s, want), then, unless the check failed or s
	// violates a property whose bit is set in stop (not only the first
	// one Check names: when that one's bit is not set, it returns instead
	// a violated property whose bit is set, if there is one),
	// Successors(s, emit). p is that property, or -1, and checkErr the
	// check's error; n and err are what Successors returns, 0 and nil when
	// s was not expanded.
	CheckExpand(s []byte, want, stop uint64, emit func(t Transition, next []byte)) (p int, checkErr error, n int, err error)
	// Bounded reports whether the model bounds its states (Bounder): a
	// state outside the bound is stored and never expanded, so the search
	// then checks every state when it stores it.
	Bounded() bool
}

// KeyedExpander is an optional interface of a Worker that can tell its
// successors apart before it builds them. Most successors of a BFS level
// are states the worker produced a moment before (the two orders of two
// independent steps); a breadth-first search (without a partial-order
// reduction) drops those by their keys, which it keeps for the last few
// thousand successors with their fingerprints, and the worker builds only
// the others. With checks deferred to expansion (CheckExpander) the search
// calls CheckExpandKeyed with what to check; otherwise with want 0, and it
// checks the states when it stores them.
type KeyedExpander interface {
	// Keyed reports whether CheckExpandKeyed may be used.
	Keyed() bool
	// CheckExpandKeyed is CheckExpand, except that for each transition,
	// in order, it first calls offer(t, key), with key a 64-bit hash of
	// the successor's encoding (a function of the encoding alone, like a
	// fingerprint, and independent of it), and builds the successor and
	// calls emit(t, next) only when offer returns true, before it offers
	// the next transition's successor. While offer runs, what the worker
	// says of the last transition (TypedWorker) is about t. n counts every
	// transition. With want 0 it checks nothing (p is -1 and checkErr nil)
	// and expands s; the search treats anything else as an error.
	CheckExpandKeyed(s []byte, want, stop uint64, offer func(t Transition, key uint64) bool, emit func(t Transition, next []byte)) (p int, checkErr error, n int, err error)
}

// Bounder is an optional interface of a Worker whose model declares a state
// bound (like TLC's state constraints): a state outside the bound is stored
// and checked but not expanded, so that a model with unbounded counters
// stays finite. The search counts such states in Result.Cut.
type Bounder interface {
	InBound(s []byte) (bool, error)
}

// Explainer is an optional interface of a Model that can say in words why a
// state is as it is, e.g. who waits for whom in a deadlock. Reports print
// the explanation after a counterexample's last state.
type Explainer interface {
	Explain(s []byte) ([]string, error)
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
	// is the goal of a finished run and is asked only of terminal states.
	LeadsTo bool
}

// LiveWorker is the Worker of a LiveModel: it evaluates the predicates of
// instance i of liveness property k in state s.
type LiveWorker interface {
	Live(s []byte, k, i int) (when, goal bool, err error)
}

// TypedWorker is an optional interface of a Worker that can tell how many
// of the messages the transition being emitted sent were of a type, for
// the metric "messages:TYPE". It is asked from inside the emit callback of
// Successors, after TrackTypes(true).
type TypedWorker interface {
	TrackTypes(on bool)
	SentOfType(typ string) int
}

// Instrumenter is an optional interface of a Model that computes the
// metrics "time" (causal depth), "sync-delay" and "messages-per-entry" by
// tracking more than its plain states hold. Check calls Instrument with the
// metrics asked for and searches the Model it returns, whose workers are
// MeasureWorkers; an error says why the model cannot offer one of them.
type Instrumenter interface {
	Instrument(metrics []string) (Model, error)
}

// MeasureWorker is the Worker of an instrumented Model. Its first three
// methods describe the transition being emitted and are asked from inside
// the emit callback of Successors.
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
