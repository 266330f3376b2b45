package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimulateSameOutputWhateverWorkers: the report of a simulation, text
// and JSON (but its "stats", the machine's figures), is byte for byte the
// same with 1 and 4 workers.
func TestSimulateSameOutputWhateverWorkers(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "json"} {
		var first string
		for _, w := range []string{"1", "4"} {
			code, out, _ := vacheck("simulate", "chang-roberts", "--n", "5", "--runs", "400", "--seed", "7", "--metric", "messages", "--metric", "steps",
				"--workers", w, "--format", format, "--quiet")
			if code != exitIncomplete {
				t.Fatalf("%s, %s workers: exit %d, want %d (no violation: not a proof)\n%s", format, w, code, exitIncomplete, out)
			}
			if format == "json" {
				var v map[string]any
				if err := json.Unmarshal([]byte(out), &v); err != nil {
					t.Fatal(err)
				}
				delete(v, "stats")
				b, _ := json.Marshal(v)
				out = string(b)
			}
			if first == "" {
				first = out
			} else if out != first {
				t.Errorf("%s: 4 workers printed\n%s\n1 worker printed\n%s", format, out, first)
			}
		}
	}
}

func TestSimulateReport(t *testing.T) {
	t.Parallel()
	code, out, stderr := vacheck("simulate", "chang-roberts", "--n", "5", "--runs", "1000", "--metric", "messages")
	if code != exitIncomplete {
		t.Fatalf("exit %d, want 3\n%s%s", code, out, stderr)
	}
	for _, want := range []string{
		"simulation: 1,000 runs, seed 1, at most 10,000 steps each",
		"uniqueness        no violation  never two processes chosen",
		"1,000 runs: 1,000 at a valid end state, 0 in a deadlock, 0 at a violation, 0 at the step cap",
		"distinct states (estimate, ±2%)",
		// docs/algorithms/chang-roberts.md: min 9, max 15 at N=5 (the mean: below).
		"messages over 1,000 complete runs: mean ",
		"min 9, max 15",
		"p50 11,",
		"   9 │",
		"result: no violation in 1,000 runs (simulation: not a proof)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "OK") || strings.Contains(out, "  holds  ") {
		t.Errorf("a simulation reads as a proof:\n%s", out)
	}
	if !strings.Contains(stderr, "steps/s) with") {
		t.Errorf("no timing line on stderr: %q", stderr)
	}
	// The mean over arrangements is N·H_N = 137/12 at N=5 (Chang &
	// Roberts 1979): within 3%, about six standard errors of 1,000 runs.
	_, out, _ = vacheck("simulate", "chang-roberts", "--n", "5", "--runs", "1000", "--metric", "messages", "--format", "json", "--quiet")
	var v struct {
		Metrics map[string]struct{ Mean float64 }
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if mean := v.Metrics["messages"].Mean; mean < 137./12*0.97 || mean > 137./12*1.03 {
		t.Errorf("mean %.3f, want within 3%% of 137/12 = 11.417", mean)
	}
	// The liveness claims of a spec are listed as not checked.
	_, out, _ = vacheck("simulate", "lelann", "--n", "3", "--runs", "50", "--quiet")
	if !strings.Contains(out, "not checked") || !strings.Contains(out, "a simulation checks safety properties") {
		t.Errorf("lelann: the liveness claims are not listed as not checked:\n%s", out)
	}
}

// TestSimulateBrokenTwin: the broken twin's violation is found, shrunk to
// the shortest counterexample's 38 steps (vacheck check
// chang-roberts-broken --n 5), and told as check tells it.
func TestSimulateBrokenTwin(t *testing.T) {
	t.Parallel()
	html := filepath.Join(t.TempDir(), "sim.html")
	code, out, stderr := vacheck("simulate", "chang-roberts-broken", "--n", "5", "--runs", "200", "--html", html, "--quiet")
	if code != exitViolated {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, stderr)
	}
	for _, want := range []string{
		"uniqueness        violated in 200 of 200 runs",
		"VIOLATED uniqueness: never two processes chosen",
		"The shortest run to it: run #",
		" steps; shrunk to 38 in ",
		"Counterexample (simulation, shrunk, 38 steps) from the run's initial state:",
		"   0. initial state",
		"  38. receive(",
		".status: unknown → chosen\n",
		"result: VIOLATED",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "VIOLATED uniqueness") || !strings.Contains(string(page), `<svg`) {
		t.Errorf("the HTML page has no chart of the counterexample")
	}
	code, out, _ = vacheck("simulate", "chang-roberts-broken", "--n", "5", "--runs", "200", "--format", "json", "--quiet")
	var v struct {
		Status     string
		Violations []struct {
			Property string
			Run      int
			Trace    []struct{ Action string }
		}
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || code != exitViolated {
		t.Fatalf("exit %d, %v", code, err)
	}
	if v.Status != "violated" || len(v.Violations) != 1 || v.Violations[0].Run < 1 || len(v.Violations[0].Trace) != 38 {
		t.Errorf("JSON %+v", v)
	}
}

func TestSimulateHTMLHistogram(t *testing.T) {
	t.Parallel()
	html := filepath.Join(t.TempDir(), "h.html")
	code, _, stderr := vacheck("simulate", "chang-roberts", "--n", "4", "--runs", "300", "--metric", "messages", "--html", html)
	if code != exitIncomplete || !strings.Contains(stderr, "wrote 1 chart to") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	page, _ := os.ReadFile(html)
	for _, want := range []string{`class="plot"`, `class="bar"`, "messages over 300 complete runs", "no violation in 300 runs"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("no %q in the page", want)
		}
	}
}

func TestSimulateBadUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"simulate"}, "simulate takes one SPEC"},
		{[]string{"simulate", "chang-robert"}, "did you mean chang-roberts?"},
		{[]string{"simulate", "chang-roberts", "--runs", "0"}, "--runs 0: out of range; allowed: 1 to"},
		{[]string{"simulate", "chang-roberts", "--runs", "many"}, `--runs "many": not a decimal integer`},
		{[]string{"simulate", "chang-roberts", "--seed", "-1"}, "--seed -1: out of range"},
		{[]string{"simulate", "chang-roberts", "--max-steps", "0"}, "--max-steps 0"},
		{[]string{"simulate", "chang-roberts", "--workers", "0"}, "--workers 0"},
		{[]string{"simulate", "chang-roberts", "--format", "xml"}, `--format "xml"`},
		{[]string{"simulate", "chang-roberts", "--metric", "sync-delay"}, `--metric "sync-delay": not one figure per run`},
		{[]string{"simulate", "chang-roberts", "--metric", "mesages"}, `--metric "mesages": unknown metric; allowed: messages, messages:TYPE`},
		{[]string{"simulate", "chang-roberts", "--property", "quiescence"}, `--property "quiescence": a liveness property`},
		{[]string{"simulate", "chang-roberts", "--property", "unique"}, `--property "unique": unknown property; a simulation checks uniqueness, validity, lemma1, deadlock-freedom`},
		{[]string{"simulate", "central", "--metric", "messages:REQEST", "--runs", "20"}, "--metric messages:REQEST: no complete run of central sent a message of type REQEST"},
		{[]string{"simulate", "chang-roberts", "--n", "0"}, "--n 0"},
		{[]string{"simulate", "chang-roberts", "--timeout", "soon"}, "--timeout"},
		{[]string{"simulate", "chang-roberts", "--html", "/no/such/dir/x.html"}, "--html /no/such/dir/x.html: the directory /no/such/dir does not exist"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := vacheck(tt.args...)
			if code != exitUsage || stdout != "" {
				t.Errorf("exit %d, stdout %q; want 2 and nothing", code, stdout)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("error %q does not contain %q", stderr, tt.want)
			}
		})
	}
}

func TestSimulateTimeout(t *testing.T) {
	t.Parallel()
	// Ended by the time limit or not, no violation is incomplete: 3.
	code, out, _ := vacheck("simulate", "chang-roberts", "--n", "6", "--runs", "1000000", "--timeout", "50ms", "--quiet")
	if code != exitIncomplete || !strings.Contains(out, "result: INCOMPLETE, time limit (50ms) reached after") {
		t.Errorf("exit %d\n%s", code, out)
	}
}
