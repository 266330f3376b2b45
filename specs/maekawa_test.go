package specs

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/quorum"
)

// mkSafety are the safety properties of the Maekawa specs.
var mkSafety = []string{properties.MutualExclusion, "single-grant", properties.DeadlockFreedom}

func flagString(flags map[string]string) string {
	var parts []string
	for k, v := range flags {
		parts = append(parts, "/"+k+"="+v)
	}
	slices.Sort(parts)
	return strings.Join(parts, "")
}

// TestMaekawaMessages reproduces the reference message figures of
// docs/algorithms/maekawa.md: the fewest and most messages over all
// complete executions (self-communication not counted).
func TestMaekawaMessages(t *testing.T) {
	t.Parallel()
	cases := []struct {
		full     bool
		flags    map[string]string
		min, max int
		large    bool
	}{
		// 2.6: one requester, 3(K-1) = 3; two requesters, 6 in total.
		{false, map[string]string{"n": "3", "requesters": "1"}, 3, 3, false},
		{false, map[string]string{"n": "3", "requesters": "1,2"}, 6, 6, false},
		// 2.7 Variant B: N=3, three requesters × one request: 9…13.
		{true, map[string]string{"n": "3"}, 9, 13, false},
		// Variant A has the same figures with one request each.
		{true, map[string]string{"n": "3", "yield": "a"}, 9, 13, false},
		// Fano, three requesters × one request: 18…22 (for requesters
		// 1,2,3; other triples give 18…20 to 18…23).
		{true, map[string]string{"n": "7", "requesters": "1,2,3"}, 18, 22, true},
		// N=3, two requests each: 18…29 (1,760,119 states).
		{true, map[string]string{"n": "3", "requests": "2"}, 18, 29, true},
	}
	for _, c := range cases {
		t.Run(maekawaForm(c.full).Name+flagString(c.flags), func(t *testing.T) {
			if c.large {
				skipUnlessLong(t) // 261,435 and 1,760,119 states
			}
			if lo, hi := messageRange(t, buildSpec(t, maekawaForm(c.full), c.flags)); lo != c.min || hi != c.max {
				t.Errorf("messages %d…%d, want %d…%d", lo, hi, c.min, c.max)
			}
		})
	}
}

// TestMaekawaBasicDeadlockN3 is the first scenario of
// docs/algorithms/maekawa.md: with quorums {1,2},{2,3},{3,1} and all three
// requesting, each arbiter grants its own process first, and then 1 waits for
// 2, 2 for 3 and 3 for
// 1. Breadth-first search finds it by itself, in 12 steps: three requests,
// each arbiter receiving its own REQUEST (and the LOCKED it sends itself),
// then the other REQUESTs, deferred.
func TestMaekawaBasicDeadlockN3(t *testing.T) {
	t.Parallel()
	r := check(t, "maekawa-basic", map[string]string{"n": "3"}, explorer.Config{Properties: mkSafety})
	if r.Status != explorer.Violated || len(r.Violations) != 1 || r.Violations[0].Property != properties.DeadlockFreedom {
		t.Fatalf("got %v %+v, want a deadlock", r.Status, r.Violations)
	}
	// Searching on after the deadlock, mutual exclusion holds.
	all := check(t, "maekawa-basic", map[string]string{"n": "3"}, explorer.Config{Properties: mkSafety, Continue: true})
	for _, p := range all.Properties {
		if (p.Name == properties.MutualExclusion || p.Name == "single-grant") && p.Verdict != explorer.Holds {
			t.Errorf("%s: %v, want holds", p.Name, p.Verdict)
		}
	}
	tr := r.Violations[0].Trace
	want := []string{
		"request_{1}", "request_{2}", "request_{3}",
		"receive(REQUEST(1,1))_{1,1}", "receive(LOCKED)_{1,1}",
		"receive(REQUEST(1,2))_{2,2}", "receive(REQUEST(1,1))_{1,2}", "receive(LOCKED)_{2,2}",
		"receive(REQUEST(1,3))_{3,1}", "receive(REQUEST(1,3))_{3,3}", "receive(REQUEST(1,2))_{2,3}",
		"receive(LOCKED)_{3,3}",
	}
	if got := explorer.Actions(tr.Steps); !slices.Equal(got, want) {
		t.Errorf("trace (%d steps)\n%s\nwant (%d steps)\n%s", len(got), strings.Join(got, " "), len(want), strings.Join(want, " "))
	}
	wantLines := []string{
		"arbiter 1 is locked for process 1 (request (1,1)), queued (1,3)",
		"arbiter 2 is locked for process 2 (request (1,2)), queued (1,1)",
		"arbiter 3 is locked for process 3 (request (1,3)), queued (1,2)",
		"process 1 holds LOCKED from 1, waits for 2 (locked for process 2); its request is (1,1)",
		"process 2 holds LOCKED from 2, waits for 3 (locked for process 3); its request is (1,2)",
		"process 3 holds LOCKED from 3, waits for 1 (locked for process 1); its request is (1,3)",
		"wait-for cycle: 1 → 2 → 3 → 1",
	}
	if !slices.Equal(tr.Explanation, wantLines) {
		t.Errorf("explanation\n%s\nwant\n%s", strings.Join(tr.Explanation, "\n"), strings.Join(wantLines, "\n"))
	}
}

