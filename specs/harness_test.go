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
// independent reference model, written from its page in docs/algorithms
// without the automaton and explorer packages, or a model's own successor function
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
	// depth (the length of a shortest path from an initial state; -1 in a
	// walk with messages, which goes depth first) and its successors.
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

// refWalk explores m from its initial states and counts its distinct
// states, transitions and terminal states (m.terminal, or states without
// successors) and, with m.messages, the message range over complete
// executions. Without messages it goes breadth first (m.visit sees the
// depths); with them, depth first with each state's range memoized, which
// needs an acyclic graph: a cycle fails the test.
func refWalk[S any](t testing.TB, m refModel[S]) refFigures {
	t.Helper()
	if m.messages {
		return refWalkMessages(t, m)
	}
	seen := map[string]bool{}
	type item struct {
		s     S
		depth int
	}
	var queue []item
	for _, s := range m.initial {
		if k := m.key(s); !seen[k] {
			seen[k] = true
			queue = append(queue, item{s, 0})
		}
	}
	var f refFigures
	for head := 0; head < len(queue); head++ {
		it := queue[head]
		queue[head] = item{} // the key is all the walk needs from now on
		next, _ := m.next(it.s)
		if m.visit != nil {
			m.visit(it.s, it.depth, next)
		}
		f.transitions += int64(len(next))
		if m.isTerminal(it.s, next) {
			f.terminal++
		}
		for _, d := range next {
			if k := m.key(d); !seen[k] {
				seen[k] = true
				queue = append(queue, item{d, it.depth + 1})
			}
		}
	}
	f.states = int64(len(seen))
	return f
}

// isTerminal says whether s, with successors next, is a terminal state.
func (m refModel[S]) isTerminal(s S, next []S) bool {
	if m.terminal != nil {
		return m.terminal(s, next)
	}
	return len(next) == 0
}

// refWalkMessages is refWalk with messages: depth first, each state's
// message range memoized, one per class of terminal state (m.class).
func refWalkMessages[S any](t testing.TB, m refModel[S]) refFigures {
	t.Helper()
	type span struct{ lo, hi, ok int64 } // ok is 1 where a terminal state of the class is reachable
	memo := map[string][]span{}          // nil while the state is on the path
	var f refFigures
	var visit func(s S) []span
	visit = func(s S) []span {
		k := m.key(s)
		if r, ok := memo[k]; ok {
			if r == nil {
				t.Fatal("reference walk: the state graph has a cycle, so no message range")
			}
			return r
		}
		memo[k] = nil
		next, sent := m.next(s)
		if m.visit != nil {
			m.visit(s, -1, next)
		}
		f.transitions += int64(len(next))
		var r []span
		if m.isTerminal(s, next) {
			f.terminal++
		}
		if len(next) == 0 {
			c := 0
			if m.class != nil {
				c = m.class(s)
			}
			r = make([]span, c+1)
			r[c] = span{0, 0, 1}
		}
		for x, d := range next {
			sub, msgs := visit(d), int64(sent[x])
			if len(sub) > len(r) {
				r = append(r, make([]span, len(sub)-len(r))...)
			}
			for c, v := range sub {
				switch {
				case v.ok == 0:
				case r[c].ok == 0:
					r[c] = span{v.lo + msgs, v.hi + msgs, 1}
				default:
					r[c] = span{min(r[c].lo, v.lo+msgs), max(r[c].hi, v.hi+msgs), 1}
				}
			}
		}
		memo[k] = r
		return r
	}
	f.byClass = map[int][2]int64{}
	for _, s := range m.initial {
		for c, v := range visit(s) {
			if v.ok == 0 {
				continue
			}
			if old, ok := f.byClass[c]; ok {
				v.lo, v.hi = min(v.lo, old[0]), max(v.hi, old[1])
			}
			f.byClass[c] = [2]int64{v.lo, v.hi}
		}
	}
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
	f.states = int64(len(memo))
	return f
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
	t.Parallel()
	edges := map[int][]int{0: {1, 2}, 1: {3}, 2: {3}}
	msgs := map[int][]int{0: {1, 3}, 1: {0}, 2: {1}}
	diamond := refModel[int]{
		initial:  []int{0, 4},
		key:      strconv.Itoa,
		next:     func(s int) ([]int, []int) { return edges[s], msgs[s] },
		messages: true,
		class:    func(s int) int { return s },
	}
	f := refWalk(t, diamond)
	if f.states != 5 || f.transitions != 4 || f.terminal != 2 || f.lo != 0 || f.hi != 4 {
		t.Errorf("figures %+v, want 5 states, 4 transitions, 2 terminal, messages 0..4", f)
	}
	if want := map[int][2]int64{3: {1, 4}, 4: {0, 0}}; !maps.Equal(f.byClass, want) {
		t.Errorf("message ranges by class %v, want %v", f.byClass, want)
	}
	// Without messages, breadth first, with the depths.
	depth := map[int]int{}
	diamond.messages, diamond.visit = false, func(s, d int, _ []int) { depth[s] = d }
	if g := refWalk(t, diamond); g.states != 5 || g.transitions != 4 || g.terminal != 2 {
		t.Errorf("figures %+v without messages, want 5 states, 4 transitions, 2 terminal", g)
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
// and all runs (docs/properties.md): refWalk on m's own successor function,
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
