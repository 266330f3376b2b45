package report

import (
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// TestOneIsSingular: a count of one reads in the singular, in the figures
// and in a counterexample's title ("1 terminal states", "after 1 steps"
// read wrong; issue 34 item 7).
func TestOneIsSingular(t *testing.T) {
	step := explorer.Step{Action: "a"}
	r := &explorer.Result{
		Status: explorer.Violated, States: 1, Transitions: 1, Terminal: 1, Workers: 1,
		Properties: []explorer.PropertyResult{{Info: properties.Info{Name: "deadlock-freedom"}, Verdict: explorer.ViolatedVerdict}},
		Violations: []explorer.Violation{{Property: "deadlock-freedom", Process: -1, Trace: explorer.Trace{Steps: []explorer.Step{step}}}},
	}
	var b strings.Builder
	if err := Text(&b, Run{Spec: "s", Result: r}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"1 distinct state, 1 transition, depth 0, 1 terminal state\n", "after 1 step\n", "shortest, 1 step"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not say %q:\n%s", want, out)
		}
	}
	for _, n := range []struct {
		n    int64
		want string
	}{{0, "0 steps"}, {1, "1 step"}, {2, "2 steps"}, {1234, "1,234 steps"}} {
		if got := Count(n.n, "step"); got != n.want {
			t.Errorf("Count(%d) = %q, want %q", n.n, got, n.want)
		}
	}
}
