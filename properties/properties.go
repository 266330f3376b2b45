// Package properties names the properties vacheck checks and the kinds they
// come in. The names are shared by the whole catalog (docs/properties.md),
// so that `--property uniqueness` means the same thing for every
// election algorithm.
package properties

import "fmt"

// Kind says how a property is checked. The zero value is invalid.
type Kind uint8

const (
	// Invariant holds when every reachable state satisfies a predicate.
	Invariant Kind = 1 + iota
	// Deadlock holds when every reachable terminal state is a valid end
	// state of the spec.
	Deadlock
	// Assertion is a modelling assumption checked like an invariant, such
	// as a channel staying within its capacity. Its violation is a bug in
	// the model, not in the algorithm.
	Assertion
	// Eventually holds when every fair execution reaches a goal state, or
	// (leads-to) when from every trigger state every fair execution does.
	Eventually
	// Terminates holds when every fair execution is finite and ends in a
	// state where the spec's goal holds.
	Terminates
	// Reachable holds when some reachable state satisfies a predicate
	// (TLC checks it as the violation of "never"): the search reports a
	// shortest path to one as its witness, and a search that explores
	// every state without meeting one violates it.
	Reachable
	// Action holds when every transition, from its old state to its new
	// one, satisfies a predicate over the two.
	Action
	// Stable holds when every fair execution eventually reaches a point
	// after which a predicate holds forever (eventually always, <>[]P).
	Stable
)

func (k Kind) String() string {
	switch k {
	case Invariant:
		return "invariant"
	case Deadlock:
		return "deadlock"
	case Assertion:
		return "assertion"
	case Eventually:
		return "liveness"
	case Terminates:
		return "termination"
	case Reachable:
		return "reach"
	case Action:
		return "action"
	case Stable:
		return "stability"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Info describes one property of a spec.
type Info struct {
	Name string
	Kind Kind
	Doc  string
}

// Names of the properties shared by the catalog (docs/properties.md).
const (
	Uniqueness        = "uniqueness"         // UNIQ: never two processes in a leader state
	Agreement         = "agreement"          // AGREE: never two different known leaders
	Validity          = "validity"           // VALID: the leader holds the maximum ID
	Termination       = "termination"        // TERM and KNOW
	Quiescence        = "quiescence"         // QUIESCE
	DeadlockFreedom   = "deadlock-freedom"   // DLF: every terminal state is a valid end state
	MutualExclusion   = "mutual-exclusion"   // GA1
	Progress          = "progress"           // GA2
	StarvationFreedom = "starvation-freedom" // GA2'
	TimestampOrder    = "timestamp-order"    // FAIR-TS
	TokenUniqueness   = "token-uniqueness"   // TOKEN-1
	ChannelBound      = "channel-bound"      // every channel within its capacity
)

// DeadlockInfo is the deadlock-freedom property every spec has.
var DeadlockInfo = Info{
	Name: DeadlockFreedom,
	Kind: Deadlock,
	Doc:  "no reachable terminal state that is not a valid end state",
}

// Count returns how many of 0..n-1 satisfy pred; invariants such as
// uniqueness (at most one leader) are written with it.
func Count(n int, pred func(i int) bool) int {
	c := 0
	for i := 0; i < n; i++ {
		if pred(i) {
			c++
		}
	}
	return c
}
