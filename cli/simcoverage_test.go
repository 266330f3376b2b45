package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSimulateCoverage: simulate --coverage prints the counts summed over
// the runs, in text and JSON, the same for 1 and 3 workers.
func TestSimulateCoverage(t *testing.T) {
	t.Parallel()
	args := []string{"simulate", "ricart-agrawala", "--n", "3", "--runs", "50", "--seed", "5", "--coverage", "--quiet"}
	_, one, _ := vacheck(append(args, "--workers", "1")...)
	code, three, _ := vacheck(append(args, "--workers", "3")...)
	if code != exitIncomplete || one != three {
		t.Errorf("exit %d; 1 worker:\n%s\n3 workers:\n%s", code, one, three)
	}
	for _, line := range []string{"coverage, summed over the runs: 1,050 transitions fired", "  request   150", "every declared step and message type fired"} {
		if !strings.Contains(one, line+"\n") {
			t.Errorf("no line %q in:\n%s", line, one)
		}
	}
	_, out, _ := vacheck(append(args, "--format", "json")...)
	var js struct {
		Steps    int64
		Coverage struct{ Transitions int64 }
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil || js.Coverage.Transitions != 1050 || js.Steps != 1050 {
		t.Errorf("JSON: %v %+v", err, js)
	}
}
