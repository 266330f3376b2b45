package specs

import "github.com/vacheck/vacheck/automaton"

// described returns the invariant inv of a kit (packages mutex and
// election) described by doc instead, for a spec that words the property
// in its section's terms ("never two processes chosen").
func described[S any, M automaton.Message](inv automaton.Invariant[S, M], doc string) automaton.Invariant[S, M] {
	inv.Doc = doc
	return inv
}
