package automatontest_test

import (
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/automaton/automatontest"
)

func TestCheckReduction(t *testing.T) {
	for _, c := range []struct {
		spec  string
		flags map[string]string
	}{
		{"echo-election", map[string]string{"n": "5", "topology": "random:2:5", "initiators": "subsets"}},
		{"echo-election-broken", map[string]string{"n": "4", "initiators": "subsets"}},
		{"lamport", map[string]string{"n": "2", "requests": "2", "clocks": "minimal"}},
		{"lamport", map[string]string{"n": "2", "requests": "2"}},
		{"lamport-broken", map[string]string{"n": "2", "requests": "2"}},
	} {
		full, reduced := automatontest.CheckReduction(t, model(t, c.spec, c.flags))
		for _, r := range reduced {
			if r.States >= full.States {
				t.Errorf("%s: %d states with reduction, %d without", c.spec, r.States, full.States)
			}
		}
	}
}

// orderNode records the order of the messages it receives in Log, yet
// claims that its receives commute: the mistake CheckReduction is for.
type orderNode struct {
	Log  int
	Sent bool
}

func (p *orderNode) Steps(_ *automaton.View[orderNode, int], out []automaton.Step) []automaton.Step {
	if !p.Sent {
		out = append(out, automaton.Out("send", 2))
	}
	return out
}

func (p *orderNode) Do(_ automaton.Step, fx *automaton.Effects[int]) {
	p.Sent = true
	fx.Send(2, fx.Self()+1)
}

func (p *orderNode) Receive(_ int, m int, _ *automaton.Effects[int]) { p.Log = p.Log*3 + m }

func (p *orderNode) Commutes(int, int) bool { return true }

func TestCheckReductionCatchesAFalseCommutes(t *testing.T) {
	sys, err := automaton.New[orderNode, int, *orderNode](automaton.Config[orderNode, int]{
		Initial:      [][]orderNode{{{}, {}, {Sent: true}}},
		Links:        []automaton.Link{{From: 0, To: 2}, {From: 1, To: 2}},
		PartialOrder: &automaton.PartialOrder[orderNode]{Visible: func(_, _ *orderNode) bool { return false }},
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{TB: t}
	automatontest.CheckReduction(rec, sys)
	if len(rec.errors) == 0 || !strings.Contains(rec.errors[0], "terminal states") {
		t.Errorf("CheckReduction reported %q, want the terminal states the reduction lost", rec.errors)
	}
}
