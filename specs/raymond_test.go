package specs

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// rayRef is a literal reference model of Raymond's algorithm
// (docs/algorithms/raymond.md), written from the pseudocode without the
// automaton package, with enter as its own step as in the spec's Choice.
// Processes are 0-based; process 0 holds the token first, the others point to
// their parent in the tree rooted at 0.
type rayRef struct {
	ust, done    []int // 0 idle, 1 trying, 2 critical
	holder       []int
	asked        []bool
	q            [][]int
	ch           map[[2]int][]byte // FIFO channels on tree edges: 'R', 'P'
	sent         int               // messages sent to reach this state
	reqs         []int             // constant
	adj          [][]int           // constant
	brokenAssign bool              // constant
}

func newRayRef(edges [][2]int, n int, reqs []int, broken bool) *rayRef {
	r := &rayRef{ust: make([]int, n), done: make([]int, n), holder: make([]int, n), asked: make([]bool, n),
		q: make([][]int, n), ch: map[[2]int][]byte{}, reqs: reqs, adj: make([][]int, n), brokenAssign: broken}
	for _, e := range edges {
		r.adj[e[0]] = append(r.adj[e[0]], e[1])
		r.adj[e[1]] = append(r.adj[e[1]], e[0])
	}
	var walk func(u, parent int)
	walk = func(u, parent int) {
		r.holder[u] = parent
		for _, w := range r.adj[u] {
			if w != parent {
				walk(w, u)
			}
		}
	}
	walk(0, 0)
	return r
}

func (r *rayRef) clone() *rayRef {
	c := *r
	c.ust, c.done, c.holder, c.asked = slices.Clone(r.ust), slices.Clone(r.done), slices.Clone(r.holder), slices.Clone(r.asked)
	c.q = make([][]int, len(r.q))
	for i := range r.q {
		c.q[i] = slices.Clone(r.q[i])
	}
	c.ch = map[[2]int][]byte{}
	for k, v := range r.ch {
		if len(v) > 0 {
			c.ch[k] = slices.Clone(v)
		}
	}
	return &c
}

func (r *rayRef) key() string {
	var b strings.Builder
	for i := range r.ust {
		fmt.Fprintf(&b, "%d%d%d%v%v|", r.ust[i], r.done[i], r.holder[i], r.asked[i], r.q[i])
	}
	for i := range r.adj {
		for _, j := range r.adj[i] {
			fmt.Fprintf(&b, "%s,", r.ch[[2]int{i, j}])
		}
	}
	return b.String()
}

func (r *rayRef) send(i, j int, m byte) {
	r.ch[[2]int{i, j}] = append(r.ch[[2]int{i, j}], m)
	r.sent++
}

// assignAsk is ASSIGN(); ASK() at process i.
func (r *rayRef) assignAsk(i int) {
	if r.holder[i] == i && r.ust[i] != 2 && len(r.q[i]) > 0 && r.q[i][0] != i {
		r.holder[i], r.q[i] = r.q[i][0], r.q[i][1:]
		if !r.brokenAssign {
			r.asked[i] = false
		}
		r.send(i, r.holder[i], 'P')
	}
	if r.holder[i] != i && len(r.q[i]) > 0 && !r.asked[i] {
		r.send(i, r.holder[i], 'R')
		r.asked[i] = true
	}
}

