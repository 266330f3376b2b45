package specs

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// ctCheck explores the central (or central-broken) model built from flags
// with cfg, checking the spec's claims unless cfg names properties.
func ctCheck(t *testing.T, broken bool, flags map[string]string, cfg explorer.Config) *explorer.Result {
	t.Helper()
	s := central(broken)
	if cfg.Properties == nil {
		cfg.Properties = s.Claims
	}
	r, err := explorer.Check(buildSpec(t, s, flags), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil {
		t.Fatalf("%v: %v", flags, r.Err)
	}
	return r
}

// TestCentralCounts pins the distinct states and transitions of central
// (docs/algorithms/central.md), the same for BFS with one and two workers and
// DFS, with every claim holding (GA1, GA2, GA2', deadlock-freedom, the holder
// assertion) under unordered (default) and FIFO channels.
//
// By hand:
//   - --n 1: request, K receives REQUEST (REPLY), the client receives it,
//     enter, exit (RELEASE), K receives it: a chain of 7 states, 6
//     transitions.
//   - --n 1 --requests 2 --channels fifo: two such chains, except that after
//     the first exit the client may request before K receives the RELEASE;
//     by FIFO the RELEASE still arrives first, so the two orders meet again:
//     a diamond adds one state and two transitions, 14 and 14. Unordered,
//     K may also take the REQUEST first (queueing the client behind its own
//     hold) and then the RELEASE (granting it from the queue): one more
//     state, two more transitions, 15 and 16.
//
// The larger counts are regression values, cross-checked by BFS = DFS =
// two workers and by the message figures of TestCentralMessages.
func TestCentralCounts(t *testing.T) {
	cases := []struct {
		flags               map[string]string
		states, transitions int64
	}{
		{map[string]string{"n": "1"}, 7, 6},
		{map[string]string{"n": "1", "requests": "2", "channels": "fifo"}, 14, 14},
		{map[string]string{"n": "1", "requests": "2"}, 15, 16},
		{map[string]string{"n": "2"}, 41, 60},
		{map[string]string{"n": "3"}, 231, 450},
		{map[string]string{"n": "3", "channels": "fifo"}, 231, 450},
		{map[string]string{"n": "3", "requests": "2"}, 1823, 4044},
		{map[string]string{"n": "3", "requests": "2", "channels": "fifo"}, 1556, 3402},
		{map[string]string{"n": "4"}, 1329, 3096},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.flags), func(t *testing.T) {
			for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}, {Strategy: explorer.DFS}} {
				r := ctCheck(t, false, c.flags, cfg)
				if r.Status != explorer.OK {
					t.Fatalf("%v workers=%d: status %v (%v)", cfg.Strategy, cfg.Workers, r.Status, r.Violations)
				}
				if r.States != c.states || r.Transitions != c.transitions {
					t.Errorf("%v workers=%d: %d states, %d transitions; want %d, %d",
						cfg.Strategy, cfg.Workers, r.States, r.Transitions, c.states, c.transitions)
				}
			}
		})
	}
}

// TestCentralMessages pins exactly 3 messages per entry (REQUEST, REPLY,
// RELEASE; docs/algorithms/central.md), so min = max = 3·entries over complete
// executions, whatever N.
func TestCentralMessages(t *testing.T) {
	cases := []struct {
		flags map[string]string
		want  int64
	}{
		{map[string]string{"n": "3", "requesters": "2"}, 3}, // one entry: 3
		{map[string]string{"n": "1", "requests": "2"}, 6},   // 2 entries · 3
		{map[string]string{"n": "3"}, 9},                    // N·3
		{map[string]string{"n": "4"}, 12},                   // N·3
		{map[string]string{"n": "3", "requests": "2"}, 18},  // N·R·3
		{map[string]string{"n": "3", "requests": "2", "channels": "fifo"}, 18},
	}
	for _, c := range cases {
		r := ctCheck(t, false, c.flags, explorer.Config{Workers: 2, Metrics: []string{"messages"}, Properties: []string{}})
		if mm := r.Metrics[0]; mm.Min != c.want || mm.Max != c.want || mm.Unbounded {
			t.Errorf("%v: messages min %d max %d; want exactly %d", c.flags, mm.Min, mm.Max, c.want)
		}
	}
}

