package specs

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// ptRef is a literal reference model of Peterson's algorithm
// (docs/algorithms/peterson.md), written without the automaton and explorer
// packages so that it checks them: process i has its ID, started, mode (0
// active, 1 relay, 2 elected), tid, first and the phase monitor; queue i holds
// the messages from i to i+1 (v > 0 for ONE(v), v < 0 for TWO(-v)).
type ptRef struct {
	u, mode, tid, first, phase []int
	started                    []bool
	queue                      [][]int
	sent                       int
}

func newPTRef(ids []int) *ptRef {
	n := len(ids)
	r := &ptRef{u: ids, mode: make([]int, n), tid: slices.Clone(ids), first: make([]int, n),
		phase: make([]int, n), started: make([]bool, n), queue: make([][]int, n)}
	for i := range r.phase {
		r.phase[i] = 1
	}
	return r
}

func (r *ptRef) clone() *ptRef {
	c := &ptRef{u: r.u, mode: slices.Clone(r.mode), tid: slices.Clone(r.tid), first: slices.Clone(r.first),
		phase: slices.Clone(r.phase), started: slices.Clone(r.started), sent: r.sent}
	for _, q := range r.queue {
		c.queue = append(c.queue, slices.Clone(q))
	}
	return c
}

func (r *ptRef) key() string {
	b := make([]byte, 0, 64)
	for i := range r.u {
		s := byte(0)
		if r.started[i] {
			s = 1
		}
		b = append(b, byte(r.u[i]), s, byte(r.mode[i]), byte(r.tid[i]), byte(r.first[i]), byte(r.phase[i]), byte(len(r.queue[i])))
		for _, m := range r.queue[i] {
			b = append(b, byte(int8(m)))
		}
	}
	return string(b)
}

// send puts m on the link from i to i+1, counting it unless it is a
// self-message (N = 1).
func (r *ptRef) send(i, m int) {
	r.queue[i] = append(r.queue[i], m)
	if len(r.u) > 1 {
		r.sent++
	}
}

// next returns the successors: every start, then every receive at the head
// of a channel whose receiver has started.
func (r *ptRef) next() []*ptRef {
	n := len(r.u)
	var out []*ptRef
	for i := 0; i < n; i++ {
		if !r.started[i] {
			c := r.clone()
			c.started[i] = true
			c.send(i, c.u[i])
			out = append(out, c)
		}
	}
	for i := 0; i < n; i++ {
		j := (i + 1) % n
		if len(r.queue[i]) == 0 || !r.started[j] {
			continue
		}
		c := r.clone()
		m := c.queue[i][0]
		c.queue[i] = c.queue[i][1:]
		switch {
		case c.mode[j] == 1:
			c.send(j, m)
		case m > 0 && m == c.tid[j]:
			c.mode[j] = 2
		case m > 0:
			c.first[j] = m
			c.send(j, -m)
		case c.first[j] > c.tid[j] && c.first[j] > -m:
			c.tid[j], c.first[j] = c.first[j], 0
			c.phase[j]++
			c.send(j, c.tid[j])
		default:
			c.mode[j], c.first[j] = 1, 0
		}
		out = append(out, c)
	}
	return out
}

// ptReference is the reference model's figures for the parameters p of
// peterson (testdata/counts/peterson.txt).
func ptReference(t testing.TB, p *Params) refFigures {
	m := refModel[*ptRef]{key: (*ptRef).key, next: func(r *ptRef) ([]*ptRef, []int) { return r.next(), nil }}
	for _, ids := range refIDs(t, p) {
		m.initial = append(m.initial, newPTRef(ids))
	}
	return refWalk(t, m)
}

// ptRunMessages returns the min and max over the arrangements in idsets of
// the messages of one complete run of the reference model (the count does
// not depend on the schedule, 1.6).
func ptRunMessages(idsets [][]int) (minMsgs, maxMsgs int) {
	minMsgs = -1
	for _, ids := range idsets {
		s := newPTRef(ids)
		for succ := s.next(); len(succ) > 0; succ = s.next() {
			s = succ[0]
		}
		if minMsgs < 0 || s.sent < minMsgs {
			minMsgs = s.sent
		}
		maxMsgs = max(maxMsgs, s.sent)
	}
	return minMsgs, maxMsgs
}

func ptIDs(t testing.TB, n int, mode string) [][]int {
	t.Helper()
	p, err := NewParams(peterson(), map[string]string{"n": fmt.Sprint(n), "ids": mode})
	if err != nil {
		t.Fatal(err)
	}
	return refIDs(t, p)
}

