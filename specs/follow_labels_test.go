package specs

import (
	"errors"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// TestFollowLabels follows the counterexample of chang-roberts-broken by
// its labels back to its action indices (explorer.FollowLabels), and
// names the step of a path that has one left out.
func TestFollowLabels(t *testing.T) {
	m := build(t, "chang-roberts-broken", map[string]string{"n": "3", "ids": "all"})
	res, err := explorer.Check(m, explorer.Config{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Violations) == 0 {
		t.Fatal("no counterexample")
	}
	tr := res.Violations[0].Trace
	initial, err := m.Initial()
	if err != nil {
		t.Fatal(err)
	}
	labels := explorer.Actions(tr.Steps)
	acts, _, err := explorer.FollowLabels(m, initial[tr.Initial], labels)
	if err != nil {
		t.Fatal(err)
	}
	for k, a := range acts {
		if int(a) != tr.Steps[k].ActionIndex {
			t.Errorf("step %d: action %d, the trace's is %d", k+1, a, tr.Steps[k].ActionIndex)
		}
	}
	skipped := append(append([]string(nil), labels[:2]...), labels[3:]...)
	_, _, err = explorer.FollowLabels(m, initial[tr.Initial], skipped)
	var se *explorer.StepError
	if !errors.As(err, &se) || se.Index < 2 || len(se.Enabled) == 0 {
		t.Errorf("the path with step 3 left out: %v, want a StepError at step 3 or later", err)
	}
}
