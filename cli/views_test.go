package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestShowInvolved: --show involved hides the processes that neither
// change, send nor receive in the counterexample. In lamport-broken --n 3
// processes 1 and 2 request and enter together; process 3 only has
// requests waiting in its channels.
func TestShowInvolved(t *testing.T) {
	t.Parallel()
	code, stdout, _ := vacheck("check", "lamport-broken", "--n", "3", "--show", "involved", "--workers", "2")
	if code != exitViolated {
		t.Fatalf("exit code %d", code)
	}
	trace := stdout[strings.Index(stdout, "Counterexample"):]
	if !strings.Contains(trace, "(--show involved: processes 1, 2; hidden: process 3 (no change, send or receive), empty channels)") {
		t.Errorf("no line says which processes are hidden:\n%s", trace)
	}
	if strings.Contains(trace, "p3.") || !strings.Contains(trace, "p1.ust=idle") || !strings.Contains(trace, "queue_{1,3}: [] → [REQUEST(1,1)]") {
		t.Errorf("want p1 and p2 and the messages to 3, not p3's variables:\n%s", trace)
	}
	_, full, _ := vacheck("check", "lamport-broken", "--n", "3", "--workers", "2")
	if !strings.Contains(full, "p3.ust=idle") {
		t.Errorf("without --show involved, p3 is shown:\n%s", full)
	}
	// Bad values name the flag.
	code, _, stderr := vacheck("check", "lamport-broken", "--show", "everything")
	if code != exitUsage || !strings.Contains(stderr, `--show "everything": allowed values`) {
		t.Errorf("--show everything: exit %d, %s", code, stderr)
	}
	code, _, stderr = vacheck("check", "lamport-broken", "--trace", "short")
	if code != exitUsage || !strings.Contains(stderr, `--trace "short": allowed values are full and diff`) {
		t.Errorf("--trace short: exit %d, %s", code, stderr)
	}
}

// TestLongLinesWrap: no line of a counterexample is wider than 100
// columns (maekawa's states have lines of 167 characters unwrapped).
func TestLongLinesWrap(t *testing.T) {
	t.Parallel()
	_, stdout, _ := vacheck("check", "maekawa", "--n", "3", "--requests", "2", "--yield", "a", "--workers", "2")
	trace := stdout[strings.Index(stdout, "Counterexample"):]
	for _, line := range strings.Split(trace, "\n") {
		if n := len([]rune(line)); n > 100 {
			t.Errorf("line of %d characters: %s", n, line)
		}
	}
}

type diffStep struct {
	Action  string         `json:"action"`
	State   map[string]any `json:"state"`
	Changes map[string]any `json:"changes"`
}

// TestTraceDiff: with --trace diff the first step has the full state and
// the others only the variables they change; replaying the changes gives
// every state of the full trace, and the JSON is several times smaller.
func TestTraceDiff(t *testing.T) {
	t.Parallel()
	args := []string{"check", "maekawa", "--n", "3", "--requests", "2", "--yield", "a", "--workers", "2", "--format", "json"}
	_, full, _ := vacheck(args...)
	_, diff, _ := vacheck(append(args, "--trace", "diff")...)
	var f, d struct {
		Violations []struct {
			TraceFormat string     `json:"trace_format"`
			Trace       []diffStep `json:"trace"`
		} `json:"violations"`
	}
	if err := json.Unmarshal([]byte(full), &f); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(diff), &d); err != nil {
		t.Fatal(err)
	}
	ft, dt := f.Violations[0].Trace, d.Violations[0].Trace
	if d.Violations[0].TraceFormat != "diff" || f.Violations[0].TraceFormat != "" || len(ft) != 27 || len(dt) != 27 {
		t.Fatalf("trace_format %q/%q, %d and %d steps", f.Violations[0].TraceFormat, d.Violations[0].TraceFormat, len(ft), len(dt))
	}
	state := map[string]any{}
	for k, s := range dt {
		switch {
		case k == 0 && (s.State == nil || s.Changes != nil):
			t.Fatalf("step 1 must have the full state only: %+v", s)
		case k > 0 && (s.State != nil || s.Changes == nil):
			t.Fatalf("step %d must have changes only: %+v", k+1, s)
		}
		for name, v := range s.State {
			state[name] = v
		}
		for name, v := range s.Changes {
			state[name] = v
		}
		want, _ := json.Marshal(ft[k].State)
		got, _ := json.Marshal(state)
		if s.Action != ft[k].Action || string(got) != string(want) {
			t.Fatalf("step %d: replayed state differs:\n got %s\nwant %s", k+1, got, want)
		}
	}
	if len(diff)*3 > len(full) {
		t.Errorf("diff JSON is %d bytes, full %d: want at least 3 times smaller", len(diff), len(full))
	}
}
