package cli

import (
	"strings"
	"testing"
)

// TestResumeLimitsHoldBeforeTheSearch checks the limits of a resume that
// end it before it searches (issue 34 item 8): stopped while it loads
// the checkpoint (--timeout, which counts the load, and a --max-memory
// below the checkpoint's size) it says so, reports no state with a
// collision probability of 0.0e+00 (it printed -0.0e+00), and keeps the
// checkpoint; a --max-states below the states saved ends it at once as
// incomplete, with one worker or several.
func TestResumeLimitsHoldBeforeTheSearch(t *testing.T) {
	t.Parallel()
	dir := incompleteCheckpoint(t, "chang-roberts")
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--timeout", "1ns"}, "time limit reached (--timeout 1ns) while loading the checkpoint"},
		{[]string{"--max-memory", "1KiB"}, "memory limit reached (--max-memory 1.0 KiB): the checkpoint has"},
	} {
		code, stdout, stderr := vacheck(append([]string{"resume", dir, "--quiet", "--format", "text"}, tc.flags...)...)
		if code != exitIncomplete || !strings.Contains(stdout, tc.want) {
			t.Errorf("%v: exit %d:\n%s%s\nwant exit 3 and %q", tc.flags, code, stdout, stderr, tc.want)
		}
		if !strings.Contains(stdout, "\n0 distinct states,") || !strings.Contains(stdout, "collision probability 0.0e+00") || strings.Contains(stdout, "-0.0") {
			t.Errorf("%v: want 0 states and a collision probability of 0.0e+00:\n%s", tc.flags, stdout)
		}
		if !strings.Contains(stderr, "is kept") {
			t.Errorf("%v: the checkpoint is not said to be kept: %s", tc.flags, stderr)
		}
	}
	for _, w := range []string{"1", "2", "3"} {
		code, stdout, stderr := vacheck("resume", dir, "--quiet", "--format", "text", "--max-states", "100", "--workers", w)
		if code != exitIncomplete || !strings.Contains(stdout, "state limit reached (--max-states 100): the checkpoint holds") {
			t.Errorf("--max-states 100 --workers %s: exit %d:\n%s%s\nwant exit 3 at the state limit", w, code, stdout, stderr)
		}
	}
	// The checkpoint, kept through every stop, still finishes the search.
	if code, stdout, stderr := vacheck("resume", dir, "--quiet", "--max-states", "0"); code != exitOK {
		t.Errorf("resume to the end: exit %d:\n%s%s", code, stdout, stderr)
	}
}
