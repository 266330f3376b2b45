package automatontest

import (
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
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
		var b strings.Builder
		_ = report.Text(&b, report.Run{Spec: t.Name(), Result: r})
		t.Fatalf("vacheck: %v\n%s", r.Status, b.String())
	}
	return r
}
