package automaton_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/automaton/automatontest"
	"github.com/vacheck/vacheck/explorer"
)

// cnode is a process of the CommutesAt tests. Processes 1 and 2 are
// senders whose messages are in transit at the start: 1 and 2 on their
// channels to process 3, and again to process 4. Process 3 logs the order
// it receives them in (Log = 3·Log + m) and, once it has both, decides:
// Bad is set when 2 came first. Process 4 only adds them up, which
// commutes. The processes have the same type, so only the process's own
// number tells whether its receives commute: CommutesAt, which is told it.
// Lie makes CommutesAt claim process 3's receives commute too (the
// mutant).
type cnode struct {
	Log, Got int
	Done     bool
	Bad      bool
	Lie      bool `vacheck:"-"`
}

func (p *cnode) Steps(v *automaton.View[cnode, int], out []automaton.Step) []automaton.Step {
	if v.Self() == 2 && p.Got == 2 && !p.Done {
		out = append(out, automaton.Do("decide"))
	}
	return out
}

func (p *cnode) Do(s automaton.Step, _ *automaton.Effects[int]) {
	if s.Name != "decide" {
		panic("unknown step " + s.Name)
	}
	p.Done, p.Bad = true, p.Log == 2*3+1
}

func (p *cnode) Receive(_ int, m int, _ *automaton.Effects[int]) {
	p.Got++
	if p.Log >= 0 {
		p.Log = 3*p.Log + m
	}
}

// CommutesAt implements automaton.CommuterAt: process 4's receives
// commute with everything it does (an addition); process 3's do not (the
// order is logged), unless the mutant lies.
func (p *cnode) CommutesAt(self, _ int, _ int) bool { return self == 3 || p.Lie && self == 2 }

// commuteSystem builds the CommutesAt model; lie builds the mutant.
// Process 4 keeps no log (Log -1), only the count.
func commuteSystem(t *testing.T, lie bool) *automaton.System[cnode, int, *cnode] {
	t.Helper()
	sys, err := automaton.New(automaton.Config[cnode, int]{
		Initial: [][]cnode{{{Lie: lie}, {Lie: lie}, {Lie: lie}, {Log: -1, Lie: lie}}},
		Chans: []automaton.Chan[int]{
			{From: 0, To: 2, Initial: []int{1}}, {From: 1, To: 2, Initial: []int{2}},
			{From: 0, To: 3, Initial: []int{1}}, {From: 1, To: 3, Initial: []int{2}},
		},
		Invariants: []automaton.Invariant[cnode, int]{{
			Name:  "first-is-1",
			Holds: func(v *automaton.View[cnode, int]) bool { return !v.Proc(2).Bad },
		}},
		PartialOrder: &automaton.PartialOrder[cnode]{Visible: func(a, b *cnode) bool { return a.Bad != b.Bad }},
	})
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

// tbRecorder records what a test helper reports instead of failing.
type tbRecorder struct {
	testing.TB
	errors []string
}

func (r *tbRecorder) Helper() {}
func (r *tbRecorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *tbRecorder) Fatalf(format string, args ...any) {
	r.errors = append(r.errors, "fatal: "+fmt.Sprintf(format, args...))
}

// TestCommutesAtUnderReduction: partial-order reduction with CommutesAt.
// Without reduction, by hand: process 3 with its two channels is in one
// of 7 states (nothing received; 1 or 2 received; both, log 5 or 7; then
// decided on either log), and process 4 with its channels in one of 4
// (nothing, 1, 2, both), independently: 7·4 = 28 states; first-is-1 is
// violated (log 7: 2 came first). With the truthful CommutesAt, the reduction explores process 4's receives alone
// and keeps process 3's orders: the same verdict in fewer states, which
// automatontest.CheckReduction confirms. The mutant that lies about
// process 3 loses the order 2-then-1: the reduced search says ok where
// the full search finds the violation, and CheckReduction reports it.
func TestCommutesAtUnderReduction(t *testing.T) {
	full, err := explorer.Check(commuteSystem(t, false), explorer.Config{Workers: 1, Continue: true})
	if err != nil {
		t.Fatal(err)
	}
	if full.Status != explorer.Violated || full.States != 28 {
		t.Fatalf("without reduction: %v, %d states; want violated, 28", full.Status, full.States)
	}
	red, err := explorer.Check(commuteSystem(t, false), explorer.Config{Workers: 1, Continue: true, Reduction: explorer.PartialOrder})
	if err != nil {
		t.Fatal(err)
	}
	// By hand: process 4's receives go first, alone (2 states after the
	// initial one), then process 3's 6 states: 9 states, 8 transitions.
	if red.Status != explorer.Violated || red.States != 9 || red.Transitions != 8 {
		t.Errorf("with reduction: %v, %d states, %d transitions; want violated, 9, 8", red.Status, red.States, red.Transitions)
	}
	automatontest.CheckReduction(t, commuteSystem(t, false))

	lied, err := explorer.Check(commuteSystem(t, true), explorer.Config{Workers: 1, Reduction: explorer.PartialOrder})
	if err != nil {
		t.Fatal(err)
	}
	if lied.Status != explorer.OK {
		t.Errorf("the lying CommutesAt under reduction: %v; want the ok that hides the violation (else this mutant tests nothing)", lied.Status)
	}
	rec := &tbRecorder{TB: t}
	automatontest.CheckReduction(rec, commuteSystem(t, true))
	if len(rec.errors) == 0 || !strings.Contains(strings.Join(rec.errors, "\n"), "first-is-1") {
		t.Errorf("CheckReduction on the lying CommutesAt reported %q; want the lost violation of first-is-1", rec.errors)
	}
}
