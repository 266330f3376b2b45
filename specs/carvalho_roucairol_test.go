package specs

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// cvCheck explores the carvalho-roucairol (or -broken) model built from
// flags with cfg, checking the spec's claims unless cfg names properties.
func cvCheck(t *testing.T, broken bool, flags map[string]string, cfg explorer.Config) *explorer.Result {
	t.Helper()
	s := carvalhoRoucairol(broken)
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

// TestCarvalhoRoucairolCounts pins the distinct states and transitions of
// carvalho-roucairol (docs/algorithms/carvalho-roucairol.md), the same for BFS
// with one and two workers and DFS, with every claim holding: GA1, GA2, GA2',
// no mutual permission, at most one REQUEST per pair and attempt,
// deadlock-freedom, under unordered (default) and FIFO channels. The counts are
// those of the literal reference model cvNext
// (TestCarvalhoRoucairolIndependent); by hand, --n 2 --requesters 1 --requests
// 2 is one chain: request, REQUEST delivered, REPLY delivered, enter, exit,
// then request, enter, exit with the permission kept: 9 states, 8 transitions.
func TestCarvalhoRoucairolCounts(t *testing.T) {
	cases := []struct {
		flags               map[string]string
		states, transitions int64
	}{
		{map[string]string{"n": "1"}, 4, 3},
		{map[string]string{"n": "2", "requesters": "1", "requests": "2"}, 9, 8},
		{map[string]string{"n": "2"}, 46, 62},
		{map[string]string{"n": "2", "requests": "2"}, 224, 321},
		{map[string]string{"n": "3"}, 3294, 10264},
		{map[string]string{"n": "3", "channels": "fifo"}, 2409, 6339},
		{map[string]string{"n": "3", "permissions": "ordered"}, 677, 1768},
		{map[string]string{"n": "3", "requesters": "1,3", "requests": "2"}, 452, 880},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.flags), func(t *testing.T) {
			for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}, {Strategy: explorer.DFS}} {
				r := cvCheck(t, false, c.flags, cfg)
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
	if testing.Short() {
		return
	}
	// N=3 with two requests each: 32,648 states, about 2 s per search.
	r := cvCheck(t, false, map[string]string{"n": "3", "requests": "2"}, explorer.Config{Workers: 2})
	if r.Status != explorer.OK || r.States != 32648 || r.Transitions != 93283 {
		t.Errorf("n=3 requests=2: %v, %d states, %d transitions; want ok, 32648, 93283", r.Status, r.States, r.Transitions)
	}
}

// TestCarvalhoRoucairolMessages pins the message figures of
// docs/algorithms/carvalho-roucairol.md: between 0 and 2(N-1) per entry, both
// ends reached. Total over complete executions, min and max:
//   - one requester, R=2: the first entry costs 2(N-1), the second 0 (the
//     permissions are kept): exactly 2(N-1) in all.
//   - all requesting, R=1: every process starts without permissions and
//     asks everybody, so every entry costs 2(N-1): exactly N·2(N-1).
//   - all requesting, R>1: from N·2(N-1) (each process's later entries
//     free, when it runs them back to back) to N·R·2(N-1) (every entry asks
//     everybody).
//   - --permissions ordered, R=1: process i asks only the i-1 processes
//     below it, min Σ 2(i-1) = N(N-1) (everybody holds what it needs), max
//     N·2(N-1).
func TestCarvalhoRoucairolMessages(t *testing.T) {
	cases := []struct {
		flags   map[string]string
		min     int64
		max     int64
		formula string
	}{
		{map[string]string{"n": "2", "requesters": "1", "requests": "2"}, 2, 2, "2(N-1) + 0"},
		{map[string]string{"n": "3", "requesters": "1", "requests": "2"}, 4, 4, "2(N-1) + 0"},
		{map[string]string{"n": "3", "requesters": "2", "requests": "3"}, 4, 4, "2(N-1) + 0 + 0"},
		{map[string]string{"n": "2"}, 4, 4, "N·2(N-1)"},
		{map[string]string{"n": "3"}, 12, 12, "N·2(N-1)"},
		{map[string]string{"n": "2", "requests": "3"}, 4, 12, "N·2(N-1) … N·R·2(N-1)"},
		{map[string]string{"n": "3", "requests": "2"}, 12, 24, "N·2(N-1) … N·R·2(N-1)"},
		{map[string]string{"n": "3", "permissions": "ordered"}, 6, 12, "N(N-1) … N·2(N-1)"},
		// Process 2 never asks, so its permissions stay with 1 and 3:
		// 2·2(N-1) for the first entries, then 0 or 2 for each later one.
		{map[string]string{"n": "3", "requesters": "1,3", "requests": "2"}, 8, 12, "2·2(N-1) + 0…2 + 0…2"},
	}
	for _, c := range cases {
		if testing.Short() && c.flags["n"] == "3" && c.flags["requests"] == "2" && c.flags["requesters"] == "" {
			continue
		}
		r := cvCheck(t, false, c.flags, explorer.Config{Workers: 2, Metrics: []string{"messages"}, Properties: []string{}})
		if mm := r.Metrics[0]; mm.Min != c.min || mm.Max != c.max || mm.Unbounded {
			t.Errorf("%v: messages min %d max %d; want %d and %d (%s)", c.flags, mm.Min, mm.Max, c.min, c.max, c.formula)
		}
	}
}

// TestCarvalhoRoucairolTimestampOrder checks the "Expected to FAIL" of
// docs/algorithms/carvalho-roucairol.md: FAIR-TS (offered, not claimed) fails
// at N=2. Process 2's REQUEST(1,2) is still on its way when process 1, holding
// 2's permission since its first entry, requests with (2,1) and re-enters
// without asking.
func TestCarvalhoRoucairolTimestampOrder(t *testing.T) {
	if slices.Contains(carvalhoRoucairol(false).Claims, properties.TimestampOrder) {
		t.Error("timestamp-order is claimed")
	}
	want := []string{
		"request_{1}", "request_{2}", "receive(REQUEST(1,1))_{1,2}", "receive(REPLY)_{2,1}",
		"enter_{1}", "exit_{1}", "request_{1}", "enter_{1}",
	}
	r := cvCheck(t, false, map[string]string{"n": "2", "requests": "2"}, explorer.Config{Workers: 2, Properties: []string{properties.TimestampOrder}})
	if r.Status != explorer.Violated || r.Violations[0].Property != properties.TimestampOrder {
		t.Fatalf("%v %v; want timestamp-order violated", r.Status, r.Violations)
	}
	v := r.Violations[0]
	if got := explorer.Actions(v.Trace.Steps); !slices.Equal(got, want) {
		t.Errorf("counterexample %q, want %q", got, want)
	}
	if expl := strings.Join(v.Trace.Explanation, "\n"); !strings.Contains(expl, "process 2 is trying with request (1,2)") {
		t.Errorf("explanation %q", expl)
	}
}

// TestCarvalhoRoucairolBroken checks the twin: replying without giving up
// the permission lets both processes of a pair hold each other's
// permission; process 1 re-enters on the kept one while process 2 enters
// on the REPLY it got (N=2, two requests each: GA1 in 11 steps). The
// no-mutual-permission invariant fails earlier, at step 8.
func TestCarvalhoRoucairolBroken(t *testing.T) {
	want := []string{
		"request_{1}", "request_{2}", "receive(REQUEST(1,1))_{1,2}", "receive(REPLY)_{2,1}", "enter_{1}", "exit_{1}",
		"request_{1}", "receive(REQUEST(1,2))_{2,1}", "enter_{1}", "receive(REPLY)_{1,2}", "enter_{2}",
	}
	for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}} {
		r := cvCheck(t, true, map[string]string{"n": "2"}, cfg)
		if r.Status != explorer.Violated || r.Violations[0].Property != properties.MutualExclusion {
			t.Fatalf("workers=%d: %v %v; want mutual-exclusion violated", cfg.Workers, r.Status, r.Violations)
		}
		if got := explorer.Actions(r.Violations[0].Trace.Steps); !slices.Equal(got, want) {
			t.Errorf("workers=%d: counterexample %q, want %q", cfg.Workers, got, want)
		}
	}
	r := cvCheck(t, true, map[string]string{"n": "2"}, explorer.Config{Workers: 1, Properties: []string{cvNoMutualPermission}})
	if r.Status != explorer.Violated || len(r.Violations[0].Trace.Steps) != 8 {
		t.Errorf("no-mutual-permission on the twin: %v, want violated in 8 steps", r.Status)
	}
	if s := carvalhoRoucairol(true); s.Bug == "" || s.Name != "carvalho-roucairol-broken" {
		t.Errorf("twin: name %q, bug %q", s.Name, s.Bug)
	}
}