// TestCentralBroken checks the twin: K grants without checking busy, so
// both clients get a REPLY and enter.
func TestCentralBroken(t *testing.T) {
	want := []string{
		"request(REQUEST)_{1,3}", "request(REQUEST)_{2,3}", "receive(REQUEST)_{1,3}", "receive(REPLY)_{3,1}",
		"enter_{1}", "receive(REQUEST)_{2,3}", "receive(REPLY)_{3,2}", "enter_{2}",
	}
	for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}} {
		r := ctCheck(t, true, map[string]string{"n": "2"}, cfg)
		if r.Status != explorer.Violated || r.Violations[0].Property != properties.MutualExclusion {
			t.Fatalf("workers=%d: %v %v; want mutual-exclusion violated", cfg.Workers, r.Status, r.Violations)
		}
		if got := explorer.Actions(r.Violations[0].Trace.Steps); !slices.Equal(got, want) {
			t.Errorf("workers=%d: counterexample %q, want %q", cfg.Workers, got, want)
		}
	}
	if s := central(true); s.Bug == "" || s.Name != "central-broken" {
		t.Errorf("twin: name %q, bug %q", s.Name, s.Bug)
	}
	// The holder assertion is not vacuous: the twin overwrites holder, so
	// the first holder's RELEASE fails it.
	r := ctCheck(t, true, map[string]string{"n": "2"}, explorer.Config{Workers: 1, Properties: []string{ctHolderAssertion}})
	if r.Status != explorer.Violated || r.Violations[0].Property != ctHolderAssertion {
		t.Errorf("holder assertion on the twin: %v, want violated", r.Status)
	}
}

// TestCentralCrash checks the "Expected to FAIL" of docs/algorithms/central.md:
// the coordinator is a single point of failure, so with one crash GA2
// fails. The shortest counterexample crashes K while both clients wait.
// Safety still holds.
func TestCentralCrash(t *testing.T) {
	flags := map[string]string{"n": "2", "crashes": "1"}
	r := ctCheck(t, false, flags, explorer.Config{Workers: 2, Properties: []string{properties.Progress}})
	if r.Status != explorer.Violated || r.Violations[0].Property != properties.Progress {
		t.Fatalf("%v %v; want progress violated", r.Status, r.Violations)
	}
	want := []string{"request(REQUEST)_{1,3}", "request(REQUEST)_{2,3}", "crash_{3}", "receive(REQUEST)_{1,3}", "receive(REQUEST)_{2,3}"}
	v := r.Violations[0]
	if got := explorer.Actions(v.Trace.Steps); !slices.Equal(got, want) {
		t.Errorf("counterexample %q, want %q", got, want)
	}
	if expl := strings.Join(v.Trace.Explanation, "\n"); !strings.Contains(expl, "the coordinator (process 3) has crashed") {
		t.Errorf("explanation %q", expl)
	}
	r = ctCheck(t, false, flags, explorer.Config{Workers: 2, Properties: []string{properties.MutualExclusion, ctHolderAssertion}})
	if r.Status != explorer.OK {
		t.Errorf("safety with a crash: %v %v", r.Status, r.Violations)
	}
}

// TestCentralParams checks the canonical values and that bad values are
// usage errors naming the flag.
func TestCentralParams(t *testing.T) {
	s := central(false)
	p, err := NewParams(s, map[string]string{"requesters": "3,1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Build(p); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"n": 3, "requests": 1, "requesters": "1,3", "crashes": 0, "channels": "unordered", "capacity": 2}
	for k, v := range want {
		if got := p.Canonical()[k]; fmt.Sprint(got) != fmt.Sprint(v) {
			t.Errorf("canonical --%s = %v, want %v", k, got, v)
		}
	}
	// Requesters are clients 1..N: K (process 4 here) is not one.
	mxUsageErrors(t, s, map[string]string{"n": "0", "requests": "6", "requesters": "4", "crashes": "4", "channels": "lossy", "capacity": "x"})
}
