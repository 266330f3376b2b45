package specs

import (
	"fmt"

	"github.com/vacheck/vacheck/automaton"
)

// described returns the invariant inv of a kit (packages mutex and
// election) described by doc instead, for a spec that words the property
// in its section's terms ("never two processes chosen").
func described[S any, M automaton.Message](inv automaton.Invariant[S, M], doc string) automaton.Invariant[S, M] {
	inv.Doc = doc
	return inv
}

// unknownStep is the panic of a process's Do on a step it has no case for:
// its Steps offers a step that Do does not know, a bug of the spec, which
// the automaton package reports as a model error.
func unknownStep(spec string, s automaton.Step) error {
	return fmt.Errorf("%s: Do has no case for step %q", spec, s.Name)
}

// stepStart is the step start_i of the election specs: a process wakes up
// on its own and starts (an initiator's spontaneous start).
const stepStart = "start"
