package explorer

import (
	"math/bits"

	"github.com/zeebo/xxh3"

	"github.com/vacheck/vacheck/internal/offheap"
)

// fpSetParts is the number of tables of an fpSet.
const fpSetParts = 256

// fpTable is an open-addressing hash table of nonzero 64-bit fingerprints
// with linear probing: a slot is the fingerprint itself, 0 marks an empty
// slot. A fingerprint's home slot is taken from its bits below the top
// byte (which picks the table of an fpSet), scaled to the table's size, so
// the size need not be a power of two; the table doubles as it grows. Large
// tables live outside the Go heap (package offheap), so that a table that
// grows gives its old memory back at once.
type fpTable struct {
	slots offheap.Array[uint64]
	n     int
	first int // the size of the first allocation
}

// fpTableMin is the smallest size of a table's first allocation.
const fpTableMin = 64

func home(h uint64, size int) int {
	hi, _ := bits.Mul64(h<<8, uint64(size))
	return int(hi)
}

func (t *fpTable) has(h uint64) bool {
	s := t.slots.Slice()
	if len(s) == 0 {
		return false
	}
	i := home(h, len(s))
	for {
		switch s[i] {
		case h:
			return true
		case 0:
			return false
		}
		if i++; i == len(s) {
			i = 0
		}
	}
}

// full reports whether one more fingerprint would fill the table beyond
// four fifths, so that it must grow first.
func (t *fpTable) full() bool { return (t.n+1)*5 > t.slots.Len()*4 }

// grownSize is the number of slots of the table after it grows.
func (t *fpTable) grownSize() int { return max(fpTableMin, t.first, t.slots.Len()*2) }

// grow makes the table twice as large, in place: the memory grows where
// the system allows it (memory already touched stays, only the new part is
// faulted in), and the fingerprints move from their old slots to their new
// ones in one pass from the top down, without a copy of the table aside
// and without clearing the part rewritten anyway. A fingerprint's home
// slot grows with it: in a table of twice the size it is twice the old one
// or one more (home), so the slots from the one being moved up hold only
// fingerprints placed in the new table already, and a fingerprint placed
// by probing there, never below its old slot, is where the new table would
// have it. The few whose probe would reach below that slot (those far past
// their home at the start of the table) or wrap past the end wait in
// scratch and are placed last. The table then holds the same set as one
// filled afresh, in slots that may differ.
//
// In chang-roberts N=6 with 2 workers (3,628 grows) that is about half of
// grow's time: copying the table aside and clearing all of it cost more
// than moving the fingerprints.
func (t *fpTable) grow(scratch *[]uint64) {
	size := t.slots.Len()
	t.slots.Resize(t.grownSize())
	regrow(t.slots.Slice(), size, scratch)
}

// regrow turns s, a table whose first size slots hold a table of that size
// and whose other slots are zero, into a table of len(s) slots holding the
// same fingerprints (see grow), with scratch for those placed last.
func regrow(s []uint64, size int, scratch *[]uint64) {
	// The part never used is zero already, but clearing it writes each
	// new page before placing reads it: a page first read is mapped to the
	// system's shared zero page, and the write that follows faults again,
	// and flushes the other threads' TLBs with interrupts.
	clear(s[size:])
	wait := (*scratch)[:0]
	for p := size - 1; p >= 0; p-- {
		h := s[p]
		if h == 0 {
			continue
		}
		s[p] = 0
		i := home(h, len(s))
		if i < p {
			wait = append(wait, h)
			continue
		}
		for i < len(s) && s[i] != 0 {
			i++
		}
		if i == len(s) {
			wait = append(wait, h)
			continue
		}
		s[i] = h
	}
	for _, h := range wait {
		place(s, h)
	}
	*scratch = wait[:0]
}

// place puts h, which is not in the table s, in its first free slot.
func place(s []uint64, h uint64) {
	i := home(h, len(s))
	for s[i] != 0 {
		if i++; i == len(s) {
			i = 0
		}
	}
	s[i] = h
}

// insert adds the nonzero h unless it is there already, growing the table
// when it is full; it reports whether h was added.
func (t *fpTable) insert(h uint64, scratch *[]uint64) bool {
	if t.full() {
		if t.has(h) {
			return false
		}
		t.grow(scratch)
	}
	s := t.slots.Slice()
	i := home(h, len(s))
	for {
		switch s[i] {
		case h:
			return false
		case 0:
			s[i] = h
			t.n++
			return true
		}
		if i++; i == len(s) {
			i = 0
		}
	}
}

// remove deletes h from the table, if it is there, by shifting the
// fingerprints after it back (linear probing's deletion, which leaves no
// tombstones), and reports whether it was there.
func (t *fpTable) remove(h uint64) bool {
	s := t.slots.Slice()
	if len(s) == 0 {
		return false
	}
	next := func(i int) int {
		if i++; i == len(s) {
			return 0
		}
		return i
	}
	i := home(h, len(s))
	for s[i] != h {
		if s[i] == 0 {
			return false
		}
		i = next(i)
	}
	// Slot i is free now: move back each later fingerprint of the cluster
	// whose home is not between i (exclusive) and its slot (inclusive).
	for j := next(i); s[j] != 0; j = next(j) {
		k := home(s[j], len(s))
		if i <= j && i < k && k <= j || i > j && (i < k || k <= j) {
			continue
		}
		s[i], i = s[j], j
	}
	s[i] = 0
	t.n--
	return true
}

