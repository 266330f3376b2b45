package cli

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vacheck/vacheck/specs"
)

// TestLimitsWhileBuildingInitialStates: lelann --n 8 --ids all
// --initiators subsets has 8!·255 = 10,281,600 initial states, which the
// spec used to build before any limit could act (6.2 GiB and 95 s to
// report 0 states). They now come one at a time, so the state limit ends
// the run at once as incomplete (exit 3) with the figures so far.
func TestLimitsWhileBuildingInitialStates(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := vacheck("check", "lelann", "--n", "8", "--ids", "all", "--initiators", "subsets",
		"--timeout", "5s", "--max-states", "10", "--max-memory", "100MiB")
	if code != exitIncomplete {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitIncomplete, stdout, stderr)
	}
	for _, want := range []string{"10 distinct states", "result: INCOMPLETE, state limit reached (--max-states 10) while building the initial states"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report does not say %q:\n%s", want, stdout)
		}
	}
}

// TestInterruptWhileBuildingInitialStates: Ctrl-C while lelann --n 9 (9!·511
// initial states) stores its initial states ends the run as incomplete
// with the report; it used to print nothing, the spec still building them
// all.
func TestInterruptWhileBuildingInitialStates(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(fastProgress(context.Background()))
	var out, errb syncBuffer
	done := make(chan int)
	go func() {
		done <- runContext(ctx, []string{"vacheck", "check", "lelann", "--n", "9", "--workers", "1"}, &out, &errb, specs.Catalog())
	}()
	// The first progress line shows the search storing level 0.
	deadline := time.After(20 * time.Second)
	for !strings.Contains(errb.String(), "level 0") {
		select {
		case code := <-done:
			t.Fatalf("the run ended (exit %d) before its first progress line: %s%s", code, out.String(), errb.String())
		case <-deadline:
			t.Fatalf("no progress line in level 0 after 20 s: %q", errb.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel(errors.New("interrupted by SIGINT"))
	var code int
	select {
	case code = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the run did not stop within 20 s of the interrupt")
	}
	if code != exitIncomplete {
		t.Errorf("exit %d, want %d", code, exitIncomplete)
	}
	for _, want := range []string{"distinct states", "depth 0", "result: INCOMPLETE, interrupted by SIGINT; no violation among the"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, out.String())
		}
	}
}
