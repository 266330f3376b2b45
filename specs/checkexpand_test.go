package specs

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/vacheck/vacheck/automaton/automatontest"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// smallInstance builds spec with N=3, or with its defaults where it takes
// no N.
func smallInstance(t *testing.T, spec Spec) explorer.Model {
	t.Helper()
	n3 := map[string]string{"n": "3"}
	if _, err := NewParams(spec, n3); err != nil {
		n3 = nil
	}
	return buildSpec(t, spec, n3)
}

// walk visits up to limit reachable states of m breadth first; visit
// returns the successors of each.
func walk(t *testing.T, m explorer.Model, limit int, visit func(st []byte) [][]byte) {
	t.Helper()
	queue, err := m.Initial()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for len(queue) > 0 && len(seen) < limit {
		st := queue[0]
		queue = queue[1:]
		if !seen[string(st)] {
			seen[string(st)] = true
			queue = append(queue, visit(st)...)
		}
	}
}

// succ is a transition and the successor it leads to.
type succ struct {
	t    explorer.Transition
	next []byte
}

// collect returns an emit callback that appends each successor to ss.
func collect(ss *[]succ) func(explorer.Transition, []byte) {
	return func(t explorer.Transition, next []byte) { *ss = append(*ss, succ{t, bytes.Clone(next)}) }
}

// plain checks st with w against want and lists its successors: what
// one call of Expand must give.
func plain(w explorer.Worker, st []byte, want uint64) (ss []succ, mask uint64, checkErr error, n int, err error) {
	mask, checkErr = w.Check(st, want)
	n, err = explorer.Successors(w, st, collect(&ss))
	return ss, mask, checkErr, n, err
}

// nexts returns the successors of ss.
func nexts(ss []succ) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = s.next
	}
	return out
}

// everyProperty returns the bits of every property of m, and of those
// that are assertions (which stop an expansion).
func everyProperty(m explorer.Model) (want, stop uint64) {
	for k, info := range m.Properties() {
		want |= 1 << uint(k)
		if info.Kind == properties.Assertion {
			stop |= 1 << uint(k)
		}
	}
	return want, stop
}

// TestExpandIsCheckThenSuccessors: on every reachable state of small
// instances of every catalog spec and broken twin (up to 3,000 states
// each), a worker's Expand with every property to check, which evaluates
// the invariants on the view the expansion then reuses, returns what Check
// and Successors of another worker return: the same verdicts or error, and
// unless a verdict is an assertion that stops the expansion, the same
// transitions (with their action indices) and successors in the same order.
func TestExpandIsCheckThenSuccessors(t *testing.T) {
	t.Parallel()
	for _, spec := range Catalog() {
		t.Run(spec.Name, func(t *testing.T) {
			m := smallInstance(t, spec)
			a, b := m.NewWorker(), m.NewWorker()
			want, stop := everyProperty(m)
			var s2 []succ
			x := explorer.Expansion{Want: want, Stop: stop, Emit: collect(&s2)}
			walk(t, m, 3000, func(st []byte) [][]byte {
				s1, mask, err1, n1, errA := plain(a, st, want)
				s2 = s2[:0]
				r, errB := b.Expand(st, &x)
				if mask != r.Violated || fmt.Sprint(err1) != fmt.Sprint(r.CheckErr) {
					t.Fatalf("state %x: Check gives %#x %v, Expand %#x %v", st, mask, err1, r.Violated, r.CheckErr)
				}
				if err1 != nil || mask&stop != 0 {
					if r.Expanded || r.Enabled != 0 || len(s2) != 0 || errB != nil {
						t.Fatalf("state %x: Expand expanded a state that breaks an assertion or whose check failed", st)
					}
					return nil
				}
				if !r.Expanded || !r.All || n1 != r.Enabled || fmt.Sprint(errA) != fmt.Sprint(errB) || fmt.Sprint(s1) != fmt.Sprint(s2) {
					t.Fatalf("state %x: Successors gives %d %v\n%v\nExpand %+v %v\n%v", st, n1, errA, s1, r, errB, s2)
				}
				for i, s := range s1 {
					if s.t.Action != uint32(i) {
						t.Fatalf("state %x: transition %d has action index %d", st, i, s.t.Action)
					}
				}
				return nexts(s1)
			})
		})
	}
}

