package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSwarmCommand: vacheck swarm finds basic Maekawa's deadlock (exit 1),
// with the jobs' table, the shortest counterexample and the union; on the
// correct algorithm it is incomplete (exit 3), never ok; its JSON says the
// same; and the same seed gives the same report, times aside.
func TestSwarmCommand(t *testing.T) {
	t.Parallel()
	args := []string{"swarm", "maekawa-basic", "--jobs", "3", "--memory", "3MiB", "--workers", "2", "--quiet"}
	code, out, errs := vacheck(args...)
	if code != exitViolated {
		t.Fatalf("exit code %d, stderr %q", code, errs)
	}
	for _, want := range []string{"swarm of 3 depth-first searches, 2 at a time (seed 1)", "bitstate table of 1.0 MiB (3.0 MiB in all)",
		"deadlock-freedom    violated", "union of the jobs: about", "DEADLOCK:", "(the shortest found, by job", "result: VIOLATED"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	_, again, _ := vacheck(args...)
	if withoutTimes(again) != withoutTimes(out) {
		t.Errorf("two runs with the same seed differ:\n%s\n%s", out, again)
	}
	code, out, _ = vacheck("swarm", "maekawa", "--jobs", "2", "--memory", "2MiB", "--quiet", "--format", "json")
	var j struct {
		Status     string `json:"status"`
		Violations []any  `json:"violations"`
		Jobs       []struct {
			Status   string `json:"status"`
			Bitstate struct {
				Bytes uint64 `json:"bytes"`
			} `json:"bitstate"`
		} `json:"jobs"`
		NotChecked []string `json:"not_checked"`
		Union      float64  `json:"union_states_estimate"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if code != exitIncomplete || j.Status != "incomplete" || len(j.Violations) != 0 || len(j.Jobs) != 2 || j.Jobs[0].Bitstate.Bytes != 1<<20 || j.Union < 1000 {
		t.Errorf("maekawa: exit %d, %+v", code, j)
	}
	if strings.Join(j.NotChecked, ",") != "" {
		t.Errorf("not checked: %v (maekawa claims safety properties only)", j.NotChecked)
	}
}

// withoutTimes drops the times from a swarm's report, and the line of the
// first violation (which job finds one first depends on timing), and the
// spaces that align columns (a time's width moves them).
func withoutTimes(s string) string {
	var keep []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "first violation found after") {
			continue
		}
		var f []string
		fields := strings.Fields(line)
		for k := 0; k < len(fields); k++ {
			if k+1 < len(fields) && (fields[k+1] == "ms" || fields[k+1] == "s") {
				k++ // a time: a number and its unit
				continue
			}
			f = append(f, fields[k])
		}
		keep = append(keep, strings.Join(f, " "))
	}
	return strings.Join(keep, "\n")
}

// TestCheckBitstateAndCoverage: check --bitstate is a single job, which
// reports its table and is incomplete without a violation (exit 3); with
// --coverage the report ends with the coverage table, and its JSON has
// both.
func TestCheckBitstateAndCoverage(t *testing.T) {
	t.Parallel()
	code, out, _ := vacheck("check", "maekawa", "--bitstate", "1MiB", "--coverage", "--quiet")
	for _, want := range []string{"bitstate table 1.0 MiB, 3 hash functions: ", "hash factor", "expected omitted states",
		"coverage: ", "REQUEST → LOCKED", "every declared step and message type fired", "result: INCOMPLETE, bitstate search (--bitstate 1.0 MiB)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if code != exitIncomplete {
		t.Errorf("exit code %d, want %d", code, exitIncomplete)
	}
	code, out, _ = vacheck("check", "central", "--coverage", "--quiet", "--format", "json")
	var j struct {
		Status   string `json:"status"`
		Coverage struct {
			Transitions  int64 `json:"transitions"`
			Steps        []struct{ Name string }
			UnfiredSteps []string `json:"unfired_steps"`
		} `json:"coverage"`
		Transitions int64 `json:"transitions"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if code != exitOK || j.Coverage.Transitions != j.Transitions || len(j.Coverage.Steps) != 4 || j.Coverage.UnfiredSteps == nil {
		t.Errorf("central --coverage: exit %d, %+v", code, j)
	}
}

// TestSwarmAndBitstateUsageErrors: bad flags exit 2 naming the flag.
func TestSwarmAndBitstateUsageErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "central", "--bitstate", "lots"}, `--bitstate "lots"`},
		{[]string{"check", "central", "--bitstate", "4B"}, "--bitstate 4: a bitstate table takes at least 8 bytes"},
		{[]string{"check", "central", "--bitstate", "1MiB", "--strategy", "bfs"}, "--strategy dfs"},
		{[]string{"check", "central", "--bitstate", "1MiB", "--hashes", "0"}, "--hashes 0: out of range"},
		{[]string{"check", "central", "--hashes", "2"}, "--hashes 2 needs --bitstate"},
		{[]string{"check", "central", "--bitstate", "1MiB", "--metric", "messages"}, "--bitstate 1048576 may omit states, so it cannot compute --metric messages"},
		{[]string{"check", "central", "--bitstate", "1MiB", "--property", "starvation-freedom"}, "not the liveness property starvation-freedom"},
		{[]string{"check", "lamport", "--coverage", "--reduction", "por"}, "--coverage counts the transitions of every state, and --reduction por"},
		{[]string{"swarm", "central", "--jobs", "0"}, "--jobs 0: out of range"},
		{[]string{"swarm", "central", "--memory", "64B", "--jobs", "16"}, "--memory 64: 16 jobs would have 4 bytes"},
		{[]string{"swarm", "central", "--time", "soon"}, `--time "soon"`},
		{[]string{"swarm", "central", "--seed", "-1"}, "--seed"},
		{[]string{"swarm", "central", "--strategy", "bfs"}, "unknown flag --strategy"},
		{[]string{"swarm"}, "swarm takes one SPEC"},
	} {
		code, stdout, stderr := vacheck(c.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, stdout, stderr, c.want)
		}
	}
}
