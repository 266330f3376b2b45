package specs

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton/automatontest"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// raRef is a global state of Ricart-Agrawala written literally from
// docs/algorithms/ricart-agrawala.md, without the automaton and explorer
// packages, so that it checks them: per process ust (0 idle, 1 trying, 2
// critical), done, C, myTs (⊥ = 0 outside trying and critical), waiting and
// deferred as bit masks; ch[i][j] is the channel from i to j (a bag, kept
// sorted, when unordered). The Carvalho-Roucairol reference (cvNext) uses perm
// and asked as well, and leaves waiting empty.
type raRef struct {
	ust, done, c, myTs, waiting, deferred []int
	perm, asked                           []int
	ch                                    [][][]raMsg
}

func (s raRef) clone() raRef {
	d := raRef{ust: slices.Clone(s.ust), done: slices.Clone(s.done), c: slices.Clone(s.c),
		myTs: slices.Clone(s.myTs), waiting: slices.Clone(s.waiting), deferred: slices.Clone(s.deferred),
		perm: slices.Clone(s.perm), asked: slices.Clone(s.asked)}
	for _, row := range s.ch {
		var r [][]raMsg
		for _, q := range row {
			r = append(r, slices.Clone(q))
		}
		d.ch = append(d.ch, r)
	}
	return d
}

func (s raRef) key() string {
	return fmt.Sprint(s.ust, s.done, s.c, s.myTs, s.waiting, s.deferred, s.perm, s.asked, s.ch)
}

// raRefSend puts m on the channel i→j, sorting it when unordered.
func (s *raRef) send(i, j int, m raMsg, unordered bool) {
	s.ch[i][j] = append(s.ch[i][j], m)
	if unordered {
		sort.Slice(s.ch[i][j], func(a, b int) bool { return fmt.Sprint(s.ch[i][j][a]) < fmt.Sprint(s.ch[i][j][b]) })
	}
}

// next returns every successor of s: request, enter, exit of each process,
// then the deliveries (the head of a FIFO channel, every distinct message of
// a bag), and the number of messages each transition sends.
func (s raRef) next(r int, req []bool, unordered, broken bool) (out []raRef, sent []int) {
	n := len(s.ust)
	for i := 0; i < n; i++ {
		d := s.clone()
		k := 0
		switch {
		case s.ust[i] == 0 && req[i] && s.done[i] < r:
			d.ust[i], d.c[i] = 1, s.c[i]+1
			d.myTs[i] = d.c[i]
			for j := 0; j < n; j++ {
				if j != i {
					d.waiting[i] |= 1 << j
					d.send(i, j, raMsg{raRequest, d.myTs[i], i}, unordered)
					k++
				}
			}
		case s.ust[i] == 1 && s.waiting[i] == 0:
			d.ust[i] = 2
		case s.ust[i] == 2:
			d.ust[i], d.done[i], d.myTs[i], d.deferred[i] = 0, s.done[i]+1, 0, 0
			for j := 0; j < n; j++ {
				if s.deferred[i]&(1<<j) != 0 {
					d.send(i, j, raMsg{Kind: raReply, From: i}, unordered)
					k++
				}
			}
		default:
			continue
		}
		out, sent = append(out, d), append(sent, k)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for x, m := range s.ch[i][j] {
				if x > 0 && (!unordered || m == s.ch[i][j][x-1]) {
					continue
				}
				d := s.clone()
				d.ch[i][j] = slices.Delete(d.ch[i][j], x, x+1)
				k := 0
				if m.Kind == raReply {
					d.waiting[j] &^= 1 << i
				} else {
					if !broken {
						d.c[j] = max(d.c[j], m.TS)
					}
					if s.ust[j] == 0 || s.ust[j] == 1 && (m.TS < s.myTs[j] || m.TS == s.myTs[j] && i < j) {
						d.send(j, i, raMsg{Kind: raReply, From: j}, unordered)
						k = 1
					} else {
						d.deferred[j] |= 1 << i
					}
				}
				out, sent = append(out, d), append(sent, k)
			}
		}
	}
	return out, sent
}

