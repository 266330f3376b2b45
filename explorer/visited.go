package explorer

import (
	"fmt"

	"github.com/vacheck/vacheck/internal/offheap"
)

// stateRef names a state of the visited set: its shard in bits 40..47 and
// its record number in that shard below, in the order the states were
// added.
type stateRef uint64

const (
	refPosBits = 40
	refPosMask = 1<<refPosBits - 1
	// noRef is the parent of an initial state.
	noRef stateRef = 1<<48 - 1
	// recChunk is the number of records of a chunk of visitedSet.recs.
	recChunk = 1 << 18
	// bigAct marks a record whose action index does not fit in 16 bits;
	// the index is then in visitedSet.bigActs.
	bigAct = 1<<16 - 1
)

func (r stateRef) shard() int  { return int(r >> refPosBits) }
func (r stateRef) pos() uint64 { return uint64(r) & refPosMask }

// visitedSet is one shard of the visited set of a BFS: the fingerprints of
// the states stored (an fpSet) and, for each state, a record of how it was
// first reached, so that a counterexample can be rebuilt by following the
// records back to an initial state and replaying the actions. A record is
// one uint64, its predecessor's stateRef (48 bits) and the action index
// (16 bits); it is found by the state's stateRef, not by its fingerprint,
// so a state costs its fingerprint's slot and 8 bytes. Records are kept in
// chunks of recChunk, so that they too grow a small part at a time.
//
// All access goes through the methods: Has, Add (or insertFP and
// addRecord), Parent, Len, EachFP and EachRecord.
type visitedSet struct {
	fps     fpSet
	shard   int
	recs    []offheap.Array[uint64]
	n       uint64
	bigActs map[uint64]uint32 // record number → action index ≥ bigAct
}

func newVisitedSet(shard int) *visitedSet {
	v := &visitedSet{shard: shard}
	v.fps.init()
	return v
}

// Has reports whether the state with fingerprint fp is in the set.
func (v *visitedSet) Has(fp uint64) bool { return v.fps.Has(fp) }

// Len returns the number of states in the set.
func (v *visitedSet) Len() int64 { return int64(v.n) }

// growth returns how many bytes adding fp would allocate.
func (v *visitedSet) growth(fp uint64) uint64 {
	g := v.fps.growth(fp)
	if c := v.n / recChunk; c == uint64(len(v.recs)) || v.recs[c].Len() == v.recs[c].Cap() {
		g += recChunk * 8
	}
	return g
}

// Add stores the state with fingerprint fp, reached from parent by action
// act (for an initial state: parent noRef and act its index), unless it is
// there already. It returns the state's reference and whether it was
// added. It does not check the memory limit: the search asks growth first.
func (v *visitedSet) Add(fp uint64, parent stateRef, act uint32) (stateRef, bool) {
	if !v.fps.insert(fp) {
		return 0, false
	}
	return v.addRecord(parent, act), true
}

// insertFP adds the fingerprint fp unless it is there already, and reports
// whether it did; the caller then adds the state's record (addRecord) at
// once. Add in two steps, for a caller that looks the parent up only for a
// new state.
func (v *visitedSet) insertFP(fp uint64) bool { return v.fps.insert(fp) }

// addRecord appends a record and returns its reference.
func (v *visitedSet) addRecord(parent stateRef, act uint32) stateRef {
	pos := v.n
	if pos > refPosMask {
		panic(fmt.Sprintf("explorer: more than %d states in one shard of the visited set", uint64(refPosMask)))
	}
	c := pos / recChunk
	if c == uint64(len(v.recs)) {
		// A chunk starts small, for the many small searches, and grows up
		// to recChunk records.
		v.recs = append(v.recs, offheap.Array[uint64]{})
	}
	a := uint64(act)
	if act >= bigAct {
		if v.bigActs == nil {
			v.bigActs = map[uint64]uint32{}
		}
		v.bigActs[pos] = act
		a = bigAct
	}
	v.recs[c].Append(uint64(parent)<<16 | a)
	v.n++
	return stateRef(uint64(v.shard)<<refPosBits | pos)
}

// Parent returns how the state r was first reached: from the state parent
// by action act, or, when parent is noRef, as initial state number act. ok
// is false when r is not a state of this set.
func (v *visitedSet) Parent(r stateRef) (parent stateRef, act uint32, ok bool) {
	pos := r.pos()
	if r.shard() != v.shard || pos >= v.n {
		return 0, 0, false
	}
	rec := v.recs[pos/recChunk].Slice()[pos%recChunk]
	act = uint32(rec & bigAct)
	if act == bigAct {
		act = v.bigActs[pos]
	}
	return stateRef(rec >> 16), act, true
}

// rollback removes the states added since the set held n, whose
// fingerprints are those of fps: a level a search added and then abandons
// (see expander.insertFresh).
func (v *visitedSet) rollback(n uint64, fps ...[]uint64) {
	for _, hs := range fps {
		for _, h := range hs {
			v.fps.remove(h)
		}
	}
	for pos := range v.bigActs {
		if pos >= n {
			delete(v.bigActs, pos)
		}
	}
	c := n / recChunk
	for i := c + 1; i < uint64(len(v.recs)); i++ {
		v.recs[i].Free()
	}
	if c < uint64(len(v.recs)) {
		v.recs = v.recs[:c+1]
		v.recs[c].Truncate(int(n % recChunk))
	}
	v.n = n
}

// free gives the set's memory back; the set is then empty.
func (v *visitedSet) free() {
	v.fps.free()
	for i := range v.recs {
		v.recs[i].Free()
	}
	v.recs, v.n, v.bigActs = nil, 0, nil
}

// EachFP calls fn with the fingerprint of every state, in no particular
// order, until fn returns false.
func (v *visitedSet) EachFP(fn func(fp uint64) bool) { v.fps.Each(fn) }

// EachRecord calls fn with every state's reference, predecessor and
// action index (see Parent), in the order they were added, until fn
// returns false.
func (v *visitedSet) EachRecord(fn func(r, parent stateRef, act uint32) bool) {
	for pos := uint64(0); pos < v.n; pos++ {
		r := stateRef(uint64(v.shard)<<refPosBits | pos)
		p, a, _ := v.Parent(r)
		if !fn(r, p, a) {
			return
		}
	}
}
