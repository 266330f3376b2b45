package props_test

import (
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/props"
	"github.com/vacheck/vacheck/specs"
)

// constrained checks the catalog spec name built with given, with the
// expressions ps attached, and the spec's claims plus the expressions
// that are properties.
func constrained(t *testing.T, name string, given map[string]string, ps ...props.Property) *explorer.Result {
	t.Helper()
	m, p := buildSpec(t, name, given)
	m, err := props.Attach(m, p.Canonical(), ps...)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := specs.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	cfg := explorer.Config{Workers: 1, Properties: spec.Claims}
	for _, q := range ps {
		if q.Kind != props.Constraint {
			cfg.Properties = append(cfg.Properties, q.Expr)
		}
	}
	r, err := explorer.Check(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func constraint(e string) props.Property { return props.Property{Kind: props.Constraint, Expr: e} }

// TestConstraintCountsLikeTheSpecs: --constraint 'all(procs, .C <= 6)' on
// lamport --n 3 is the spec's own --clock-limit 6 written as an
// expression, so it must count the same: 15,799 states within it and
// 9,635 cut (the figures the catalog pins for --clock-limit 6,
// TestLamportClockLimit), bounded, deadlock-freedom decided within it.
// With the spec's own constraint it is a conjunction: --clock-limit 6 and
// .C <= 5 is --clock-limit 5 (6,795 + 5,116, measured here against the
// spec). A constraint that cuts nothing leaves an ordinary complete run.
func TestConstraintCountsLikeTheSpecs(t *testing.T) {
	spec := func(limit string) *explorer.Result {
		m, _ := buildSpec(t, "lamport", map[string]string{"n": "3", "clock-limit": limit})
		spec, _ := specs.Lookup("lamport")
		r, err := explorer.Check(m, explorer.Config{Workers: 1, Properties: spec.Claims})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := constrained(t, "lamport", map[string]string{"n": "3"}, constraint("all(procs, .C <= 6)"))
	if r.Status != explorer.Bounded || r.States != 15799 || r.Cut != 9635 {
		t.Fatalf("%v, %d states + %d cut; want bounded, 15799 + 9635", r.Status, r.States, r.Cut)
	}
	if s := spec("6"); s.States != r.States || s.Cut != r.Cut || s.Transitions != r.Transitions {
		t.Errorf("--clock-limit 6: %d + %d, %d transitions; the expression: %d + %d, %d", s.States, s.Cut, s.Transitions, r.States, r.Cut, r.Transitions)
	}
	if v := verdict(r, properties.DeadlockFreedom); v != explorer.HoldsWithinBound {
		t.Errorf("deadlock-freedom %v; want holds-within-bound", v)
	}
	both := constrained(t, "lamport", map[string]string{"n": "3", "clock-limit": "6"}, constraint("all(procs, .C <= 5)"))
	five := spec("5")
	if both.Status != explorer.Bounded || both.States != five.States || both.Cut != five.Cut || both.States != 6795 || both.Cut != 5116 {
		t.Errorf("--clock-limit 6 and .C <= 5: %v, %d + %d; --clock-limit 5: %d + %d; want 6795 + 5116 for both", both.Status, both.States, both.Cut, five.States, five.Cut)
	}
	none := constrained(t, "chang-roberts", map[string]string{"n": "3", "ids": "all"}, constraint("all(chans, len(.msgs) <= 3)"))
	if none.Status != explorer.OK || none.States != 282 || none.Cut != 0 {
		t.Errorf("a constraint that cuts nothing: %v, %d + %d; want ok, 282 + 0 (chang-roberts --n 3 --ids all)", none.Status, none.States, none.Cut)
	}
}

// TestConstraintStatesAreChecked: a state outside the constraint is
// checked against the properties, not dropped: an invariant that fails
// only outside it (a clock above 6) is violated, at the shortest depth.
// The mutant that drops the states outside rather than checking them
// would report it as holding.
func TestConstraintStatesAreChecked(t *testing.T) {
	const clock = "all(procs, .C <= 6)"
	r := constrained(t, "lamport", map[string]string{"n": "3"}, constraint(clock), inv("all(procs, .C <= 6) && true"))
	if r.Status != explorer.Violated || len(r.Violations) != 1 {
		t.Fatalf("%v %v; want the invariant violated outside the constraint", r.Status, r.Violations)
	}
	last := r.Violations[0].Trace.Steps
	if len(last) == 0 {
		t.Fatal("an empty counterexample")
	}
	over := false
	for _, v := range last[len(last)-1].State {
		if c, ok := v.Value.(int); ok && len(v.Name) > 3 && v.Name[len(v.Name)-2:] == ".C" && c > 6 {
			over = true
		}
	}
	if !over {
		t.Errorf("the last state has no clock above 6: %v", last[len(last)-1].State)
	}
}

// TestConstraintErrors: a constraint is compiled as any expression, and
// its mistakes name the flag --constraint.
func TestConstraintErrors(t *testing.T) {
	m, p := buildSpec(t, "lamport", map[string]string{"n": "3"})
	_, err := props.Attach(m, p.Canonical(), constraint("all(procs, .clock <= 6)"))
	pe, ok := err.(*props.Error)
	if !ok || pe.Kind != props.Constraint || pe.Unknown != "clock" {
		t.Fatalf("%v; want a *props.Error of --constraint about clock", err)
	}
	if got := pe.Error(); got[:12] != "--constraint" {
		t.Errorf("%q does not start with the flag", got)
	}
}
