package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/vacheck/vacheck/specs"
)

// run runs the command line on the catalog, as cmd/vacheck does, but
// without progress lines (noProgress).
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(noProgress(context.Background()), args, stdout, stderr, specs.Catalog())
}

// vacheck runs the command line and returns the exit code, stdout and
// stderr, without progress lines.
func vacheck(args ...string) (int, string, string) {
	return vacheckContext(noProgress(context.Background()), args...)
}

// vacheckContext runs the command line under ctx (fastProgress,
// noProgress, a cancel) and returns the exit code, stdout and stderr.
func vacheckContext(ctx context.Context, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := runContext(ctx, append([]string{"vacheck"}, args...), &out, &errb, specs.Catalog())
	return code, out.String(), errb.String()
}

func TestBadInputExitsWithCode2(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string // in the error message
	}{
		{[]string{"check", "no-such-spec"}, []string{`unknown spec "no-such-spec"`, "chang-roberts"}},
		{[]string{"check"}, []string{"one SPEC"}},
		{[]string{"check", "chang-roberts", "--n", "0"}, []string{"--n 0", "allowed: 1 to"}},
		{[]string{"check", "chang-roberts", "--n", "x"}, []string{"--n", "not an integer"}},
		{[]string{"check", "chang-roberts", "--n", "12", "--ids", "all"}, []string{"--n 12", "too large for --ids all"}},
		{[]string{"check", "chang-roberts", "--n", "3", "--ids", "1,1,2"}, []string{"--ids 1,1,2", "appears twice"}},
		{[]string{"check", "chang-roberts", "--n", "3", "--ids", "1,2"}, []string{"--ids 1,2", "2 IDs given for --n 3"}},
		{[]string{"check", "chang-roberts", "--n", "4", "--ids", "rand"}, []string{"--ids rand", `"rand" is not a positive integer`, "increasing, decreasing, all"}},
		{[]string{"check", "chang-roberts", "--n", "4", "--ids", ""}, []string{`--ids ""`, "empty", "increasing, decreasing, all"}},
		{[]string{"check", "chang-roberts", "--ids", "0,1,2", "--n", "3"}, []string{"--ids", "not a positive integer"}},
		{[]string{"check", "chang-roberts", "--strategy", "random"}, []string{"--strategy", "bfs and dfs"}},
		{[]string{"sweep", "chang-roberts", "--n", "3", "--html", "x.html"}, []string{"--html: only with --simulate"}},
		{[]string{"check", "chang-roberts", "--format", "xml"}, []string{"--format", "text and json"}},
		{[]string{"check", "chang-roberts", "--workers", "0"}, []string{"--workers 0"}},
		{[]string{"check", "chang-roberts", "--timeout", "soon"}, []string{"--timeout"}},
		{[]string{"check", "chang-roberts", "--max-memory", "lots"}, []string{"--max-memory"}},
		{[]string{"check", "chang-roberts", "--channels", "lossy"}, []string{"--channels lossy", "fifo, unordered and mailbox"}},
		{[]string{"check", "chang-roberts", "--property", "liveliness"}, []string{`--property "liveliness": unknown property`, "lemma1"}},
		{[]string{"check", "chang-roberts", "--no-such-flag", "1"}, []string{"no-such-flag"}},
		{[]string{"check", "lamport", "--reduction", "symmetry"}, []string{`--reduction "symmetry"`, "none and por"}},
		{[]string{"check", "chang-roberts", "--reduction", "por"}, []string{"--reduction por", "does not allow partial-order reduction"}},
		{[]string{"check", "lamport", "--n", "2", "--reduction", "por", "--metric", "messages"}, []string{"--reduction por", "--metric messages"}},
		{[]string{"check", "lamport", "--n", "2", "--reduction", "por", "--property", "starvation-freedom"}, []string{"--reduction por", "starvation-freedom"}},
		{[]string{"check", "lamport", "--clocks", "logical"}, []string{"--clocks logical", "absolute, relative and minimal"}},
		{[]string{"check", "lamport", "--clocks", "relative", "--clock-limit", "5"}, []string{"--clocks relative", "--clock-limit"}},
		{[]string{"check", "lamport", "--metric", "latency"}, []string{`--metric "latency"`, "time", "messages-per-entry", "sync-delay"}},
		{[]string{"check", "chang-roberts", "--metric", "messages-per-entry"}, []string{`--metric "messages-per-entry"`, "does not track it", "time"}},
		{[]string{"check", "chang-roberts", "--metric", "sync-delay"}, []string{`--metric "sync-delay"`, "does not track it"}},
		{[]string{"check", "lamport", "--clocks", "minimal", "--metric", "time"}, []string{"--metric time", "normalization"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := vacheck(tt.args...)
			if code != exitUsage {
				t.Errorf("exit code %d, want %d\nstderr: %s", code, exitUsage, stderr)
			}
			if stdout != "" {
				t.Errorf("printed a result for bad input: %s", stdout)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("error %q does not mention %q", stderr, w)
				}
			}
			// The engine's refusals are worded in flags, without its
			// package's prefix or the names of Config's fields.
			if strings.Contains(stderr, "explorer:") || strings.Contains(stderr, "Config.") {
				t.Errorf("error %q speaks of the engine, not of the command line", stderr)
			}
		})
	}
}

