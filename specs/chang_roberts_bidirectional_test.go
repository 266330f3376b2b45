package specs

import (
	"errors"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// TestChangRobertsBidirectionalSafety: FIFO is not needed for safety, and
// --objective min elects the minimum with the mirror-image state space.
func TestChangRobertsBidirectionalSafety(t *testing.T) {
	t.Parallel()
	for _, f := range []map[string]string{{"n": "3", "channels": "unordered"}, {"n": "3", "objective": "min"}} {
		r, err := explorer.Check(build(t, "chang-roberts-bidirectional", f), explorer.Config{Properties: changRobertsBidirectional(false).Claims})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != explorer.OK {
			t.Errorf("%v: %v %+v", f, r.Status, r.Violations)
		}
		if f["objective"] == "min" && r.States != 2694 {
			t.Errorf("objective min: %d states, want max's 2694", r.States)
		}
	}
}

// TestChangRobertsBidirectionalBroken: an ID forwarded back on the port it
// arrived on returns to its origin at once, which is chosen: at N=3 IDs 2
// and 3 both bounce off process 1 (6 steps).
func TestChangRobertsBidirectionalBroken(t *testing.T) {
	t.Parallel()
	r, err := explorer.Check(build(t, "chang-roberts-bidirectional-broken", map[string]string{"n": "3"}),
		explorer.Config{Properties: changRobertsBidirectional(true).Claims})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Violated || r.Violations[0].Property != properties.Uniqueness || len(r.Violations[0].Trace.Steps) != 6 {
		t.Fatalf("%v %+v, want uniqueness violated in 6 steps", r.Status, r.Violations)
	}
}

func TestChangRobertsBidirectionalUsage(t *testing.T) {
	t.Parallel()
	for _, flags := range []map[string]string{{"n": "2"}, {"n": "x"}, {"objective": "any"}, {"ids": "1,2"}} {
		s, _ := Lookup("chang-roberts-bidirectional")
		err := buildErr(s, flags)
		if !errors.Is(err, ErrUsage) {
			t.Errorf("%v: error %v, want ErrUsage", flags, err)
		}
	}
}
