package specs

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// crwRef is a literal reference model of Chang-Roberts with spontaneous start
// (docs/algorithms/chang-roberts-wakeup.md, objective max, FIFO channels),
// written without the automaton and explorer packages: st is 'a'sleep, 'c'and,
// 'r'elay, 'C'hosen or 'd'one; queue i holds the messages from i to i+1,
// ELECT(v) as v and ELECTED(w) as -w.
type crwRef struct {
	ids, best, leader []int
	init, el          []bool
	st                []byte
	q                 [][]int
}

type crwRefMode struct {
	wake     string // join, join-opt, relay
	best     bool   // CMP = BEST
	announce bool
}

func (r *crwRef) clone() *crwRef {
	c := &crwRef{ids: r.ids, init: r.init, best: slices.Clone(r.best), leader: slices.Clone(r.leader),
		el: slices.Clone(r.el), st: slices.Clone(r.st)}
	for _, q := range r.q {
		c.q = append(c.q, slices.Clone(q))
	}
	return c
}

func (r *crwRef) key() string {
	b := make([]byte, 0, 64)
	for i := range r.ids {
		b = append(b, byte(r.ids[i]), byte(r.best[i]), byte(r.leader[i]), r.st[i], crwBit(r.init[i])|2*crwBit(r.el[i]), byte(len(r.q[i])))
		for _, v := range r.q[i] {
			b = append(b, byte(int8(v)))
		}
	}
	return string(b)
}