// TestExpandOffers: on the reachable states of small instances of every
// catalog spec and broken twin (up to 3,000 states each), a worker's Expand
// with Offer offers a key for every transition, in the order of
// Successors, and builds exactly the successors whose offer it was told to
// take (here every other one), equal to those of Successors. The keys are
// a function of the successor's encoding: a state reached from several
// parents, by several transitions, has one key, and no two states reached
// share a key. Most specs compute the keys before they build the
// successors; the others (which normalize their states) hash the
// successors they build.
func TestExpandOffers(t *testing.T) {
	t.Parallel()
	for _, spec := range Catalog() {
		t.Run(spec.Name, func(t *testing.T) {
			m := smallInstance(t, spec)
			a, b := m.NewWorker(), m.NewWorker()
			want, stop := everyProperty(m)
			keyOf := map[string]uint64{}
			stateOf := map[uint64]string{}
			var keys []uint64
			var offered []explorer.Transition
			var s2 []succ
			x := explorer.Expansion{Want: want, Stop: stop, Emit: collect(&s2), Offer: func(t explorer.Transition, key uint64) bool {
				keys = append(keys, key)
				offered = append(offered, t)
				return len(keys)%2 == 1
			}}
			walk(t, m, 3000, func(st []byte) [][]byte {
				s1, mask, err1, n1, errA := plain(a, st, want)
				keys, offered, s2 = keys[:0], offered[:0], s2[:0]
				r, errB := b.Expand(st, &x)
				if mask != r.Violated || fmt.Sprint(err1) != fmt.Sprint(r.CheckErr) {
					t.Fatalf("state %x: Check gives %#x %v, Expand %#x %v", st, mask, err1, r.Violated, r.CheckErr)
				}
				if err1 != nil || mask&stop != 0 {
					if r.Expanded || r.Enabled != 0 || len(keys) != 0 || len(s2) != 0 || errB != nil {
						t.Fatalf("state %x: Expand expanded a state that breaks an assertion or whose check failed", st)
					}
					return nil
				}
				if n1 != r.Enabled || fmt.Sprint(errA) != fmt.Sprint(errB) || len(keys) != len(s1) {
					t.Fatalf("state %x: Successors gives %d %v and %d successors, Expand %d %v and %d keys", st, n1, errA, len(s1), r.Enabled, errB, len(keys))
				}
				var taken []succ
				for i, s := range s1 {
					if offered[i] != s.t {
						t.Fatalf("state %x: transition %d is %+v, offered as %+v", st, i, s.t, offered[i])
					}
					if k, ok := keyOf[string(s.next)]; ok && k != keys[i] {
						t.Fatalf("state %x: successor %x has key %x, and %x before", st, s.next, keys[i], k)
					}
					if o, ok := stateOf[keys[i]]; ok && o != string(s.next) {
						t.Fatalf("states %x and %x share the key %x", o, s.next, keys[i])
					}
					keyOf[string(s.next)], stateOf[keys[i]] = keys[i], string(s.next)
					if i%2 == 0 {
						taken = append(taken, s)
					}
				}
				if fmt.Sprint(taken) != fmt.Sprint(s2) {
					t.Fatalf("state %x: the successors taken are\n%v\nExpand built\n%v", st, taken, s2)
				}
				return nexts(s1)
			})
		})
	}
}

// TestCatalogPure runs automatontest.CheckPure on a small instance of
// every catalog spec and broken twin (up to 1,500 states each): each
// state's successors, verdicts and valid-end answer are the same on two
// workers and on one worker after another state, and the state is left as
// it was. An impure model makes counts depend on scheduling and
// counterexamples fail to replay.
func TestCatalogPure(t *testing.T) {
	t.Parallel()
	for _, spec := range Catalog() {
		t.Run(spec.Name, func(t *testing.T) {
			automatontest.CheckPure(t, smallInstance(t, spec), 1500)
		})
	}
}

// TestPureInstances runs automatontest.CheckPure, as TestCatalogPure
// does, on instances beyond the catalog's small ones, where more of a
// spec's steps are enabled: crashes, link failures, several requests,
// every initiator set, a second objective.
func TestPureInstances(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		spec  string
		flags map[string]string
		limit int
	}{
		{"ricart-agrawala", map[string]string{"n": "3"}, 5000},
		{"ricart-agrawala-broken", map[string]string{"n": "2", "requests": "2"}, 5000},
		{"central", map[string]string{"n": "2", "requests": "2", "crashes": "1"}, 5000},
		{"central-broken", map[string]string{"n": "2"}, 5000},
		{"carvalho-roucairol", map[string]string{"n": "2", "requests": "2"}, 5000},
		{"carvalho-roucairol-broken", map[string]string{"n": "2"}, 5000},
		{"adoption", map[string]string{"n": "4", "topology": "star", "initiators": "subsets"}, 5000},
		{"adoption-broken", map[string]string{"n": "4", "topology": "star"}, 5000},
		{"adoption", map[string]string{"n": "4", "objective": "min", "initiators": "subsets"}, 5000},
		{"waiting", map[string]string{"n": "4", "initiators": "subsets"}, 5000},
		{"waiting-broken", map[string]string{"n": "4"}, 5000},
		{"virtual-tree", map[string]string{"n": "4", "link-failures": "2"}, 5000},
		{"virtual-tree-broken", map[string]string{"n": "4", "link-failures": "2"}, 5000},
		// Every reachable state.
		{"bully", map[string]string{"n": "3", "crashes": "2"}, 100000},
		{"bully", map[string]string{"n": "3", "crashes": "1", "timeouts": "unrestricted", "premature": "2"}, 100000},
	} {
		t.Run(tt.spec+flagString(tt.flags), func(t *testing.T) {
			automatontest.CheckPure(t, build(t, tt.spec, tt.flags), tt.limit)
		})
	}
}
