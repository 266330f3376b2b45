// Package election is the leader-election kit of vacheck: the properties of
// docs/properties.md as
// builders generic over the process type, through small accessor functions.
//
//   - UNIQ (Uniqueness): at most one process is in a leader state.
//   - AGREE (Agreement): no two processes know different leaders.
//   - VALID (Validity): every leader claimed holds the winning ID (the
//     largest, the smallest, or the best among the actual initiators: the
//     model says which, through a winner function).
//   - TERM/KNOW (EveryoneKnows): the goal of automaton.Config.Termination,
//     every process settled and knowing the winner, nothing in transit.
//
// A process struct offers what the properties read:
//
//	func isLeader(p *node) bool            { return p.Status == chosen }
//	func known(p *node) (int, bool)        { return p.Leader, p.Leader != 0 }
//
//	automaton.Config[node, msg]{
//		Invariants: []automaton.Invariant[node, msg]{
//			election.Uniqueness[node, msg](isLeader),
//			election.Agreement[node, msg](known),
//			election.Validity[node, msg](known, election.Max[node, msg](id)),
//		},
//		Termination: election.EveryoneKnows[node, msg](known, election.Max[node, msg](id), nil),
//	}
//
// The forms ending in At read a process's role from the whole state (the
// view and the process index), for models where it depends on more than
// the process's variables, such as which processes are up.
//
// Catalog specs of package specs use this kit: chang-roberts and its
// announce, bidirectional and wake-up forms, lelann, peterson, floodmax,
// tree-election, dfs-token, echo-election, waiting, adoption and bully.
package election

import (
	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/properties"
)

// Uniqueness returns UNIQ (docs/properties.md), named properties.Uniqueness:
// at most one process is in a leader state, as isLeader says.
func Uniqueness[S any, M automaton.Message](isLeader func(p *S) bool) automaton.Invariant[S, M] {
	u := UniquenessAt(func(v *automaton.View[S, M], i int) bool { return isLeader(v.Proc(i)) })
	// The same, in one loop: it is checked in every state.
	u.Holds = func(v *automaton.View[S, M]) bool {
		leaders := 0
		for i, n := 0, v.N(); i < n; i++ {
			if isLeader(v.Proc(i)) {
				if leaders++; leaders > 1 {
					return false
				}
			}
		}
		return true
	}
	return u
}

// UniquenessAt is Uniqueness for a model whose leader state depends on more
// than the process's own variables: isLeader(v, i) says whether process i
// of the state v is a leader, e.g. only while it is up (v.Up(i)), as in the
// bully algorithm with crashes.
func UniquenessAt[S any, M automaton.Message](isLeader func(v *automaton.View[S, M], i int) bool) automaton.Invariant[S, M] {
	return automaton.Invariant[S, M]{
		Name: properties.Uniqueness,
		Doc:  "UNIQ: never two processes in a leader state",
		Holds: func(v *automaton.View[S, M]) bool {
			leaders := 0
			for i := 0; i < v.N(); i++ {
				if isLeader(v, i) {
					if leaders++; leaders > 1 {
						return false
					}
				}
			}
			return true
		},
	}
}

// Agreement returns AGREE (docs/properties.md), named properties.Agreement:
// no two processes know different leaders. known returns the leader a
// process knows and true, or false while it knows none (⊥).
func Agreement[S any, M automaton.Message](known func(p *S) (id int, ok bool)) automaton.Invariant[S, M] {
	return AgreementAt(func(v *automaton.View[S, M], i int) (int, bool) { return known(v.Proc(i)) })
}

// AgreementAt is Agreement with the leader process i knows read from the
// whole state v, e.g. ignoring a crashed process or a coordinator that
// crashed since it was announced.
func AgreementAt[S any, M automaton.Message](known func(v *automaton.View[S, M], i int) (id int, ok bool)) automaton.Invariant[S, M] {
	return automaton.Invariant[S, M]{
		Name: properties.Agreement,
		Doc:  "AGREE: no two different known leaders",
		Holds: func(v *automaton.View[S, M]) bool {
			first, seen := 0, false
			for i := 0; i < v.N(); i++ {
				if l, ok := known(v, i); ok {
					if seen && l != first {
						return false
					}
					first, seen = l, true
				}
			}
			return true
		},
	}
}

