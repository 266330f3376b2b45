package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vacheck/vacheck/explorer"
)

// brokenCheckpoint leaves in a new directory the checkpoint of a check of
// chang-roberts-broken --n 4 stopped (--max-states 100) before it found
// its violation, run with the extra flags.
func brokenCheckpoint(t *testing.T, extra ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ck")
	args := append([]string{"check", "chang-roberts-broken", "--n", "4", "--quiet", "--max-states", "100",
		"--checkpoint", dir, "--checkpoint-every", "1ns"}, extra...)
	if code, _, stderr := vacheck(args...); code != exitIncomplete {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	return dir
}

// TestResumeTakesOutputsFromItsOwnCommandLine: a checkpoint keeps the
// check's command line without its outputs (--html, --checkpoint), and
// resume writes only what its own command line names. A checkpoint whose
// command line names an output, which only a file written by hand can
// hold, is refused with exit 2 and nothing written. Before, resume replayed
// the saved command line as it was: a crafted checkpoint could make it
// overwrite any file with --html.
func TestResumeTakesOutputsFromItsOwnCommandLine(t *testing.T) {
	t.Parallel()
	html := filepath.Join(t.TempDir(), "chart.html")
	dir := brokenCheckpoint(t, "--html", html)
	info, err := explorer.ReadCheckpoint(filepath.Join(dir, checkpointFile))
	if err != nil {
		t.Fatal(err)
	}
	var saved []string
	if err := json.Unmarshal(info.Meta, &saved); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(saved, "--html") || slices.Contains(saved, "--checkpoint") || slices.Contains(saved, html) {
		t.Errorf("the checkpoint keeps an output: %q", saved)
	}
	if code, _, stderr := vacheck("resume", dir, "--max-states", "0", "--quiet"); code != exitViolated {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(html); !os.IsNotExist(err) {
		t.Errorf("resume wrote the --html of the check it resumed: %v", err)
	}

	// The same for --save-trace: not kept, not written by resume, and
	// written where resume's own --save-trace says.
	trace := filepath.Join(t.TempDir(), "trace.json")
	dir = brokenCheckpoint(t, "--save-trace", trace)
	os.Remove(trace) // the stopped check writes it too, with what it found
	if code, _, stderr := vacheck("resume", dir, "--max-states", "0", "--quiet"); code != exitViolated {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(trace); !os.IsNotExist(err) {
		t.Errorf("resume wrote the --save-trace of the check it resumed: %v", err)
	}
	dir = brokenCheckpoint(t)
	if code, _, stderr := vacheck("resume", dir, "--max-states", "0", "--quiet", "--save-trace", trace); code != exitViolated {
		t.Fatalf("resume --save-trace: exit %d: %s", code, stderr)
	}
	if data, err := os.ReadFile(trace); err != nil || !strings.Contains(string(data), "chang-roberts-broken") {
		t.Errorf("resume --save-trace %s: %v: %.200s", trace, err, data)
	}

	// resume --html FILE writes FILE.
	dir = brokenCheckpoint(t)
	if code, _, stderr := vacheck("resume", dir, "--max-states", "0", "--quiet", "--html", html); code != exitViolated {
		t.Fatalf("resume --html: exit %d: %s", code, stderr)
	}
	if data, err := os.ReadFile(html); err != nil || !strings.Contains(string(data), "<html") {
		t.Errorf("resume --html %s: %v", html, err)
	}

	// A crafted checkpoint naming an output is refused.
	victim := filepath.Join(t.TempDir(), "precious.txt")
	if err := os.WriteFile(victim, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, inject := range [][]string{{"--html", victim}, {"--html=" + victim}, {"-html", victim}, {"--checkpoint", t.TempDir()}, {"--save-trace", victim}, {"--cert", victim}} {
		dir = brokenCheckpoint(t)
		rewriteHeader(t, filepath.Join(dir, checkpointFile), func(b string, meta []string) (string, []string) {
			return b, append(meta, inject...)
		})
		code, _, stderr := vacheck("resume", dir, "--max-states", "0", "--quiet")
		if code != exitUsage || !strings.Contains(stderr, "names an output") {
			t.Errorf("%q injected: exit %d: %s; want exit 2 refusing it", inject, code, stderr)
		}
		if data, _ := os.ReadFile(victim); string(data) != "keep me" {
			t.Fatalf("%q injected: %s was overwritten", inject, victim)
		}
	}
}

// TestResumeRefusesAFIFOCheckpoint: `resume DIR` whose checkpoint.vck is a
// named pipe exits 2 at once naming the file; it used to block for ever.
func TestResumeRefusesAFIFOCheckpoint(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no named pipes in the file system")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, checkpointFile)
	if err := syscall.Mkfifo(file, 0o600); err != nil {
		t.Fatal(err)
	}
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, _, stderr := vacheck("resume", dir)
		done <- result{code, stderr}
	}()
	select {
	case r := <-done:
		if r.code != exitUsage || !strings.Contains(r.stderr, file) || !strings.Contains(r.stderr, "not a regular file (a named pipe)") {
			t.Errorf("exit %d: %s; want exit 2 naming %s as a named pipe", r.code, r.stderr, file)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("resume still blocked on the named pipe after 10s")
	}
}

// TestResumeTimeoutCoversTheLoad: --timeout counts the loading of the
// checkpoint: with 1ns the resumed run ends incomplete (exit 3) while it
// loads, says so, and keeps the checkpoint for a later resume.
func TestResumeTimeoutCoversTheLoad(t *testing.T) {
	t.Parallel()
	dir := brokenCheckpoint(t)
	code, stdout, stderr := vacheck("resume", dir, "--max-states", "0", "--timeout", "1ns")
	if code != exitIncomplete || !strings.Contains(stdout, "time limit reached (--timeout 1ns) while loading the checkpoint") {
		t.Errorf("exit %d:\n%s%s\nwant exit 3, stopped while loading", code, stdout, stderr)
	}
	if code, _, stderr := vacheck("resume", dir, "--max-states", "0", "--quiet"); code != exitViolated {
		t.Errorf("the checkpoint kept: resume exit %d: %s", code, stderr)
	}
}
