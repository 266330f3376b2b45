package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/specs"
)

// syncBuffer is a bytes.Buffer that the explorer's monitor goroutine may
// write while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fastProgress returns ctx under which a run prints a progress line every
// 50 ms, for the tests of those lines.
func fastProgress(ctx context.Context) context.Context {
	return withProgressEvery(ctx, 50*time.Millisecond)
}

// noProgress returns ctx under which a run prints no progress line: on a
// loaded machine a run of a few seconds would print one and spoil a
// comparison of stderr.
func noProgress(ctx context.Context) context.Context {
	return withProgressEvery(ctx, time.Hour)
}

// longRun starts a check that would take minutes, waits for its first
// progress line, calls interrupt and returns the exit code, stdout and
// stderr.
func longRun(t *testing.T, ctx context.Context, interrupt func(), extra ...string) (int, string, string) {
	t.Helper()
	var out, errb syncBuffer
	args := append([]string{"vacheck", "check", "chang-roberts", "--n", "8", "--workers", "1"}, extra...)
	done := make(chan int)
	go func() { done <- runContext(fastProgress(ctx), args, &out, &errb, specs.Catalog()) }()
	deadline := time.After(20 * time.Second)
	for !strings.Contains(errb.String(), " states (") {
		select {
		case code := <-done:
			t.Fatalf("the run ended (exit %d) before its first progress line: %s", code, errb.String())
		case <-deadline:
			t.Fatalf("no progress line after 20 s: %q", errb.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	interrupt()
	select {
	case code := <-done:
		return code, out.String(), errb.String()
	case <-time.After(20 * time.Second):
		t.Fatal("the run did not stop within 20 s of the interrupt")
	}
	return 0, "", ""
}

// TestCancelledRunIsIncomplete: cancelling a check ends it as incomplete
// (exit 3) with the usual report of what was explored.
func TestCancelledRunIsIncomplete(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(context.Background())
	code, stdout, _ := longRun(t, ctx, func() { cancel(errors.New("interrupted by SIGINT")) })
	if code != exitIncomplete {
		t.Errorf("exit code %d, want %d", code, exitIncomplete)
	}
	for _, want := range []string{"distinct states", "transitions", "result: INCOMPLETE, interrupted by SIGINT; no violation among the"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report does not contain %q:\n%s", want, stdout)
		}
	}
}

// TestSIGTERMGivesJSONReport sends the process a real SIGTERM during a
// check with --format json: the output is one valid JSON object, status
// incomplete, with the figures so far. Not parallel, nor is
// TestSignalEchoIsIgnored: the signal goes to the whole process, where it
// would stop the runs of other tests as well (the parallel tests start
// after the serial ones end).
func TestSIGTERMGivesJSONReport(t *testing.T) {
	code, stdout, stderr := longRun(t, context.Background(), func() {
		if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
	}, "--format", "json")
	if code != exitIncomplete {
		t.Errorf("exit code %d, want %d", code, exitIncomplete)
	}
	var got struct {
		Status, Reason string
		States         int64
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("not valid JSON: %v\n%s", err, stdout)
	}
	if got.Status != "incomplete" || got.Reason != "interrupted by SIGTERM" || got.States == 0 {
		t.Errorf("status %q, reason %q, %d states", got.Status, got.Reason, got.States)
	}
	if !strings.Contains(stderr, "SIGTERM, stopping") {
		t.Errorf("stderr does not say the run is stopping: %s", stderr)
	}
}

// TestSignalEchoIsIgnored: timeout(1) signals its child and then the
// child's process group, so one interrupt can arrive twice in a moment; the
// second copy must not quit without the report (a mutant that quits ends
// this test's process).
func TestSignalEchoIsIgnored(t *testing.T) {
	var errb syncBuffer
	ctx, stop := interruptible(context.Background(), &errb)
	defer stop()
	for k := range 2 {
		if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
				t.Fatal("SIGTERM did not cancel the context")
			}
		}
	}
	time.Sleep(100 * time.Millisecond) // the handler takes the second signal
	if got := errb.String(); strings.Contains(got, "quitting") || !strings.Contains(got, "SIGTERM, stopping") || !strings.Contains(got, "taken as the same interrupt") {
		t.Errorf("stderr %q", got)
	}
}

