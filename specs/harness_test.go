package specs

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton/automatontest"
	"github.com/vacheck/vacheck/explorer"
)

// This file is the spec tests' common harness: one check helper, and one
// walker for the independent reference models the tests compare the specs
// with (each spec's test file keeps only its model's states and next
// function). The pinned counts themselves are in testdata/counts, run by
// counts_test.go.

// check builds spec with flags and checks it with cfg, the spec's claims
// when cfg names no property, failing the test on a search error or a
// model failure (automatontest.Check); the verdict is the caller's to
// read.
func check(t testing.TB, spec string, flags map[string]string, cfg explorer.Config) *explorer.Result {
	t.Helper()
	s, err := Lookup(spec)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Properties == nil {
		cfg.Properties = s.Claims
	}
	return automatontest.Check(t, buildSpec(t, s, flags), cfg)
}

// refModel is a state graph to walk outside the explorer: a spec's
// independent reference model, written from ALGORITHMS.md without the
// automaton and explorer packages, or a model's own successor function
// (modelRef).
type refModel[S any] struct {
	initial []S
	key     func(S) string // equal keys for equal states
	// next returns the successors of a state, in any order, and with
	// messages set the number of messages each transition sends.
	next     func(S) ([]S, []int)
	messages bool
	// class, when set (with messages), sorts the terminal states into
	// classes, each with its own message range (refFigures.byClass).
	class func(S) int
	// terminal, when set, tells the terminal states (whose successors are
	// given) as the spec counts them; by default, the states without
	// successors.
	terminal func(s S, succ []S) bool
	// visit, when set, is called once for every distinct state, with its
	// depth (the length of a shortest path from an initial state) and its
	// successors, in breadth-first order.
	visit func(s S, depth int, succ []S)
}

// refFigures are what refWalk counts.
type refFigures struct {
	states, transitions, terminal int64
	// With refModel.messages: the fewest and most messages sent on a path
	// from an initial state to a terminal state (over complete
	// executions), overall and per class of terminal state.
	lo, hi  int64
	byClass map[int][2]int64
}

// refWalk explores m breadth first from its initial states and counts its
// distinct states, transitions and terminal states (m.terminal, or states
// without successors) and, with m.messages, the message range over complete
// executions. The message range needs an acyclic graph: a cycle fails the
// test.
func refWalk[S any](t testing.TB, m refModel[S]) refFigures {
	t.Helper()
	ids := map[string]int32{}
	var queue []S
	var depth []int32
	add := func(s S, d int32) int32 {
		k := m.key(s)
		id, ok := ids[k]
		if !ok {
			id = int32(len(ids))
			ids[k] = id
			queue, depth = append(queue, s), append(depth, d)
		}
		return id
	}
	var roots []int32
	for _, s := range m.initial {
		roots = append(roots, add(s, 0))
	}
	var f refFigures
	// With messages, the graph: each state's successors, the messages
	// sent on the way, and the class of a terminal state.
	var succ, sent [][]int32
	var class []int32
	var zero S
	for head := 0; head < len(queue); head++ {
		s := queue[head]
		queue[head] = zero // the key is all the walk needs from now on
		next, msgs := m.next(s)
		if m.visit != nil {
			m.visit(s, int(depth[head]), next)
		}
		f.transitions += int64(len(next))
		if m.terminal != nil && m.terminal(s, next) || m.terminal == nil && len(next) == 0 {
			f.terminal++
		}
		if !m.messages {
			for _, d := range next {
				add(d, depth[head]+1)
			}
			continue
		}
		c := int32(0)
		if len(next) == 0 && m.class != nil {
			c = int32(m.class(s))
		}
		out := make([]int32, len(next))
		for x, d := range next {
			out[x] = add(d, depth[head]+1)
		}
		succ, class = append(succ, out), append(class, c)
		row := make([]int32, len(msgs))
		for x, k := range msgs {
			row[x] = int32(k)
		}
		sent = append(sent, row)
	}
	f.states = int64(len(ids))
	if m.messages {
		f.byClass = messageRanges(t, roots, succ, sent, class)
		first := true
		for _, r := range f.byClass {
			if first || r[0] < f.lo {
				f.lo = r[0]
			}
			if first || r[1] > f.hi {
				f.hi = r[1]
			}
			first = false
		}
	}
	return f
}

