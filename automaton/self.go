package automaton

import "fmt"

// AcceptorAt is Acceptor for a precondition that depends on which process
// it is: AcceptsAt is told the process's own number self (0-based), as
// Effects.Self and View.Self tell effects and Steps. A process type
// implements Acceptor or AcceptorAt, not both.
type AcceptorAt[M Message] interface {
	AcceptsAt(self, from int, m M) bool
}

// CommuterAt is Commuter told the process's own number self (0-based). A
// process type implements Commuter or CommuterAt, not both.
type CommuterAt[M Message] interface {
	CommutesAt(self, from int, m M) bool
}

// acceptsMsg reports whether process self, in state p, accepts m from
// process from: through AcceptorAt or Acceptor, true when it implements
// neither.
func acceptsMsg[S any, M Message, P Process[S, M]](p P, self, from int, m M) bool {
	switch acc := any(p).(type) {
	case AcceptorAt[M]:
		return acc.AcceptsAt(self, from, m)
	case Acceptor[M]:
		return acc.Accepts(from, m)
	}
	return true
}

// commutesMsg is acceptsMsg for CommuterAt and Commuter; false when the
// process implements neither.
func commutesMsg[S any, M Message, P Process[S, M]](p P, self, from int, m M) bool {
	switch c := any(p).(type) {
	case CommuterAt[M]:
		return c.CommutesAt(self, from, m)
	case Commuter[M]:
		return c.Commutes(from, m)
	}
	return false
}

// implementsSelf reports whether a process type implements at (an
// interface told its process's number) or plain (its older form), and
// refuses one that implements both, which would leave it unclear which
// one the search calls.
func implementsSelf[S any, M Message, P Process[S, M]](p P, at, plain bool, names string) (bool, error) {
	if at && plain {
		return false, fmt.Errorf("%w: %T implements both %s; implement one", ErrConfig, p, names)
	}
	return at || plain, nil
}
