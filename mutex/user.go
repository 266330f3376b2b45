package mutex

import "fmt"

// The step names of the user part (docs/properties.md): request_i takes a
// process from idle to trying, enter_i from trying to critical, exit_i from
// critical back to idle.
const (
	StepRequest = "request"
	StepEnter   = "enter"
	StepExit    = "exit"
)

// StepNames returns the user part's step names followed by more, the
// algorithm's own, for automaton.Config.StepNames of a mutual-exclusion
// spec.
func StepNames(more ...string) []string {
	return append([]string{StepRequest, StepEnter, StepExit}, more...)
}

// CanRequest reports whether a process in user state s that has served
// done of its requests may take request_i: it is idle with a request left.
func (s State) CanRequest(done, requests int) bool { return s == Idle && done < requests }

// Request performs the user part of request_i: idle → trying. It panics
// when the process is not idle, a mistake of the spec whose Steps offered
// the step, which the automaton package reports as a model error.
func (s *State) Request() { s.move(StepRequest, Idle, Trying) }

// Enter performs the user part of enter_i: trying → critical. It panics,
// as Request does, when the process is not trying.
func (s *State) Enter() { s.move(StepEnter, Trying, Critical) }

// Exit performs the user part of exit_i: critical → idle, with one more
// request served (done). It panics, as Request does, when the process is
// not critical.
func (s *State) Exit(done *int) {
	s.move(StepExit, Critical, Idle)
	*done++
}

// move takes s from the user state from to to, for the step name, or
// panics if s is not in from.
func (s *State) move(step string, from, to State) {
	if *s != from {
		panic(fmt.Sprintf("mutex: %s from user state %v: the step is enabled only when %v", step, *s, from))
	}
	*s = to
}
