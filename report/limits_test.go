package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// TestIncompleteSaysWhatWasNotChecked: a search stopped while it checked
// a level it had stored claims no verdict on the states it did not check:
// the text counts only the checked ones and says how many more were
// stored, and the JSON gives the number next to states.
func TestIncompleteSaysWhatWasNotChecked(t *testing.T) {
	r := &explorer.Result{Status: explorer.Incomplete, Workers: 2, States: 810226, Unchecked: 715289,
		Reason: "time limit reached (--timeout 10s)", Limit: explorer.TimeLimit}
	var b strings.Builder
	if err := Text(&b, Run{Spec: "s", Result: r}); err != nil {
		t.Fatal(err)
	}
	want := "result: INCOMPLETE, time limit reached (--timeout 10s); no violation among the 94,937 states checked (715,289 more stored, not checked)\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("want %q in\n%s", want, b.String())
	}
	var j strings.Builder
	if err := JSON(&j, Run{Spec: "s", Result: r}); err != nil {
		t.Fatal(err)
	}
	var out struct {
		States    int64 `json:"states"`
		Unchecked int64 `json:"unchecked_states"`
	}
	if err := json.Unmarshal([]byte(j.String()), &out); err != nil {
		t.Fatal(err)
	}
	if out.States != 810226 || out.Unchecked != 715289 {
		t.Errorf("JSON states %d, unchecked %d; want 810226 and 715289", out.States, out.Unchecked)
	}
	// A search that checked every state it stored says no more than before.
	r.Unchecked = 0
	b.Reset()
	if err := Text(&b, Run{Spec: "s", Result: r}); err != nil {
		t.Fatal(err)
	}
	if want := "no violation among the 810,226 states explored\n"; !strings.Contains(b.String(), want) || strings.Contains(b.String(), "not checked") {
		t.Errorf("want %q and no \"not checked\" in\n%s", want, b.String())
	}
}

// TestCollisionProbabilityIsNeverNegativeZero: a search with no state (a
// resume stopped while it loaded its checkpoint) prints 0.0e+00, not
// -0.0e+00, which n(n-1)/2 gives for n = 0.
func TestCollisionProbabilityIsNeverNegativeZero(t *testing.T) {
	for _, n := range []int64{0, 1} {
		r := &explorer.Result{Status: explorer.Incomplete, Workers: 1, States: n, Reason: "interrupted", Limit: explorer.Interrupted}
		var b strings.Builder
		if err := Text(&b, Run{Spec: "s", Result: r}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "-0.0") || !strings.Contains(b.String(), "collision probability 0.0e+00") {
			t.Errorf("%d states: want collision probability 0.0e+00 in\n%s", n, b.String())
		}
	}
}

// TestTrackingNoteSitsNextToTheCount: a metric that tracks more in each
// state says, next to the state count (text) and next to "states" (JSON),
// that a plain run may have fewer; a metric that tracks nothing, or none,
// adds no note (issue 34 item 7).
func TestTrackingNoteSitsNextToTheCount(t *testing.T) {
	for _, tc := range []struct {
		metrics []string
		tracked string
		want    string
	}{
		{[]string{"time"}, "the causal depth", "with the tracking of --metric time: a plain run may have fewer"},
		{[]string{"messages", "sync-delay", "messages-per-entry"}, "the hops", "with the tracking of --metric sync-delay, messages-per-entry: a plain run may have fewer"},
		{[]string{"messages"}, "", ""},
		{nil, "", ""},
	} {
		r := &explorer.Result{Status: explorer.OK, Workers: 1, States: 92, Transitions: 150, Depth: 10, Terminal: 3, Tracked: tc.tracked}
		run := Run{Spec: "s", Result: r, Metrics: tc.metrics}
		var b strings.Builder
		if err := Text(&b, run); err != nil {
			t.Fatal(err)
		}
		line := "92 distinct states, 150 transitions"
		if tc.want != "" {
			line = "92 distinct states (" + tc.want + "), 150 transitions"
		}
		if !strings.Contains(b.String(), line) {
			t.Errorf("%v: want %q in\n%s", tc.metrics, line, b.String())
		}
		var j strings.Builder
		if err := JSON(&j, run); err != nil {
			t.Fatal(err)
		}
		var out struct {
			Note string `json:"states_note"`
		}
		if err := json.Unmarshal([]byte(j.String()), &out); err != nil {
			t.Fatal(err)
		}
		if out.Note != tc.want {
			t.Errorf("%v: JSON states_note %q, want %q", tc.metrics, out.Note, tc.want)
		}
	}
}