// next returns the successors: request, enter, exit of every process, then
// the head of every non-empty channel.
func (r *rayRef) next() []*rayRef {
	var out []*rayRef
	for i := range r.ust {
		s := r.clone()
		switch {
		case r.ust[i] == 0 && r.done[i] < r.reqs[i]:
			s.ust[i] = 1
			s.q[i] = append(s.q[i], i)
			s.assignAsk(i)
		case r.ust[i] == 1 && r.holder[i] == i && len(r.q[i]) > 0 && r.q[i][0] == i:
			s.ust[i], s.q[i], s.asked[i] = 2, s.q[i][1:], false
		case r.ust[i] == 2:
			s.ust[i], s.done[i] = 0, r.done[i]+1
			s.assignAsk(i)
		default:
			continue
		}
		out = append(out, s)
	}
	for e, c := range r.ch {
		if len(c) == 0 {
			continue
		}
		s := r.clone()
		s.ch[e] = s.ch[e][1:]
		if c[0] == 'R' {
			s.q[e[1]] = append(s.q[e[1]], e[0])
		} else {
			s.holder[e[1]] = e[1]
		}
		s.assignAsk(e[1])
		out = append(out, s)
	}
	return out
}

// rayReference is the literal model's figures, with the message range,
// for the parameters p of raymond, or with asked never reset of
// raymond-broken (testdata/counts/raymond.txt).
func rayReference(t testing.TB, p *Params, broken bool) refFigures {
	g, err := parseGraphTopology(p)
	if err != nil {
		t.Fatal(err)
	}
	var edges [][2]int
	for i, ns := range g.Adj {
		for _, j := range ns {
			if i < j {
				edges = append(edges, [2]int{i, j})
			}
		}
	}
	_, r, req := refUsers(t, p)
	reqs := make([]int, g.N)
	for i := range reqs {
		if req[i] {
			reqs[i] = r
		}
	}
	return refWalk(t, refModel[*rayRef]{
		initial: []*rayRef{newRayRef(edges, g.N, reqs, broken)},
		key:     (*rayRef).key,
		next: func(r *rayRef) ([]*rayRef, []int) {
			succ := r.next()
			sent := make([]int, len(succ))
			for k, s := range succ {
				sent[k] = s.sent - r.sent
			}
			return succ, sent
		},
		messages: true,
	})
}

// rayStarAt2 is testdata/star2.txt: a star with centre 2, so that the
// token starts at a leaf (d = 2).
const rayStarAt2 = "testdata/star2.txt"

var raySafety = []string{properties.TokenUniqueness, properties.MutualExclusion, "holder-acyclic", properties.DeadlockFreedom}

// TestRaymondMessages pins the total messages over complete executions
// against 2.11's "at most 2·d per entry" (d the tree's diameter).
//
// One requester with one request at distance dist from the token (process
// 1): its REQUEST climbs dist edges and the PRIVILEGE comes back down the
// same dist edges, exactly 2·dist messages in every run, 2d for the
// farthest process. Several entries: the total never exceeds 2d per entry
// (checked), and is pinned with the reason for the minimum in a comment.
func TestRaymondMessages(t *testing.T) {
	t.Parallel()
	star := rayStarAt2
	cases := []struct {
		flags    map[string]string
		d        int // the tree's diameter
		entries  int
		min, max int64
	}{
		// Single requester: exactly 2·dist.
		{map[string]string{"n": "4", "requesters": "1"}, 3, 1, 0, 0},         // dist 0: the holder enters alone
		{map[string]string{"n": "4", "requesters": "2"}, 3, 1, 2, 2},         // dist 1
		{map[string]string{"n": "4", "requesters": "4"}, 3, 1, 6, 6},         // dist 3 = d: 2d = 6
		{map[string]string{"n": "6", "requesters": "6"}, 5, 1, 10, 10},       // line N=6: 2d = 10
		{map[string]string{"topology": star, "requesters": "3"}, 2, 1, 4, 4}, // star centred at 2, token at leaf 1: 2d = 4
		{map[string]string{"topology": "star", "n": "5", "requesters": "5"}, 2, 1, 2, 2},
		// One requester, three requests: the token comes once, 2·dist.
		{map[string]string{"n": "4", "requesters": "4", "requests": "3"}, 3, 3, 6, 6},
		// All requesting once: within 2d per entry. Line N=4: the token
		// must at least travel to process 4 (3 PRIVILEGEs, 3 REQUESTs).
		{map[string]string{"n": "4"}, 3, 4, 6, 18},
		// Star N=4 (centre 1 holds the token): the first leaf costs 2,
		// each later one 4 (REQUEST to the centre, REQUEST to the leaf
		// holding the token, PRIVILEGE back, PRIVILEGE on).
		{map[string]string{"n": "4", "topology": "star"}, 2, 4, 10, 12},
		{map[string]string{"topology": star}, 2, 4, 8, 14},
		// Line N=3, two requests each (6 entries).
		{map[string]string{"n": "3", "requests": "2"}, 2, 6, 4, 18},
	}
	for _, c := range cases {
		t.Run(flagString(c.flags), func(t *testing.T) {
			r := check(t, "raymond", c.flags, explorer.Config{Properties: raySafety, Metrics: []string{"messages"}})
			if r.Status != explorer.OK {
				t.Fatalf("status %v (%s)", r.Status, r.Reason)
			}
			mm := r.Metrics[0]
			if mm.Min != c.min || mm.Max != c.max {
				t.Errorf("messages %d…%d, want %d…%d", mm.Min, mm.Max, c.min, c.max)
			}
			if mm.Max > int64(2*c.d*c.entries) {
				t.Errorf("max %d messages for %d entries exceeds 2d per entry (d = %d)", mm.Max, c.entries, c.d)
			}
		})
	}
}