// fpSet is a set of 64-bit state fingerprints split into fpSetParts
// open-addressing tables by the fingerprint's top byte; the fingerprint 0,
// which marks empty slots, is kept in a flag of its own. Each table doubles
// on its own, so growing the set allocates about 1/256 of it at a time: a
// set of hundreds of millions of states never holds its old and new table
// at once, and the memory limit is checked against that small step
// (growth). A slot costs 8 bytes, and tables are between 40% and 80% full.
// Doubling rather than growing by half places fingerprints anew half as
// often: by the time a table holds n, growing by half has placed about 2n
// of them again, doubling about n. Chang-roberts N=6 on one worker runs 2%
// faster, for 4% more memory.
//
// The tables' first sizes are staggered between fpTableMin and twice that:
// the fingerprints spread evenly over the tables, which would otherwise all
// grow at about the same moment, leaving half of the set behind as garbage
// at once; staggered, they grow one after the other, and the set is 58%
// full on average at any size.
type fpSet struct {
	parts   [fpSetParts]fpTable
	zero    bool
	n       int64
	scratch []uint64 // a table's fingerprints while it grows
	sink    uint64   // keeps touch's loads
}

func newFPSet() *fpSet {
	s := &fpSet{}
	s.init()
	return s
}

// init staggers the tables' first sizes.
func (s *fpSet) init() {
	for i := range s.parts {
		s.parts[i].first = fpTableMin + fpTableMin*i/fpSetParts
	}
}

// Has reports whether h is in the set.
func (s *fpSet) Has(h uint64) bool {
	if h == 0 {
		return s.zero
	}
	return s.parts[h>>56].has(h)
}

// touchBatch is how many fingerprints the searches look up with one touch.
const touchBatch = 16

// touch reads the home slot of each fingerprint of hs, so that looking them
// up next finds them in the cache. A lookup in a large set waits for main
// memory; one after the other, each waits its turn, while these loads do not
// depend on each other and wait together (a software prefetch: on a
// virtual machine measured here, 13 ns a load instead of 260).
func (s *fpSet) touch(hs []uint64) {
	var x uint64
	for _, h := range hs {
		if sl := s.parts[h>>56].slots.Slice(); len(sl) > 0 {
			x += sl[home(h, len(sl))]
		}
	}
	s.sink += x
}

// Len returns the number of fingerprints in the set.
func (s *fpSet) Len() int64 { return s.n }

// growth returns how many bytes inserting h would allocate: 0 unless the
// table h goes to is full.
func (s *fpSet) growth(h uint64) uint64 {
	if h == 0 {
		return 0
	}
	if t := &s.parts[h>>56]; t.full() {
		return uint64(t.grownSize()) * 8
	}
	return 0
}

// insert adds h unless it is there already, and reports whether it did.
// It does not check the memory limit: see Add.
func (s *fpSet) insert(h uint64) bool {
	if h == 0 {
		if s.zero {
			return false
		}
		s.zero = true
	} else if !s.parts[h>>56].insert(h, &s.scratch) {
		return false
	}
	s.n++
	return true
}

// remove deletes h from the set and reports whether it was there.
func (s *fpSet) remove(h uint64) bool {
	if h == 0 {
		if !s.zero {
			return false
		}
		s.zero = false
	} else if !s.parts[h>>56].remove(h) {
		return false
	}
	s.n--
	return true
}

// Add inserts h, unless the table it goes to would have to grow beyond the
// search's memory limit; then it stops the search and returns false.
func (s *fpSet) Add(sr *search, h uint64) bool {
	if g := s.growth(h); g > 0 && !roomFor(sr, g) {
		return false
	}
	s.insert(h)
	return true
}

// Clear empties the set and keeps its tables for reuse.
func (s *fpSet) Clear() {
	if s.n == 0 {
		return
	}
	for i := range s.parts {
		if t := &s.parts[i]; t.n > 0 {
			clear(t.slots.Slice())
			t.n = 0
		}
	}
	s.zero, s.n = false, 0
}

// Each calls fn with every fingerprint in the set, in no particular order,
// until fn returns false.
func (s *fpSet) Each(fn func(h uint64) bool) {
	if s.zero && !fn(0) {
		return
	}
	for i := range s.parts {
		for _, h := range s.parts[i].slots.Slice() {
			if h != 0 && !fn(h) {
				return
			}
		}
	}
}

// bytes returns the memory the set's tables take.
func (s *fpSet) bytes() uint64 {
	var b uint64
	for i := range s.parts {
		b += uint64(s.parts[i].slots.Len()) * 8
	}
	return b
}

// free gives the tables' memory back; the set is then empty.
func (s *fpSet) free() {
	for i := range s.parts {
		s.parts[i].slots.Free()
		s.parts[i].n = 0
	}
	s.zero, s.n, s.scratch = false, 0, nil
}

// roomFor reports whether the search may allocate grow more bytes for its
// visited set: always without a memory limit; with one, when the memory
// held now plus grow stays under it. Otherwise it stops the search, which
// ends incomplete, instead of letting an allocation overshoot the limit.
func roomFor(s *search, grow uint64) bool {
	if s.cfg.MaxMemory == 0 || s.sampleMemory()+grow <= s.cfg.MaxMemory {
		return true
	}
	s.stop.CompareAndSwap(running, stopMemory)
	return false
}

// fingerprint returns the 64-bit fingerprint of the encoded state st: its
// XXH3 hash (seed 0), which is as well distributed as the 64-bit xxHash
// that came before it and 2.4 times as fast on states of 40 to 100 bytes.
func fingerprint(st []byte) uint64 { return xxh3.Hash(st) }
