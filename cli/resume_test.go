package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vacheck/vacheck/explorer"
)

// jsonCounts is what a resumed run must reproduce of a check's JSON.
type jsonCounts struct {
	Status      string `json:"status"`
	States      int64  `json:"states"`
	Transitions int64  `json:"transitions"`
	Depth       int    `json:"depth"`
	Stats       struct {
		Terminal int64 `json:"terminal_states"`
	} `json:"stats"`
	Properties []struct {
		Name    string `json:"name"`
		Verdict string `json:"verdict"`
	} `json:"properties"`
	Violations json.RawMessage `json:"violations"`
}

func countsOf(t *testing.T, out string) jsonCounts {
	t.Helper()
	var c jsonCounts
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	return c
}

func sameCounts(t *testing.T, got, want jsonCounts) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if !bytes.Equal(g, w) {
		t.Errorf("resumed: %s\nwant:    %s", g, w)
	}
}

// TestResumeAfterSIGKILL starts vacheck in a process of its own on a run
// of a few seconds that saves a checkpoint every 200ms, kills it with
// SIGKILL once one is saved, resumes it with another worker count, and
// compares the final counts with those of the run never interrupted
// (pinned: 1,809,852 states, as `check chang-roberts --n 6 --ids all`
// reports). The process is this test binary as vacheck (TestMain), which
// runs cli.Run as cmd/vacheck's main does, without a build of its own.
func TestResumeAfterSIGKILL(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs vacheck for a few seconds")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	vacheck := func(args ...string) *exec.Cmd {
		cmd := exec.Command(self, append([]string{"-test.run=^$", "--"}, args...)...)
		cmd.Env = append(os.Environ(), asCLI+"=1")
		return cmd
	}
	dir := filepath.Join(t.TempDir(), "ck")
	cmd := vacheck("check", "chang-roberts", "--n", "6", "--ids", "all", "--workers", "2",
		"--checkpoint", dir, "--checkpoint-every", "200ms", "--format", "json", "--quiet")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, checkpointFile)
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(file); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no checkpoint after 20s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // between two checkpoints, or in the middle of one
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatal("the run ended before it was killed; the test needs a longer one")
	}
	var out, errb bytes.Buffer
	resume := vacheck("resume", dir, "--workers", "2")
	resume.Stdout, resume.Stderr = &out, &errb
	if err := resume.Run(); err != nil {
		t.Fatalf("resume: %v\n%s", err, errb.String())
	}
	got := countsOf(t, out.String())
	if got.Status != "ok" || got.States != 1809852 || got.Transitions != 7045788 || got.Depth != 42 || got.Stats.Terminal != 720 {
		t.Errorf("resumed: %+v; want ok, 1809852 states, 7045788 transitions, depth 42, 720 terminal", got)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the checkpoint of a finished run is still there: %v", err)
	}
}

// incompleteCheckpoint runs spec --n 5 --ids all (or the --n in extra) in-process with a
// checkpoint at every level and --max-states 20000, which leaves the last
// level boundary before the limit as the checkpoint in dir.
func incompleteCheckpoint(t *testing.T, spec string, extra ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ck")
	args := append([]string{"check", spec, "--n", "5", "--ids", "all", "--format", "json", "--quiet",
		"--max-states", "20000", "--checkpoint", dir, "--checkpoint-every", "1ns"}, extra...)
	code, _, stderr := vacheck(args...)
	if code != exitIncomplete || !strings.Contains(stderr, "vacheck resume "+dir) {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	return dir
}

// copyCheckpoint copies the checkpoint directory dir (its files) into a
// new one and returns it: one stopped check serves every case of a test
// that breaks or uses up its checkpoint, each on a copy of its own.
func copyCheckpoint(t *testing.T, dir string) string {
	t.Helper()
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "ck")
	if err := os.Mkdir(cp, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cp, f.Name()), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return cp
}