// TestRaymondBroken: with asked never reset when the token passes through,
// process 2 of the line 1-2-3 forwards the token to 3 while its own
// request is queued and never asks 3 for it: a deadlock, and progress
// fails. The correct spec passes the same instance.
func TestRaymondBroken(t *testing.T) {
	t.Parallel()
	flags := map[string]string{"n": "3"}
	r := check(t, "raymond-broken", flags, explorer.Config{Properties: raySafety})
	if r.Status != explorer.Violated || r.Violations[0].Property != properties.DeadlockFreedom {
		t.Fatalf("got %v %+v, want a deadlock", r.Status, r.Violations)
	}
	if ex := strings.Join(r.Violations[0].Trace.Explanation, "\n"); !strings.Contains(ex, "process 2 is trying, holder 3, queue [self 1], asked") {
		t.Errorf("explanation:\n%s", ex)
	}
	r = check(t, "raymond-broken", flags, explorer.Config{Properties: []string{properties.Progress}})
	if r.Status != explorer.Violated || r.Violations[0].Property != properties.Progress {
		t.Fatalf("got %v %+v, want progress violated", r.Status, r.Violations)
	}
	// Safety still holds (testdata/counts/raymond.txt, with the reference
	// model's figures). N=2 does not show it: the token only ever passes
	// to a requester.
	if r := check(t, "raymond-broken", map[string]string{"n": "2", "requests": "2"}, explorer.Config{}); r.Status != explorer.OK {
		t.Fatalf("n=2: %v", r.Status)
	}
}

// TestRaymondUsage: a topology that is not a tree and bad user-part values
// are usage errors naming the flag.
func TestRaymondUsage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		flags map[string]string
		want  string
	}{
		{map[string]string{"topology": "ring", "n": "4"}, "--topology ring: ring is not a tree (4 nodes, 4 edges)"},
		{map[string]string{"topology": "complete", "n": "3"}, "--topology complete"},
		{map[string]string{"topology": "nosuchfile"}, "--topology nosuchfile"},
		{map[string]string{"n": "0"}, "--n"},
		{map[string]string{"requests": "9"}, "--requests 9"},
		{map[string]string{"requesters": "5", "n": "4"}, "--requesters 5"},
		{map[string]string{"channels": "lossy"}, "--channels lossy"},
	} {
		p, err := NewParams(raymond(), c.flags)
		if err != nil {
			t.Fatal(err)
		}
		_, err = raymond().Build(p)
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want a usage error containing %q", c.flags, err, c.want)
		}
	}
}