// TestMaekawaBasicDeadlockFano: on the Fano plane with every process
// requesting, depth-first search finds a deadlock within seconds.
func TestMaekawaBasicDeadlockFano(t *testing.T) {
	t.Parallel()
	start := time.Now()
	r := check(t, "maekawa-basic", map[string]string{"n": "7"}, explorer.Config{Strategy: explorer.DFS, Properties: mkSafety})
	if r.Status != explorer.Violated || r.Violations[0].Property != properties.DeadlockFreedom {
		t.Fatalf("got %v %+v, want a deadlock", r.Status, r.Violations)
	}
	tr := r.Violations[0].Trace
	if !slices.ContainsFunc(tr.Explanation, func(l string) bool { return strings.HasPrefix(l, "wait-for cycle: ") }) {
		t.Errorf("no wait-for cycle in\n%s", strings.Join(tr.Explanation, "\n"))
	}
	t.Logf("deadlock after %d steps, %d states, %v", len(tr.Steps), r.States, time.Since(start))
}

// TestMaekawaBasicDeadlock13 is the second scenario of
// docs/algorithms/maekawa.md: the 13-process ideal system, processes 7, 8 and
// 11 requesting. Depth-first search finds exactly the deadlock described there:
// 11 holds {11,12,13} and waits for 1 (held by 8), 8 holds {1,8,9} and waits
// for 10 (held by 7), 7 holds {2,7,10} and waits for 13 (held by 11). About 2
// s.
func TestMaekawaBasicDeadlock13(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("about 100,000 states")
	}
	start := time.Now()
	r := check(t, "maekawa-basic", map[string]string{"n": "13", "requesters": "7,8,11"}, explorer.Config{Strategy: explorer.DFS, Properties: mkSafety})
	if r.Status != explorer.Violated || r.Violations[0].Property != properties.DeadlockFreedom {
		t.Fatalf("got %v %+v, want a deadlock", r.Status, r.Violations)
	}
	ex := r.Violations[0].Trace.Explanation
	for _, want := range []string{
		"process 7 holds LOCKED from 2, 7, 10, waits for 13 (locked for process 11); its request is (1,7)",
		"process 8 holds LOCKED from 1, 8, 9, waits for 10 (locked for process 7); its request is (1,8)",
		"process 11 holds LOCKED from 11, 12, 13, waits for 1 (locked for process 8); its request is (1,11)",
		"wait-for cycle: 7 → 11 → 8 → 7",
	} {
		if !slices.Contains(ex, want) {
			t.Errorf("explanation lacks %q:\n%s", want, strings.Join(ex, "\n"))
		}
	}
	t.Logf("deadlock after %d steps, %d states, %v", len(r.Violations[0].Trace.Steps), r.States, time.Since(start))
}

// TestMaekawaFull checks docs/algorithms/maekawa.md: Variant B (the default)
// keeps mutual exclusion and is deadlock-free for N=3 with one and two requests
// each and on the Fano plane with three requesters; Variant A passes with one
// request each.
func TestMaekawaFull(t *testing.T) {
	t.Parallel()
	cases := []struct {
		flags  map[string]string
		states int64
		large  bool
	}{
		{map[string]string{"n": "3"}, 20361, false},
		{map[string]string{"n": "3", "yield": "a"}, 20361, false},
		{map[string]string{"n": "3", "requests": "2"}, 1760119, true},
		{map[string]string{"n": "7", "requesters": "1,2,3"}, 261435, true},
	}
	for _, c := range cases {
		t.Run(flagString(c.flags), func(t *testing.T) {
			if c.large {
				skipUnlessLong(t) // 261,435 and 1,760,119 states
			}
			r := check(t, "maekawa", c.flags, explorer.Config{Properties: mkSafety})
			if r.Status != explorer.OK || r.States != c.states {
				t.Errorf("%v with %d states, want ok with %d", r.Status, r.States, c.states)
			}
			for _, p := range r.Properties {
				if slices.Contains(mkSafety, p.Name) && p.Verdict != explorer.Holds {
					t.Errorf("%s: %v", p.Name, p.Verdict)
				}
			}
		})
	}
}

