package props_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/props"
	"github.com/vacheck/vacheck/specs"
)

// check attaches ps to the catalog spec name built with given, and checks
// them (only them, besides the assertions) with cfg.
func check(t *testing.T, name string, given map[string]string, cfg explorer.Config, ps ...props.Property) *explorer.Result {
	t.Helper()
	m, p := buildSpec(t, name, given)
	m, err := props.Attach(m, p.Canonical(), ps...)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range ps {
		cfg.Properties = append(cfg.Properties, q.Expr)
	}
	r, err := explorer.Check(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// verdict returns the verdict on the property name.
func verdict(r *explorer.Result, name string) explorer.Verdict {
	for _, p := range r.Properties {
		if p.Name == name {
			return p.Verdict
		}
	}
	return 0
}

func inv(e string) props.Property { return props.Property{Kind: props.Invariant, Expr: e} }

// lastVar returns the value of variable name in the last state of t.
func lastVar(t explorer.Trace, name string) any {
	vars := t.InitialState
	if len(t.Steps) > 0 {
		vars = t.Steps[len(t.Steps)-1].State
	}
	for _, v := range vars {
		if v.Name == name {
			return v.Value
		}
	}
	return nil
}

// TestInvariantIsUniqueness: uniqueness written as an expression holds on
// chang-roberts --n 4 --ids all, over the 4,308 states of the spec's own
// search (TestChangRobertsCounts), and on the broken twin it is violated
// by a counterexample as short as the Go-coded uniqueness's.
func TestInvariantIsUniqueness(t *testing.T) {
	given := map[string]string{"n": "4", "ids": "all"}
	r := check(t, "chang-roberts", given, explorer.Config{}, inv(uniqueExpr))
	if r.Status != explorer.OK || r.States != 4308 || verdict(r, uniqueExpr) != explorer.Holds {
		t.Fatalf("%v (%s), %d states, %v; want ok, 4308, holds", r.Status, r.Reason, r.States, verdict(r, uniqueExpr))
	}
	broken := check(t, "chang-roberts-broken", given, explorer.Config{}, inv(uniqueExpr))
	m, _ := buildSpec(t, "chang-roberts-broken", given)
	goCoded, err := explorer.Check(m, explorer.Config{Properties: []string{"uniqueness"}})
	if err != nil {
		t.Fatal(err)
	}
	if broken.Status != explorer.Violated || len(broken.Violations) != 1 || goCoded.Status != explorer.Violated {
		t.Fatalf("broken: %v %v; go-coded %v", broken.Status, broken.Violations, goCoded.Status)
	}
	if got, want := len(broken.Violations[0].Trace.Steps), len(goCoded.Violations[0].Trace.Steps); got != want {
		t.Errorf("the expression's counterexample has %d steps, uniqueness's %d", got, want)
	}
}

// TestInvariantMutant: a wrong expression (a chosen process is never
// allowed) must be caught, with the first state where one is chosen.
func TestInvariantMutant(t *testing.T) {
	const wrong = `count(procs, .status == "chosen") == 0`
	r := check(t, "chang-roberts", map[string]string{"n": "3"}, explorer.Config{}, inv(wrong))
	if r.Status != explorer.Violated || verdict(r, wrong) != explorer.ViolatedVerdict {
		t.Fatalf("%v, %v; want violated", r.Status, verdict(r, wrong))
	}
	if got := lastVar(r.Violations[0].Trace, "p3.status"); got != "chosen" {
		t.Errorf("the last state has p3.status %v; want chosen (3 is the largest ID)", got)
	}
}

// TestReach: two chosen processes are reachable in the broken twin, with a
// shortest witness as long as uniqueness's shortest counterexample (the
// first state with two chosen is that counterexample's last); in
// chang-roberts they are not, after all 282 states of --n 3 --ids all, a
// violation.
func TestReach(t *testing.T) {
	const two = `count(procs, .status == "chosen") == 2`
	reach := props.Property{Kind: props.Reach, Expr: two}
	given := map[string]string{"n": "4", "ids": "all"}
	r := check(t, "chang-roberts-broken", given, explorer.Config{}, reach)
	if r.Status != explorer.OK || verdict(r, two) != explorer.Holds || len(r.Witnesses) != 1 || len(r.Violations) != 0 {
		t.Fatalf("%v (%s), %v, %d witnesses; want ok, holds, one witness", r.Status, r.Reason, verdict(r, two), len(r.Witnesses))
	}
	// The search goes on after the witness: every state is counted.
	if r.States != 23976 || !r.Exhaustive {
		t.Errorf("%d states, exhaustive %v; want 23976 (the broken twin's), true", r.States, r.Exhaustive)
	}
	if n := len(r.Witnesses[0].Trace.Steps); n != 26 {
		t.Errorf("the witness has %d steps; want 26, uniqueness's shortest counterexample", n)
	}
	w := r.Witnesses[0].Trace
	chosen := 0
	for i := 1; i <= 4; i++ {
		if lastVar(w, "p"+string(rune('0'+i))+".status") == "chosen" {
			chosen++
		}
	}
	if chosen != 2 {
		t.Errorf("the witness ends with %d chosen; want 2", chosen)
	}
	never := check(t, "chang-roberts", map[string]string{"n": "3", "ids": "all"}, explorer.Config{}, reach)
	if never.Status != explorer.Violated || verdict(never, two) != explorer.ViolatedVerdict || never.States != 282 ||
		len(never.Violations) != 1 || !never.Violations[0].Unreached {
		t.Fatalf("%v, %v, %d states, %v; want violated (unreached) after 282 states", never.Status, verdict(never, two), never.States, never.Violations)
	}
	// A limit that stops the search leaves it unknown, never violated.
	cut := check(t, "chang-roberts", map[string]string{"n": "3", "ids": "all"}, explorer.Config{MaxStates: 100}, reach)
	if cut.Status != explorer.Incomplete || verdict(cut, two) != explorer.Unknown {
		t.Errorf("with --max-states 100: %v, %v; want incomplete, unknown", cut.Status, verdict(cut, two))
	}
}

// TestLiveness: eventually, leads-to and stable on chang-roberts --n 3
// (which terminates: every run ends with the maximum chosen and nothing
// in transit) and on perpetuum-mobile, whose token circulates for ever.
func TestLiveness(t *testing.T) {
	cases := []struct {
		spec  string
		p     props.Property
		want  explorer.Verdict
		cycle bool // the counterexample is a lasso
	}{
		{"chang-roberts", props.Property{Kind: props.Eventually, Expr: `one(procs, .status == "chosen")`}, explorer.Holds, false},
		{"chang-roberts", props.Property{Kind: props.Eventually, Expr: `procs[0].status == "chosen"`}, explorer.ViolatedVerdict, false},
		{"chang-roberts", props.Property{Kind: props.LeadsTo, Expr: `any(procs, len(.send) > 0) ~> all(procs, len(.send) == 0)`}, explorer.Holds, false},
		{"chang-roberts", props.Property{Kind: props.LeadsTo, Expr: `len(chans[0].msgs) > 0 ~> procs[0].status == "chosen"`}, explorer.ViolatedVerdict, false},
		{"chang-roberts", props.Property{Kind: props.Stable, Expr: `all(chans, len(.msgs) == 0)`}, explorer.Holds, false},
		{"chang-roberts", props.Property{Kind: props.Stable, Expr: `any(procs, len(.send) > 0)`}, explorer.ViolatedVerdict, false},
		{"perpetuum-mobile", props.Property{Kind: props.Stable, Expr: `none(procs, .hasToken)`}, explorer.ViolatedVerdict, true},
		{"perpetuum-mobile", props.Property{Kind: props.Stable, Expr: `one(procs, .hasToken) || any(chans, len(.msgs) > 0)`}, explorer.Holds, false},
	}
	for _, tc := range cases {
		r := check(t, tc.spec, map[string]string{"n": "3"}, explorer.Config{}, tc.p)
		if got := verdict(r, tc.p.Expr); got != tc.want {
			t.Errorf("%s --%s %q: %v (%s); want %v", tc.spec, tc.p.Kind, tc.p.Expr, got, r.Reason, tc.want)
			continue
		}
		if tc.want != explorer.ViolatedVerdict {
			continue
		}
		if len(r.Violations) != 1 || (len(r.Violations[0].Trace.Cycle) > 0) != tc.cycle {
			t.Errorf("%s --%s %q: %d violations, %+v; want one, a lasso %v", tc.spec, tc.p.Kind, tc.p.Expr, len(r.Violations), r.Violations, tc.cycle)
		}
	}
}

// TestStableLassoPassesBadState: the cycle of a stability counterexample
// starts at a state where the expression does not hold (the state after
// the prefix), and returns to it.
func TestStableLassoPassesBadState(t *testing.T) {
	const e = `!procs[0].hasToken`
	r := check(t, "perpetuum-mobile", map[string]string{"n": "3"}, explorer.Config{}, props.Property{Kind: props.Stable, Expr: e})
	if len(r.Violations) != 1 || len(r.Violations[0].Trace.Cycle) == 0 {
		t.Fatalf("%v; want a lasso", r.Violations)
	}
	tr := r.Violations[0].Trace
	entry := tr.InitialState
	if len(tr.Steps) > 0 {
		entry = tr.Steps[len(tr.Steps)-1].State
	}
	cyc := tr.Cycle[len(tr.Cycle)-1].State
	if !slices.Equal(varNames(entry), varNames(cyc)) || value(entry, "p1.hasToken") != true || value(cyc, "p1.hasToken") != true {
		t.Errorf("the cycle starts at p1.hasToken=%v and ends at %v; want true, the same state", value(entry, "p1.hasToken"), value(cyc, "p1.hasToken"))
	}
}

// varNames returns the variables of a state as name=value strings.
func varNames(vs []explorer.Var) []string {
	var out []string
	for _, v := range vs {
		out = append(out, fmt.Sprintf("%s=%v", v.Name, v.Value))
	}
	return out
}

func value(vs []explorer.Var, name string) any {
	for _, v := range vs {
		if v.Name == name {
			return v.Value
		}
	}
	return nil
}

// TestAction: a chosen process stays chosen (holds, and the 282 states of
// --n 3 --ids all are those of the search without it); "no step chooses"
// is violated by the step that chooses 3, the trace's last.
func TestAction(t *testing.T) {
	given := map[string]string{"n": "3", "ids": "all"}
	const stays = `all(0..n-1, old.procs[#].status != "chosen" || new.procs[#].status == "chosen")`
	r := check(t, "chang-roberts", given, explorer.Config{}, props.Property{Kind: props.Action, Expr: stays})
	if r.Status != explorer.OK || r.States != 282 || verdict(r, stays) != explorer.Holds {
		t.Fatalf("%v (%s), %d states, %v; want ok, 282, holds", r.Status, r.Reason, r.States, verdict(r, stays))
	}
	const none = `count(new.procs, .status == "chosen") == count(old.procs, .status == "chosen")`
	r = check(t, "chang-roberts", given, explorer.Config{}, props.Property{Kind: props.Action, Expr: none})
	if r.Status != explorer.Violated || len(r.Violations) != 1 {
		t.Fatalf("%v, %v; want violated", r.Status, r.Violations)
	}
	tr := r.Violations[0].Trace
	last := tr.Steps[len(tr.Steps)-1]
	if !strings.HasPrefix(last.Action, "receive(3)") || value(last.State, "p3.status") != "chosen" {
		t.Errorf("the last step is %s with p3.status %v; want receive(3)..., chosen", last.Action, value(last.State, "p3.status"))
	}
	if before := tr.Steps[len(tr.Steps)-2].State; value(before, "p3.status") != "unknown" {
		t.Errorf("before the last step p3.status is %v; want unknown", value(before, "p3.status"))
	}
	// Breadth first, the shortest, from IDs 1, 2, 3: ID 3 goes round
	// behind the IDs it meets in the FIFO buffers and channels (send(3),
	// receive(3) at p1, send(1), send(3), send(2), receive(1) at p2,
	// receive(3), send(3), receive(2) at p3, receive(3)).
	if len(tr.Steps) != 10 {
		t.Errorf("%d steps; want 10", len(tr.Steps))
	}
}

// TestChannels: chans reads each channel with from, to and its messages
// in order; a FIFO channel holds at most the N IDs.
func TestChannels(t *testing.T) {
	given := map[string]string{"n": "3", "ids": "all"}
	for _, tc := range []struct {
		e    string
		want explorer.Verdict
	}{
		{`all(chans, .to == .from % n + 1)`, explorer.Holds},
		{`all(chans, len(.msgs) <= n)`, explorer.Holds},
		{`all(chans, all(.msgs, # >= 1 && # <= n))`, explorer.Holds},
		{`all(chans, len(.msgs) < 2)`, explorer.ViolatedVerdict},
	} {
		r := check(t, "chang-roberts", given, explorer.Config{}, inv(tc.e))
		if got := verdict(r, tc.e); got != tc.want {
			t.Errorf("%q: %v; want %v", tc.e, got, tc.want)
		}
	}
}

// TestSymmetry: symmetry reduction is refused with expressions. The
// search under it stores representatives, where chang-roberts puts the
// smallest ID first: an expression about process 1's ID 4 would never
// be judged on a state where process 1 has it, and this one, violated in
// the full search, would hold on the orbits (as it did before the
// refusal).
func TestSymmetry(t *testing.T) {
	given := map[string]string{"n": "4", "ids": "all"}
	const first = `procs[0].u != 4 || procs[0].status == "unknown"`
	if full := check(t, "chang-roberts", given, explorer.Config{}, inv(first)); full.Status != explorer.Violated {
		t.Errorf("%q: %v; want violated", first, full.Status)
	}
	m, p := buildSpec(t, "chang-roberts", given)
	m, err := props.Attach(m, p.Canonical(), inv(first))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := explorer.Check(m, explorer.Config{Symmetry: true}); err == nil || !strings.Contains(err.Error(), "expression") {
		t.Errorf("--symmetry with an expression: %v; want an error that says why", err)
	}
}

// TestErrors: a mistake in an expression names the flag, the column, the
// unknown name and the closest known one.
func TestErrors(t *testing.T) {
	m, p := buildSpec(t, "chang-roberts", map[string]string{"n": "3"})
	cases := []struct {
		p                 props.Property
		column            int
		unknown, suggests string
		says              string
	}{
		{inv(`count(procs, .stauts == "chosen") <= 1`), 15, "stauts", "status", `unknown variable "stauts"`},
		{inv(`count(proc, .status == "chosen") <= 1`), 7, "proc", "procs", `unknown name "proc"`},
		{inv(`N > 2`), 1, "N", "n", `unknown name "N"`},
		{inv(`status == "chosen"`), 1, "status", "", "a process's variable"},
		{inv(`count(procs, .status == "chosen" <= 1`), 37, "", "", "unexpected token"},
		{inv(`n + 1`), 0, "", "", "expected bool"},
		{inv(``), 0, "", "", "empty expression"},
		{props.Property{Kind: props.LeadsTo, Expr: `procs[0].u > 0`}, 0, "", "", "~>"},
		{props.Property{Kind: props.LeadsTo, Expr: `true ~> procs[0].stat`}, 18, "stat", "status", `unknown variable "stat"`},
		{props.Property{Kind: props.Action, Expr: `procs[0].u == 1`}, 1, "procs", "", `unknown name "procs"`},
		{props.Property{Kind: props.Action, Expr: `old.procs[0].status == nw.procs[0].status`}, 24, "nw", "new", `unknown name "nw"`},
	}
	for _, tc := range cases {
		_, err := props.Attach(m, p.Canonical(), tc.p)
		var e *props.Error
		if !errors.As(err, &e) {
			t.Errorf("%q: %v; want a *props.Error", tc.p.Expr, err)
			continue
		}
		if e.Column != tc.column || e.Unknown != tc.unknown || e.Suggestion != tc.suggests || !strings.Contains(err.Error(), tc.says) ||
			!strings.HasPrefix(err.Error(), "--"+tc.p.Kind.Flag()+" ") {
			t.Errorf("%q: %v (column %d, unknown %q, suggestion %q); want column %d, %q, %q, saying %q",
				tc.p.Expr, err, e.Column, e.Unknown, e.Suggestion, tc.column, tc.unknown, tc.suggests, tc.says)
		}
	}
	if _, err := props.Attach(m, p.Canonical(), inv("true"), props.Property{Kind: props.Reach, Expr: "true"}); err == nil {
		t.Errorf("the same expression twice: no error")
	}
}

// TestRuntimeError: an expression that fails in a state (an index out of
// range) fails the search as a model error with the path to that state.
func TestRuntimeError(t *testing.T) {
	const e = `procs[n].u > 0`
	r := check(t, "chang-roberts", map[string]string{"n": "3"}, explorer.Config{}, inv(e))
	if r.Status != explorer.Failed || r.Failure == nil || !strings.Contains(r.Reason, "out of range") || !strings.Contains(r.Reason, e) {
		t.Fatalf("%v (%s); want failed, naming the expression and the index out of range, with a trace", r.Status, r.Reason)
	}
}

// TestNotObservable: a model whose states expressions cannot read is
// refused.
func TestNotObservable(t *testing.T) {
	if _, err := props.Attach(opaque{}, nil, inv("true")); !errors.Is(err, props.ErrNotObservable) {
		t.Errorf("%v; want ErrNotObservable", err)
	}
}

type opaque struct{ explorer.Model }

// TestEveryCatalogSpec: every spec of the catalog lets expressions read
// its processes: "every variable equals itself" holds in its initial
// states (the search is cut at depth 0).
func TestEveryCatalogSpec(t *testing.T) {
	for _, spec := range specs.Catalog() {
		m, p := buildSpec(t, spec.Name, nil)
		om, ok := m.(explorer.Observable)
		if !ok {
			t.Errorf("%s: not observable", spec.Name)
			continue
		}
		var parts []string
		for _, v := range om.Layout().Vars {
			parts = append(parts, "."+v+" == ."+v)
		}
		e := "all(procs, " + strings.Join(parts, " && ") + ") && all(chans, len(.msgs) >= 0)"
		m2, err := props.Attach(m, p.Canonical(), inv(e))
		if err != nil {
			t.Errorf("%s: %v", spec.Name, err)
			continue
		}
		r, err := explorer.Check(m2, explorer.Config{MaxDepth: 1, Properties: []string{e}})
		if err != nil || verdict(r, e) == explorer.ViolatedVerdict || r.Status == explorer.Failed {
			t.Errorf("%s: %v %v (%s)", spec.Name, err, r.Status, r.Reason)
		}
	}
}

// TestFairSteps: in perpetuum-mobile --n 3, process 2 need not ever
// request the critical section under weak fairness of the processes (its
// task is served by passing the token on) nor without fairness; with the
// step request fair (weakly or strongly), alone, it does, and enters.
// A fair step that no transition has is refused, with a "did you mean".
func TestFairSteps(t *testing.T) {
	const done = `procs[1].done == 1`
	p := props.Property{Kind: props.Eventually, Expr: done}
	for _, tc := range []struct {
		fairness explorer.Fairness
		steps    []explorer.FairStep
		want     explorer.Verdict
		tasks    string // in the cycle of the counterexample
	}{
		{explorer.Weak, nil, explorer.ViolatedVerdict, "p2"},
		{explorer.NoFairness, nil, explorer.ViolatedVerdict, ""},
		{explorer.NoFairness, []explorer.FairStep{{Step: "request"}}, explorer.Holds, ""},
		{explorer.NoFairness, []explorer.FairStep{{Step: "request", Strong: true}}, explorer.Holds, ""},
		{explorer.NoFairness, []explorer.FairStep{{Step: "pass"}}, explorer.ViolatedVerdict, "pass of p2"},
	} {
		r := check(t, "perpetuum-mobile", map[string]string{"n": "3"}, explorer.Config{Fairness: tc.fairness, FairSteps: tc.steps}, p)
		if got := verdict(r, done); got != tc.want {
			t.Errorf("--fairness %v --fair %v: %v (%s); want %v", tc.fairness, tc.steps, got, r.Reason, tc.want)
			continue
		}
		if tc.tasks != "" && (len(r.Violations) != 1 || !slices.Contains(r.Violations[0].Trace.CycleTasks, tc.tasks)) {
			t.Errorf("--fairness %v --fair %v: %v; want a cycle that takes %s", tc.fairness, tc.steps, r.Violations, tc.tasks)
		}
	}
	m, params := buildSpec(t, "perpetuum-mobile", map[string]string{"n": "3"})
	m, err := props.Attach(m, params.Canonical(), p)
	if err != nil {
		t.Fatal(err)
	}
	_, err = explorer.Check(m, explorer.Config{FairSteps: []explorer.FairStep{{Step: "reqest"}}})
	if !errors.Is(err, explorer.ErrConfig) || !strings.Contains(err.Error(), "did you mean request?") {
		t.Errorf("--fair reqest: %v; want a configuration error with a did you mean", err)
	}
}