// messageRanges returns, per class of terminal state, the fewest and most
// messages on a path from a root to a terminal state of that class: the
// sums of sent along succ, found depth first with each state's ranges
// memoized.
func messageRanges(t testing.TB, roots []int32, succ, sent [][]int32, class []int32) map[int][2]int64 {
	t.Helper()
	memo := make([]map[int][2]int64, len(succ))
	onPath := make([]bool, len(succ))
	var visit func(s int32) map[int][2]int64
	visit = func(s int32) map[int][2]int64 {
		if memo[s] != nil {
			return memo[s]
		}
		if onPath[s] {
			t.Fatal("reference walk: the state graph has a cycle, so no message range")
			return nil
		}
		onPath[s] = true
		r := map[int][2]int64{}
		if len(succ[s]) == 0 {
			r[int(class[s])] = [2]int64{0, 0}
		}
		for x, d := range succ[s] {
			for c, v := range visit(d) {
				lo, hi := v[0]+int64(sent[s][x]), v[1]+int64(sent[s][x])
				if old, ok := r[c]; ok {
					lo, hi = min(lo, old[0]), max(hi, old[1])
				}
				r[c] = [2]int64{lo, hi}
			}
		}
		onPath[s] = false
		memo[s] = r
		return r
	}
	all := map[int][2]int64{}
	for _, root := range roots {
		for c, v := range visit(root) {
			if old, ok := all[c]; ok {
				v = [2]int64{min(v[0], old[0]), max(v[1], old[1])}
			}
			all[c] = v
		}
	}
	return all
}

// modelRef is m as a reference model: its initial states and its own
// successor function (Worker.Successors), walked by refWalk without the
// explorer's search, with the messages of each transition
// (Transition.Messages).
func modelRef(t testing.TB, m explorer.Model) refModel[[]byte] {
	t.Helper()
	initial, err := m.Initial()
	if err != nil {
		t.Fatal(err)
	}
	return refModel[[]byte]{
		initial:  initial,
		key:      func(s []byte) string { return string(s) },
		next:     modelNext(t, m, nil),
		messages: true,
	}
}

// modelNext returns the successor function of m's states: every
// transition that keep accepts (all when keep is nil), with the messages
// it sends.
func modelNext(t testing.TB, m explorer.Model, keep func(explorer.Transition) bool) func([]byte) ([][]byte, []int) {
	w := m.NewWorker()
	return func(s []byte) (out [][]byte, msgs []int) {
		if _, err := explorer.Successors(w, s, func(tr explorer.Transition, next []byte) {
			if keep == nil || keep(tr) {
				out, msgs = append(out, slices.Clone(next)), append(msgs, int(tr.Messages))
			}
		}); err != nil {
			t.Fatal(err)
		}
		return out, msgs
	}
}

// refInt returns the integer value of p's flag, for a reference model.
func refInt(t testing.TB, p *Params, flag string) int {
	t.Helper()
	v, err := strconv.Atoi(p.String(flag))
	if err != nil {
		t.Fatalf("--%s: %v", flag, err)
	}
	return v
}

// refIDs returns the ID arrangements of p's --ids for --n, as the specs
// read them.
func refIDs(t testing.TB, p *Params) [][]int {
	t.Helper()
	ids, err := parseIDs(p, refInt(t, p, "n"))
	if err != nil {
		t.Fatal(err)
	}
	return slices.Collect(ids.each)
}

