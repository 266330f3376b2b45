package automaton_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
)

// selfPicky receives only in process 1 (0-based 0): its precondition
// depends on which process it is (AcceptorAt). selfPlain is the same with
// the older Acceptor, which is not told the process and accepts
// everywhere; selfBoth has both methods.
type selfBase struct{ Got int }

func (p *selfBase) Do(s automaton.Step, _ *automaton.Effects[int])  { panic("unknown step " + s.Name) }
func (p *selfBase) Receive(_ int, m int, _ *automaton.Effects[int]) { p.Got = m }

type selfPicky struct{ selfBase }

func (p *selfPicky) Steps(_ *automaton.View[selfPicky, int], out []automaton.Step) []automaton.Step {
	return out
}
func (p *selfPicky) AcceptsAt(self, _ int, _ int) bool { return self == 0 }

type selfPlain struct{ selfBase }

func (p *selfPlain) Steps(_ *automaton.View[selfPlain, int], out []automaton.Step) []automaton.Step {
	return out
}
func (p *selfPlain) Accepts(int, int) bool { return true }

type selfBoth struct{ selfPicky }

func (p *selfBoth) Steps(_ *automaton.View[selfBoth, int], out []automaton.Step) []automaton.Step {
	return out
}
func (p *selfBoth) Accepts(int, int) bool { return true }

// TestAcceptsAt: each of two processes has a message in transit to it at
// the start. With AcceptsAt only process 1 receives: 2 states and 1
// transition (by hand). The mutant, Accepts, which cannot tell the
// processes apart, lets selfBoth receive: 4 states (either, selfBoth, none). A
// type with selfBoth methods is refused.
func TestAcceptsAt(t *testing.T) {
	chans := []automaton.Chan[int]{{From: 0, To: 1, Initial: []int{1}}, {From: 1, To: 0, Initial: []int{2}}}
	at, err := automaton.New(automaton.Config[selfPicky, int]{Initial: [][]selfPicky{{{}, {}}}, Chans: chans, Channels: channel.Unordered})
	if err != nil {
		t.Fatal(err)
	}
	if r := checkAll(t, at); r.States != 2 || r.Transitions != 1 {
		t.Errorf("AcceptsAt: %d states, %d transitions; want 2, 1", r.States, r.Transitions)
	}
	pl, err := automaton.New(automaton.Config[selfPlain, int]{Initial: [][]selfPlain{{{}, {}}}, Chans: chans, Channels: channel.Unordered})
	if err != nil {
		t.Fatal(err)
	}
	if r := checkAll(t, pl); r.States != 4 {
		t.Errorf("Accepts (the mutant): %d states; want 4", r.States)
	}
	_, err = automaton.New(automaton.Config[selfBoth, int]{Initial: [][]selfBoth{{{}, {}}}, Chans: chans})
	if !errors.Is(err, automaton.ErrConfig) || !strings.Contains(err.Error(), "Accepts and AcceptsAt") {
		t.Errorf("both: %v; want ErrConfig naming Accepts and AcceptsAt", err)
	}
}

// TestEnabledSteps: in the ports model, process 1 has go enabled at the
// start and nothing after it; process 2 never has a step (its receives
// are not steps of its own); a process out of range has none.
func TestEnabledSteps(t *testing.T) {
	sys, err := automaton.New(automaton.Config[portNode, int]{
		Initial: [][]portNode{{{}, {}}},
		Chans:   []automaton.Chan[int]{{From: 0, To: 1, Port: "a"}, {From: 0, To: 1, Port: "b"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	init, _ := sys.Initial()
	v := sys.ViewOf(init[0])
	names := func(i int) []string {
		var out []string
		for _, s := range v.EnabledSteps(i, nil) {
			out = append(out, s.Name)
		}
		return out
	}
	if got := names(0); !slices.Equal(got, []string{"go"}) {
		t.Errorf("process 1 at the start: %v; want [go]", got)
	}
	if got := names(1); len(got) != 0 {
		t.Errorf("process 2 at the start: %v; want none", got)
	}
	if got := names(2); len(got) != 0 {
		t.Errorf("process 3 of 2: %v; want none", got)
	}
	v = sys.ViewOf(successor(t, sys, init[0], 0))
	if got := names(0); len(got) != 0 {
		t.Errorf("process 1 after go: %v; want none", got)
	}
	if got := v.ChanPort(0, 1, "b"); !slices.Equal(got, []int{11}) {
		t.Errorf("ChanPort(1→2, b) after go: %v; want [11]", got)
	}
	// An invariant may ask too: "process 1 can go only before it has".
	inv := automaton.Invariant[portNode, int]{Name: "go-once", Holds: func(v *automaton.View[portNode, int]) bool {
		return len(v.EnabledSteps(0, nil)) == 0 == v.Proc(0).Sent
	}}
	sys2, err := automaton.New(automaton.Config[portNode, int]{
		Initial:    [][]portNode{{{}, {}}},
		Chans:      []automaton.Chan[int]{{From: 0, To: 1, Port: "a"}, {From: 0, To: 1, Port: "b"}},
		Invariants: []automaton.Invariant[portNode, int]{inv},
	})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := explorer.Check(sys2, explorer.Config{}); err != nil || r.Status != explorer.OK || r.States != 6 {
		t.Errorf("the invariant over EnabledSteps: %v, %v; want ok over 6 states", r.Status, err)
	}
}
