package props_test

import (
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/props"
)

// baton is a process of a ring that hands a baton to the next process:
// in one step (a shared action), or, with Split, by sending it.
type baton struct {
	Baton bool
	Split bool `vacheck:"-"`
}

func (p *baton) Steps(v *automaton.View[baton, string], out []automaton.Step) []automaton.Step {
	next := (v.Self() + 1) % v.N()
	switch {
	case p.Baton && p.Split:
		out = append(out, automaton.Out("pass", next))
	case p.Baton:
		out = append(out, automaton.Shared("pass", next))
	}
	return out
}

func (p *baton) Do(s automaton.Step, fx *automaton.Effects[string]) {
	p.Baton = false
	if p.Split {
		fx.Send(s.To, "baton")
	}
}
func (p *baton) Join(automaton.Step, int, *automaton.Effects[string]) { p.Baton = true }
func (p *baton) Receive(int, string, *automaton.Effects[string])      { p.Baton = true }

// TestActionOverSharedSteps: an action property sees a shared action as
// the one step it is, old state to new with both participants changed:
// "every step keeps one baton among the processes" holds when the baton
// is handed over atomically, and fails on the split ring's send, whose
// shortest counterexample is its first step.
func TestActionOverSharedSteps(t *testing.T) {
	const expr = `count(new.procs, .baton) == count(old.procs, .baton)`
	for _, split := range []bool{false, true} {
		sys, err := automaton.New(automaton.Config[baton, string]{
			Initial: [][]baton{{{Baton: true, Split: split}, {Split: split}, {Split: split}}},
			Links:   automaton.Ring(3),
		})
		if err != nil {
			t.Fatal(err)
		}
		m, err := props.Attach(sys, nil, props.Property{Kind: props.Action, Expr: expr})
		if err != nil {
			t.Fatal(err)
		}
		r, err := explorer.Check(m, explorer.Config{Properties: []string{expr}})
		if err != nil {
			t.Fatal(err)
		}
		switch v := verdict(r, expr); {
		case !split && v != explorer.Holds:
			t.Errorf("shared handover: %v, want holds (%s)", v, r.Reason)
		case split && (v != explorer.ViolatedVerdict || len(r.Violations) == 0 || len(r.Violations[0].Trace.Steps) != 1):
			t.Errorf("split handover: %v, want violated in one step", v)
		}
		if !split && (r.States != 3 || r.Transitions != 3) {
			t.Errorf("shared handover: %d states and %d transitions, want 3 and 3 (the baton at each process)", r.States, r.Transitions)
		}
	}
}