// TestRefWalk checks the walker on a small graph: a diamond 0→1→3,
// 0→2→3 sending 1+0 and 3+1 messages, and a second initial state 4 that is
// terminal; then on a cycle, which has no message range.
func TestRefWalk(t *testing.T) {
	edges := map[int][]int{0: {1, 2}, 1: {3}, 2: {3}}
	msgs := map[int][]int{0: {1, 3}, 1: {0}, 2: {1}}
	depth := map[int]int{}
	f := refWalk(t, refModel[int]{
		initial:  []int{0, 4},
		key:      strconv.Itoa,
		next:     func(s int) ([]int, []int) { return edges[s], msgs[s] },
		messages: true,
		class:    func(s int) int { return s },
		visit:    func(s, d int, _ []int) { depth[s] = d },
	})
	if f.states != 5 || f.transitions != 4 || f.terminal != 2 || f.lo != 0 || f.hi != 4 {
		t.Errorf("figures %+v, want 5 states, 4 transitions, 2 terminal, messages 0..4", f)
	}
	if want := map[int][2]int64{3: {1, 4}, 4: {0, 0}}; !maps.Equal(f.byClass, want) {
		t.Errorf("message ranges by class %v, want %v", f.byClass, want)
	}
	if want := map[int]int{0: 0, 1: 1, 2: 1, 3: 2, 4: 0}; !maps.Equal(depth, want) {
		t.Errorf("depths %v, want %v", depth, want)
	}
	rec := &recorder{TB: t}
	cycle := refModel[int]{
		initial:  []int{0},
		key:      strconv.Itoa,
		next:     func(s int) ([]int, []int) { return []int{1 - s}, []int{1} },
		messages: true,
	}
	refWalk(rec, cycle)
	if len(rec.errors) == 0 || !strings.Contains(rec.errors[0], "cycle") {
		t.Errorf("a cycle: reported %q", rec.errors)
	}
}

// messageRange returns the fewest and the most messages sent on a path
// from an initial state of m to a terminal state, over all initial states
// and all runs (ALGORITHMS.md 0.7): refWalk on m's own successor function,
// independently of the explorer's metric. The state graph must be
// acyclic.
func messageRange(t testing.TB, m explorer.Model) (lo, hi int) {
	t.Helper()
	f := refWalk(t, modelRef(t, m))
	return int(f.lo), int(f.hi)
}

// counterexample checks spec with flags for props (the spec's claims when
// nil) breadth first on one worker and on two, fails the test unless both
// find want violated first, with the same counterexample, and returns
// that violation: the test of a broken twin.
func counterexample(t testing.TB, spec string, flags map[string]string, props []string, want string) explorer.Violation {
	t.Helper()
	var first explorer.Violation
	for _, workers := range []int{1, 2} {
		r := check(t, spec, flags, explorer.Config{Workers: workers, Properties: props})
		if r.Status != explorer.Violated || r.Violations[0].Property != want {
			t.Fatalf("%s %v, %d workers: %v %+v, want %s violated", spec, flags, workers, r.Status, r.Violations, want)
		}
		if workers == 1 {
			first = r.Violations[0]
		} else if a, b := explorer.Actions(first.Trace.Steps), explorer.Actions(r.Violations[0].Trace.Steps); !slices.Equal(a, b) {
			t.Errorf("%s %v: counterexample %q on two workers, %q on one", spec, flags, b, a)
		}
	}
	return first
}

// refUsers returns --n, --requests and the requesters of p's mutual
// exclusion user part, as the specs read them.
func refUsers(t testing.TB, p *Params) (n, r int, req []bool) {
	t.Helper()
	n = refInt(t, p, "n")
	u, err := parseMutexUsers(p, n)
	if err != nil {
		t.Fatal(err)
	}
	return n, u.R, u.Requesters
}

// ownWalk is the reference of a spec without a literal reference model:
// refWalk on the spec's own successor function (modelRef), outside the
// explorer's search, with the message range.
func ownWalk(spec string) func(testing.TB, *Params) refFigures {
	return func(t testing.TB, p *Params) refFigures {
		s, err := Lookup(spec)
		if err != nil {
			t.Fatal(err)
		}
		m, err := s.Build(p)
		if err != nil {
			t.Fatal(err)
		}
		return refWalk(t, modelRef(t, m))
	}
}

// buildErr builds s with flags and returns the error of NewParams or of
// Build: the usage error a test of bad parameters expects.
func buildErr(s Spec, flags map[string]string) error {
	p, err := NewParams(s, flags)
	if err == nil {
		_, err = s.Build(p)
	}
	return err
}

// wantUsage fails the test unless err is a usage error (ErrUsage) whose
// message contains each of want; flags name the case in the report.
func wantUsage(t testing.TB, err error, flags map[string]string, want ...string) {
	t.Helper()
	if !errors.Is(err, ErrUsage) {
		t.Errorf("%v: error %v, want ErrUsage", flags, err)
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%v: %q does not mention %q", flags, err, w)
		}
	}
}
