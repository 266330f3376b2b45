package quorum

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// MaxNDProcesses is the largest N for which Analyze runs the exhaustive
// non-domination test, which visits all 2^N subsets of the universe.
const MaxNDProcesses = 20

// Verdict is the outcome of a check that may not have been run.
type Verdict int8

// Verdicts.
const (
	Unknown Verdict = iota // not checked (N > MaxNDProcesses)
	Holds                  // the property holds
	Fails                  // the property fails
)

// String returns "unknown", "yes" or "no".
func (v Verdict) String() string {
	switch v {
	case Holds:
		return "yes"
	case Fails:
		return "no"
	default:
		return "unknown"
	}
}

// Report lists the properties of a quorum system defined in
// docs/algorithms/maekawa.md. Process numbers in it are 0-based.
//
// Coterie and NonDominated are properties of the quorum set, the distinct
// quorums; SelfIncluded, Symmetric and Ideal are properties of the list
// S_1, ..., S_N with one quorum per process (D counts the processes whose
// quorum contains a process, that is, for how many requesters it arbitrates).
type Report struct {
	N        int
	Distinct int // number of distinct quorums
	MinSize  int // smallest |S_i|
	MaxSize  int // largest |S_i|

	// Intersecting: every two quorums share a process. If not, Disjoint
	// holds two processes whose quorums are disjoint.
	Intersecting bool
	Disjoint     [2]int

	// SelfIncluded: i ∈ S_i for every process i.
	SelfIncluded bool

	// Coterie: intersecting, and no quorum contains another.
	Coterie bool

	// Symmetric: every |S_i| = K and every process lies in exactly D of
	// the quorums S_1..S_N. K and D are 0 when not symmetric.
	Symmetric bool
	K, D      int

	// NonDominated is the exhaustive test of docs/algorithms/maekawa.md: a
	// coterie is non-dominated iff every set H ⊆ U that meets all quorums
	// contains one. It is Fails when the system is not a coterie and Unknown
	// when N > MaxNDProcesses. When a coterie fails it, Witness is such an H
	// containing no quorum, of the smallest size (ties to the set with the
	// lower highest members).
	NonDominated Verdict
	Witness      []int

	// Ideal: every process is in some quorum, all quorums have the same
	// size, and S_i ∩ S_j is exactly one process for i ≠ j.
	Ideal bool
}

// Analyze computes the Report of s. It expects a well-formed system (see
// Validate); members outside 0..N-1 are ignored.
func Analyze(s System) Report {
	n := len(s.Quorums)
	r := Report{N: s.N, Intersecting: true, SelfIncluded: true, Ideal: true}
	sets := s.bitsets()

	var distinct []bitset
	for _, b := range sets {
		if !slices.ContainsFunc(distinct, b.equal) {
			distinct = append(distinct, b)
		}
	}
	r.Distinct = len(distinct)

	sizes := make([]int, n)
	degree := make([]int, s.N)
	for i, b := range sets {
		sizes[i] = b.count()
		for m := range s.N {
			if b.has(m) {
				degree[m]++
			}
		}
		if i >= s.N || !b.has(i) {
			r.SelfIncluded = false
		}
	}
	if n > 0 {
		r.MinSize, r.MaxSize = slices.Min(sizes), slices.Max(sizes)
	}

	for i := 0; i < n && r.Intersecting; i++ {
		for j := i; j < n; j++ { // j = i catches an empty quorum
			if !sets[i].intersects(sets[j]) {
				r.Intersecting, r.Disjoint = false, [2]int{i, j}
				break
			}
		}
	}

	r.Coterie = r.Intersecting && n > 0
	for a := 0; a < len(distinct) && r.Coterie; a++ {
		for b := range distinct {
			if a != b && distinct[a].subsetOf(distinct[b]) {
				r.Coterie = false
				break
			}
		}
	}

	if n > 0 && s.N > 0 && r.MinSize == r.MaxSize && slices.Min(degree) == slices.Max(degree) {
		r.Symmetric, r.K, r.D = true, r.MinSize, degree[0]
	}

	r.Ideal = n > 0 && s.N > 0 && r.MinSize == r.MaxSize && !slices.Contains(degree, 0)
	for i := 0; i < n && r.Ideal; i++ {
		for j := i + 1; j < n; j++ {
			if sets[i].interCount(sets[j]) != 1 {
				r.Ideal = false
				break
			}
		}
	}

	switch {
	case !r.Coterie:
		r.NonDominated = Fails
	case s.N > MaxNDProcesses:
		r.NonDominated = Unknown
	default:
		masks := make([]uint32, len(distinct))
		for k, b := range distinct {
			masks[k] = uint32(b[0])
		}
		if w, ok := ndWitness(s.N, masks); ok {
			r.NonDominated = Fails
			r.Witness = w
		} else {
			r.NonDominated = Holds
		}
	}
	return r
}

