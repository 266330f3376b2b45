package report

import (
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// TestAssertionViolationsSayWhoseErrorItIs: a channel that outgrows the
// model's capacity is a modelling error, said as such; an assertion of the
// algorithm that fails may be a bug of the algorithm, and is not called a
// modelling error.
func TestAssertionViolationsSayWhoseErrorItIs(t *testing.T) {
	for _, c := range []struct {
		prop, want, not string
	}{
		{properties.ChannelBound, "This is a modelling error, not a bug of the algorithm: a channel outgrew the capacity", "An assertion of the algorithm failed"},
		{"release-from-holder", "An assertion of the algorithm failed: a state its rules take to be impossible was reached (a bug of the algorithm, or of its model)", "modelling error"},
	} {
		r := &explorer.Result{
			Status:     explorer.Violated,
			Properties: []explorer.PropertyResult{{Info: properties.Info{Name: c.prop, Kind: properties.Assertion}, Verdict: explorer.ViolatedVerdict}},
			Violations: []explorer.Violation{{Property: c.prop, Kind: properties.Assertion, Process: -1}},
		}
		var b strings.Builder
		if err := Text(&b, Run{Spec: "s", Result: r}); err != nil {
			t.Fatal(err)
		}
		if out := b.String(); !strings.Contains(out, c.want) || strings.Contains(out, c.not) {
			t.Errorf("%s:\n%s\nwant %q and not %q", c.prop, out, c.want, c.not)
		}
	}
}
