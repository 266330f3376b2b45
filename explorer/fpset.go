package explorer

import (
	"unsafe"

	"github.com/dolthub/swiss"
)

// fpSetParts is the number of tables of an fpSet.
const fpSetParts = 256

// fpSet is a set of state fingerprints split into fpSetParts swiss tables
// by the fingerprint's top byte. Each table doubles on its own, so growing
// the set allocates 1/256 of it at a time: a set of hundreds of millions of
// states never holds its old and new table at once (a single table does,
// for several gigabytes and several minutes of rehashing), and the memory
// limit is checked against that small step.
type fpSet struct {
	parts [fpSetParts]*swiss.Map[uint64, struct{}]
}

func newFPSet() *fpSet {
	s := &fpSet{}
	for i := range s.parts {
		s.parts[i] = swiss.NewMap[uint64, struct{}](64)
	}
	return s
}

func (s *fpSet) part(h uint64) *swiss.Map[uint64, struct{}] { return s.parts[h>>56] }

// Has reports whether h is in the set.
func (s *fpSet) Has(h uint64) bool { return s.part(h).Has(h) }

// Add inserts h, unless the table it goes to would have to grow beyond the
// search's memory limit; then it stops the search and returns false.
func (s *fpSet) Add(sr *search, h uint64) bool {
	m := s.part(h)
	if !roomToGrow(sr, m, unsafe.Sizeof(h)) {
		return false
	}
	m.Put(h, struct{}{})
	return true
}
