package explorer

import "github.com/vacheck/vacheck/properties"

// Observable is an optional interface of a Model whose states properties
// written outside it can read as plain values, such as the expressions of
// package props. Observe returns the model with those properties added to
// its own, so that every search mode (strategies, bounds, symmetry,
// metrics) checks them as it checks the model's.
type Observable interface {
	// Layout says what the model's states hold.
	Layout() Layout
	// Observe returns a model that checks, besides the model's own
	// properties and after them, those of o. It refuses (an error
	// naming the property) what it cannot check.
	Observe(o *Observation) (Model, error)
}

// Layout describes the states of an Observable model.
type Layout struct {
	// N is the number of processes.
	N int
	// Vars names the variables of a process, as traces print them
	// (p1.NAME), in the order of the values Observation.Proc receives.
	Vars []string
	// Chans lists the channels, in the order of the index State.Chan
	// takes; From and To are 0-based processes.
	Chans []ChanLayout
	// FIFO says that every channel is ordered: State.Chan gives the
	// messages head first. Otherwise a channel is a bag, given in a
	// canonical order.
	FIFO bool
	// Fields names the fields of the structs inside variables and
	// messages (a message that is a struct, say), which values give as
	// maps.
	Fields []string
}

// ChanLayout is one channel of a Layout. Port is its port name, or ""
// (a pair of processes may have several channels, each with a port).
type ChanLayout struct {
	From, To int
	Port     string
}

// State is one state of an Observable model as an Observation reads it.
// What it returns must not be modified, nor kept after the call that
// received it.
type State interface {
	// Proc returns the value Observation.Proc made of process i
	// (0-based).
	Proc(i int) any
	// Chan returns the messages of channel c (an index into
	// Layout.Chans), each as Observation.Msg made it.
	Chan(c int) []any
}

// Observation is what an Observable model checks besides its own
// properties. A predicate that returns an error fails the search as a
// model error at the state (or transition) it was evaluated on.
//
// The predicates are called from several goroutines at once: they must
// keep per-call scratch memory in pools, not in shared variables.
type Observation struct {
	// Proc makes the value predicates read for process i from its
	// variables, in the order of Layout.Vars: integers as int, strings
	// and Stringers as string, booleans as bool, lists as []any, anything
	// else as the string traces print. The model calls it once for each
	// value a process takes, as far as it remembers them, and keeps the
	// result; vars is Proc's to keep.
	Proc func(i int, vars []any) any
	// Msg makes the value predicates read for a message, from the same
	// conversion of the message (a struct becomes a map of its fields,
	// named as traces name them).
	Msg func(m any) any
	// Invariants are checked in every state, like the model's invariants;
	// one of Kind properties.Reachable is met rather than violated by a
	// state where Holds is true.
	Invariants []StatePredicate
	// Actions are checked on every transition, from its old state to its
	// new one; a violation's trace ends with the transition.
	Actions []ActionPredicate
	// Liveness are checked on the state graph under the search's
	// fairness: Kind properties.Eventually ("eventually Goal", or with
	// When "When leads-to Goal") or properties.Stable ("eventually always
	// Goal").
	Liveness []LivePredicate
	// Constraints narrow the part of the state space the search explores,
	// together with the model's own constraint (a conjunction), and count
	// as that does (see Bounder): a state where one of them is false is
	// checked against the properties, not expanded, and counted in
	// Result.Cut. Their Info names them (the expression) and says what
	// they are; Kind is not read.
	Constraints []StatePredicate
}

// StatePredicate is an invariant, or a reachability property, of an
// Observation.
type StatePredicate struct {
	properties.Info
	Holds func(st State) (bool, error)
	// ProcsOnly says that Holds reads nothing but State.Proc: the model
	// may then remember its verdict for the processes' values, which many
	// states share.
	ProcsOnly bool
}

// ActionPredicate is an action property of an Observation.
type ActionPredicate struct {
	properties.Info
	Holds func(old, new State) (bool, error)
}

// LivePredicate is a liveness property of an Observation; When is nil
// unless it is a leads-to.
type LivePredicate struct {
	properties.Info
	When, Goal func(st State) (bool, error)
}