// TestBadFilesExitWithCode2: quorum and topology files name the line that
// is wrong.
func TestBadFilesExitWithCode2(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"check", "maekawa", "--n", "5", "--quorums", "fpp"}, []string{"--quorums fpp", "no finite projective plane has N=5"}},
		{[]string{"check", "maekawa", "--n", "3", "--quorums", write("q.txt", "1,2\n2,3\n3,9\n")}, []string{"--quorums", "line 3", "outside 1..3"}},
		{[]string{"check", "maekawa", "--n", "3", "--quorums", write("d.txt", "1\n2\n3\n")}, []string{"--quorums"}},
		{[]string{"check", "echo-election", "--n", "3", "--topology", write("t.txt", "1 2\n2 3\n3 3\n")}, []string{"--topology", "t.txt:3", "self-loop"}},
		{[]string{"check", "echo-election", "--n", "4", "--topology", write("c.txt", "1 2\n3 4\n")}, []string{"--topology", "not connected"}},
		{[]string{"check", "echo-election", "--n", "4", "--topology", "random:x:5"}, []string{"--topology random:x:5", "SEED"}},
		{[]string{"check", "bully", "--n", "4", "--crashes", "5"}, []string{"--crashes 5", "allowed: 0 to 3"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[:2], " "), func(t *testing.T) {
			code, stdout, stderr := vacheck(tt.args...)
			if code != exitUsage || stdout != "" {
				t.Errorf("exit code %d, stdout %q; want %d and nothing", code, stdout, exitUsage)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("error %q does not mention %q", stderr, w)
				}
			}
		})
	}
}

func TestCheckExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"check", "chang-roberts", "--n", "4"}, exitOK, "result: OK"},
		{[]string{"check", "chang-roberts-broken", "--n", "3", "--ids", "increasing"}, exitViolated, "VIOLATED uniqueness"},
		{[]string{"check", "chang-roberts", "--n", "5", "--max-states", "1000"}, exitIncomplete, "INCOMPLETE, state limit reached (--max-states 1000)"},
		{[]string{"check", "chang-roberts", "--n", "4", "--max-depth", "3"}, exitIncomplete, "depth limit reached (--max-depth 3)"},
		{[]string{"check", "chang-roberts", "--n", "4", "--capacity", "1"}, exitViolated, "VIOLATED channel-bound"},
		{[]string{"check", "--n", "3", "chang-roberts", "--strategy", "dfs"}, exitOK, "dfs with 1 worker"},
		{[]string{"check", "lamport", "--n", "2", "--requests", "2", "--reduction", "por", "--clocks", "relative"}, exitOK, "693 distinct states"},
		{[]string{"check", "lamport-broken", "--n", "3", "--reduction", "por"}, exitViolated, "VIOLATED mutual-exclusion"},
		// por searches depth first unless --strategy says otherwise.
		{[]string{"check", "echo-election", "--n", "4", "--topology", "complete", "--initiators", "subsets", "--reduction", "por"}, exitOK, "21,932 distinct states"},
		{[]string{"check", "echo-election", "--n", "4", "--topology", "complete", "--initiators", "subsets", "--reduction", "por"}, exitOK, "dfs with 1 worker"},
		{[]string{"check", "echo-election", "--n", "4", "--topology", "complete", "--initiators", "subsets", "--reduction", "por", "--strategy", "bfs"}, exitOK, "53,056 distinct states"},
		{[]string{"check", "echo-election", "--n", "4", "--topology", "complete", "--max-states", "1000"}, exitIncomplete, "hint: this spec allows partial-order reduction"},
		{[]string{"check", "lamport", "--n", "3", "--max-states", "1000"}, exitIncomplete, "hint: --clocks minimal stores only the timestamps"},
		{[]string{"check", "lamport", "--n", "3", "--requests", "2", "--clock-limit", "6"}, exitBounded,
			"result: BOUNDED, not a proof: no violation among the 16,696 states within the model's constraint"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := vacheck(tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d\nstderr: %s\nstdout: %s", code, tt.code, stderr, stdout)
			}
			if !strings.Contains(stdout, tt.want) {
				t.Errorf("output does not contain %q:\n%s", tt.want, stdout)
			}
		})
	}
}