// raReference explores the literal model breadth first and returns its
// distinct states and transitions, and the least and most messages sent on
// a path to a terminal state (the graph is acyclic: every step moves a
// process on or consumes a message).
func raReference(n, r int, req []bool, unordered, broken bool) (states, transitions, lo, hi int) {
	return refExplore(raRefInitial(n), func(s raRef) ([]raRef, []int) { return s.next(r, req, unordered, broken) })
}

// raRefInitial returns the initial state of n processes.
func raRefInitial(n int) raRef {
	init := raRef{ust: make([]int, n), done: make([]int, n), c: make([]int, n), myTs: make([]int, n),
		waiting: make([]int, n), deferred: make([]int, n), perm: make([]int, n), asked: make([]int, n)}
	for i := 0; i < n; i++ {
		init.ch = append(init.ch, make([][]raMsg, n))
	}
	return init
}

// refExplore explores a literal model from init with next and returns its
// distinct states and transitions and the least and most messages sent on
// a path to a terminal state.
func refExplore(init raRef, next func(raRef) ([]raRef, []int)) (states, transitions, lo, hi int) {
	type span struct{ lo, hi int }
	memo := map[string]span{}
	var visit func(s raRef) span
	visit = func(s raRef) span {
		if sp, ok := memo[s.key()]; ok {
			return sp
		}
		succ, sent := next(s)
		transitions += len(succ)
		sp := span{lo: -1}
		for k, d := range succ {
			sub := visit(d)
			if sp.lo < 0 || sent[k]+sub.lo < sp.lo {
				sp.lo = sent[k] + sub.lo
			}
			sp.hi = max(sp.hi, sent[k]+sub.hi)
		}
		sp.lo = max(sp.lo, 0)
		memo[s.key()] = sp
		return sp
	}
	sp := visit(init)
	return len(memo), transitions, sp.lo, sp.hi
}

func raAll(n int) []bool {
	req := make([]bool, n)
	for i := range req {
		req[i] = true
	}
	return req
}