// Validity returns VALID (docs/properties.md), named properties.Validity:
// every leader claimed is the winning ID. claim returns the leader ID a
// process claims and true (its own ID when it is in a leader state, or the
// leader it knows), or false for none; winner returns the winning ID of the
// state (Max, Min, or the best among the actual initiators).
func Validity[S any, M automaton.Message](claim func(p *S) (id int, ok bool), winner func(v *automaton.View[S, M]) int) automaton.Invariant[S, M] {
	inv := ValidityAt(func(v *automaton.View[S, M], i int) (int, bool) { return claim(v.Proc(i)) }, winner)
	// The same, in one loop: it is checked in every state.
	inv.Holds = func(v *automaton.View[S, M]) bool {
		w, computed := 0, false
		for i, n := 0, v.N(); i < n; i++ {
			if l, ok := claim(v.Proc(i)); ok {
				if !computed {
					w, computed = winner(v), true
				}
				if l != w {
					return false
				}
			}
		}
		return true
	}
	return inv
}

// ValidityAt is Validity with the claim of process i read from the whole
// state v (e.g. the largest live ID for the bully algorithm with crashes).
func ValidityAt[S any, M automaton.Message](claim func(v *automaton.View[S, M], i int) (id int, ok bool), winner func(v *automaton.View[S, M]) int) automaton.Invariant[S, M] {
	return automaton.Invariant[S, M]{
		Name: properties.Validity,
		Doc:  "VALID: every leader claimed holds the winning ID",
		Holds: func(v *automaton.View[S, M]) bool {
			w, computed := 0, false
			for i := 0; i < v.N(); i++ {
				if l, ok := claim(v, i); ok {
					if !computed {
						w, computed = winner(v), true
					}
					if l != w {
						return false
					}
				}
			}
			return true
		},
	}
}

// EveryoneKnows returns TERM/KNOW (docs/properties.md) as the goal of
// automaton.Config.Termination (and often ValidEnd): every channel empty,
// and every process settled (its election over, its send buffers empty; a
// nil settled accepts every process) and knowing the winner.
func EveryoneKnows[S any, M automaton.Message](known func(p *S) (id int, ok bool), winner func(v *automaton.View[S, M]) int, settled func(p *S) bool) func(v *automaton.View[S, M]) bool {
	return func(v *automaton.View[S, M]) bool {
		if !v.ChannelsEmpty() {
			return false
		}
		w := winner(v)
		for i := 0; i < v.N(); i++ {
			p := v.Proc(i)
			if settled != nil && !settled(p) {
				return false
			}
			if l, ok := known(p); !ok || l != w {
				return false
			}
		}
		return true
	}
}

// Max returns the winner function for the largest ID, id(p) being the ID of
// process p.
func Max[S any, M automaton.Message](id func(p *S) int) func(v *automaton.View[S, M]) int {
	return func(v *automaton.View[S, M]) int {
		w := id(v.Proc(0))
		for i := 1; i < v.N(); i++ {
			w = max(w, id(v.Proc(i)))
		}
		return w
	}
}

// Min returns the winner function for the smallest ID, id(p) being the ID
// of process p.
func Min[S any, M automaton.Message](id func(p *S) int) func(v *automaton.View[S, M]) int {
	return func(v *automaton.View[S, M]) int {
		w := id(v.Proc(0))
		for i := 1; i < v.N(); i++ {
			w = min(w, id(v.Proc(i)))
		}
		return w
	}
}

// Quiescence returns QUIESCE (docs/properties.md), named
// properties.Quiescence: every fair run reaches a state with all channels
// and buffers empty and no transition enabled. quiet says when a state is
// such a state in the spec's terms (channels empty, every process started,
// nothing left to send); it is checked on the state graph, cycles
// included.
func Quiescence[S any, M automaton.Message](quiet func(v *automaton.View[S, M]) bool) automaton.Liveness[S, M] {
	return automaton.Liveness[S, M]{
		Name: properties.Quiescence,
		Doc:  "QUIESCE: every fair run reaches a state with all channels and buffers empty and no enabled transition",
		Goal: func(v *automaton.View[S, M], _ int) bool { return quiet(v) },
	}
}