// TestMaekawaYieldADeadlock is the Variant A deadlock of
// docs/algorithms/maekawa.md (N=3, every process requesting twice): 3
// relinquished arbiter 1 to 1's older request, and the FAILED that justified it
// was superseded by a LOCKED from arbiter 3. Then 1 waits for arbiter 2, locked
// for 2's second request; 2 has no FAILED and keeps it; 2 waits for arbiter 3,
// locked for 3, which has no FAILED either and waits for arbiter 1. Variant B
// breaks the cycle because 3 has yielded to 1.
func TestMaekawaYieldADeadlock(t *testing.T) {
	t.Parallel()
	r := check(t, "maekawa", map[string]string{"n": "3", "requests": "2", "yield": "a"}, explorer.Config{Properties: mkSafety})
	if r.Status != explorer.Violated || len(r.Violations) != 1 || r.Violations[0].Property != properties.DeadlockFreedom {
		t.Fatalf("got %v %+v, want a deadlock", r.Status, r.Violations)
	}
	tr := r.Violations[0].Trace
	want := []string{
		"request_{1}", "request_{2}", "receive(REQUEST(1,2))_{2,2}", "receive(LOCKED)_{2,2}",
		"receive(REQUEST(1,2))_{2,3}", "request_{3}", "receive(REQUEST(2,3))_{3,1}",
		"receive(REQUEST(1,1))_{1,1}", "receive(LOCKED)_{1,3}", "receive(INQUIRE)_{1,3}",
		"receive(LOCKED)_{3,2}", "enter_{2}", "exit_{2}", "request_{2}",
		"receive(RELEASE)_{2,2}", "receive(REQUEST(2,2))_{2,2}", "receive(REQUEST(1,1))_{1,2}",
		"receive(LOCKED)_{2,2}", "receive(INQUIRE)_{2,2}", "receive(REQUEST(2,3))_{3,3}",
		"receive(RELEASE)_{2,3}", "receive(REQUEST(2,2))_{2,3}", "receive(FAILED)_{3,3}",
		"receive(RELINQUISH)_{3,1}", "receive(LOCKED)_{1,1}", "receive(LOCKED)_{3,3}",
		"receive(INQUIRE)_{3,3}",
	}
	if got := explorer.Actions(tr.Steps); !slices.Equal(got, want) {
		t.Errorf("trace (%d steps)\n%s\nwant (%d steps)\n%s", len(got), strings.Join(got, " "), len(want), strings.Join(want, " "))
	}
	wantLines := []string{
		"arbiter 1 is locked for process 1 (request (1,1)), queued (2,3)",
		"arbiter 2 is locked for process 2 (request (2,2)), queued (1,1), INQUIRE sent",
		"arbiter 3 is locked for process 3 (request (2,3)), queued (2,2), INQUIRE sent",
		"process 1 holds LOCKED from 1, waits for 2 (locked for process 2); its request is (1,1)",
		"process 2 holds LOCKED from 2, waits for 3 (locked for process 3); its request is (2,2); remembers INQUIRE from 2",
		"process 3 holds LOCKED from 3, waits for 1 (locked for process 1); its request is (2,3); remembers INQUIRE from 3; has yielded to 1",
		"wait-for cycle: 1 → 2 → 3 → 1",
	}
	if !slices.Equal(tr.Explanation, wantLines) {
		t.Errorf("explanation\n%s\nwant\n%s", strings.Join(tr.Explanation, "\n"), strings.Join(wantLines, "\n"))
	}
}

