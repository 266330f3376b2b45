package specs

import (
	"fmt"
	"github.com/vacheck/vacheck/election"
	"regexp"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// crRef is a plain reference model of the formal Chang-Roberts automaton
// (docs/algorithms/chang-roberts.md), written without the automaton and
// explorer packages so that it checks them: process i has ID ids[i], a send
// buffer and a status; queue i holds the messages from i to i+1.
type crRef struct {
	ids    []int
	send   [][]int
	chosen []bool
	queue  [][]int
	broken bool
}

func newCRRef(ids []int, broken bool) *crRef {
	n := len(ids)
	r := &crRef{ids: ids, send: make([][]int, n), chosen: make([]bool, n), queue: make([][]int, n), broken: broken}
	for i, id := range ids {
		r.send[i] = []int{id}
	}
	return r
}

func (r *crRef) clone() *crRef {
	c := &crRef{ids: r.ids, chosen: slices.Clone(r.chosen), broken: r.broken}
	for i := range r.ids {
		c.send = append(c.send, slices.Clone(r.send[i]))
		c.queue = append(c.queue, slices.Clone(r.queue[i]))
	}
	return c
}

func (r *crRef) key() string {
	b := make([]byte, 0, 64)
	for i := range r.ids {
		b = append(b, byte(r.ids[i]), byte(len(r.send[i])), byte(len(r.queue[i])))
		if r.chosen[i] {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		for _, v := range r.send[i] {
			b = append(b, byte(v))
		}
		for _, v := range r.queue[i] {
			b = append(b, byte(v))
		}
	}
	return string(b)
}

// next returns the successors: every send(v)_{i,i+1} with a non-empty
// buffer, then every receive at the head of a non-empty channel.
func (r *crRef) next() []*crRef {
	n := len(r.ids)
	var out []*crRef
	for i := 0; i < n; i++ {
		if len(r.send[i]) > 0 {
			c := r.clone()
			v := c.send[i][0]
			c.send[i] = c.send[i][1:]
			c.queue[i] = append(c.queue[i], v)
			out = append(out, c)
		}
	}
	for i := 0; i < n; i++ {
		if len(r.queue[i]) > 0 {
			out = append(out, r.receive(i))
		}
	}
	return out
}

// receive delivers the head of queue i to process i+1.
func (r *crRef) receive(i int) *crRef {
	n := len(r.ids)
	c := r.clone()
	v := c.queue[i][0]
	c.queue[i] = c.queue[i][1:]
	j := (i + 1) % n
	switch {
	case v > c.ids[j]:
		c.send[j] = append(c.send[j], v)
	case v == c.ids[j]:
		c.chosen[j] = true
	case c.broken:
		c.send[j] = append(c.send[j], v)
	}
	return c
}

// crRefModel is the reference model from every arrangement in idsets.
func crRefModel(idsets [][]int, broken bool) refModel[*crRef] {
	m := refModel[*crRef]{key: (*crRef).key, next: func(r *crRef) ([]*crRef, []int) { return r.next(), nil }}
	for _, ids := range idsets {
		m.initial = append(m.initial, newCRRef(ids, broken))
	}
	return m
}

// crReference is the reference model's figures for the parameters p of
// chang-roberts or its broken twin (testdata/counts/chang-roberts.txt).
func crReference(t testing.TB, p *Params) refFigures {
	return refWalk(t, crRefModel(refIDs(t, p), p.Broken()))
}

func crIDs(t testing.TB, n int, mode string) [][]int {
	t.Helper()
	p, err := NewParams(changRoberts(), map[string]string{"n": fmt.Sprint(n), "ids": mode})
	if err != nil {
		t.Fatal(err)
	}
	return refIDs(t, p)
}

var labelRE = regexp.MustCompile(`^(send|receive)\((\d+)\)_\{(\d+),(\d+)\}$`)

// TestChangRobertsBrokenShortestTrace checks the broken twin: uniqueness is
// violated, the BFS counterexample is as short as the reference model's
// shortest path to two chosen processes, and it replays step by step on the
// reference model from its initial state to the violating state.
func TestChangRobertsBrokenShortestTrace(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n   int
		ids string
	}{{3, "increasing"}, {3, "all"}, {4, "decreasing"}, {4, "all"}} {
		t.Run(fmt.Sprintf("n=%d/ids=%s", tt.n, tt.ids), func(t *testing.T) {
			m := build(t, "chang-roberts-broken", map[string]string{"n": fmt.Sprint(tt.n), "ids": tt.ids})
			r, err := explorer.Check(m, explorer.Config{Properties: []string{properties.Uniqueness}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != explorer.Violated || r.Violations[0].Property != properties.Uniqueness {
				t.Fatalf("status %v %+v, want uniqueness violated", r.Status, r.Violations)
			}
			tr := r.Violations[0].Trace
			idsets := crIDs(t, tt.n, tt.ids)
			if got := shortestTwoChosen(t, idsets); len(tr.Steps) != got {
				t.Errorf("counterexample of %d steps; the shortest has %d", len(tr.Steps), got)
			}
			// Replay on the reference model.
			cur := newCRRef(idsets[tr.Initial], true)
			for k, st := range tr.Steps {
				g := labelRE.FindStringSubmatch(st.Action)
				if g == nil {
					t.Fatalf("step %d: unexpected action %q", k+1, st.Action)
				}
				v, _ := strconv.Atoi(g[2])
				i, _ := strconv.Atoi(g[3])
				i-- // labels number processes from 1
				if g[1] == "send" {
					if len(cur.send[i]) == 0 || cur.send[i][0] != v {
						t.Fatalf("step %d: %s is not enabled", k+1, st.Action)
					}
					cur = cur.clone()
					cur.send[i] = cur.send[i][1:]
					cur.queue[i] = append(cur.queue[i], v)
				} else {
					if len(cur.queue[i]) == 0 || cur.queue[i][0] != v {
						t.Fatalf("step %d: %s is not enabled", k+1, st.Action)
					}
					cur = cur.receive(i)
				}
			}
			if chosen := crRefChosen(cur); chosen < 2 {
				t.Errorf("the replayed trace ends with %d chosen processes, want at least 2", chosen)
			}
		})
	}
}

// shortestTwoChosen is the length of the shortest path of the broken
// reference model to a state with two chosen processes, or -1.
func shortestTwoChosen(t testing.TB, idsets [][]int) int {
	shortest := -1
	m := crRefModel(idsets, true)
	m.visit = func(r *crRef, depth int, _ []*crRef) {
		if shortest < 0 && crRefChosen(r) >= 2 {
			shortest = depth
		}
	}
	refWalk(t, m)
	return shortest
}

// crRefChosen is the number of chosen processes of r.
func crRefChosen(r *crRef) int {
	chosen := 0
	for _, c := range r.chosen {
		if c {
			chosen++
		}
	}
	return chosen
}

// TestChangRobertsMessages checks the classic figures over all ID arrangements
// (docs/algorithms/chang-roberts.md): at least 2N-1 messages (IDs increasing
// along the ring, every smaller ID discarded at once) and at most N(N+1)/2 (IDs
// decreasing), whatever the schedule; the witnesses are rotations of the
// increasing and decreasing arrangements.
func TestChangRobertsMessages(t *testing.T) {
	t.Parallel()
	for n := 3; n <= 6; n++ {
		if n > 5 && !*long {
			t.Log("N=6 (1,809,852 states) only with -long")
			break
		}
		m := build(t, "chang-roberts", map[string]string{"n": fmt.Sprint(n), "ids": "all"})
		r, err := explorer.Check(m, explorer.Config{Metrics: []string{"messages"}, Properties: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		mm := r.Metrics[0]
		if mm.Min != int64(2*n-1) || mm.Max != int64(n*(n+1)/2) || mm.Unbounded {
			t.Errorf("n=%d: messages min %d max %d; want %d and %d", n, mm.Min, mm.Max, 2*n-1, n*(n+1)/2)
		}
		ids := permutations(n)
		if got := ids[mm.MinWitness.Initial]; !isRotation(got, increasing(n)) {
			t.Errorf("n=%d: min witness starts from %v, want a rotation of the increasing arrangement", n, got)
		}
		if got := ids[mm.MaxWitness.Initial]; !isRotation(got, decreasing(n)) {
			t.Errorf("n=%d: max witness starts from %v, want a rotation of the decreasing arrangement", n, got)
		}
	}
}

func increasing(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

func decreasing(n int) []int {
	out := increasing(n)
	slices.Reverse(out)
	return out
}

func isRotation(a, b []int) bool {
	for r := range b {
		if slices.Equal(a, append(slices.Clone(b[r:]), b[:r]...)) {
			return true
		}
	}
	return false
}

// TestChangRobertsTermination: termination in the lectures' sense (every
// process knows the leader) is offered but fails for plain Chang-Roberts,
// with a finite counterexample ending in the terminal state where only the
// leader knows (KNOW fails, docs/algorithms/chang-roberts.md).
func TestChangRobertsTermination(t *testing.T) {
	t.Parallel()
	m := build(t, "chang-roberts", map[string]string{"n": "3", "ids": "increasing"})
	r, err := explorer.Check(m, explorer.Config{Properties: []string{properties.Termination}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Violated || r.Violations[0].Property != properties.Termination {
		t.Fatalf("status %v %+v, want termination violated", r.Status, r.Violations)
	}
	tr := r.Violations[0].Trace
	if len(tr.Cycle) != 0 || len(tr.Steps) != 10 {
		t.Errorf("counterexample of %d steps and a cycle of %d; want a finite run of 10 steps", len(tr.Steps), len(tr.Cycle))
	}
}

// TestChangRobertsQuiescence: QUIESCE holds (docs/algorithms/chang-roberts.md),
// for the twin too: every fair run empties every buffer and channel, on every
// arrangement, although no one but the leader learns the result (termination,
// above, fails).
func TestChangRobertsQuiescence(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"chang-roberts", "chang-roberts-broken"} {
		m := build(t, spec, map[string]string{"n": "4"})
		r, err := explorer.Check(m, explorer.Config{Properties: []string{properties.Quiescence}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != explorer.OK || r.Graph == nil {
			t.Errorf("%s: %v %+v, want quiescence to hold on the liveness graph", spec, r.Status, r.Violations)
		}
	}
}

// crLemma1Literal is Lemma 1 as docs/algorithms/chang-roberts.md states it: for
// every i other than i_max and every j in [i_max, i), u_i is neither in send_j
// nor in queue_{j,j+1}.
func crLemma1Literal(v *crView) bool {
	n, imax := v.N(), crMax(v)
	for i := 0; i < n; i++ {
		if i == imax {
			continue
		}
		u := v.Proc(i).U
		for j := imax; j != i; j = (j + 1) % n {
			if slices.Contains(v.Proc(j).Send, u) || slices.Contains(v.Chan(j, (j+1)%n), u) {
				return false
			}
		}
	}
	return true
}

// TestChangRobertsLemma1 compares crLemma1, which reads each buffer and
// channel once, with the lemma as stated, in every reachable state of the
// correct model and of the broken twin (whose smaller IDs travel past
// i_max, so the lemma fails in most of its states), for both objectives,
// and with repeated IDs, which the command line refuses but the lemma is
// defined for.
func TestChangRobertsLemma1(t *testing.T) {
	t.Parallel()
	idsets := []struct {
		name string
		sets [][]int
		long bool // only with -long
	}{
		{"n=3/all", crIDs(t, 3, "all"), false},
		{"n=4/all", crIDs(t, 4, "all"), false},
		{"n=5/all", crIDs(t, 5, "all"), true},
		{"n=3/repeated", [][]int{{2, 1, 2}, {2, 2, 2}, {1, 1, 2}}, false},
		{"n=4/repeated", [][]int{{1, 3, 3, 2}, {3, 1, 3, 1}}, false},
		{"n=3/beyond-table", [][]int{{100, 1, 70}, {70, 100, 1}}, false}, // crLemma1Ring
		{"n=4/beyond-table-repeated", [][]int{{100, 3, 100, 2}, {65, 0, 65, 64}}, false},
	}
	for _, tt := range idsets {
		name, sets, large := tt.name, tt.sets, tt.long
		for _, broken := range []bool{false, true} {
			for _, obj := range []objective{objMax, objMin} {
				t.Run(fmt.Sprintf("%s/broken=%v/objective=%d", name, broken, obj), func(t *testing.T) {
					if large {
						skipUnlessLong(t) // N=5, every arrangement
					}
					var tally lemma1Tally
					initial := func(yield func([]crNode) bool) {
						for _, ids := range sets {
							procs := make([]crNode, len(ids))
							for i, id := range ids {
								procs[i] = crNode{U: id, Send: []int{id}, Broken: broken, Obj: obj}
							}
							if !yield(procs) {
								return
							}
						}
					}
					m, err := automaton.New(automaton.Config[crNode, int]{
						InitialSeq: initial,
						Links:      automaton.Ring(len(sets[0])),
						Invariants: []automaton.Invariant[crNode, int]{tally.invariant(true)},
					})
					if err != nil {
						t.Fatal(err)
					}
					r, err := explorer.Check(m, explorer.Config{Workers: 1, Properties: []string{"same"}})
					if err != nil {
						t.Fatal(err)
					}
					if r.Status != explorer.OK {
						t.Fatalf("status %v (%s)", r.Status, r.Reason)
					}
					tally.report(t, broken)
				})
			}
		}
	}
}

// lemma1Tally compares crLemma1 with crLemma1Literal in every state a
// search or simulation checks, through the invariant "same", which always
// holds: it counts the states where they differ (keeping the first), and
// where both hold or both fail.
type lemma1Tally struct {
	holds, fails, differ int
	first                string
}

// invariant returns the invariant "same"; detail has the first difference
// name the state's processes and channels (not for rings of hundreds).
func (c *lemma1Tally) invariant(detail bool) automaton.Invariant[crNode, int] {
	return automaton.Invariant[crNode, int]{Name: "same", Holds: func(v *crView) bool {
		fast, literal := crLemma1(v), crLemma1Literal(v)
		switch {
		case fast != literal:
			if c.differ++; c.first == "" {
				c.first = fmt.Sprintf("crLemma1 %v, literal %v", fast, literal)
				if detail {
					c.first += fmt.Sprintf(" in %+v, channels %v", crProcs(v), crChans(v))
				}
			}
		case fast:
			c.holds++
		default:
			c.fails++
		}
		return true
	}}
}

// report fails t if the two differed in a state, or if the comparison
// did not see the lemma hold, and, for the broken twin, fail.
func (c *lemma1Tally) report(t *testing.T, broken bool) {
	t.Helper()
	if c.differ > 0 {
		t.Errorf("%d of %d states differ; the first: %s", c.differ, c.holds+c.fails+c.differ, c.first)
	}
	if c.holds == 0 || (broken && c.fails == 0) {
		t.Errorf("the lemma holds in %d states and fails in %d: the comparison needs both", c.holds, c.fails)
	}
}

func crProcs(v *crView) []crNode {
	var ps []crNode
	for i := 0; i < v.N(); i++ {
		ps = append(ps, *v.Proc(i))
	}
	return ps
}

func crChans(v *crView) [][]int {
	var cs [][]int
	for j := 0; j < v.N(); j++ {
		cs = append(cs, v.Chan(j, (j+1)%v.N()))
	}
	return cs
}

// TestCRInvariantsAsTheKit: chang-roberts's uniqueness and validity,
// written for its process type (crUnique, crValid), give the kit's
// verdicts (election.Uniqueness and Validity of the same tests) in every
// state of N=4 with every arrangement of IDs, objective max and min, and
// of the broken twin, whose states break both: an extra invariant that
// holds where the two agree must hold everywhere, and the states where the
// kit finds a violation must be there to compare.
func TestCRInvariantsAsTheKit(t *testing.T) {
	t.Parallel()
	kitU := election.Uniqueness[crNode, int](crIsChosen)
	kitV := election.Validity(crClaim, crBest)
	var broke [2]atomic.Int64 // states where the kit's uniqueness, validity fail
	agree := automaton.Invariant[crNode, int]{Name: "as-the-kit", Doc: "crUnique and crValid as the kit's", Holds: func(v *crView) bool {
		u, val := kitU.Holds(v), kitV.Holds(v)
		if !u {
			broke[0].Add(1)
		}
		if !val {
			broke[1].Add(1)
		}
		return crUnique(v) == u && crValid(v) == val
	}}
	for _, tc := range []struct {
		spec      string
		objective string
		broken    bool // the kit finds both invariants broken in some state
	}{
		{"chang-roberts", "max", false},
		{"chang-roberts", "min", false},
		{"chang-roberts-broken", "max", true},
		{"chang-roberts-broken", "min", true},
	} {
		broke[0].Store(0)
		broke[1].Store(0)
		s, err := Lookup(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewParams(s, map[string]string{"n": "4", "ids": "all", "objective": tc.objective})
		if err != nil {
			t.Fatal(err)
		}
		m, err := crBuild(p, []automaton.Invariant[crNode, int]{agree})
		if err != nil {
			t.Fatal(err)
		}
		r, err := explorer.Check(m, explorer.Config{Properties: []string{"as-the-kit"}, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != explorer.OK || r.States == 0 {
			t.Errorf("%s --objective %s: %v after %d states %+v, want the two to agree in every state", tc.spec, tc.objective, r.Status, r.States, r.Violations)
		}
		if got := broke[0].Load() > 0 && broke[1].Load() > 0; got != tc.broken {
			t.Errorf("%s --objective %s: the kit found uniqueness broken in %d states and validity in %d; want both broken somewhere: %v", tc.spec, tc.objective, broke[0].Load(), broke[1].Load(), tc.broken)
		}
	}
}