// raCheck explores the ricart-agrawala (or -broken) model built from flags
// with cfg, checking the spec's claims unless cfg names properties.
func raCheck(t *testing.T, broken bool, flags map[string]string, cfg explorer.Config) *explorer.Result {
	t.Helper()
	s := ricartAgrawala(broken)
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

// TestRicartAgrawalaCounts pins the distinct states and transitions of
// ricart-agrawala (docs/algorithms/ricart-agrawala.md) under unordered
// (default) and FIFO channels, the same for BFS with one and two workers and
// DFS, with every claim holding (GA1, GA2, GA2', FAIR-TS, deadlock-freedom):
// FIFO is not needed. Every count is the literal reference model's
// (raReference). By hand, --n 2 --requesters 1: request_1, REQUEST delivered
// (REPLY sent), REPLY delivered, enter_1, exit_1: 6 states, 5 transitions.
func TestRicartAgrawalaCounts(t *testing.T) {
	cases := []struct {
		flags               map[string]string
		states, transitions int64
	}{
		{map[string]string{"n": "1"}, 4, 3},
		{map[string]string{"n": "2", "requesters": "1"}, 6, 5},
		{map[string]string{"n": "2"}, 45, 62},
		{map[string]string{"n": "2", "channels": "fifo"}, 40, 52},
		{map[string]string{"n": "2", "requests": "2"}, 202, 304},
		{map[string]string{"n": "3"}, 3237, 10199},
		{map[string]string{"n": "3", "channels": "fifo"}, 2357, 6282},
		{map[string]string{"n": "3", "requesters": "1,3", "requests": "2"}, 1016, 2430},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.flags), func(t *testing.T) {
			for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}, {Strategy: explorer.DFS}} {
				r := raCheck(t, false, c.flags, cfg)
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

// TestRicartAgrawalaIndependent derives the pinned counts and message
// figures from the literal reference model raReference.
func TestRicartAgrawalaIndependent(t *testing.T) {
	cases := []struct {
		n, r                int
		req                 []bool
		unordered, broken   bool
		states, transitions int
	}{
		{1, 1, raAll(1), true, false, 4, 3},
		{2, 1, []bool{true, false}, true, false, 6, 5},
		{2, 1, raAll(2), true, false, 45, 62},
		{2, 1, raAll(2), false, false, 40, 52},
		{2, 2, raAll(2), true, false, 202, 304},
		{3, 1, raAll(3), true, false, 3237, 10199},
		{3, 1, raAll(3), false, false, 2357, 6282},
		{3, 2, []bool{true, false, true}, true, false, 1016, 2430},
	}
	for _, c := range cases {
		states, transitions, lo, hi := raReference(c.n, c.r, c.req, c.unordered, c.broken)
		entries := 0
		for _, q := range c.req {
			if q {
				entries += c.r
			}
		}
		if !c.broken && (lo != 2*(c.n-1)*entries || hi != lo) {
			t.Errorf("reference n=%d r=%d %v: messages %d..%d, want 2(N-1)·%d", c.n, c.r, c.req, lo, hi, entries)
		}
		if states != c.states || transitions != c.transitions {
			t.Errorf("reference n=%d r=%d requesters=%v unordered=%v broken=%v: %d states, %d transitions; want %d, %d",
				c.n, c.r, c.req, c.unordered, c.broken, states, transitions, c.states, c.transitions)
		}
	}
}

// TestRicartAgrawalaMessages pins the message figures of
// docs/algorithms/ricart-agrawala.md: exactly 2(N-1) per entry (N-1 REQUESTs
// and N-1 REPLYs), so over complete executions min = max = 2(N-1)·entries,
// under both channel disciplines.
func TestRicartAgrawalaMessages(t *testing.T) {
	cases := []struct {
		flags   map[string]string
		n, want int
	}{
		{map[string]string{"n": "2", "requesters": "1"}, 2, 2},                     // one entry: 2(N-1) = 2
		{map[string]string{"n": "3", "requesters": "2"}, 3, 4},                     // one entry: 2(N-1) = 4
		{map[string]string{"n": "2"}, 2, 4},                                        // 2·2(N-1)·1 = 4
		{map[string]string{"n": "2", "requests": "3"}, 2, 12},                      // N·R·2(N-1) = 12
		{map[string]string{"n": "3"}, 3, 12},                                       // 3·2(N-1) = 12
		{map[string]string{"n": "3", "channels": "fifo"}, 3, 12},                   // same under FIFO
		{map[string]string{"n": "3", "requesters": "1,3", "requests": "2"}, 3, 16}, // 4 entries · 4
	}
	for _, c := range cases {
		r := raCheck(t, false, c.flags, explorer.Config{Workers: 2, Metrics: []string{"messages"}, Properties: []string{}})
		if mm := r.Metrics[0]; mm.Min != int64(c.want) || mm.Max != int64(c.want) || mm.Unbounded {
			t.Errorf("%v: messages min %d max %d; want exactly %d", c.flags, mm.Min, mm.Max, c.want)
		}
	}
}

// TestRicartAgrawalaBroken checks the twin of
// docs/algorithms/ricart-agrawala.md: without the clock update on REQUEST, GA1
// fails at N=2. Process 2 requests with (1,2); process 1 replies while idle and
// keeps C=0, then requests with (1,1), older than (1,2), so process 2 replies
// too and both enter.
func TestRicartAgrawalaBroken(t *testing.T) {
	// Under FIFO the REPLY to (1,2) is ahead of REQUEST(1,1) on 1→2; in a
	// bag the REQUEST sorts first.
	wants := map[string][]string{
		"unordered": {"request_{2}", "receive(REQUEST(1,2))_{2,1}", "request_{1}", "receive(REQUEST(1,1))_{1,2}",
			"receive(REPLY)_{1,2}", "enter_{2}", "receive(REPLY)_{2,1}", "enter_{1}"},
		"fifo": {"request_{2}", "receive(REQUEST(1,2))_{2,1}", "request_{1}", "receive(REPLY)_{1,2}",
			"receive(REQUEST(1,1))_{1,2}", "enter_{2}", "receive(REPLY)_{2,1}", "enter_{1}"},
	}
	for _, ch := range []string{"unordered", "fifo"} {
		want := wants[ch]
		for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}} {
			r := raCheck(t, true, map[string]string{"n": "2", "channels": ch}, cfg)
			if r.Status != explorer.Violated || r.Violations[0].Property != properties.MutualExclusion {
				t.Fatalf("%s workers=%d: %v %v; want mutual-exclusion violated", ch, cfg.Workers, r.Status, r.Violations)
			}
			v := r.Violations[0]
			if got := explorer.Actions(v.Trace.Steps); !slices.Equal(got, want) {
				t.Errorf("%s workers=%d: counterexample %q, want %q", ch, cfg.Workers, got, want)
			}
			expl := strings.Join(v.Trace.Explanation, "\n")
			if !strings.Contains(expl, "process 1 is in the critical section with request (1,1)") {
				t.Errorf("explanation %q", expl)
			}
		}
	}
	if s := ricartAgrawala(true); s.Bug == "" || s.Name != "ricart-agrawala-broken" {
		t.Errorf("twin: name %q, bug %q", s.Name, s.Bug)
	}
	// FAIR-TS is not vacuous: the twin violates it as well.
	r := raCheck(t, true, map[string]string{"n": "2"}, explorer.Config{Workers: 1, Properties: []string{properties.TimestampOrder}})
	if r.Status != explorer.Violated {
		t.Errorf("timestamp-order on the twin: %v, want violated", r.Status)
	}
}

