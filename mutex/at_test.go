package mutex_test

import (
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/mutex"
)

// flag is a process that raises its flag once (step set). The user part
// says a raised flag is the critical section, except for the last
// process, a coordinator with no user part: which only a UserAt, told
// the process's number, can say.
type flag struct{ Up bool }

func (p *flag) Steps(_ *automaton.View[flag, int], out []automaton.Step) []automaton.Step {
	if !p.Up {
		out = append(out, automaton.Do("set"))
	}
	return out
}
func (p *flag) Do(s automaton.Step, _ *automaton.Effects[int]) {
	if s.Name != "set" {
		panic("unknown step " + s.Name)
	}
	p.Up = true
}
func (p *flag) Receive(int, int, *automaton.Effects[int]) {}

// TestUserAt: of two processes, both raise their flags (4 states: by
// hand, each flag up or down). ExclusionAt with a UserAt that knows the
// last process has no user part holds; Exclusion with a User that cannot
// tell it apart (the mutant) is violated when both flags are up. The At
// twins of the other functions read the same user part: CountAt counts
// one critical process in the last state, and LivenessAt has the two
// properties Liveness has.
func TestUserAt(t *testing.T) {
	at := func(i int, p *flag) (mutex.State, int) {
		if p.Up && i != 1 {
			return mutex.Critical, 0
		}
		return mutex.Idle, 0
	}
	blind := func(p *flag) (mutex.State, int) {
		if p.Up {
			return mutex.Critical, 0
		}
		return mutex.Idle, 0
	}
	check := func(inv automaton.Invariant[flag, int]) *explorer.Result {
		sys, err := automaton.New(automaton.Config[flag, int]{Initial: [][]flag{{{}, {}}}, Invariants: []automaton.Invariant[flag, int]{inv}})
		if err != nil {
			t.Fatal(err)
		}
		r, err := explorer.Check(sys, explorer.Config{Properties: []string{inv.Name}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := check(mutex.ExclusionAt[flag, int](at)); r.Status != explorer.OK || r.States != 4 {
		t.Errorf("ExclusionAt: %v over %d states; want ok over 4", r.Status, r.States)
	}
	if r := check(mutex.Exclusion[flag, int](blind)); r.Status != explorer.Violated {
		t.Errorf("Exclusion with a User blind to the process: %v; want violated", r.Status)
	}
	sys, err := automaton.New(automaton.Config[flag, int]{Initial: [][]flag{{{Up: true}, {Up: true}}}})
	if err != nil {
		t.Fatal(err)
	}
	init, _ := sys.Initial()
	v := sys.ViewOf(init[0])
	if n := mutex.CountAt(v, at, mutex.Critical); n != 1 {
		t.Errorf("CountAt: %d critical; want 1", n)
	}
	if n := mutex.Count(v, blind, mutex.Critical); n != 2 {
		t.Errorf("Count: %d critical; want 2", n)
	}
	if l, m := mutex.LivenessAt[flag, int](at), mutex.Liveness[flag, int](blind); len(l) != 2 || l[0].Name != m[0].Name || l[1].Name != m[1].Name {
		t.Errorf("LivenessAt: %d properties; want Liveness's", len(l))
	}
	mx := mutex.MetricsAt[flag, int](1, at, func(int, int, int) int { return -1 })
	if mx.UserAt == nil || mx.User != nil {
		t.Fatal("MetricsAt sets UserAt only")
	}
	if try, crit, _ := mx.UserAt(1, &flag{Up: true}); try || crit {
		t.Errorf("MetricsAt's UserAt: process 2 with its flag up is trying %v, critical %v; want idle", try, crit)
	}
}
