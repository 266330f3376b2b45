package explorer

import (
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/vacheck/vacheck/internal/offheap"
)

// fpIndex finds a state's number by its fingerprint: an open-addressing
// table, at most 3/4 full, each of whose slots holds a state's number
// plus one (0 is empty) in its low 32 bits and the low 32 bits of the
// state's fingerprint, its tag, in the high ones. A fingerprint's first
// slot is its high bits scaled to the table's size (home), so that the
// table need not be a power of two in size.
//
// A lookup takes the first slot on its path with its tag, without reading
// the fingerprints: one cache miss, not two. It would take the wrong state
// only where a slot before a state's own on its path held another state
// with the same tag; placing the state walked past that slot then and
// met the tag, and the index compares whole fingerprints ever after
// (verify): placing a state passes one and a half other slots on
// average, so this happens about once in three thousand indexes of a
// million states.
type fpIndex struct {
	fps    []uint64
	slots  []uint64 // in mem
	mem    offheap.Array[uint64]
	verify bool
}

// free gives the index's memory back.
func (x *fpIndex) free() {
	x.mem.Free()
	x.slots = nil
}

// indexBatch is how many fingerprints fpIndex reads ahead of the one it
// places or finds, so that their cache misses overlap.
const indexBatch = 64

// newFPIndex indexes fps (fingerprints of states 0 .. len(fps)-1) on up to
// workers goroutines, each placing a range of them: a slot is claimed by
// compare-and-swap, so that a state met in a slot was placed there before,
// by whichever goroutine. The layout then depends on the order of the
// claims, not what get finds. errIncomplete says that a fingerprint
// appears twice (two copies meet on their common probe path, whoever
// places second); halt is asked by the first goroutine only. fps must
// stay unchanged while the index is used, unless verify is false.
func newFPIndex(fps []uint64, halt func(int) bool, workers int) (fpIndex, error) {
	size := max(16, len(fps)/3*4+4)
	x := fpIndex{fps: fps, mem: offheap.Make[uint64](size)}
	x.slots = x.mem.Slice()
	workers = max(1, min(workers, len(fps)/indexBatch))
	// The slots are written before they are read, each goroutine a part:
	// see fpTable.grow.
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lo, hi := split(len(x.slots), workers, w)
			clear(x.slots[lo:hi])
		}()
	}
	wg.Wait()
	var twice, halted, verify atomic.Bool
	for w := 0; w < workers; w++ {
		lo, hi := split(len(fps), workers, w)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sink uint64
			for i := lo; i < hi; i++ {
				if (i-lo)%indexBatch == 0 {
					if w == 0 && halt(i) {
						halted.Store(true)
					}
					if halted.Load() || twice.Load() {
						return
					}
					for _, f := range fps[i:min(i+indexBatch, hi)] {
						sink += atomic.LoadUint64(&x.slots[x.home(f)])
					}
				}
				switch x.place(i) {
				case placeTwice:
					twice.Store(true)
					return
				case placeTagMet:
					verify.Store(true)
				}
			}
			runtime.KeepAlive(sink) // the reads ahead are not dead code
		}()
	}
	wg.Wait()
	switch {
	case halted.Load():
		x.free()
		return fpIndex{}, errHalted
	case twice.Load():
		x.free()
		return fpIndex{}, errIncomplete
	}
	x.verify = verify.Load()
	return x, nil
}

// What placing a state met on its way.
const (
	placeFree   = iota // only other tags
	placeTagMet        // another fingerprint with the state's tag
	placeTwice         // the state's fingerprint: it is there twice
)

// tag returns the tag of fingerprint fp, in a slot's high bits.
func tag(fp uint64) uint64 { return fp << 32 }

// place puts state i in its fingerprint's first free slot, and says what
// it met on the way.
func (x fpIndex) place(i int) int {
	fp := x.fps[i]
	met := placeFree
	for h := x.home(fp); ; h = x.next(h) {
		v := atomic.LoadUint64(&x.slots[h])
		if v == 0 {
			if atomic.CompareAndSwapUint64(&x.slots[h], 0, tag(fp)|uint64(i+1)) {
				return met
			}
			v = atomic.LoadUint64(&x.slots[h])
		}
		if v>>32<<32 == tag(fp) {
			if x.fps[uint32(v)-1] == fp {
				return placeTwice
			}
			met = placeTagMet
		}
	}
}

// home returns the first slot of fingerprint fp.
func (x fpIndex) home(fp uint64) int {
	hi, _ := bits.Mul64(fp, uint64(len(x.slots)))
	return int(hi)
}

// next returns the slot after h.
func (x fpIndex) next(h int) int {
	if h++; h == len(x.slots) {
		return 0
	}
	return h
}

// get returns the number of the state with fingerprint fp. A fingerprint
// of no state is reported missing unless, without verify, a state with
// its tag lies on its path.
func (x fpIndex) get(fp uint64) (uint32, bool) { return x.getFrom(fp, x.home(fp)) }

// getFrom is get with fp's home slot h.
func (x fpIndex) getFrom(fp uint64, h int) (uint32, bool) {
	for ; ; h = x.next(h) {
		v := x.slots[h]
		if v == 0 {
			return 0, false
		}
		if v>>32<<32 == tag(fp) && (!x.verify || x.fps[uint32(v)-1] == fp) {
			return uint32(v) - 1, true
		}
	}
}

// getAll puts the number of the state of each fingerprint of fps (at most
// indexBatch) in out and reports whether it found them all. It first
// reads the home slots of all of them, so that the cache misses of a
// batch overlap instead of following one another; sink keeps those reads.
func (x fpIndex) getAll(fps []uint64, out []uint32, sink *uint64) bool {
	var homes [indexBatch]int
	var s uint64
	for i, fp := range fps {
		homes[i] = x.home(fp)
		s += x.slots[homes[i]]
	}
	*sink += s
	for i, fp := range fps {
		j, ok := x.getFrom(fp, homes[i])
		if !ok {
			return false
		}
		out[i] = j
	}
	return true
}