// ndWitness runs the exhaustive non-domination test on the coterie whose
// quorums are the bit masks over 0..n-1 (n ≤ MaxNDProcesses). It returns a
// smallest set H that meets every quorum and contains none, and true, or
// nil and false when the coterie is non-dominated.
//
// H meets every quorum exactly when its complement contains none, so after
// marking every set that contains a quorum (a superset closure over the 2^n
// subsets) the test is: no H with neither H nor U∖H marked.
func ndWitness(n int, quorums []uint32) ([]int, bool) {
	size := 1 << n
	contains := make([]bool, size)
	for _, q := range quorums {
		contains[q] = true
	}
	for b := range n {
		bit := 1 << b
		for m := range size {
			if m&bit != 0 && contains[m^bit] {
				contains[m] = true
			}
		}
	}
	full := size - 1
	best := -1
	for h := range size {
		if !contains[h] && !contains[full^h] &&
			(best < 0 || bits.OnesCount32(uint32(h)) < bits.OnesCount32(uint32(best))) {
			best = h
		}
	}
	if best < 0 {
		return nil, false
	}
	var w []int
	for m := range n {
		if best&(1<<m) != 0 {
			w = append(w, m)
		}
	}
	return w, true
}

// String summarises r on one line with 1-based process numbers, e.g.
// "N=7 quorums=7 size=3 intersecting=yes coterie=yes symmetric=yes (K=3,
// D=3) non-dominated=yes ideal=yes self=yes".
func (r Report) String() string {
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "N=%d quorums=%d size=%d", r.N, r.Distinct, r.MinSize)
	if r.MaxSize != r.MinSize {
		fmt.Fprintf(&b, "..%d", r.MaxSize)
	}
	fmt.Fprintf(&b, " intersecting=%s", yes(r.Intersecting))
	if !r.Intersecting {
		fmt.Fprintf(&b, " (S_%d and S_%d are disjoint)", r.Disjoint[0]+1, r.Disjoint[1]+1)
	}
	fmt.Fprintf(&b, " coterie=%s symmetric=%s", yes(r.Coterie), yes(r.Symmetric))
	if r.Symmetric {
		fmt.Fprintf(&b, " (K=%d, D=%d)", r.K, r.D)
	}
	fmt.Fprintf(&b, " non-dominated=%s", r.NonDominated)
	if r.Witness != nil {
		fmt.Fprintf(&b, " (%s meets every quorum but contains none)", setString(r.Witness))
	}
	fmt.Fprintf(&b, " ideal=%s self=%s", yes(r.Ideal), yes(r.SelfIncluded))
	return b.String()
}

// count returns |b|.
func (b bitset) count() int {
	c := 0
	for _, w := range b {
		c += bits.OnesCount64(w)
	}
	return c
}

// interCount returns |b ∩ c|.
func (b bitset) interCount(c bitset) int {
	k := 0
	for i := range b {
		k += bits.OnesCount64(b[i] & c[i])
	}
	return k
}
