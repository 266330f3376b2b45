package quorum

import (
	"fmt"
	"slices"
)

// Witnesses holds, for every property of a Report that fails, the evidence
// that it fails, so that no "no" has to be taken on trust. Process numbers
// are 0-based; a field is nil or negative when its property holds.
type Witnesses struct {
	// Contained: processes a, b whose quorums satisfy S_a ⊊ S_b (the
	// coterie property fails).
	Contained []int
	// NotSelf: a process that is not a member of its own quorum.
	NotSelf int
	// SizeDiffers: two processes whose quorums have different sizes.
	SizeDiffers []int
	// DegreeDiffers: two processes that lie in different numbers of
	// quorums (symmetry fails).
	DegreeDiffers []int
	// Unused: a process in no quorum (ideal fails).
	Unused int
	// Meet: two processes whose quorums share MeetSize ≠ 1 processes
	// (ideal fails).
	Meet     []int
	MeetSize int
	// Dominating: when the coterie is dominated, a coterie that dominates
	// it, built from the non-domination witness H: H together with every
	// quorum that does not contain H. Every quorum of the system contains
	// one of it, and it differs from the system.
	Dominating [][]int
}

// Explain returns the witnesses of every property of s that Analyze
// reports as failing. It expects a well-formed system.
func Explain(s System) Witnesses {
	r := Analyze(s)
	w := Witnesses{NotSelf: -1, Unused: -1}
	sets := s.bitsets()
	n := len(sets)
	if r.Intersecting && !r.Coterie {
	outer:
		for a := range n {
			for b := range n {
				if !sets[a].equal(sets[b]) && sets[a].subsetOf(sets[b]) {
					w.Contained = []int{a, b}
					break outer
				}
			}
		}
	}
	if !r.SelfIncluded {
		for i := range n {
			if i >= s.N || !sets[i].has(i) {
				w.NotSelf = i
				break
			}
		}
	}
	degree := make([]int, s.N)
	for _, b := range sets {
		for m := range s.N {
			if b.has(m) {
				degree[m]++
			}
		}
	}
	for i := 1; i < n && w.SizeDiffers == nil; i++ {
		if len(s.Quorums[i]) != len(s.Quorums[0]) {
			w.SizeDiffers = []int{0, i}
		}
	}
	for m := 1; m < s.N && w.DegreeDiffers == nil; m++ {
		if degree[m] != degree[0] {
			w.DegreeDiffers = []int{0, m}
		}
	}
	w.Unused = slices.Index(degree, 0)
	for i := 0; i < n && w.Meet == nil; i++ {
		for j := i + 1; j < n; j++ {
			if c := sets[i].interCount(sets[j]); c != 1 {
				w.Meet, w.MeetSize = []int{i, j}, c
				break
			}
		}
	}
	if r.Coterie && r.Witness != nil {
		h := newBitset(s.N)
		for _, m := range r.Witness {
			h.set(m)
		}
		w.Dominating = [][]int{r.Witness}
		var kept []bitset
		for i, b := range sets {
			if !h.subsetOf(b) && !slices.ContainsFunc(kept, b.equal) {
				kept = append(kept, b)
				w.Dominating = append(w.Dominating, s.Quorums[i])
			}
		}
	}
	return w
}

// Lines explains the report r of s and its witnesses w in sentences, one
// property a line, with 1-based process numbers: every "no" says why.
func (r Report) Lines(s System, w Witnesses) []string {
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	q := func(i int) string { return quorumString(i, s.Quorums[i]) }
	var out []string
	line := func(name, verdict, why string) {
		if why != "" {
			verdict += ": " + why
		}
		out = append(out, fmt.Sprintf("%-14s %s", name, verdict))
	}
	why := ""
	if !r.Intersecting {
		why = fmt.Sprintf("%s and %s share no process", q(r.Disjoint[0]), q(r.Disjoint[1]))
	} else {
		why = "every two quorums share a process"
	}
	line("intersection", yes(r.Intersecting), why)
	switch {
	case !r.Intersecting:
		why = "not a quorum system (no intersection)"
	case w.Contained != nil:
		why = fmt.Sprintf("%s is contained in %s", q(w.Contained[0]), q(w.Contained[1]))
	default:
		why = "no quorum contains another"
	}
	line("coterie", yes(r.Coterie), why)
	switch {
	case r.Symmetric:
		why = fmt.Sprintf("every quorum has K=%d processes and every process lies in D=%d quorums", r.K, r.D)
	case w.SizeDiffers != nil:
		why = fmt.Sprintf("|S_%d|=%d but |S_%d|=%d", w.SizeDiffers[0]+1, len(s.Quorums[w.SizeDiffers[0]]), w.SizeDiffers[1]+1, len(s.Quorums[w.SizeDiffers[1]]))
	case w.DegreeDiffers != nil:
		why = fmt.Sprintf("process %d lies in a different number of quorums than process %d", w.DegreeDiffers[1]+1, w.DegreeDiffers[0]+1)
	}
	line("symmetric", yes(r.Symmetric), why)
	switch r.NonDominated {
	case Holds:
		why = "every set that meets all quorums contains one (exhaustive test over all subsets)"
	case Unknown:
		why = fmt.Sprintf("not tested: the exhaustive test runs up to N=%d", MaxNDProcesses)
	default:
		switch {
		case !r.Coterie:
			why = "not a coterie"
		default:
			var qs []string
			for _, d := range w.Dominating {
				qs = append(qs, setString(d))
			}
			why = fmt.Sprintf("%s meets every quorum but contains none, so the coterie %v dominates it", setString(r.Witness), qs)
		}
	}
	line("non-dominated", r.NonDominated.String(), why)
	switch {
	case r.Ideal:
		why = fmt.Sprintf("every process takes part, every quorum has %d processes, every two meet in exactly one", r.MinSize)
	case w.Unused >= 0:
		why = fmt.Sprintf("process %d is in no quorum", w.Unused+1)
	case w.SizeDiffers != nil:
		why = "quorums of different sizes"
	case w.Meet != nil:
		why = fmt.Sprintf("%s and %s meet in %d processes", q(w.Meet[0]), q(w.Meet[1]), w.MeetSize)
	}
	line("ideal", yes(r.Ideal), why)
	if w.NotSelf >= 0 {
		why = fmt.Sprintf("process %d is not in %s (Maekawa's algorithm needs i ∈ S_i)", w.NotSelf+1, q(w.NotSelf))
	} else {
		why = "i ∈ S_i for every process i"
	}
	line("self-included", yes(r.SelfIncluded), why)
	return out
}

// WellFormed checks the structural invariants documented on System (N ≥ 1,
// one non-empty quorum per process, members in range, ascending, no
// duplicates) without asking for intersection, so that a system that is not
// a quorum system can still be analysed.
func (s System) WellFormed() error { return s.wellFormed() }