// TestCarvalhoRoucairolParams checks the canonical values and that bad
// values are usage errors naming the flag.
func TestCarvalhoRoucairolParams(t *testing.T) {
	s := carvalhoRoucairol(false)
	p, err := NewParams(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Build(p); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"n": 3, "requests": 1, "requesters": "all", "permissions": "none", "channels": "unordered", "capacity": 2}
	for k, v := range want {
		if got := p.Canonical()[k]; fmt.Sprint(got) != fmt.Sprint(v) {
			t.Errorf("canonical --%s = %v, want %v", k, got, v)
		}
	}
	mxUsageErrors(t, s, map[string]string{"n": "0", "requests": "6", "requesters": "1,1", "permissions": "all", "channels": "lossy"})
}

// cvNext returns every successor of a Carvalho-Roucairol state, written
// literally from docs/algorithms/carvalho-roucairol.md on the raRef state (perm
// and asked as bit masks, waiting unused), in the order of raRef.next, with the
// number of messages each transition sends. ok is false when a transition
// breaks the assertion "at most one REQUEST from i to j per attempt".
func (s raRef) cvNext(r int, req []bool, unordered bool) (out []raRef, sent []int, ok bool) {
	n := len(s.ust)
	all := 1<<n - 1
	for i := 0; i < n; i++ {
		d := s.clone()
		k := 0
		switch {
		case s.ust[i] == 0 && req[i] && s.done[i] < r:
			d.ust[i], d.c[i] = 1, s.c[i]+1
			d.myTs[i] = d.c[i]
			for j := 0; j < n; j++ {
				if j != i && s.perm[i]&(1<<j) == 0 {
					d.asked[i] |= 1 << j
					d.send(i, j, raMsg{raRequest, d.myTs[i], i}, unordered)
					k++
				}
			}
		case s.ust[i] == 1 && s.perm[i]|1<<i == all:
			d.ust[i] = 2
		case s.ust[i] == 2:
			d.ust[i], d.done[i], d.myTs[i], d.asked[i], d.deferred[i] = 0, s.done[i]+1, 0, 0, 0
			for j := 0; j < n; j++ {
				if s.deferred[i]&(1<<j) != 0 {
					d.perm[i] &^= 1 << j
					d.send(i, j, raMsg{Kind: raReply, From: i}, unordered)
					k++
				}
			}
		default:
			continue
		}
		out, sent = append(out, d), append(sent, k)
	}
	ok = true
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for x, m := range s.ch[i][j] {
				if x > 0 && (!unordered || m == s.ch[i][j][x-1]) {
					continue
				}
				d := s.clone()
				d.ch[i][j] = slices.Delete(d.ch[i][j], x, x+1)
				k := 0
				switch {
				case m.Kind == raReply:
					d.perm[j] |= 1 << i
				case s.ust[j] == 0 || s.ust[j] == 1 && (m.TS < s.myTs[j] || m.TS == s.myTs[j] && i < j):
					d.c[j] = max(d.c[j], m.TS)
					had := s.perm[j]&(1<<i) != 0
					d.perm[j] &^= 1 << i
					d.send(j, i, raMsg{Kind: raReply, From: j}, unordered)
					k = 1
					if s.ust[j] == 1 && had {
						ok = ok && s.asked[j]&(1<<i) == 0
						d.asked[j] |= 1 << i
						d.send(j, i, raMsg{raRequest, s.myTs[j], j}, unordered)
						k = 2
					}
				default:
					d.c[j] = max(d.c[j], m.TS)
					d.deferred[j] |= 1 << i
				}
				out, sent = append(out, d), append(sent, k)
			}
		}
	}
	return out, sent, ok
}