// TestProgressOnNonTerminal: progress lines go to stderr even when it is
// not a terminal (a file, a pipe, CI), and --quiet silences them.
func TestProgressOnNonTerminal(t *testing.T) {
	t.Parallel()
	ctx := fastProgress(context.Background())
	var out, errb syncBuffer
	args := []string{"vacheck", "check", "chang-roberts", "--n", "7", "--workers", "1", "--timeout", "400ms"}
	if code := runContext(ctx, args, &out, &errb, specs.Catalog()); code != exitIncomplete {
		t.Fatalf("exit code %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
	if len(lines) < 2 {
		t.Fatalf("want several progress lines, got %q", errb.String())
	}
	for _, want := range []string{"vacheck: ", " states (", "/s)  level ", "  queue ", "iB  collision "} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("progress line %q does not contain %q", lines[0], want)
		}
	}
	code, _, stderr := vacheckContext(ctx, "check", "chang-roberts", "--n", "7", "--workers", "1", "--timeout", "300ms", "--quiet")
	if code != exitIncomplete || stderr != "" {
		t.Errorf("--quiet: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = vacheckContext(ctx, "check", "chang-roberts", "--n", "7", "--strategy", "dfs", "--timeout", "300ms")
	if code != exitIncomplete || !strings.Contains(stderr, "  depth ") {
		t.Errorf("dfs: exit %d, stderr %q: want 'depth'", code, stderr)
	}
}

// TestMain: with VACHECK_TEST_AS_CLI=1 the test binary is vacheck itself
// (its arguments after --), for the tests of scripts that run vacheck
// (TestSlurmAndLocalScripts) and of the process killed mid-run
// (TestResumeAfterSIGKILL). The tests turn progress lines off where they
// compare stderr (noProgress, through vacheck and run).
func TestMain(m *testing.M) {
	if os.Getenv(asCLI) == "1" {
		args := os.Args
		if i := slices.Index(args, "--"); i >= 0 {
			args = append([]string{"vacheck"}, args[i+1:]...)
		}
		os.Exit(Run(args, os.Stdout, os.Stderr, specs.Catalog()))
	}
	os.Exit(m.Run())
}

// TestProgressLineSaysWhatIsUnderWay: a wide BFS level shows how far it
// is expanded, so that an unchanged state count does not look stuck; after
// the search, the line names the liveness phase instead of a rate, or the
// search for a counterexample without overtaking and how far it is.
func TestProgressLineSaysWhatIsUnderWay(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	line := progressLine(&b)
	line(explorer.Progress{Strategy: explorer.BFS, States: 1000, Depth: 7, Queue: 400, Expanded: 100, Elapsed: 3 * time.Second, Memory: 3 << 30})
	line(explorer.Progress{Strategy: explorer.BFS, Phase: explorer.BuildingGraph, States: 5000, Elapsed: 6 * time.Second, Memory: 3 << 30})
	line(explorer.Progress{Strategy: explorer.BFS, Phase: explorer.FindingInOrder, States: 5000, Elapsed: 9 * time.Second, Memory: 1 << 30,
		InOrder: &explorer.Progress{States: 1234, Depth: 5, MaxDepth: 12}})
	for _, want := range []string{"level 7, 25% expanded  queue 400  3.0 GiB", "5,000 states searched; building the state graph for liveness  3.0 GiB",
		"9s  5,000 states searched; looking for a counterexample without overtaking: 1,234 states with ordered channels, level 5 of 12  1.0 GiB"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the progress lines lack %q:\n%s", want, b.String())
		}
	}
}