// TestPetersonMessages checks the figures of 1.6 over all arrangements: max
// 2N⌊log₂N⌋+N (reference values 6, 9, 20, 25, 30 for N = 2..6; N = 7
// gives 35, checked once from the CLI in 8 minutes), min 3N (a single
// survivor after phase 1). N = 1: the section says one message; the lone
// ONE(u) goes on the self-link C_{1,1}, and self-communication is never
// counted (0.3), so the tool says 0. The reference model's counts agree.
func TestPetersonMessages(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 6; n++ {
		if n > 5 && !*long {
			t.Log("N=6 (650,352 states) only with -long")
			break
		}
		wantMin, wantMax := 3*n, 2*n*(bits.Len(uint(n))-1)+n
		if n == 1 {
			wantMin, wantMax = 0, 0
		}
		refMin, refMax := ptRunMessages(ptIDs(t, n, "all"))
		if refMin != wantMin || refMax != wantMax {
			t.Errorf("n=%d: reference min %d max %d; want %d and %d", n, refMin, refMax, wantMin, wantMax)
		}
		m := build(t, "peterson", map[string]string{"n": fmt.Sprint(n), "ids": "all"})
		r, err := explorer.Check(m, explorer.Config{Metrics: []string{"messages"}, Properties: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		mm := r.Metrics[0]
		if mm.Min != int64(wantMin) || mm.Max != int64(wantMax) || mm.Unbounded {
			t.Errorf("n=%d: messages min %d max %d; want %d and %d", n, mm.Min, mm.Max, wantMin, wantMax)
		}
	}
}

// TestPetersonObjectiveMin: with --objective min every claim holds and the
// elected tid is the minimum.
func TestPetersonObjectiveMin(t *testing.T) {
	t.Parallel()
	m := build(t, "peterson", map[string]string{"n": "4", "objective": "min"})
	r, err := explorer.Check(m, explorer.Config{Properties: peterson().Claims, Metrics: []string{"messages"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.OK || r.States != 2376 {
		t.Fatalf("status %v, %d states %+v; want ok and 2376 states (mirror of max)", r.Status, r.States, r.Violations)
	}
	if mm := r.Metrics[0]; mm.Min != 12 || mm.Max != 20 {
		t.Errorf("messages min %d max %d; want 12 and 20", mm.Min, mm.Max)
	}
}

// TestPetersonUnordered: FIFO is required (1.6, section 3): without it the
// phase-alignment assertions fail, and so do validity and the survivor
// bound.
func TestPetersonUnordered(t *testing.T) {
	t.Parallel()
	for n := 2; n <= 4; n++ {
		m := build(t, "peterson", map[string]string{"n": fmt.Sprint(n), "channels": "unordered"})
		for _, prop := range []string{"phase-alignment", properties.Validity, "phase-survivors"} {
			r, err := explorer.Check(m, explorer.Config{Properties: []string{prop}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != explorer.Violated || r.Violations[0].Property != prop {
				t.Errorf("n=%d: %s: status %v, want violated", n, prop, r.Status)
			}
		}
	}
}

// TestPetersonElectedIsNotIMax: "the elected process is i_max" is offered,
// not claimed, and fails for N ≥ 2 in every single arrangement (1.6,
// "Leader identity"): the holder of the maximum never survives phase 1.
func TestPetersonElectedIsNotIMax(t *testing.T) {
	t.Parallel()
	if !slices.Contains(mustOffered(t, peterson()), ptElectedIsExtremum) || slices.Contains(peterson().Claims, ptElectedIsExtremum) {
		t.Fatalf("%s must be offered and not claimed", ptElectedIsExtremum)
	}
	for n := 2; n <= 4; n++ {
		for _, ids := range permutations(n) {
			list := fmt.Sprint(ids[0])
			for _, id := range ids[1:] {
				list += fmt.Sprintf(",%d", id)
			}
			m := build(t, "peterson", map[string]string{"n": fmt.Sprint(n), "ids": list})
			r, err := explorer.Check(m, explorer.Config{Properties: []string{ptElectedIsExtremum}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != explorer.Violated {
				t.Errorf("ids %s: status %v, want %s violated", list, r.Status, ptElectedIsExtremum)
			}
		}
	}
	m := build(t, "peterson", map[string]string{"n": "1"})
	if r, err := explorer.Check(m, explorer.Config{Properties: []string{ptElectedIsExtremum}}); err != nil || r.Status != explorer.OK {
		t.Errorf("n=1: status %v (%v), want ok", r.Status, err)
	}
}

func mustOffered(t *testing.T, s Spec) []string {
	t.Helper()
	o, err := s.Offered()
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestPetersonBroken: a survivor that keeps its own tid gets a smaller
// value elected; N=2, IDs 1,2: p1 survives phase 1 still holding 1, and
// its ONE(1) comes back round through the relay p2 (8 steps).
func TestPetersonBroken(t *testing.T) {
	t.Parallel()
	m := build(t, "peterson-broken", map[string]string{"n": "2", "ids": "1,2"})
	r, err := explorer.Check(m, explorer.Config{Properties: []string{properties.Validity}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Violated || r.Violations[0].Property != properties.Validity {
		t.Fatalf("status %v %+v, want validity violated", r.Status, r.Violations)
	}
	if got := len(r.Violations[0].Trace.Steps); got != 8 {
		t.Errorf("counterexample of %d steps, want 8", got)
	}
	m = build(t, "peterson-broken", map[string]string{"n": "4"})
	if r, err := explorer.Check(m, explorer.Config{Properties: []string{properties.Validity}}); err != nil || r.Status != explorer.Violated {
		t.Errorf("n=4: status %v (%v), want validity violated", r.Status, err)
	}
}

func TestPetersonUsage(t *testing.T) {
	t.Parallel()
	for _, flags := range []map[string]string{
		{"n": "0"},
		{"n": "3", "ids": "1,1,2"},
		{"n": "3", "ids": "1,2"},
		{"objective": "median"},
		{"channels": "lossy"},
		{"capacity": "0"},
	} {
		err := buildErr(peterson(), flags)
		if !errors.Is(err, ErrUsage) {
			t.Errorf("%v: error %v, want ErrUsage", flags, err)
		}
	}
}