// TestJSONContract checks the keys scripts rely on.
func TestJSONContract(t *testing.T) {
	t.Parallel()
	code, stdout, _ := vacheck("check", "chang-roberts-broken", "--n", "3", "--ids", "increasing", "--format", "json", "--workers", "2")
	if code != exitViolated {
		t.Fatalf("exit code %d", code)
	}
	var got struct {
		Spec        string         `json:"spec"`
		Params      map[string]any `json:"params"`
		Status      string         `json:"status"`
		States      int64          `json:"states"`
		Transitions int64          `json:"transitions"`
		Depth       *int           `json:"depth"`
		Elapsed     *float64       `json:"elapsed_seconds"`
		Properties  []struct {
			Name, Kind, Status string
		} `json:"properties"`
		Violations []struct {
			Property string         `json:"property"`
			Initial  map[string]any `json:"initial"`
			Trace    []struct {
				Action string         `json:"action"`
				State  map[string]any `json:"state"`
			} `json:"trace"`
		} `json:"violations"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, stdout)
	}
	if got.Spec != "chang-roberts-broken" || got.Status != "violated" || got.States == 0 || got.Transitions == 0 || got.Depth == nil || got.Elapsed == nil {
		t.Errorf("top-level keys: %+v", got)
	}
	if got.Params["n"] != float64(3) || got.Params["ids"] != "increasing" {
		t.Errorf("params %v", got.Params)
	}
	statuses := map[string]string{}
	for _, p := range got.Properties {
		statuses[p.Name] = p.Status
	}
	if statuses["uniqueness"] != "violated" || statuses["deadlock-freedom"] != "unknown" {
		t.Errorf("properties %v", statuses)
	}
	if len(got.Violations) != 1 || got.Violations[0].Property != "uniqueness" {
		t.Fatalf("violations %+v", got.Violations)
	}
	v := got.Violations[0]
	if v.Initial["p1.send"] == nil || len(v.Trace) != 16 || v.Trace[0].Action != "send(1)_{1,2}" {
		t.Errorf("violation: initial %v, %d steps, first %q", v.Initial, len(v.Trace), v.Trace[0].Action)
	}
	if last := v.Trace[len(v.Trace)-1].State; last["p1.status"] != "chosen" || last["p3.status"] != "chosen" {
		t.Errorf("last state %v: want p1 and p3 chosen", last)
	}
}

// TestDeterministicOutput runs the same command twice and with another
// worker count: the counts and the trace are the same.
func TestDeterministicOutput(t *testing.T) {
	t.Parallel()
	strip := func(s string) string {
		var keep []string
		for _, line := range strings.Split(s, "\n") {
			if !strings.Contains(line, "states/s") {
				keep = append(keep, line)
			}
		}
		return strings.Join(keep, "\n")
	}
	_, a, _ := vacheck("check", "chang-roberts-broken", "--n", "4", "--workers", "1")
	_, b, _ := vacheck("check", "chang-roberts-broken", "--n", "4", "--workers", "1")
	_, c, _ := vacheck("check", "chang-roberts-broken", "--n", "4", "--workers", "3")
	if strip(a) != strip(b) {
		t.Errorf("two runs differ:\n%s\n---\n%s", a, b)
	}
	if strings.ReplaceAll(strip(a), "1 worker", "3 workers") != strip(c) {
		t.Errorf("1 and 3 workers differ:\n%s\n---\n%s", a, c)
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	code, stdout, _ := vacheck("list")
	if code != exitOK || !strings.Contains(stdout, "chang-roberts-broken") || !strings.Contains(stdout, "--ids (default all)") {
		t.Errorf("list: %d\n%s", code, stdout)
	}
	if !strings.Contains(stdout, "provisional: only the method's name is sourced") {
		t.Errorf("list does not show why waiting is provisional:\n%s", stdout)
	}
}

// TestMetricsJSON: the mutual-exclusion metrics in the JSON contract, with
// which entry their witnesses measure and what the states tracked; lamport
// N=2: 3(N−1) = 3 messages per entry, sync delay 1, time 4 to 6.
func TestMetricsJSON(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := vacheck("check", "lamport", "--n", "2", "--metric", "messages-per-entry", "--metric", "sync-delay", "--metric", "time", "--format", "json", "--workers", "2")
	if code != exitOK {
		t.Fatalf("exit code %d: %s", code, stderr)
	}
	var out struct {
		Metrics map[string]struct {
			Min, Max *int64
			MinOf    string `json:"min_of"`
			AllRuns  bool   `json:"all_executions"`
		}
		Tracked string
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][2]int64{"messages-per-entry": {3, 3}, "sync-delay": {1, 1}, "time": {4, 6}} {
		m := out.Metrics[name]
		if m.Min == nil || m.Max == nil || *m.Min != want[0] || *m.Max != want[1] || m.AllRuns != (name == "sync-delay") {
			t.Errorf("%s: %+v, want min %d, max %d", name, m, want[0], want[1])
		}
	}
	if out.Metrics["messages-per-entry"].MinOf != "critical section 1 of process 1" || !strings.Contains(out.Tracked, "causal depth") {
		t.Errorf("min_of %q, tracked %q", out.Metrics["messages-per-entry"].MinOf, out.Tracked)
	}
}

// TestRunsAtOnce: runs of the command line at once in one process share
// no state. urfave's help flag and help command are package variables it
// writes to on every run; when vacheck let urfave add them, the race
// detector (go test -race -short ./cli, which CI runs) caught these runs
// racing on them. Without -race, each run still prints what it prints
// alone.
func TestRunsAtOnce(t *testing.T) {
	t.Parallel()
	cmds := [][]string{
		{"--help"},
		{"check", "--help"},
		{"check", "chang-roberts", "--help"},
		{"list", "-h"},
		{"check", "chang-roberts", "--nn", "3"},
		{"sweep", "chang-roberts", "--n", "3..4", "--help"},
		{"check", "chang-roberts", "--n", "3", "--ids", "all", "--format", "json", "--quiet"},
	}
	type result struct {
		code           int
		stdout, stderr string
	}
	alone := make([]result, len(cmds))
	for k, args := range cmds {
		code, stdout, stderr := vacheck(args...)
		alone[k] = result{code, stdout, stderr}
	}
	const rounds = 4
	got := make([]result, rounds*len(cmds))
	var wg sync.WaitGroup
	for k := range got {
		wg.Go(func() {
			code, stdout, stderr := vacheck(cmds[k%len(cmds)]...)
			got[k] = result{code, stdout, stderr}
		})
	}
	wg.Wait()
	for k, r := range got {
		want := alone[k%len(cmds)]
		same := r.stdout == want.stdout
		if strings.HasPrefix(want.stdout, "{") { // the JSON report has the elapsed time
			g, _ := json.Marshal(countsOf(t, r.stdout))
			w, _ := json.Marshal(countsOf(t, want.stdout))
			same = bytes.Equal(g, w)
		}
		if r.code != want.code || r.stderr != want.stderr || !same {
			t.Errorf("%v at once with others: exit %d\n%s%s\nalone: exit %d\n%s%s", cmds[k%len(cmds)], r.code, r.stdout, r.stderr, want.code, want.stdout, want.stderr)
		}
	}
}
