package cli

import (
	"strings"
	"testing"
)

// rerunLine returns the command of the first "Re-run this scenario:" line
// of out, as arguments after the program name.
func rerunLine(t *testing.T, out string) []string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if cmd, ok := strings.CutPrefix(strings.TrimSpace(line), "Re-run this scenario: "); ok {
			return strings.Fields(cmd)[1:]
		}
	}
	t.Fatalf("no re-run line in:\n%s", out)
	return nil
}

// TestRerunReproducesTheCounterexample: the counterexample of a check over
// every arrangement and every initiator set ends with a command naming one
// of each, and that command finds the same counterexample from its one
// initial state.
func TestRerunReproducesTheCounterexample(t *testing.T) {
	t.Parallel()
	code, out, _ := vacheck("check", "lelann-broken", "--n", "3", "--ids", "all", "--initiators", "subsets", "--quiet", "--workers", "1")
	if code != exitViolated {
		t.Fatalf("exit %d, want %d:\n%s", code, exitViolated, out)
	}
	args := rerunLine(t, out)
	cmd := strings.Join(args, " ")
	if strings.Contains(cmd, "all") || strings.Contains(cmd, "subsets") || !strings.Contains(cmd, "--ids ") {
		t.Fatalf("the re-run command does not name one arrangement and one initiator set: %s", cmd)
	}
	code, again, _ := vacheck(append(args, "--quiet", "--workers", "1")...)
	if code != exitViolated {
		t.Fatalf("%s: exit %d, want %d", cmd, code, exitViolated)
	}
	steps := func(s string) string {
		i := strings.Index(s, "Counterexample (")
		j := strings.Index(s, "Re-run this scenario:")
		if i < 0 || j < i {
			t.Fatalf("no counterexample in:\n%s", s)
		}
		// The header names the initial state's place, #1 in the re-run.
		return s[strings.Index(s[i:], "\n")+i : j]
	}
	if steps(out) != steps(again) {
		t.Errorf("%s found another counterexample:\n%s\nwant:\n%s", cmd, steps(again), steps(out))
	}
	if rerun := strings.Join(rerunLine(t, again), " "); rerun != cmd {
		t.Errorf("the re-run names its scenario %q, want %q", rerun, cmd)
	}
}