// TestResumeInProcess resumes an incomplete BFS and DFS, of a spec without
// and with a violation, with their limit lifted (an override of the saved
// command line) and another worker count, and gets the counts, verdicts and
// counterexample of a run never stopped.
func TestResumeInProcess(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec  string
		flags []string
		limit string // --max-states for the run that stops
	}{
		{"chang-roberts", nil, "20000"},
		{"chang-roberts", []string{"--strategy", "dfs"}, "20000"},
		{"chang-roberts-broken", []string{"--n", "4"}, "5000"},
		{"chang-roberts-broken", []string{"--n", "4", "--strategy", "dfs"}, "30"},
	} {
		dir := incompleteCheckpoint(t, tc.spec, append(tc.flags, "--max-states", tc.limit)...)
		base := append([]string{"check", tc.spec, "--n", "5", "--ids", "all", "--format", "json", "--quiet"}, tc.flags...)
		code, out, stderr := vacheck(base...)
		want := countsOf(t, out)
		gotCode, gotOut, gotErr := vacheck("resume", dir, "--max-states", "0", "--workers", "3")
		if gotCode != code {
			t.Fatalf("%s %v: resume exit %d (%s); want %d (%s)", tc.spec, tc.flags, gotCode, gotErr, code, stderr)
		}
		sameCounts(t, countsOf(t, gotOut), want)
		if _, err := os.Stat(filepath.Join(dir, checkpointFile)); !os.IsNotExist(err) {
			t.Errorf("%s %v: the finished run's checkpoint is kept", tc.spec, tc.flags)
		}
	}
}

// rewriteHeader changes the build or the saved command line of a
// checkpoint file and recomputes its checksum, as another build of vacheck
// (or a file written by hand) would have it.
func rewriteHeader(t *testing.T, file string, edit func(build string, meta []string) (string, []string)) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const magic = len("vacheck checkpoint\n") + 4
	at := magic
	field := func() []byte {
		n := int(binary.LittleEndian.Uint64(data[at:]))
		f := data[at+8 : at+8+n]
		at += 8 + n
		return f
	}
	build, model, meta := string(field()), field(), field()
	rest := data[at : len(data)-sha256.Size]
	var args []string
	if err := json.Unmarshal(meta, &args); err != nil {
		t.Fatal(err)
	}
	build, args = edit(build, args)
	newMeta, _ := json.Marshal(args)
	out := append([]byte(nil), data[:magic]...)
	for _, f := range [][]byte{[]byte(build), model, newMeta} {
		out = binary.LittleEndian.AppendUint64(out, uint64(len(f)))
		out = append(out, f...)
	}
	out = append(out, rest...)
	sum := sha256.Sum256(out)
	if err := os.WriteFile(file, append(out, sum[:]...), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestResumeRefused: a checkpoint of another build, of another model (the
// saved command line changed to --n 4), with a byte flipped, or no
// checkpoint at all is refused with exit code 2 and says why; so are a
// check into a directory that holds a checkpoint, bad --checkpoint-every
// values, and resume flags that would change the results.
func TestResumeRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		breakIt func(t *testing.T, file string)
		args    []string // after resume DIR
		want    string
	}{
		{"good", nil, []string{"--max-states", "0"}, ""},
		{"another build", func(t *testing.T, file string) {
			rewriteHeader(t, file, func(_ string, meta []string) (string, []string) { return "go0 rev 0000 (modified)", meta })
		}, nil, "another build of vacheck (go0 rev 0000 (modified); this is"},
		{"another model", func(t *testing.T, file string) {
			rewriteHeader(t, file, func(b string, meta []string) (string, []string) {
				for k := range meta {
					if meta[k] == "5" {
						meta[k] = "4"
					}
				}
				return b, meta
			})
		}, nil, `it is of another model (chang-roberts {"capacity":5,"channels":"fifo","ids":"all","n":5,"objective":"max"}; this is chang-roberts {"capacity":4,`},
		{"flipped byte", func(t *testing.T, file string) {
			data, _ := os.ReadFile(file)
			data[len(data)/3] ^= 1
			os.WriteFile(file, data, 0o600)
		}, nil, "corrupted: its SHA-256 checksum does not match"},
		{"no checkpoint", func(t *testing.T, file string) { os.Remove(file) }, nil, "no such file"},
		{"strategy on resume", nil, []string{"--strategy", "dfs"}, "unknown flag --strategy"},
		{"bad every", nil, []string{"--checkpoint-every", "0s"}, `--checkpoint-every "0s": allowed: a positive duration`},
	}
	saved := incompleteCheckpoint(t, "chang-roberts")
	for _, tc := range tests {
		dir := copyCheckpoint(t, saved)
		file := filepath.Join(dir, checkpointFile)
		if tc.breakIt != nil {
			tc.breakIt(t, file)
		}
		code, _, stderr := vacheck(append([]string{"resume", dir}, tc.args...)...)
		switch {
		case tc.want == "" && code != exitOK:
			t.Errorf("%s: exit %d: %s", tc.name, code, stderr)
		case tc.want != "" && (code != exitUsage || !strings.Contains(stderr, tc.want)):
			t.Errorf("%s: exit %d: %s\nwant exit 2 and %q", tc.name, code, stderr, tc.want)
		}
	}
	dir := copyCheckpoint(t, saved)
	for _, args := range [][]string{
		{"check", "chang-roberts", "--n", "4", "--checkpoint", dir},
		{"check", "chang-roberts", "--n", "4", "--checkpoint-every", "1m"},
		{"check", "chang-roberts", "--n", "4", "--checkpoint", t.TempDir(), "--checkpoint-every", "soon"},
	} {
		if code, _, stderr := vacheck(args...); code != exitUsage || !strings.Contains(stderr, "--checkpoint") {
			t.Errorf("%v: exit %d: %s; want exit 2 naming the flag", args, code, stderr)
		}
	}
}

