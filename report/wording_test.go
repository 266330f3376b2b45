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

// TestVerdictBlockSaysTheChannels: the verdict block says the channel
// discipline, and whether it is the spec's default, which differs by spec
// (issue 34 item 7); a model without channels has no such line.
func TestVerdictBlockSaysTheChannels(t *testing.T) {
	r := &explorer.Result{Status: explorer.OK, Workers: 1}
	for _, tt := range []struct {
		params map[string]any
		def    string
		want   string
	}{
		{map[string]any{"channels": "fifo", "capacity": 3}, "fifo", "\nchannels: fifo (the default of this spec), at most 3 messages each\n"},
		{map[string]any{"channels": "fifo", "capacity": 1}, "unordered", "\nchannels: fifo (--channels; the default of this spec is unordered), at most 1 message each\n"},
		{map[string]any{"n": 3}, "", ""},
	} {
		var b strings.Builder
		if err := Text(&b, Run{Spec: "s", Params: tt.params, Result: r, DefaultChannels: tt.def}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if tt.want == "" && strings.Contains(out, "channels:") || tt.want != "" && !strings.Contains(out, tt.want) {
			t.Errorf("%v: want %q in\n%s", tt.params, tt.want, out)
		}
	}
}
