package mutex

import (
	"fmt"
	"slices"
	"testing"
)

// TestUserCycle: request, enter and exit take a process round idle →
// trying → critical → idle, exit counting one more request served, and
// CanRequest allows a request only to an idle process with one left.
func TestUserCycle(t *testing.T) {
	st, done := Idle, 0
	if !st.CanRequest(done, 1) || st.CanRequest(done, 0) {
		t.Fatal("CanRequest at the start")
	}
	st.Request()
	if st != Trying || st.CanRequest(done, 1) {
		t.Fatalf("after request: %v", st)
	}
	st.Enter()
	if st != Critical || st.CanRequest(done, 1) {
		t.Fatalf("after enter: %v", st)
	}
	st.Exit(&done)
	if st != Idle || done != 1 || st.CanRequest(done, 1) || !st.CanRequest(done, 2) {
		t.Fatalf("after exit: %v, done %d", st, done)
	}
	if got := StepNames("pass"); !slices.Equal(got, []string{"request", "enter", "exit", "pass"}) {
		t.Errorf("StepNames: %v", got)
	}
}

// TestUserNext: Next offers request_i to an idle process with a request
// left, enter_i to a trying one only when it is ready, exit_i to a
// critical one, and nothing otherwise.
func TestUserNext(t *testing.T) {
	for _, tt := range []struct {
		st          State
		done, reqs  int
		ready       bool
		want        string
		wantEnabled bool
	}{
		{Idle, 0, 1, false, StepRequest, true},
		{Idle, 1, 1, true, "", false}, // every request served
		{Idle, 0, 0, true, "", false}, // not a requester
		{Trying, 0, 1, false, "", false},
		{Trying, 0, 1, true, StepEnter, true},
		{Critical, 0, 1, false, StepExit, true},
	} {
		got, ok := tt.st.Next(tt.done, tt.reqs, tt.ready)
		if got != tt.want || ok != tt.wantEnabled {
			t.Errorf("%v.Next(%d, %d, %v) = %q, %v; want %q, %v", tt.st, tt.done, tt.reqs, tt.ready, got, ok, tt.want, tt.wantEnabled)
		}
	}
}

// TestUserStepOutOfTurnPanics: a step of the user part taken from the
// wrong user state (a spec whose Steps offers enter to an idle process)
// fails loudly, naming the step and both states, instead of corrupting
// the state.
func TestUserStepOutOfTurnPanics(t *testing.T) {
	done := 0
	for _, tt := range []struct {
		from State
		step func(*State)
		want string
	}{
		{Trying, (*State).Request, "mutex: request from user state trying: the step is enabled only when idle"},
		{Idle, (*State).Enter, "mutex: enter from user state idle: the step is enabled only when trying"},
		{Trying, func(s *State) { s.Exit(&done) }, "mutex: exit from user state trying: the step is enabled only when critical"},
		{0, (*State).Request, "mutex: request from user state State(0): the step is enabled only when idle"},
	} {
		func() {
			defer func() {
				if got := fmt.Sprint(recover()); got != tt.want {
					t.Errorf("panic %q, want %q", got, tt.want)
				}
			}()
			st := tt.from
			tt.step(&st)
		}()
	}
	if done != 0 {
		t.Errorf("a refused exit counted a request: done %d", done)
	}
}
