package automaton

import (
	"fmt"
	"unsafe"
)

// Assumption is a named predicate that a reduction of the state space
// relies on (Config.Assumptions): a fact about the model that makes
// Normalize a bisimulation, or that a Commuter's or Silencer's argument
// rests on. Reductions are exact only for the model they were proved for;
// a changed model that breaks one of their facts would be searched wrongly
// without a word. So the search checks each assumption where it matters,
// and a state where one is false ends the run as a model failure (status
// error, exit 4) with the trace to that state: the reduced result would not
// be trustworthy there, and no verdict is given.
//
// Only predicates on states can be checked this way. An assumption about
// transitions (the algorithm only compares timestamps) is stated in the
// reduction's comment, and is best backed by the state predicates that
// would break first if it failed.
type Assumption[S any, M Message] struct {
	Name string
	Doc  string
	// Of is the reduction that relies on it, which says where it is
	// checked: OfNormalize, in every state before it is normalized (every
	// initial state and every successor the search computes, so that the
	// normalization cannot hide its own violation); OfPartialOrder, in
	// every state a search with partial-order reduction expands, before
	// it chooses the transitions to follow.
	Of    Reduction
	Holds func(v *View[S, M]) bool
}

// Reduction names a reduction an Assumption guards.
type Reduction uint8

const (
	// OfNormalize: Config.Normalize relies on the assumption.
	OfNormalize Reduction = 1 + iota
	// OfPartialOrder: Config.PartialOrder, with the processes' Commuter
	// and Silencer, relies on it.
	OfPartialOrder
)

func (r Reduction) String() string {
	switch r {
	case OfNormalize:
		return "the normalization"
	case OfPartialOrder:
		return "partial-order reduction"
	}
	return fmt.Sprintf("Reduction(%d)", uint8(r))
}

// checkAssumptions returns an error if cfg's assumptions are malformed.
func checkAssumptions[S any, M Message](cfg *Config[S, M]) error {
	for _, a := range cfg.Assumptions {
		if a.Name == "" || a.Holds == nil {
			return fmt.Errorf("%w: an assumption needs a Name and a Holds predicate", ErrConfig)
		}
		switch a.Of {
		case OfNormalize:
			if cfg.Normalize == nil {
				return fmt.Errorf("%w: assumption %q is of the normalization, but the Config has no Normalize", ErrConfig, a.Name)
			}
		case OfPartialOrder:
			if cfg.PartialOrder == nil {
				return fmt.Errorf("%w: assumption %q is of partial-order reduction, but the Config has no PartialOrder", ErrConfig, a.Name)
			}
		default:
			return fmt.Errorf("%w: assumption %q: Of must be OfNormalize or OfPartialOrder", ErrConfig, a.Name)
		}
	}
	return nil
}

// assumptionError is the model failure of a violated assumption.
func assumptionError(a string, of Reduction, where string) modelError {
	return modelError{fmt.Sprintf("%s, which %s relies on, is false %s: the model breaks an assumption of the reduction, so no verdict is given (check it without the reduction, or fix the model)", a, of, where)}
}

// assume panics with a model error if an assumption of kind of is false in
// v; where says which state v is, for the message.
func (w *worker[S, M, P]) assume(v *View[S, M], of Reduction, where func() string) {
	for _, a := range w.sys.cfg.Assumptions {
		if a.Of == of && !a.Holds(v) {
			name := fmt.Sprintf("assumption %q (%s)", a.Name, a.Doc)
			if a.Doc == "" {
				name = fmt.Sprintf("assumption %q", a.Name)
			}
			panic(assumptionError(name, of, where()))
		}
	}
}

// actionLabel names action a of w.v for a message, as Label does.
func (w *worker[S, M, P]) actionLabel(a action) string {
	sys := w.sys
	switch a.kind {
	case Input:
		var m M
		seg := w.v.seg(1 + sys.n + a.ch)
		if _, err := sys.mc.dec(unsafe.Pointer(&m), seg[a.start:a.end], nil); err != nil {
			return "a receive"
		}
		return fmt.Sprintf("receive(%s)_{%s}", msgString(m), sys.chanName(a.ch))
	case Fault:
		if a.recover {
			return fmt.Sprintf("recover_{%d}", a.proc+1)
		}
		return fmt.Sprintf("crash_{%d}", a.proc+1)
	}
	return stepLabel(*w.stepOf(&a), a.proc)
}
