package specs

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// vtRef is a literal reference model of 1.15 written from the section's
// pseudocode without the automaton package: join_i tries every subset of
// the present processes and scans the connected ones in every order,
// applying the loop body as written; REPAIR scans the remaining links in
// every order. The correct repair (naive = false) first detaches the
// subtree of the node, and detached nodes rejoin over a link into the
// tree, as virtual-tree does.
type vtRef struct {
	present, detached []bool
	level, parent     []int
	links             [][]bool
	left              int
}

func (r vtRef) key() string {
	return fmt.Sprint(r.present, r.detached, r.level, r.parent, r.links, r.left)
}

func (r vtRef) clone() vtRef {
	c := vtRef{present: slices.Clone(r.present), detached: slices.Clone(r.detached), level: slices.Clone(r.level),
		parent: slices.Clone(r.parent), left: r.left}
	for _, l := range r.links {
		c.links = append(c.links, slices.Clone(l))
	}
	return c
}

// vtPerms returns every ordering of xs.
func vtPerms(xs []int) [][]int {
	if len(xs) == 0 {
		return [][]int{nil}
	}
	var out [][]int
	for k, x := range xs {
		rest := append(slices.Clone(xs[:k]), xs[k+1:]...)
		for _, p := range vtPerms(rest) {
			out = append(out, append([]int{x}, p...))
		}
	}
	return out
}

// scan applies "for each n (in this order): if level_n ≥ 0 ∧ (level_x < 0
// ∨ level_x > level_n): level_x := level_n + 1; parent_x := n".
func (r vtRef) scan(x int, order []int) {
	for _, n := range order {
		if r.level[n] >= 0 && (r.level[x] < 0 || r.level[x] > r.level[n]) {
			r.level[x], r.parent[x] = r.level[n]+1, n
			r.detached[x] = false
		}
	}
}

func (r vtRef) linked(x int) []int {
	var out []int
	for n, ok := range r.links[x] {
		if ok {
			out = append(out, n)
		}
	}
	return out
}

func (r vtRef) next(naive bool) map[string]vtRef {
	n := len(r.present)
	// A transition is a pair (action, next state): the orders of one
	// action that give the same state are one transition, while retry(i,
	// k) and retry(k, i) are two even when they give the same state.
	out := map[string]vtRef{}
	action := ""
	add := func(s vtRef) { out[action+"|"+s.key()] = s }
	var present []int
	for i := range r.present {
		if r.present[i] {
			present = append(present, i)
		}
	}
	for i := 0; i < n; i++ {
		switch {
		case !r.present[i]: // join_i
			action = fmt.Sprint("join", i)
			for mask := 0; mask < 1<<len(present); mask++ {
				var conn []int
				for k, p := range present {
					if mask&(1<<k) != 0 {
						conn = append(conn, p)
					}
				}
				for _, order := range vtPerms(conn) {
					s := r.clone()
					s.present[i] = true
					if len(present) == 0 {
						s.level[i] = 0
					}
					for _, p := range order {
						s.links[i][p], s.links[p][i] = true, true
					}
					s.scan(i, order)
					add(s)
				}
			}
		case r.level[i] < 0:
			for _, k := range present { // retry_i, connected
				if k != i && !r.links[i][k] {
					action = fmt.Sprint("retry", i, k)
					s := r.clone()
					s.links[i][k], s.links[k][i] = true, true
					s.scan(i, []int{k})
					add(s)
				}
			}
			if r.detached[i] { // rejoin_i
				action = fmt.Sprint("rejoin", i)
				for _, order := range vtPerms(r.linked(i)) {
					s := r.clone()
					s.scan(i, order)
					if s.level[i] >= 0 {
						add(s)
					}
				}
			}
		}
	}
	if r.left > 0 {
		for x := 0; x < n; x++ {
			for y := x + 1; y < n; y++ {
				if !r.links[x][y] {
					continue
				}
				action = fmt.Sprint("break", x, y)
				s := r.clone()
				s.left--
				s.links[x][y], s.links[y][x] = false, false
				var ends []int
				for _, e := range [][2]int{{x, y}, {y, x}} {
					if s.parent[e[0]] == e[1] {
						ends = append(ends, e[0])
					}
				}
				if len(ends) == 0 {
					add(s)
					continue
				}
				e := ends[0] // both ends only after a cycle: not in these tests
				below := map[int]bool{e: true}
				for changed := !naive; changed; {
					changed = false
					for k := range s.parent {
						if s.parent[k] >= 0 && below[s.parent[k]] && !below[k] {
							below[k], changed = true, true
						}
					}
				}
				for k := range below {
					s.level[k], s.parent[k], s.detached[k] = -1, -1, !naive
				}
				for _, order := range vtPerms(s.linked(e)) {
					t := s.clone()
					t.scan(e, order)
					add(t)
				}
			}
		}
	}
	return out
}