// TestRicartAgrawalaParams checks that bad values are usage errors naming
// the flag.
func TestRicartAgrawalaParams(t *testing.T) {
	s := ricartAgrawala(false)
	p, err := NewParams(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Build(p); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"n": 3, "requests": 1, "requesters": "all", "channels": "unordered", "capacity": 2}
	for k, v := range want {
		if got := p.Canonical()[k]; fmt.Sprint(got) != fmt.Sprint(v) {
			t.Errorf("canonical --%s = %v, want %v", k, got, v)
		}
	}
	mxUsageErrors(t, s, map[string]string{"n": "0", "requests": "6", "requesters": "4", "channels": "lossy", "capacity": "0"})
}

// mxUsageErrors checks that each flag=value, set alone, makes s's Build
// fail with a usage error naming the flag.
func mxUsageErrors(t *testing.T, s Spec, bad map[string]string) {
	t.Helper()
	flags := make([]string, 0, len(bad))
	for f := range bad {
		flags = append(flags, f)
	}
	slices.Sort(flags)
	for _, f := range flags {
		p, err := NewParams(s, map[string]string{f: bad[f]})
		if err == nil {
			_, err = s.Build(p)
		}
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "--"+f) {
			t.Errorf("%s --%s %s: error %v; want a usage error naming --%s", s.Name, f, bad[f], err, f)
		}
	}
}

// TestMxPermPure checks that the transitions of ricart-agrawala, central
// and carvalho-roucairol and their twins are pure (automatontest.CheckPure)
// on every reachable state of small instances.
func TestMxPermPure(t *testing.T) {
	for _, c := range []struct {
		spec  Spec
		flags map[string]string
	}{
		{ricartAgrawala(false), map[string]string{"n": "3"}},
		{ricartAgrawala(true), map[string]string{"n": "2", "requests": "2"}},
		{central(false), map[string]string{"n": "2", "requests": "2", "crashes": "1"}},
		{central(true), map[string]string{"n": "2"}},
		{carvalhoRoucairol(false), map[string]string{"n": "2", "requests": "2"}},
		{carvalhoRoucairol(true), map[string]string{"n": "2"}},
	} {
		automatontest.CheckPure(t, buildSpec(t, c.spec, c.flags), 5000)
	}
}
