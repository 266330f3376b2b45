package quorum

import (
	"slices"
	"strings"
	"testing"
)

// allMajoritySets returns every subset of 0..n-1 with more than n/2
// members: the majority quorum system before it is made a coterie.
func allMajoritySets(n int) System {
	s := System{N: n, Name: "all sets > N/2"}
	for m := 1; m < 1<<n; m++ {
		var q []int
		for i := range n {
			if m&(1<<i) != 0 {
				q = append(q, i)
			}
		}
		if 2*len(q) > n {
			s.Quorums = append(s.Quorums, q)
		}
	}
	return s
}

// TestExplainSection25 checks the expected answers of
// docs/algorithms/maekawa.md and the 2.5 row of section 3, and that every "no"
// comes with a witness that really shows it.
func TestExplainSection25(t *testing.T) {
	t.Run("all sets > N/2 is not a coterie", func(t *testing.T) {
		s := allMajoritySets(3)
		r, w := Analyze(s), Explain(s)
		if !r.Intersecting || r.Coterie || w.Contained == nil {
			t.Fatalf("all sets > 3/2: %v, contained %v; want intersecting, not a coterie, with a witness", r, w.Contained)
		}
		a, b := s.Quorums[w.Contained[0]], s.Quorums[w.Contained[1]]
		if len(a) >= len(b) || slices.ContainsFunc(a, func(m int) bool { return !slices.Contains(b, m) }) {
			t.Errorf("witness %v ⊊ %v is not a strict inclusion", a, b)
		}
	})
	for _, tt := range []struct {
		name string
		s    System
		nd   Verdict
		h    []int // 1-based witness of domination, when stated by the section
	}{
		{"triangle", must(t)(ProjectivePlane(3)), Holds, nil},
		{"Fano", must(t)(ProjectivePlane(7)), Holds, nil},
		{"majority 5", must(t)(Majority(5)), Fails, nil}, // see below: Majority(n) is cyclic, not all 3-sets
		{"majority 4", must(t)(Majority(4)), Fails, []int{1, 2}},
		{"grid 3x3", gridOf(t, 9), Fails, []int{1, 2, 3}}, // a full row meets every quorum
		{"13-process ideal", must(t)(ProjectivePlane(13)), Fails, []int{1, 2, 3, 5, 6, 8}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, w := Analyze(tt.s), Explain(tt.s)
			if r.NonDominated != tt.nd {
				t.Fatalf("non-dominated = %v, want %v", r.NonDominated, tt.nd)
			}
			if tt.h != nil && !slices.Equal(oneBasedSet(r.Witness), tt.h) {
				t.Errorf("witness %v, want %v as in docs/algorithms/maekawa.md", oneBasedSet(r.Witness), tt.h)
			}
			if tt.nd == Fails {
				checkDominates(t, tt.s, w.Dominating)
			}
			for _, l := range r.Lines(tt.s, w) {
				if f := strings.Fields(l); f[1] == "no" || f[1] == "no:" && len(f) < 4 {
					t.Errorf("a no without a reason: %q", l)
				}
			}
		})
	}
	// Odd-N majority as a coterie of all ⌊N/2⌋+1 sets is non-dominated.
	for _, n := range []int{3, 5, 7} {
		s := allMajoritySets(n)
		var minimal System
		minimal.N = n
		for _, q := range s.Quorums {
			if len(q) == n/2+1 {
				minimal.Quorums = append(minimal.Quorums, q)
			}
		}
		if r := Analyze(minimal); !r.Coterie || r.NonDominated != Holds {
			t.Errorf("majority coterie N=%d: %v, want a non-dominated coterie", n, r)
		}
	}
}

// checkDominates checks that d is a coterie that dominates s: every quorum
// of s contains a member of d, and d differs from s.
func checkDominates(t *testing.T, s System, d [][]int) {
	t.Helper()
	if len(d) == 0 {
		t.Fatal("no dominating coterie")
	}
	dom := System{N: s.N, Quorums: d}
	if r := Analyze(dom); !r.Coterie {
		t.Errorf("dominating %v is not a coterie: %v", d, r)
	}
	for _, q := range s.Quorums {
		if !slices.ContainsFunc(d, func(x []int) bool {
			return !slices.ContainsFunc(x, func(m int) bool { return !slices.Contains(q, m) })
		}) {
			t.Errorf("quorum %v contains no member of %v", q, d)
		}
	}
	if slices.ContainsFunc(s.Quorums, func(q []int) bool { return slices.Equal(q, d[0]) }) {
		t.Errorf("the dominating coterie's first member %v is already a quorum", d[0])
	}
}

// TestExplainWitnesses checks the witnesses of symmetry, ideal and
// self-inclusion failures on small hand-made systems.
func TestExplainWitnesses(t *testing.T) {
	s := System{N: 3, Quorums: [][]int{{0, 1}, {1, 2}, {1}}}
	w := Explain(s)
	if !slices.Equal(w.SizeDiffers, []int{0, 2}) || w.NotSelf != 0 && w.NotSelf != 2 {
		t.Errorf("sizes/self witnesses %v / %d", w.SizeDiffers, w.NotSelf)
	}
	if !slices.Equal(w.Contained, []int{2, 0}) {
		t.Errorf("contained witness %v, want S_3 ⊊ S_1", w.Contained)
	}
	g := gridOf(t, 9)
	if w := Explain(g); !slices.Equal(w.Meet, []int{0, 1}) || w.MeetSize != 3 {
		t.Errorf("grid 3x3: meet witness %v (%d), want S_1, S_2 meeting in 3", w.Meet, w.MeetSize)
	}
	if r := Analyze(g); r.K != 2*3-1 {
		t.Errorf("grid 3x3: K=%d, want 2⌈√N⌉−1 = 5", r.K)
	}
	for _, c := range []struct{ n, k int }{{3, 2}, {7, 3}, {13, 4}, {21, 5}} {
		if r := Analyze(must(t)(ProjectivePlane(c.n))); !r.Ideal || r.K != c.k {
			t.Errorf("fpp N=%d: ideal=%v K=%d, want ideal with K=q+1=%d", c.n, r.Ideal, r.K, c.k)
		}
	}
}