func crwBit(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// next returns every successor with the number of messages its step sent:
// every start_i, then every receive at the head of a channel.
func (r *crwRef) next(m crwRefMode) (out []*crwRef, sent []int) {
	n := len(r.ids)
	for i := 0; i < n; i++ {
		if r.init[i] && r.st[i] == 'a' {
			c := r.clone()
			c.st[i], c.el[i] = 'c', true
			c.q[i] = append(c.q[i], c.ids[i])
			out, sent = append(out, c), append(sent, 1)
		}
	}
	for from := 0; from < n; from++ {
		if len(r.q[from]) == 0 {
			continue
		}
		c := r.clone()
		v := c.q[from][0]
		c.q[from] = c.q[from][1:]
		i := (from + 1) % n
		k := 0
		send := func(v int) { c.q[i] = append(c.q[i], v); k++ }
		cand := func(v int) {
			ref := c.ids[i]
			if m.best {
				ref = c.best[i]
			}
			switch {
			case v == c.ids[i]:
				c.st[i], c.leader[i] = 'C', c.ids[i]
				if m.announce {
					send(-c.ids[i])
				}
			case v > ref:
				c.best[i] = max(c.best[i], v)
				c.el[i] = false
				send(v)
			}
		}
		switch {
		case v < 0:
			if -v != c.ids[i] {
				c.leader[i] = -v
				send(v)
			}
			c.st[i] = 'd'
		case c.st[i] == 'a' && m.wake == "relay":
			c.st[i] = 'r'
			send(v)
		case c.st[i] == 'a' && m.wake == "join-opt" && v > c.ids[i]:
			c.st[i], c.best[i] = 'c', v
			send(v)
		case c.st[i] == 'a':
			c.st[i], c.el[i] = 'c', true
			send(c.ids[i])
			cand(v)
		case c.st[i] == 'r':
			send(v)
		case c.st[i] == 'c':
			cand(v)
		}
		out, sent = append(out, c), append(sent, k)
	}
	return out, sent
}

// crwRefModel is the reference model from every arrangement and initiator
// set, with the messages of each step; its terminal states are classed by
// the number M of processes ever in st cand or chosen (the actual
// initiators with RELAY and no announcement).
func crwRefModel(idsets [][]int, inits [][]bool, m crwRefMode) refModel[*crwRef] {
	rm := refModel[*crwRef]{
		key:      (*crwRef).key,
		next:     func(r *crwRef) ([]*crwRef, []int) { return r.next(m) },
		messages: true,
		class:    func(r *crwRef) int { return bytes.Count(r.st, []byte("c")) + bytes.Count(r.st, []byte("C")) },
	}
	for _, ids := range idsets {
		for _, set := range inits {
			n := len(ids)
			r := &crwRef{ids: ids, init: set, best: slices.Clone(ids), leader: make([]int, n), el: make([]bool, n),
				st: bytes.Repeat([]byte("a"), n), q: make([][]int, n)}
			rm.initial = append(rm.initial, r)
		}
	}
	return rm
}

// crwReference is the reference model's figures for the parameters p of
// chang-roberts-wakeup (testdata/counts/chang-roberts-wakeup.txt).
func crwReference(t testing.TB, p *Params) refFigures {
	ids := refIDs(t, p)
	inits, err := parseInitiators(p, len(ids[0]))
	if err != nil {
		t.Fatal(err)
	}
	mode := crwRefMode{wake: p.String("wakeup"), best: p.String("compare") == "best", announce: p.String("announce") == "on"}
	return refWalk(t, crwRefModel(ids, slices.Collect(inits.each), mode))
}

func crwFlags(n int, wake, cmp, ann string) map[string]string {
	return map[string]string{"n": fmt.Sprint(n), "wakeup": wake, "compare": cmp, "announce": ann}
}

func allSubsets(n int) [][]bool {
	var out [][]bool
	for mask := 1; mask < 1<<n; mask++ {
		set := make([]bool, n)
		for i := range set {
			set[i] = mask&(1<<i) != 0
		}
		out = append(out, set)
	}
	return out
}

// TestChangRobertsWakeupMessages checks the message figures of 1.3 over
// every ID arrangement and initiator subset: JOIN (CMP = OWN) as 1.1, min
// 2N−1 and max N(N+1)/2 (every process sends its own ID once and each ID
// travels as in 1.1); JOIN_OPT best case N (only the maximum starts; 4 at
// N=4) and max N(N+1)/2; RELAY min N (one actual initiator) and max
// N(N+1)/2 (M = N: MN − M(M−1)/2); CMP = BEST exactly as OWN (under FIFO a
// candidate never meets an ID between u and best: 1.3 says "never more");
// the announcement adds exactly N.
func TestChangRobertsWakeupMessages(t *testing.T) {
	t.Parallel()
	for n := 3; n <= 4; n++ {
		for _, tt := range []struct {
			wake, cmp string
			lo, hi    int
		}{
			{"join", "own", 2*n - 1, n * (n + 1) / 2},
			{"join", "best", 2*n - 1, n * (n + 1) / 2},
			{"join-opt", "own", n, n * (n + 1) / 2},
			{"relay", "own", n, n * (n + 1) / 2},
			{"relay", "best", n, n * (n + 1) / 2},
		} {
			for _, ann := range []string{"off", "on"} {
				lo, hi := tt.lo, tt.hi
				if ann == "on" {
					lo, hi = lo+n, hi+n
				}
				crwCheckMessages(t, crwFlags(n, tt.wake, tt.cmp, ann), lo, hi)
			}
		}
	}
	// A single initiator (--initiators one: process 1, every arrangement):
	// JOIN as 1.1; RELAY exactly N, 2N with the announcement.
	for n := 3; n <= 6; n++ {
		f := crwFlags(n, "join", "own", "off")
		f["initiators"] = "one"
		crwCheckMessages(t, f, 2*n-1, n*(n+1)/2)
		f["wakeup"] = "relay"
		crwCheckMessages(t, f, n, n)
		f["announce"] = "on"
		crwCheckMessages(t, f, 2*n, 2*n)
	}
}

func crwCheckMessages(t *testing.T, flags map[string]string, lo, hi int) {
	t.Helper()
	m := build(t, "chang-roberts-wakeup", flags)
	r, err := explorer.Check(m, explorer.Config{Metrics: []string{"messages"}, Properties: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if mm := r.Metrics[0]; mm.Min != int64(lo) || mm.Max != int64(hi) || mm.Unbounded {
		t.Errorf("%v: messages %d..%d, want %d..%d", flags, mm.Min, mm.Max, lo, hi)
	}
}

// TestChangRobertsWakeupRelayPerM checks RELAY (CMP = OWN, no
// announcement) per number M of actual initiators on the reference model,
// which also matches the explorer's counts (testdata/counts/chang-roberts-wakeup.txt):
// min N+M−1, max MN − M(M−1)/2. The section's reference values: N=4, M=1…4
// → min 4, 5, 6, 7 and max 4, 7, 9, 10.
func TestChangRobertsWakeupRelayPerM(t *testing.T) {
	t.Parallel()
	for n := 4; n <= 5; n++ {
		if n > 4 && !*long {
			t.Log("N=5 (432,000 reference states) only with -long")
			break
		}
		msgs := refWalk(t, crwRefModel(permutations(n), allSubsets(n), crwRefMode{wake: "relay"})).byClass
		for mm := 1; mm <= n; mm++ {
			want := [2]int64{int64(n + mm - 1), int64(mm*n - mm*(mm-1)/2)}
			if msgs[mm] != want {
				t.Errorf("n=%d M=%d: messages %v, want %v", n, mm, msgs[mm], want)
			}
		}
		if len(msgs) != n {
			t.Errorf("n=%d: runs end with %d distinct M, want %d", n, len(msgs), n)
		}
	}
}

// TestChangRobertsWakeupBroken: without the wake-up rule an initiator that
// relayed a smaller candidate's ID may still start; at N=3 the shortest
// counterexample has 8 steps (1 starts, 2 relays ELECT(1) and then starts,
// 1 is chosen on its own ID and forwards the larger ELECT(2), which comes
// back to 2), ending with both chosen. With the rule, UNIQ and VALID hold
// for RELAY even under unordered channels (1.3: safety does not depend on
// FIFO).
func TestChangRobertsWakeupBroken(t *testing.T) {
	t.Parallel()
	m := build(t, "chang-roberts-wakeup-broken", map[string]string{"n": "3"})
	r, err := explorer.Check(m, explorer.Config{Properties: twinOf(changRobertsWakeup()).Claims})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Violated || r.Violations[0].Property != properties.Uniqueness {
		t.Fatalf("%v %+v, want uniqueness violated", r.Status, r.Violations)
	}
	var acts []string
	for _, st := range r.Violations[0].Trace.Steps {
		acts = append(acts, st.Action)
	}
	want := "[start_{1} receive(ELECT(1))_{1,2} start_{2} receive(ELECT(1))_{2,3} receive(ELECT(2))_{2,3} receive(ELECT(1))_{3,1} receive(ELECT(2))_{3,1} receive(ELECT(2))_{1,2}]"
	if fmt.Sprint(acts) != want {
		t.Errorf("counterexample %v, want %s", acts, want)
	}
	for _, wake := range []string{"relay", "join", "join-opt"} {
		for _, obj := range []string{"max", "min"} {
			f := crwFlags(3, wake, "best", "on")
			f["channels"], f["objective"] = "unordered", obj
			m := build(t, "chang-roberts-wakeup", f)
			r, err := explorer.Check(m, explorer.Config{Properties: []string{properties.Uniqueness, properties.Agreement, properties.Validity}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != explorer.OK {
				t.Errorf("%v: %v %+v, want ok", f, r.Status, r.Violations)
			}
		}
	}
}

// TestChangRobertsWakeupObjectiveMin: with --objective min every claim
// holds and the state space is the mirror image of max (IDs k ↔ N+1−k over
// all arrangements), so the counts are the same.
func TestChangRobertsWakeupObjectiveMin(t *testing.T) {
	t.Parallel()
	for _, wake := range []string{"join", "join-opt", "relay"} {
		f := crwFlags(3, wake, "own", "on")
		f["objective"] = "min"
		r, err := explorer.Check(build(t, "chang-roberts-wakeup", f), explorer.Config{Properties: append(slices.Clone(changRobertsWakeup().Claims), properties.Termination)})
		if err != nil {
			t.Fatal(err)
		}
		f["objective"] = "max"
		rmax, _ := explorer.Check(build(t, "chang-roberts-wakeup", f), explorer.Config{Properties: []string{}})
		if r.Status != explorer.OK || r.States != rmax.States || r.Transitions != rmax.Transitions {
			t.Errorf("%s: %v, %d states, %d transitions; want ok and max's %d, %d", wake, r.Status, r.States, r.Transitions, rmax.States, rmax.Transitions)
		}
	}
}

func TestChangRobertsWakeupUsage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		spec  string
		flags map[string]string
	}{
		{"chang-roberts-wakeup", map[string]string{"wakeup": "sleep"}},
		{"chang-roberts-wakeup", map[string]string{"compare": "max"}},
		{"chang-roberts-wakeup", map[string]string{"announce": "yes"}},
		{"chang-roberts-wakeup", map[string]string{"objective": "median"}},
		{"chang-roberts-wakeup", map[string]string{"initiators": "0"}},
		{"chang-roberts-wakeup", map[string]string{"n": "0"}},
		{"chang-roberts-wakeup-broken", map[string]string{"wakeup": "join"}},
	} {
		s, _ := Lookup(tt.spec)
		err := buildErr(s, tt.flags)
		if !errors.Is(err, ErrUsage) {
			t.Errorf("%s %v: error %v, want ErrUsage", tt.spec, tt.flags, err)
		}
	}
}
