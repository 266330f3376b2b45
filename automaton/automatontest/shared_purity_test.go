package automatontest_test

import (
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/automaton/automatontest"
)

// leakyJoin is impure in its partner's part of a shared action only: Join
// counts in memory shared by every state.
type leakyJoin struct {
	Got   int
	Clock *shared `vacheck:"-"`
}

func (p *leakyJoin) Steps(v *automaton.View[leakyJoin, int], out []automaton.Step) []automaton.Step {
	if v.Self() == 0 && v.Proc(1).Got < 3 {
		out = append(out, automaton.Shared("give", 1))
	}
	return out
}

func (p *leakyJoin) Do(automaton.Step, *automaton.Effects[int]) {}

func (p *leakyJoin) Join(automaton.Step, int, *automaton.Effects[int]) {
	p.Clock.ticks++
	p.Got = p.Clock.ticks
}

func (p *leakyJoin) Receive(int, int, *automaton.Effects[int]) {}

// TestCheckPureSeesJoin: CheckPure applies a shared action's partner part
// too, so an impure Join is reported with the step that ran it.
func TestCheckPureSeesJoin(t *testing.T) {
	clock := &shared{}
	m, err := automaton.New(automaton.Config[leakyJoin, int]{
		Initial: [][]leakyJoin{{{Clock: clock}, {Clock: clock}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{TB: t}
	automatontest.CheckPure(rec, m, 100)
	if len(rec.errors) != 1 {
		t.Fatalf("CheckPure reported %d problems, want 1: %q", len(rec.errors), rec.errors)
	}
	for _, want := range []string{"action 0 (give_{1,2})", "p2.got"} {
		if !strings.Contains(rec.errors[0], want) {
			t.Errorf("report %q does not mention %q", rec.errors[0], want)
		}
	}
}