// TestCheckpointDirectoryTidy: a check refused before it runs takes back
// the checkpoint directory it created; a finished run, resumed or not,
// removes its checkpoint and the directory vacheck created with it; a
// directory the user made stays, empty or not.
func TestCheckpointDirectoryTidy(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "ck")
	code, _, _ := vacheck("check", "chang-roberts", "--n", "3", "--property", "foo", "--checkpoint", dir, "--quiet")
	if _, err := os.Stat(dir); code != exitUsage || !os.IsNotExist(err) {
		t.Errorf("a refused check: exit %d, directory %v; want exit 2 and no directory", code, err)
	}
	code, _, _ = vacheck("check", "chang-roberts", "--n", "3", "--checkpoint", dir, "--checkpoint-every", "1ms", "--quiet")
	if _, err := os.Stat(dir); code != exitOK || !os.IsNotExist(err) {
		t.Errorf("a finished check: exit %d, directory %v; want exit 0 and no directory", code, err)
	}
	resumed := incompleteCheckpoint(t, "chang-roberts")
	if code, _, errb := vacheck("resume", resumed, "--max-states", "0", "--quiet"); code != exitOK {
		t.Fatalf("resume: exit %d: %s", code, errb)
	}
	if _, err := os.Stat(resumed); !os.IsNotExist(err) {
		t.Errorf("a finished resume left the directory the check created: %v", err)
	}
	empty, keep := filepath.Join(base, "empty"), filepath.Join(base, "keep")
	for _, d := range []string{empty, keep} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(keep, "notes"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{empty, keep} {
		code, _, _ = vacheck("check", "chang-roberts", "--n", "3", "--checkpoint", d, "--checkpoint-every", "1ms", "--quiet")
		entries, err := os.ReadDir(d)
		want := 0
		if d == keep {
			want = 1
		}
		if code != exitOK || err != nil || len(entries) != want {
			t.Errorf("%s, made by the user: exit %d, %v left (%v); want exit 0 and the directory with %d entries", d, code, entries, err, want)
		}
	}
}

// TestFinishCheckpointKeepsAStoppedViolatedRun: a run ended with a verdict
// removes its checkpoint, but one stopped after a violation (with
// --continue, or in the liveness phase) keeps it, like an incomplete run:
// its other properties are yet to be decided, and resuming decides them.
func TestFinishCheckpointKeepsAStoppedViolatedRun(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		res  explorer.Result
		kept bool
	}{
		{explorer.Result{Status: explorer.Violated, Reason: "interrupted by SIGINT"}, true},
		{explorer.Result{Status: explorer.Violated, Reason: "interrupted by SIGINT while checking liveness on the state graph"}, true},
		{explorer.Result{Status: explorer.Violated}, false},
		{explorer.Result{Status: explorer.Incomplete, Reason: "interrupted by SIGINT"}, true},
		{explorer.Result{Status: explorer.OK}, false},
		{explorer.Result{Status: explorer.Failed, Reason: "the model panicked"}, false},
	} {
		dir := t.TempDir()
		file := filepath.Join(dir, checkpointFile)
		if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		finishCheckpoint(&explorer.Checkpoint{File: file}, &tt.res, &stderr)
		_, err := os.Stat(file)
		if kept := err == nil; kept != tt.kept {
			t.Errorf("%v (%q): kept %v, want %v; %s", tt.res.Status, tt.res.Reason, kept, tt.kept, stderr.String())
		}
	}
}