// TestCarvalhoRoucairolIndependent derives the pinned counts and message
// figures of TestCarvalhoRoucairolCounts and -Messages from the literal
// reference model cvNext, and checks there that GA1, no mutual permission
// and the one-REQUEST assertion hold in every state.
func TestCarvalhoRoucairolIndependent(t *testing.T) {
	cases := []struct {
		n, r                int
		req                 []bool
		unordered, ordered  bool
		states, transitions int
		lo, hi              int
	}{
		{1, 1, raAll(1), true, false, 4, 3, 0, 0},
		{2, 2, []bool{true, false}, true, false, 9, 8, 2, 2},
		{2, 1, raAll(2), true, false, 46, 62, 4, 4},
		{2, 2, raAll(2), true, false, 224, 321, 4, 8},
		{3, 1, raAll(3), true, false, 3294, 10264, 12, 12},
		{3, 1, raAll(3), false, false, 2409, 6339, 12, 12},
		{3, 1, raAll(3), true, true, 677, 1768, 6, 12},
		{3, 2, []bool{true, false, true}, true, false, 452, 880, 8, 12},
	}
	for _, c := range cases {
		init := raRefInitial(c.n)
		for i := 0; c.ordered && i < c.n; i++ {
			for j := i + 1; j < c.n; j++ {
				init.perm[i] |= 1 << j
			}
		}
		states, transitions, lo, hi := refExplore(init, func(s raRef) ([]raRef, []int) {
			crit := 0
			for i := range s.ust {
				if s.ust[i] == 2 {
					crit++
				}
				for j := range s.ust {
					if s.perm[i]&(1<<j) != 0 && s.perm[j]&(1<<i) != 0 {
						t.Fatalf("n=%d: mutual permission of %d and %d in %s", c.n, i+1, j+1, s.key())
					}
				}
			}
			next, sent, ok := s.cvNext(c.r, c.req, c.unordered)
			if crit > 1 || !ok {
				t.Fatalf("n=%d: GA1 or the one-REQUEST assertion fails after %s", c.n, s.key())
			}
			return next, sent
		})
		if states != c.states || transitions != c.transitions || lo != c.lo || hi != c.hi {
			t.Errorf("reference n=%d r=%d requesters=%v unordered=%v ordered=%v: %d states, %d transitions, messages %d..%d; want %d, %d, %d..%d",
				c.n, c.r, c.req, c.unordered, c.ordered, states, transitions, lo, hi, c.states, c.transitions, c.lo, c.hi)
		}
	}
}
