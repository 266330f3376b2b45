package automaton_test

import (
	"errors"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
)

// TestConstraintCountsApart: the token ring of Example is a chain of 7
// states (pass, receive, three times). The constraint "process 3 has not
// seen the token" keeps the first 4 (by hand: the token at process 1, in
// transit to 2, at 2, in transit to 3) and cuts the fifth, where process 3
// holds it: 4 distinct states and 1 cut, a bounded run whose
// deadlock-freedom holds within the constraint (none of the 4 is
// terminal). The state outside the constraint is still checked: an
// invariant it alone breaks is violated. Bound, the constraint's former
// name, does the same; setting both is a configuration error.
func TestConstraintCountsApart(t *testing.T) {
	unseen := func(v *automaton.View[ring, string]) bool { return !v.Proc(2).Seen }
	ring3 := func() automaton.Config[ring, string] {
		return automaton.Config[ring, string]{
			Initial: [][]ring{{{Holding: true, Seen: true}, {}, {}}},
			Links:   automaton.Ring(3),
		}
	}
	for _, name := range []string{"Constraint", "Bound"} {
		cfg := ring3()
		if name == "Constraint" {
			cfg.Constraint, cfg.ConstraintDoc = unseen, "process 3 has not seen the token"
		} else {
			cfg.Bound, cfg.BoundDoc = unseen, "process 3 has not seen the token"
		}
		sys, err := automaton.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if sys.BoundDoc() != "process 3 has not seen the token" {
			t.Errorf("%s: BoundDoc %q", name, sys.BoundDoc())
		}
		for _, ec := range []explorer.Config{{}, {Workers: 2}, {Strategy: explorer.DFS}} {
			r, err := explorer.Check(sys, ec)
			if err != nil {
				t.Fatal(err)
			}
			var deadlock explorer.Verdict
			for _, p := range r.Properties {
				if p.Name == "deadlock-freedom" {
					deadlock = p.Verdict
				}
			}
			if r.Status != explorer.Bounded || r.States != 4 || r.Cut != 1 || r.Transitions != 4 || deadlock != explorer.HoldsWithinBound {
				t.Errorf("%s %v/%d: %v, %d states, %d cut, %d transitions, deadlock-freedom %v; want bounded, 4, 1, 4, holds-within-bound",
					name, ec.Strategy, ec.Workers, r.Status, r.States, r.Cut, r.Transitions, deadlock)
			}
		}
	}

	cfg := ring3()
	cfg.Constraint = unseen
	cfg.Invariants = []automaton.Invariant[ring, string]{{Name: "unseen", Doc: "process 3 never sees the token", Holds: unseen}}
	sys, err := automaton.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := explorer.Check(sys, explorer.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Violated || len(r.Violations) != 1 || len(r.Violations[0].Trace.Steps) != 4 {
		t.Errorf("an invariant broken outside the constraint: %v, %+v; want violated after 4 steps", r.Status, r.Violations)
	}

	cfg = ring3()
	cfg.Constraint, cfg.Bound = unseen, unseen
	if _, err := automaton.New(cfg); !errors.Is(err, automaton.ErrConfig) {
		t.Errorf("Constraint and Bound both set: %v, want ErrConfig", err)
	}
	cfg = ring3()
	cfg.ConstraintDoc = "no constraint"
	if _, err := automaton.New(cfg); !errors.Is(err, automaton.ErrConfig) {
		t.Errorf("ConstraintDoc alone: %v, want ErrConfig", err)
	}
}
