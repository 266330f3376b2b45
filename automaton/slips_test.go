package automaton_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/automaton/automatontest"
	"github.com/vacheck/vacheck/explorer"
)

// This file checks that the API mistakes a user can make without the
// compiler noticing are errors that name the field, method or assertion,
// never a silently different state count.

// ticker is a process with a constant field K and an assertion.
type ticker struct {
	K     int `vacheck:"-"`
	PC    int
	Count int
	// Spelled is the assertion name it uses.
	Spelled string `vacheck:"-"`
}

func (p *ticker) Steps(_ *automaton.View[ticker, int], out []automaton.Step) []automaton.Step {
	if p.Count < p.K {
		out = append(out, automaton.Do("tick"))
	}
	return out
}

func (p *ticker) Do(_ automaton.Step, fx *automaton.Effects[int]) {
	p.Count++
	p.PC = p.Count % 2
	fx.Assert(p.Spelled, p.Count <= p.K) // holds: only its name can be wrong
}

func (p *ticker) Receive(int, int, *automaton.Effects[int]) {}

// TestConstantFieldMustAgree: initial states that differ in a constant
// field are refused, naming the field, the process and both values.
func TestConstantFieldMustAgree(t *testing.T) {
	_, err := automaton.New(automaton.Config[ticker, int]{
		Initial:    [][]ticker{{{K: 1, Spelled: "bounded"}}, {{K: 2, Spelled: "bounded"}}},
		Assertions: []automaton.Assertion{{Name: "bounded"}},
	})
	if !errors.Is(err, automaton.ErrConfig) {
		t.Fatalf("err %v, want ErrConfig", err)
	}
	for _, w := range []string{"field K of process 1", "initial state 2 gives it 2", "initial state 1 gives 1"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

// TestUndeclaredAssertion: an assertion name not declared in the Config is
// a model error the first time it is asserted, even when it holds.
func TestUndeclaredAssertion(t *testing.T) {
	m := mustNew(t, automaton.Config[ticker, int]{
		Initial:    [][]ticker{{{K: 1, Spelled: "bounde"}}},
		Assertions: []automaton.Assertion{{Name: "bounded"}},
	})
	r, err := explorer.Check(m, explorer.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Failed || r.Err == nil || !strings.Contains(r.Err.Error(), `asserted "bounde"`) || !strings.Contains(r.Err.Error(), `declared: "bounded"`) {
		t.Errorf("status %v, err %v; want a failed model naming the undeclared assertion and the declared ones", r.Status, r.Err)
	}
}

// TestAcronymFieldNames: a field PC shows as PC, not pC.
func TestAcronymFieldNames(t *testing.T) {
	m := mustNew(t, automaton.Config[ticker, int]{
		Initial:    [][]ticker{{{K: 1, Spelled: "bounded"}}},
		Assertions: []automaton.Assertion{{Name: "bounded"}},
	})
	init, _ := m.Initial()
	if got, want := describe(t, m, init[0]), "p1.PC=0 p1.count=0"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// sloppy declares Accepts with the wrong message type: it would be ignored.
type sloppy struct{ Got bool }

func (p *sloppy) Steps(_ *automaton.View[sloppy, int], out []automaton.Step) []automaton.Step {
	return out
}
func (p *sloppy) Do(automaton.Step, *automaton.Effects[int])      {}
func (p *sloppy) Receive(int, int, *automaton.Effects[int])       {}
func (p *sloppy) Accepts(from int, m int64) bool                  { return m > 0 }
func (p *sloppy) Commutes(from int, m int) bool                   { return true }
func (p *sloppy) Recover(fx *automaton.Effects[int64])            {}
func (p *sloppy) Silent(self, to int, frozen func(int) bool) bool { return true }

// TestWrongOptionalSignature: a method named like an optional interface's
// with another signature is refused, naming the method and both types.
func TestWrongOptionalSignature(t *testing.T) {
	_, err := automaton.New(automaton.Config[sloppy, int]{Initial: [][]sloppy{{{}}}})
	if !errors.Is(err, automaton.ErrConfig) {
		t.Fatalf("err %v, want ErrConfig", err)
	}
	for _, w := range []string{"method Accepts of type func(int, int64) bool", "needs func(int, int) bool"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

// TestExpectViolation: the helper for broken twins passes on a violated
// property, and Verify and ExpectViolation name the model by Config.Name.
func TestExpectViolation(t *testing.T) {
	m := mustNew(t, automaton.Config[ticker, int]{
		Name:    "ticker",
		Initial: [][]ticker{{{K: 2, Spelled: "bounded"}}},
		Invariants: []automaton.Invariant[ticker, int]{{Name: "below-two", Holds: func(v *automaton.View[ticker, int]) bool {
			return v.Proc(0).Count < 2
		}}},
		Assertions: []automaton.Assertion{{Name: "bounded"}},
	})
	r := automatontest.ExpectViolation(t, m, "below-two")
	if got := explorer.Actions(r.Violations[0].Trace.Steps); len(got) != 2 {
		t.Errorf("counterexample %q, want two ticks", got)
	}
	if m.Name() != "ticker" {
		t.Errorf("Name() = %q", m.Name())
	}
}

// TestLinkBuilders checks Star and Tree.
func TestLinkBuilders(t *testing.T) {
	if got, want := fmt.Sprint(automaton.Star(3, 0)), "[{0 1} {1 0} {0 2} {2 0}]"; got != want {
		t.Errorf("Star(3, 0) = %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(automaton.Tree([]int{-1, 0, 0, 1})), "[{0 1} {1 0} {0 2} {2 0} {1 3} {3 1}]"; got != want {
		t.Errorf("Tree = %s, want %s", got, want)
	}
}