// vtReference is the reference model's figures for the parameters p of
// virtual-tree, or with the naive repair of virtual-tree-broken
// (testdata/counts/virtual-tree.txt).
func vtReference(t testing.TB, p *Params, naive bool) refFigures {
	n := refInt(t, p, "n")
	r := vtRef{present: make([]bool, n), detached: make([]bool, n), level: make([]int, n), parent: make([]int, n), left: refInt(t, p, "link-failures")}
	for i := 0; i < n; i++ {
		r.level[i], r.parent[i] = -1, -1
		r.links = append(r.links, make([]bool, n))
	}
	return refWalk(t, refModel[vtRef]{
		initial: []vtRef{r},
		key:     vtRef.key,
		next:    func(r vtRef) ([]vtRef, []int) { return slices.Collect(maps.Values(r.next(naive))), nil },
	})
}

// TestVirtualTreeBroken checks the negative test of 1.15: with the naive
// REPAIR and one link failure, T1 fails exactly as the section says. On
// three processes joining in a chain 1-2-3, the link 1-2 breaks; process 2
// lost its parent and its only remaining link leads to its own child 3,
// which it picks: 2 and 3 point at each other. The same run is fine with
// virtual-tree, whose repair detaches 3 first.
func TestVirtualTreeBroken(t *testing.T) {
	t.Parallel()
	want := []string{"join(1, links {}, parent ⊥)_{1}", "join(2, links {1}, parent 1)_{1}", "join(3, links {2}, parent 2)_{1}",
		"breakLink(1,2, 2 re-attaches to 3)_{1}"}
	v := counterexample(t, "virtual-tree-broken", nil, nil, vtT1)
	if actions := explorer.Actions(v.Trace.Steps); !slices.Equal(actions, want) {
		t.Errorf("counterexample %v, want %v", actions, want)
	}
	if ex := strings.Join(v.Trace.Explanation, "\n"); !strings.Contains(ex, "process 2: (level 3, parent 3") ||
		!strings.Contains(ex, "process 3: (level 2, parent 2") {
		t.Errorf("explanation does not show the cycle 2-3:\n%s", ex)
	}
	// The correct repair on the same budget: T1 holds
	// (testdata/counts/virtual-tree.txt checks all of T1–T3).
	if r := check(t, "virtual-tree", map[string]string{"link-failures": "1"}, explorer.Config{Properties: []string{vtT1}}); r.Status != explorer.OK {
		t.Errorf("virtual-tree --link-failures 1: %v, want t1-acyclic to hold", r.Status)
	}
	// T2 fails with the naive repair as well: around a cycle the levels
	// cannot all grow by one (in the state above, 3 has level 2 and its
	// parent 2 has level 3).
	if r := check(t, "virtual-tree-broken", nil, explorer.Config{Properties: []string{vtT2}}); r.Status != explorer.Violated {
		t.Errorf("virtual-tree-broken: %v, want t2-levels violated", r.Status)
	}
}

func TestVirtualTreeUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		flags map[string]string
		want  string
	}{
		{map[string]string{"n": "7"}, "--n 7"},
		{map[string]string{"n": "x"}, "--n"},
		{map[string]string{"link-failures": "-1"}, "--link-failures -1"},
		{map[string]string{"n": "3", "link-failures": "4"}, "--link-failures 4"},
		{map[string]string{"topology": "ring"}, "--topology does not apply"},
	} {
		s := virtualTree()
		err := buildErr(s, tt.flags)
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v, want an ErrUsage error naming %q", tt.flags, err, tt.want)
		}
	}
}
