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

// Next returns the step of the user part that a process in user state s,
// with done of its requests served, may take: request_i when it is idle
// with a request left, enter_i when it is trying and ready (the
// algorithm's condition for entry: every grant in, the token held),
// exit_i when it is critical; and false when it has none. A spec whose
// user steps are all local (automaton.Do) offers its steps with it; one
// whose request_i and exit_i send labels them itself.
func (s State) Next(done, requests int, ready bool) (step string, ok bool) {
	switch {
	case s.CanRequest(done, requests):
		return StepRequest, true
	case s == Trying && ready:
		return StepEnter, true
	case s == Critical:
		return StepExit, true
	}
	return "", false
}

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
