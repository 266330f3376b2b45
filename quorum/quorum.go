// Package quorum builds, parses, validates and analyses the quorum systems
// used by the quorum-based mutual exclusion algorithms of vacheck (Maekawa,
// Cao–Singhal; docs/algorithms/maekawa.md and docs/algorithms/cao-singhal.md).
//
// A System assigns one quorum S_i to every process i: process i asks every
// member of S_i for permission, and Maekawa's algorithm also needs i ∈ S_i.
// Processes are numbered from 0 internally (process 1 of the docs is index
// 0); users see them numbered from 1, in quorum files, in the --quorums
// flag, in String results and in every error message.
//
// The constructions are the ones listed in docs/algorithms/maekawa.md: finite
// projective planes (ProjectivePlane), the grid (Grid), majority (Majority),
// weighted majority (WeightedMajority), tree quorums (Tree), the crumbling wall
// (Wall), a single coordinator (Single) and the whole universe (All). Parse
// maps a --quorums flag value to one of them or to a quorum file (ParseFile).
// Validate checks what an algorithm needs; Analyze reports the properties
// docs/algorithms/maekawa.md defines (intersection, coterie, symmetry,
// non-domination, ideal).
package quorum

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// System is a quorum system with one quorum per process.
//
// Quorums[i] is the quorum S_i of process i, listed in ascending order
// without duplicates; processes are 0-based. Name is the --quorums value the
// system was built from (for example "fpp", "wall:1,2,3" or a file path).
type System struct {
	N       int
	Name    string
	Quorums [][]int
}

// kindError is a sentinel error that refines another sentinel: errors.Is
// reports a match for both.
type kindError struct {
	msg    string
	parent error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.parent }

// Sentinel errors. Every error returned by this package wraps one or more of
// them, so callers can test with errors.Is; the messages themselves start
// with the flag and its value ("--quorums fpp: ...") and say what is allowed.
var (
	// ErrNoConstruction reports that the requested kind of quorum system
	// cannot be built for this number of processes.
	ErrNoConstruction = errors.New("no quorum system")
	// ErrNoPlane reports a number of processes for which no finite
	// projective plane is known. It also matches ErrNoConstruction.
	ErrNoPlane error = &kindError{msg: "no finite projective plane", parent: ErrNoConstruction}
	// ErrUnknown reports a --quorums value that is neither a known kind nor
	// an existing file.
	ErrUnknown = errors.New("unknown quorum system")
	// ErrBadParam reports malformed parameters of weighted:W1,W2,... or
	// wall:ROWS.
	ErrBadParam = errors.New("bad parameter")
	// ErrBadFile reports a quorum file with a syntax error, a member out of
	// range, a duplicate member or the wrong number of lines.
	ErrBadFile = errors.New("bad quorum file")
	// ErrMalformed reports a System whose fields break the invariants
	// documented on System (wrong length, member out of range, unsorted).
	ErrMalformed = errors.New("malformed quorum system")
	// ErrDisjoint reports two processes whose quorums share no process.
	ErrDisjoint = errors.New("disjoint quorums")
	// ErrNotSelf reports a process that is not a member of its own quorum.
	ErrNotSelf = errors.New("process not in its own quorum")
)

// String lists the quorums 1-based, for example "S_1={1,2,4} S_2={2,3,5}".
func (s System) String() string {
	var b strings.Builder
	for i, q := range s.Quorums {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quorumString(i, q))
	}
	return b.String()
}

// quorumString formats S_{i+1} 1-based, e.g. "S_2={2,3,5}".
func quorumString(i int, q []int) string {
	return "S_" + strconv.Itoa(i+1) + "=" + setString(q)
}

// setString formats a set of 0-based processes 1-based, e.g. "{1,2,4}".
func setString(q []int) string {
	var b strings.Builder
	b.WriteByte('{')
	for k, m := range q {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(m + 1))
	}
	b.WriteByte('}')
	return b.String()
}

// prefix returns the start of an error message about s.
func (s System) prefix() string {
	if s.Name == "" {
		return "quorum system"
	}
	return "--quorums " + s.Name
}

// Validate checks that s is well formed (N ≥ 1, one non-empty quorum per
// process, members in range, ascending, no duplicates) and that every two
// quorums intersect. With needSelf it also checks i ∈ S_i for every i, as
// Maekawa's algorithm requires (docs/algorithms/maekawa.md).
//
// The error wraps ErrMalformed, ErrDisjoint (naming the first two processes,
// 1-based, whose quorums are disjoint) or ErrNotSelf (naming the process).
func (s System) Validate(needSelf bool) error {
	if err := s.wellFormed(); err != nil {
		return err
	}
	sets := s.bitsets()
	for i := range sets {
		for j := i + 1; j < len(sets); j++ {
			if !sets[i].intersects(sets[j]) {
				return fmt.Errorf("%s: %w: the quorums of processes %d and %d share no process (%s, %s); every two quorums must intersect",
					s.prefix(), ErrDisjoint, i+1, j+1, quorumString(i, s.Quorums[i]), quorumString(j, s.Quorums[j]))
			}
		}
	}
	if needSelf {
		for i := range sets {
			if !sets[i].has(i) {
				return fmt.Errorf("%s: %w: process %d is not in %s; every process must belong to its own quorum",
					s.prefix(), ErrNotSelf, i+1, quorumString(i, s.Quorums[i]))
			}
		}
	}
	return nil
}

// wellFormed checks the structural invariants documented on System.
func (s System) wellFormed() error {
	if s.N < 1 {
		return fmt.Errorf("%s: %w: N must be at least 1, got %d", s.prefix(), ErrMalformed, s.N)
	}
	if len(s.Quorums) != s.N {
		return fmt.Errorf("%s: %w: %d quorums for N=%d processes; need one quorum per process", s.prefix(), ErrMalformed, len(s.Quorums), s.N)
	}
	for i, q := range s.Quorums {
		if len(q) == 0 {
			return fmt.Errorf("%s: %w: S_%d is empty", s.prefix(), ErrMalformed, i+1)
		}
		for k, m := range q {
			if m < 0 || m >= s.N {
				return fmt.Errorf("%s: %w: S_%d has member %d outside 1..%d", s.prefix(), ErrMalformed, i+1, m+1, s.N)
			}
			if k > 0 && q[k-1] >= m {
				return fmt.Errorf("%s: %w: S_%d is not in ascending order without duplicates (%d after %d)", s.prefix(), ErrMalformed, i+1, m+1, q[k-1]+1)
			}
		}
	}
	return nil
}

// bitsets returns the quorums as bit sets over 0..N-1; members out of range
// are ignored.
func (s System) bitsets() []bitset {
	sets := make([]bitset, len(s.Quorums))
	for i, q := range s.Quorums {
		sets[i] = newBitset(s.N)
		for _, m := range q {
			if m >= 0 && m < s.N {
				sets[i].set(m)
			}
		}
	}
	return sets
}

// bitset is a set of small non-negative integers.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) set(i int)      { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) has(i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }

func (b bitset) intersects(c bitset) bool {
	for k := range b {
		if b[k]&c[k] != 0 {
			return true
		}
	}
	return false
}

// subsetOf reports whether b ⊆ c.
func (b bitset) subsetOf(c bitset) bool {
	for k := range b {
		if b[k]&^c[k] != 0 {
			return false
		}
	}
	return true
}

func (b bitset) equal(c bitset) bool {
	for k := range b {
		if b[k] != c[k] {
			return false
		}
	}
	return true
}