// TestMaekawaParams checks the canonical parameters and the quorum systems
// other than the default.
func TestMaekawaParams(t *testing.T) {
	t.Parallel()
	p, err := NewParams(maekawa(), map[string]string{"n": "7", "requesters": "3,1", "requests": "2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := maekawa().Build(p); err != nil {
		t.Fatal(err)
	}
	c := p.Canonical()
	if c["quorums"] != "fpp" || c["requesters"] != "1,3" || c["requests"] != 2 || c["yield"] != "b" || c["channels"] != "fifo" {
		t.Errorf("canonical parameters %v", c)
	}
	for _, q := range []string{"grid", "majority", "all"} {
		r := check(t, "maekawa", map[string]string{"n": "4", "quorums": q, "requesters": "1,2"}, explorer.Config{Properties: mkSafety})
		if r.Status != explorer.OK {
			t.Errorf("--quorums %s: %v %+v", q, r.Status, r.Violations)
		}
	}
	if slices.ContainsFunc(twinOf(maekawa()).Params, func(p Param) bool { return p.Flag == "yield" }) {
		t.Error("maekawa-basic takes --yield")
	}
}

// TestMaekawaBadParams: bad values are usage errors (exit 2) that name the
// flag; quorum errors keep the quorum package's message and sentinel.
func TestMaekawaBadParams(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("1 2\n2 x 3\n3 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		full  bool
		flags map[string]string
		want  []string
		is    error
	}{
		{false, map[string]string{"n": "5", "quorums": "fpp"}, []string{"--quorums fpp", "projective plane"}, quorum.ErrNoPlane},
		{true, map[string]string{"n": "3", "quorums": bad}, []string{"--quorums " + bad, "line 2", `"x"`}, quorum.ErrBadFile},
		{true, map[string]string{"n": "3", "quorums": "single"}, []string{"--quorums single", "process 2 is not in"}, quorum.ErrNotSelf},
		{true, map[string]string{"n": "3", "quorums": "nonsense"}, []string{"--quorums nonsense"}, quorum.ErrUnknown},
		{true, map[string]string{"n": "3", "requests": "0"}, []string{"--requests 0", "1 to 5"}, nil},
		{true, map[string]string{"n": "3", "requests": "6"}, []string{"--requests 6", "1 to 5"}, nil},
		{true, map[string]string{"n": "3", "requesters": "4"}, []string{"--requesters 4", "outside 1..3"}, nil},
		{true, map[string]string{"n": "3", "requesters": "0,1"}, []string{"--requesters 0,1", "outside 1..3"}, nil},
		{true, map[string]string{"n": "3", "requesters": "1,2,1"}, []string{"--requesters 1,2,1", "process 1 is listed twice"}, nil},
		{true, map[string]string{"n": "3", "requesters": "1,x"}, []string{"--requesters 1,x", `"x" is not a process number`}, nil},
		{true, map[string]string{"n": "3", "requesters": ""}, []string{`--requesters ""`, "no process given"}, nil},
		{true, map[string]string{"n": "3", "yield": "c"}, []string{"--yield c", "a and b"}, nil},
		{true, map[string]string{"n": "0"}, []string{"--n 0"}, nil},
	}
	for _, c := range cases {
		s := maekawaForm(c.full)
		err := buildErr(s, c.flags)
		if !errors.Is(err, ErrUsage) {
			t.Errorf("%v: error %v, want a usage error", c.flags, err)
			continue
		}
		if c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%v: error %v does not match %v", c.flags, err, c.is)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q lacks %q", c.flags, err, w)
			}
		}
	}
}

func TestMaekawaWaitCycle(t *testing.T) {
	t.Parallel()
	cases := []struct {
		waits [][]int
		want  []int
	}{
		{[][]int{{1}, {2}, {0}}, []int{0, 1, 2, 0}},
		{[][]int{{1}, {2}, {}}, nil},
		{[][]int{{1}, {2}, {1}}, []int{1, 2, 1}},
		{[][]int{{}, {}, {}, {}, {}, {6}, {7}, {5}}, []int{5, 6, 7, 5}},
	}
	for _, c := range cases {
		if got := waitCycle(c.waits); !slices.Equal(got, c.want) {
			t.Errorf("waitCycle(%v) = %v, want %v", c.waits, got, c.want)
		}
	}
}

// TestMaekawaRuleBWithoutLateFailed pins a finding that
// docs/algorithms/maekawa.md asks to document: rule B (--yield b) with choice
// (3), no late FAILED to a request that an older one overtakes, deadlocks at
// N=3 with the tree and grid quorums (and all), where a process that got
// INQUIRE but no FAILED keeps its grants while it waits for an arbiter locked
// for the older request: the wait-for cycle 1 -> 2 -> 1. The reference systems
// (fpp, the default at N=3, and majority) are deadlock-free.
func TestMaekawaRuleBWithoutLateFailed(t *testing.T) {
	t.Parallel()
	for q, deadlocks := range map[string]bool{"tree": true, "grid": true, "fpp": false, "majority": false} {
		r := check(t, "maekawa", map[string]string{"n": "3", "quorums": q}, explorer.Config{Properties: []string{properties.DeadlockFreedom}})
		got := r.Status == explorer.Violated && len(r.Violations) == 1 && r.Violations[0].Property == properties.DeadlockFreedom
		if got != deadlocks || !deadlocks && r.Status != explorer.OK {
			t.Errorf("--quorums %s: %v %d violations; want a deadlock: %v", q, r.Status, len(r.Violations), deadlocks)
		}
	}
}
