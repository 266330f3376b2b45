package cli

import (
	"strings"
	"testing"
)

// TestCounterexampleWithoutNeedlessOvertake: ricart-agrawala-broken's bug
// (a REQUEST does not advance the clock) needs no message to overtake
// another, yet the canonical shortest counterexample of its unordered
// channels had REQUEST(1,1) overtake a REPLY in bag_{1,2} at step 4. Among
// the 12-step counterexamples the check now shows one without overtaking,
// with 1 worker and 2. lamport --channels unordered, whose FAIR-TS
// violation needs an ACK to overtake a REQUEST, keeps its overtake.
func TestCounterexampleWithoutNeedlessOvertake(t *testing.T) {
	t.Parallel()
	for _, workers := range []string{"1", "2"} {
		code, out, stderr := vacheck("check", "ricart-agrawala-broken", "--workers", workers)
		if code != 1 || stderr != "" {
			t.Fatalf("%s workers: exit %d, stderr %q; want 1", workers, code, stderr)
		}
		if !strings.Contains(out, "Counterexample (shortest, 12 steps)") || !strings.Contains(out, "2,652 distinct states") {
			t.Errorf("%s workers: want the 12-step counterexample over the search's 2,652 states:\n%s", workers, out)
		}
		if strings.Contains(out, "overtakes") {
			t.Errorf("%s workers: the counterexample overtakes, which the bug does not need:\n%s", workers, out)
		}
	}
	code, out, _ := vacheck("check", "lamport", "--n", "3", "--channels", "unordered", "--workers", "2")
	if code != 1 || !strings.Contains(out, "Counterexample (shortest, 7 steps)") || !strings.Contains(out, "ACK(2,1) (sent in step 3) overtakes") {
		t.Errorf("lamport unordered: exit %d; want its 7-step counterexample with its overtake:\n%s", code, out)
	}
}
