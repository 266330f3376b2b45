package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/tracefile"
)

// story returns the steps of the first counterexample of out: from its
// initial state to what its last state means.
func story(t *testing.T, out string) string {
	t.Helper()
	i := strings.Index(out, "   0. initial state")
	j := strings.Index(out, "  What the last state means:")
	if i < 0 || j < i {
		t.Fatalf("no story in:\n%s", out)
	}
	return out[i:j]
}

// saveTrace runs check with args and --save-trace, and returns the
// check's output and the file.
func saveTrace(t *testing.T, args ...string) (string, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "trace.json")
	code, out, stderr := vacheck(append(append([]string{"check"}, args...), "--save-trace", file, "--workers", "1")...)
	if code != exitViolated {
		t.Fatalf("check %v: exit %d: %s", args, code, stderr)
	}
	if !strings.Contains(stderr, "saved 1 trace to "+file) {
		t.Errorf("stderr does not say the trace was saved: %q", stderr)
	}
	return out, file
}

// TestSaveTraceReplays: the counterexample check saves (from every
// arrangement and initiator set) replays to the same story, ends with the
// same re-run command, and still violates its property (exit 1). A
// replayer that skipped or reordered a step would tell another story.
func TestSaveTraceReplays(t *testing.T) {
	t.Parallel()
	out, file := saveTrace(t, "lelann-broken", "--n", "3", "--initiators", "subsets", "--quiet")
	code, replayed, stderr := vacheck("replay", file)
	if code != exitViolated {
		t.Fatalf("replay: exit %d, want %d: %s\n%s", code, exitViolated, stderr, replayed)
	}
	if story(t, replayed) != story(t, out) {
		t.Errorf("the replay tells another story:\n%s\nwant:\n%s", story(t, replayed), story(t, out))
	}
	if a, b := strings.Join(rerunLine(t, replayed), " "), strings.Join(rerunLine(t, out), " "); a != b {
		t.Errorf("the replay's re-run command %q, the check's %q", a, b)
	}
	if !strings.Contains(replayed, "replayed: the last state violates validity, as saved") {
		t.Errorf("the replay does not check the violation again:\n%s", replayed)
	}
	code, chart, _ := vacheck("replay", file, "--show", "msc")
	if code != exitViolated || !strings.Contains(chart, "Message sequence chart") {
		t.Errorf("replay --show msc: exit %d:\n%s", code, chart)
	}
	page := filepath.Join(t.TempDir(), "replay.html")
	if code, _, stderr := vacheck("replay", file, "--html", page); code != exitViolated || !strings.Contains(stderr, "wrote 1 chart") {
		t.Errorf("replay --html: exit %d: %s", code, stderr)
	}
}

// editTrace rewrites the trace file with edit.
func editTrace(t *testing.T, file string, edit func(*tracefile.File)) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := tracefile.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	edit(doc)
	out := filepath.Join(t.TempDir(), "edited.json")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := tracefile.Write(f, doc); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReplayRefuses: a file with a step left out (the mutant of a replay
// that skips a step), another spec or other parameters is refused with
// exit 2, naming the step and its index, or the mismatch.
func TestReplayRefuses(t *testing.T) {
	t.Parallel()
	_, file := saveTrace(t, "chang-roberts-broken", "--n", "3", "--quiet")
	tests := []struct {
		name string
		edit func(*tracefile.File)
		want string
	}{
		{"a step skipped", func(f *tracefile.File) {
			v := &f.Violations[0]
			// Step 3 left out: the run goes on without it until step 6,
			// which needs what step 3 did.
			v.Steps = append(v.Steps[:2], v.Steps[3:]...)
		}, "trace 1 (VIOLATED uniqueness): step 6, send(2)_{3,1}, is not enabled; the transitions enabled there are send(3)_{3,1}, receive(1)_{2,3}"},
		{"a step renamed", func(f *tracefile.File) { f.Violations[0].Steps[0].Action = "fly_{1}" }, "step 1, fly_{1}, is not enabled; the transitions enabled there are send(1)_{1,2}, send(2)_{2,3}, send(3)_{3,1}"},
		{"another spec", func(f *tracefile.File) { f.Spec = "no-such-spec" }, "the trace is of no-such-spec, which this vacheck does not know"},
		{"other parameters", func(f *tracefile.File) { f.Params["objective"] = "min" }, "but this vacheck reads those parameters as"},
		{"a parameter the spec lacks", func(f *tracefile.File) { f.Given["initiators"] = "1" }, "the parameters do not fit chang-roberts-broken here"},
		{"an initial state of another model", func(f *tracefile.File) { f.Violations[0].Initial["p1.u"] = json.Number("7") }, "the saved initial state is not an initial state of the model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := vacheck("replay", editTrace(t, file, tt.edit))
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q\n%s", code, stderr, exitUsage, tt.want, out)
			}
		})
	}
	if code, _, stderr := vacheck("replay"); code != exitUsage || !strings.Contains(stderr, "replay takes one FILE") {
		t.Errorf("replay without a file: exit %d: %s", code, stderr)
	}
	if code, _, stderr := vacheck("replay", filepath.Join(t.TempDir(), "missing.json")); code != exitUsage || !strings.Contains(stderr, "missing.json") {
		t.Errorf("replay of a missing file: exit %d: %s", code, stderr)
	}
}

// TestSaveTraceOfSimulateAndExplore: a simulation's saved counterexample
// (of an arrangement drawn at random, named by its IDs) replays, and
// explore --trace loads a saved file as it loads check's JSON.
func TestSaveTraceOfSimulateAndExplore(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "sim.json")
	page := filepath.Join(t.TempDir(), "sim.html")
	code, out, stderr := vacheck("simulate", "chang-roberts-broken", "--n", "4", "--runs", "20", "--seed", "3", "--save-trace", file, "--html", page, "--quiet")
	if code != exitViolated {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	if html, err := os.ReadFile(page); err != nil || !strings.Contains(string(html), "Re-run this scenario: vacheck check chang-roberts-broken --n 4 --ids ") {
		t.Errorf("the simulation's page has no re-run command: %v", err)
	}
	code, replayed, stderr := vacheck("replay", file)
	if code != exitViolated {
		t.Fatalf("replay: exit %d: %s\n%s", code, stderr, replayed)
	}
	if story(t, replayed) != story(t, out) {
		t.Errorf("the replay tells another story:\n%s\nwant:\n%s", story(t, replayed), story(t, out))
	}
	_, saved := saveTrace(t, "chang-roberts-broken", "--n", "3", "--quiet")
	url, _ := startExplore(t, "chang-roberts", "--n", "3", "--trace", saved)
	var ref struct {
		Spec     string
		Path     []int
		Property string
	}
	if code := getJSON(t, url+"api/trace", &ref); code != 200 || ref.Spec != "chang-roberts-broken" || ref.Property != "uniqueness" || len(ref.Path) == 0 {
		t.Errorf("explore --trace of a saved file: %d %+v", code, ref)
	}
}
