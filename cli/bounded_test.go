package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBoundedRunIsNotAProof: `lamport --clock-limit 6` cuts states (no
// terminal state is explored). It used to exit 0 with status ok and every
// property "holds"; now it is bounded (exit 5) in text and JSON, and the
// properties, deadlock-freedom included, hold within the constraint. The
// 9,635 states outside it are counted apart from the 15,799 within (the
// 25,434 stored states pinned before they were, issue 29). A violation in
// a bounded run is still exit 1, and sweep treats bounded as not ok.
func TestBoundedRunIsNotAProof(t *testing.T) {
	t.Parallel()
	args := []string{"check", "lamport", "--n", "3", "--clock-limit", "6", "--quiet"}
	code, stdout, stderr := vacheck(args...)
	if code != exitBounded {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitBounded, stdout, stderr)
	}
	for _, want := range []string{"result: BOUNDED, not a proof", "15,799 states within the model's constraint", "through 9,635 more states",
		"9,635 more states outside the model's constraint", "deadlock-freedom    holds-within-bound"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("text output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "OK") {
		t.Errorf("a bounded run says OK:\n%s", stdout)
	}

	code, stdout, _ = vacheck(append(args, "--format", "json")...)
	var out struct {
		Status     string `json:"status"`
		States     int64  `json:"states"`
		Properties []struct {
			Name, Status string
		} `json:"properties"`
		Stats struct {
			Cut int64 `json:"cut_states"`
		} `json:"stats"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if code != exitBounded || out.Status != "bounded" || out.States != 15799 || out.Stats.Cut != 9635 {
		t.Errorf("JSON: exit %d, status %q, %d states, %d cut; want 5, bounded, 15799, 9635", code, out.Status, out.States, out.Stats.Cut)
	}
	want := map[string]string{"mutual-exclusion": "holds-within-bound", "timestamp-order": "holds-within-bound",
		"channel-bound": "holds-within-bound", "deadlock-freedom": "holds-within-bound"}
	for _, p := range out.Properties {
		if want[p.Name] != p.Status {
			t.Errorf("JSON: %s is %q, want %q", p.Name, p.Status, want[p.Name])
		}
		delete(want, p.Name)
	}
	if len(want) > 0 {
		t.Errorf("JSON lacks %v", want)
	}

	// A liveness property checked within the bound holds within it.
	code, stdout, _ = vacheck("check", "lamport", "--n", "3", "--clock-limit", "6", "--quiet", "--property", "progress")
	if code != exitBounded || !strings.Contains(stdout, "progress            holds-within-bound") {
		t.Errorf("progress within the bound: exit %d\n%s", code, stdout)
	}
	// A violation in a bounded run is a violation.
	code, stdout, _ = vacheck("check", "lamport", "--n", "3", "--clock-limit", "6", "--quiet", "--channels", "unordered", "--property", "mutual-exclusion")
	if code != exitViolated || !strings.Contains(stdout, "result: VIOLATED") {
		t.Errorf("violation in a bounded run: exit %d\n%s", code, stdout)
	}
	// A bound no state reaches is a full check.
	if code, stdout, _ := vacheck("check", "lamport", "--n", "2", "--clock-limit", "1000", "--quiet"); code != exitOK || !strings.Contains(stdout, "result: OK, every property holds") {
		t.Errorf("--clock-limit 1000: exit %d\n%s", code, stdout)
	}
	// sweep: bounded is not ok.
	code, stdout, stderr = vacheck("sweep", "lamport", "--n", "2..3", "--clock-limit", "5", "--quiet")
	if code != exitBounded || strings.Count(stdout, "BOUNDED") != 2 {
		t.Errorf("sweep of bounded runs: exit %d, want %d\n%s%s", code, exitBounded, stdout, stderr)
	}
	// The help lists the exit code.
	if _, stdout, _ := vacheck("check", "--help"); !strings.Contains(stdout, "5 bounded") {
		t.Errorf("check --help does not list exit code 5:\n%s", stdout)
	}
}

// TestLimitsHoldWhileInitialStatesAreBuilt: --max-states counts the
// initial states as they are built, so these runs end at once as
// incomplete with exactly the limit stored. They used to build every
// initial state first: chang-roberts stored 3.6 million states, and
// echo-election passed 5 GB.
func TestLimitsHoldWhileInitialStatesAreBuilt(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args   []string
		states int64
	}{
		{[]string{"chang-roberts", "--n", "9", "--ids", "all", "--max-states", "10"}, 10},
		{[]string{"echo-election", "--n", "8", "--ids", "all", "--initiators", "subsets", "--topology", "complete", "--max-memory", "300MiB", "--max-states", "1000"}, 1000},
	} {
		code, stdout, stderr := vacheck(append([]string{"check", "--quiet", "--format", "json"}, tt.args...)...)
		var out struct {
			Status, Reason string
			States         int64
		}
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatalf("%v: %v\n%s", tt.args, err, stderr)
		}
		if code != exitIncomplete || out.Status != "incomplete" || out.States != tt.states || !strings.Contains(out.Reason, "--max-states") {
			t.Errorf("%v: exit %d, %s %q, %d states; want exit 3, incomplete at --max-states with %d", tt.args, code, out.Status, out.Reason, out.States, tt.states)
		}
	}
}
