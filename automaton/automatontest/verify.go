package automatontest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/report"
)

// Verify checks m with cfg and fails the test unless the search completes
// and every checked property holds; on failure it prints the report, with
// each counterexample as a story of steps. It returns the result so that a
// test can also pin its figures:
//
//	r := automatontest.Verify(t, sys, explorer.Config{})
//	if r.States != 1234 { t.Errorf(...) }
func Verify(t testing.TB, m explorer.Model, cfg explorer.Config) *explorer.Result {
	t.Helper()
	r, err := explorer.Check(m, cfg)
	if err != nil {
		t.Fatalf("vacheck: %v", err)
	}
	if r.Status != explorer.OK {
		t.Fatalf("vacheck: %v\n%s", r.Status, story(t, m, r))
	}
	return r
}

// ExpectViolation checks m for the one property prop and fails the test
// unless the search finds a counterexample to it: the test of a broken
// twin. The counterexample is logged as a story (shown with go test -v).
// It returns the result so that a test can pin the trace's length:
//
//	r := automatontest.ExpectViolation(t, broken, properties.MutualExclusion)
//	if n := len(r.Violations[0].Trace.Steps); n != 7 { t.Errorf(...) }
func ExpectViolation(t testing.TB, m explorer.Model, prop string) *explorer.Result {
	t.Helper()
	r, err := explorer.Check(m, explorer.Config{Properties: []string{prop}})
	if err != nil {
		t.Fatalf("vacheck: %v", err)
	}
	if r.Status != explorer.Violated || len(r.Violations) == 0 || r.Violations[0].Property != prop {
		t.Fatalf("vacheck: expected a violation of %s, got %v (%s)\n%s", prop, r.Status, r.Reason, story(t, m, r))
	}
	t.Logf("vacheck: %s is violated, as expected:\n%s", prop, story(t, m, r))
	return r
}

// story renders r as the CLI's text report, under the model's name when it
// has one (automaton.Config.Name) and the test's name otherwise.
func story(t testing.TB, m explorer.Model, r *explorer.Result) string {
	name := t.Name()
	if nm, ok := m.(interface{ Name() string }); ok && nm.Name() != "" {
		name = nm.Name()
	}
	var b strings.Builder
	_ = report.Text(&b, report.Run{Spec: name, Result: r})
	return b.String()
}

// CheckReduction checks that partial-order reduction keeps m's verdicts,
// for a test of a new PartialOrder, Commuter or Silencer on small
// instances: it searches m without reduction and with it, breadth first
// and depth first, and fails the test unless every search completes with
// the same verdict on every safety property of m and deadlock-freedom, and
// finds the same number of terminal states (a reduction keeps every
// terminal state). It returns the full result and the reduced ones.
func CheckReduction(t testing.TB, m explorer.Model) (full *explorer.Result, reduced []*explorer.Result) {
	t.Helper()
	props := []string{properties.DeadlockFreedom}
	for _, p := range m.Properties() {
		props = append(props, p.Name)
	}
	verdicts := func(r *explorer.Result) string {
		var out []string
		for _, v := range r.Violations {
			out = append(out, v.Property)
		}
		slices.Sort(out)
		return fmt.Sprintf("%v, violated %v", r.Status, out)
	}
	run := func(cfg explorer.Config) *explorer.Result {
		cfg.Properties, cfg.Continue = props, true
		r, err := explorer.Check(m, cfg)
		if err != nil {
			t.Fatalf("vacheck: %v", err)
		}
		if r.Status != explorer.OK && r.Status != explorer.Violated {
			t.Fatalf("vacheck, %v, reduction %v: %v (%s)", cfg.Strategy, cfg.Reduction, r.Status, r.Reason)
		}
		return r
	}
	full = run(explorer.Config{})
	for _, st := range []explorer.Strategy{explorer.BFS, explorer.DFS} {
		r := run(explorer.Config{Strategy: st, Reduction: explorer.PartialOrder})
		if got, want := verdicts(r), verdicts(full); got != want {
			t.Errorf("vacheck, %v with partial-order reduction: %s; without: %s", st, got, want)
		}
		if r.Terminal != full.Terminal {
			t.Errorf("vacheck, %v with partial-order reduction: %d terminal states; without: %d", st, r.Terminal, full.Terminal)
		}
		reduced = append(reduced, r)
	}
	return full, reduced
}
