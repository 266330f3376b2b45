package explorer

import (
	"fmt"
	"math"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/vacheck/vacheck/internal/offheap"
)

// bucket holds states of one BFS level: their encodings, their
// fingerprints, their canonical keys (the predecessor's rank in its level,
// in 32 bits, then the action index), and their references in the visited
// set (a candidate's predecessor's, until phase 2 inserts it). It keeps
// them in segments of segLen states, which it takes from a pool shared by
// the search's buckets and gives back to it when it is emptied or a worker
// has expanded them (releaser): the level being filled reuses the memory of
// the level being expanded, without asking the system for pages or giving
// them back (see segPool).
type bucket struct {
	segs []*segment
	n    int
	pool *segPool // nil until the first segment: a pool of the bucket's own
	// errs holds the errors the checks of phase 1 returned (setVerdict).
	errs []error
}

// segShift is the log2 of segLen, the number of states in a segment.
const (
	segShift = 11
	segLen   = 1 << segShift
	segMask  = segLen - 1
)

// segment holds segLen states of a bucket: their encodings back to back in
// arena, and their columns in one mapping (cols) outside the Go heap. The
// arena ends of the states (ends) are offsets into the segment's arena.
type segment struct {
	arena    offheap.Array[byte]
	cols     offheap.Array[uint64]
	fps      []uint64
	keys     []uint64 // rank<<32 | act
	refs     []stateRef
	ends     []uint32
	verdicts []int8
	// holes counts the segment's candidates phase 2 dropped in place
	// (holeRef), which no one expands; left, while the level is expanded,
	// the segment's other entries not expanded yet (releaser).
	holes int32
	left  atomic.Int32
}

// segWords is the size of a segment's columns in 64-bit words: fps, keys,
// refs, ends (4 bytes), verdicts (1 byte).
const segWords = 3*segLen + segLen/2 + segLen/8

func newSegment() *segment {
	s := &segment{cols: offheap.Make[uint64](segWords)}
	w := s.cols.Slice()
	s.fps = w[:segLen:segLen]
	s.keys = w[segLen : 2*segLen : 2*segLen]
	s.refs = unsafe.Slice((*stateRef)(unsafe.Pointer(&w[2*segLen])), segLen)
	s.ends = unsafe.Slice((*uint32)(unsafe.Pointer(&w[3*segLen])), segLen)
	s.verdicts = unsafe.Slice((*int8)(unsafe.Pointer(&w[3*segLen+segLen/2])), segLen)
	return s
}

// start returns the offset of state j's encoding in the segment's arena.
func (s *segment) start(j int) int {
	if j == 0 {
		return 0
	}
	return int(s.ends[j-1])
}

func (s *segment) free() {
	s.arena.Free()
	s.cols.Free()
}

// segPool holds the segments no bucket uses, for the buckets of a search
// to share: a BFS keeps about one level at its widest in segments (the
// part of the level being expanded that is not expanded yet, and the part
// of the next one filled so far), not two, and fills the next level in
// memory it has touched already. Giving the pages of expanded states back
// to the system instead (madvise) cost a system call and a flush of the
// other cores' TLBs every few thousand states, and a page fault for each
// page of the next level: 12% of the time of chang-roberts N=6 with 2
// workers.
type segPool struct {
	mu   sync.Mutex
	free []*segment
	// shared says the pool is a search's, not one bucket's own.
	shared bool
}

func (p *segPool) get() *segment {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		s := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return s
	}
	p.mu.Unlock()
	return newSegment()
}

func (p *segPool) put(s *segment) {
	s.arena.Truncate(0)
	s.holes = 0
	p.mu.Lock()
	p.free = append(p.free, s)
	p.mu.Unlock()
}

// trim keeps at most n free segments, and gives the memory of the others
// back to the system.
func (p *segPool) trim(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.free) > n {
		k := len(p.free) - 1
		p.free[k].free()
		p.free[k] = nil
		p.free = p.free[:k]
	}
}

// segments returns the number of free segments.
func (p *segPool) segments() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.free)
}

// newBucket returns an empty bucket that takes its segments from pool.
func newBucket(pool *segPool) *bucket { return &bucket{pool: pool} }

// holeRef is the reference of a candidate phase 2 dropped: a state stored
// already, or one not to be expanded.
const holeRef = ^stateRef(0)

// A verdict says what checking a state found: unchecked, every invariant
// holds, invariant p fails (verdictViolates+p), or the check failed with
// error i of the bucket's errs (verdictError-i).
const (
	unchecked       int8 = 0
	verdictHolds    int8 = 1
	verdictViolates int8 = 2
	verdictError    int8 = -1
)

// add appends a state. ref is the reference of a stored state; of a
// candidate, it is its parent's until phase 2 stores the candidate.
func (b *bucket) add(st []byte, fp uint64, rank, act uint32, ref stateRef) {
	j := b.n & segMask
	if j == 0 {
		if b.pool == nil {
			b.pool = &segPool{}
		}
		s := b.pool.get()
		s.holes = 0
		b.segs = append(b.segs, s)
	}
	s := b.segs[b.n>>segShift]
	s.arena.AppendSlice(st)
	end := s.arena.Len()
	if end > math.MaxUint32 {
		panic(fmt.Sprintf("explorer: %d bytes of states in a segment of %d, more than 4 GiB", end, segLen))
	}
	s.ends[j] = uint32(end)
	s.fps[j] = fp
	s.keys[j] = uint64(rank)<<32 | uint64(act)
	s.refs[j] = ref
	s.verdicts[j] = unchecked
	b.n++
}

// len returns the number of states in the bucket.
func (b *bucket) len() int { return b.n }

func (b *bucket) state(i int) []byte {
	s, j := b.segs[i>>segShift], i&segMask
	return s.arena.Slice()[s.start(j):s.ends[j]]
}

func (b *bucket) fp(i int) uint64 { return b.segs[i>>segShift].fps[i&segMask] }

// fpSpan returns the fingerprints of entries i to i+n, or fewer: those of
// them in entry i's segment.
func (b *bucket) fpSpan(i, n int) []uint64 {
	j := i & segMask
	return b.segs[i>>segShift].fps[j:min(j+n, segLen, j+b.n-i)]
}

// fpSpans returns the fingerprints of entries from to to, a slice per
// segment.
func (b *bucket) fpSpans(from, to int) [][]uint64 {
	var out [][]uint64
	for i := from; i < to; {
		fps := b.fpSpan(i, to-i)
		out = append(out, fps)
		i += len(fps)
	}
	return out
}

func (b *bucket) act(i int) uint32 { return uint32(b.segs[i>>segShift].keys[i&segMask]) }

func (b *bucket) ref(i int) stateRef { return b.segs[i>>segShift].refs[i&segMask] }

func (b *bucket) setRef(i int, r stateRef) { b.segs[i>>segShift].refs[i&segMask] = r }

// stateBytes returns the bytes of the bucket's state encodings.
func (b *bucket) stateBytes() int {
	n := 0
	for _, s := range b.segs {
		n += s.arena.Len()
	}
	return n
}

func (b *bucket) reset() {
	b.truncate(0)
	b.errs = b.errs[:0]
}

// shrink empties the bucket. Its segments go back to the pool, which the
// search trims to what the next level needs (segPool.trim).
func (b *bucket) shrink(float64) { b.reset() }

func (b *bucket) verdict(i int) int8 { return b.segs[i>>segShift].verdicts[i&segMask] }

// clearVerdict marks state i unchecked.
func (b *bucket) clearVerdict(i int) { b.segs[i>>segShift].verdicts[i&segMask] = unchecked }

// setVerdict records what checking state i found: the index of the first
// invariant it violates or -1, or the error of the check.
func (b *bucket) setVerdict(i int, mask uint64, err error) {
	v := verdictHolds
	switch {
	case err != nil && len(b.errs) < 120:
		b.errs = append(b.errs, err)
		v = verdictError - int8(len(b.errs)-1)
	case err != nil:
		v = unchecked // too many errors to keep: check again in phase 2
	case mask != 0:
		v = verdictViolates + int8(bits.TrailingZeros64(mask))
	}
	b.segs[i>>segShift].verdicts[i&segMask] = v
}

// free empties the bucket and gives the memory of its segments back to the
// system if its pool is its own, else to the pool.
func (b *bucket) free() {
	b.truncate(0)
	b.errs = nil
	if b.pool != nil && b.own() {
		b.pool.trim(0)
	}
}

// own reports whether the bucket's pool is its own (made by add).
func (b *bucket) own() bool { return b.pool != nil && !b.pool.shared }

// keep moves entry k to position to (to <= k), for compaction in place.
func (b *bucket) keep(k, to int) {
	if k == to {
		return
	}
	st := b.state(k)
	sk, jk := b.segs[k>>segShift], k&segMask
	s, j := b.segs[to>>segShift], to&segMask
	start := s.start(j)
	if need := start + len(st); need > s.arena.Len() {
		// Only into an earlier segment, which st is not in.
		s.arena.Resize(need)
	}
	n := copy(s.arena.Slice()[start:], st)
	s.ends[j] = uint32(start + n)
	s.fps[j], s.keys[j], s.refs[j], s.verdicts[j] = sk.fps[jk], sk.keys[jk], sk.refs[jk], sk.verdicts[jk]
}

// truncate keeps the first n entries. The segments past them go back to
// the pool.
func (b *bucket) truncate(n int) {
	keep := (n + segMask) >> segShift
	for i := keep; i < len(b.segs); i++ {
		if s := b.segs[i]; s != nil {
			b.pool.put(s)
		}
		b.segs[i] = nil
	}
	b.segs = b.segs[:keep]
	if keep > 0 {
		if s := b.segs[keep-1]; s != nil {
			s.arena.Truncate(s.start(n - (keep-1)<<segShift))
		}
	}
	b.n = n
}

func (b *bucket) key(i int) (int64, uint32) {
	k := b.segs[i>>segShift].keys[i&segMask]
	return int64(k >> 32), uint32(k)
}

func (b *bucket) bfsKey(i int) bfsKey { r, a := b.key(i); return bfsKey{r, a} }

// level is a BFS level in canonical order: the states of its buckets,
// merged by key.
type level struct {
	buckets []*bucket
	ref     []uint64 // bucket<<48 | index, in rank order; nil with one bucket
	n       int
}

// get returns the state of rank r, its fingerprint and its reference in
// the visited set.
func (l *level) get(r int) ([]byte, uint64, stateRef) {
	if l.ref == nil {
		b := l.buckets[0]
		return b.state(r), b.fp(r), b.ref(r)
	}
	ref := l.ref[r]
	b := l.buckets[ref>>48]
	i := int(ref & (1<<48 - 1))
	return b.state(i), b.fp(i), b.ref(i)
}

// releaser gives back to the pool, as a worker expands its chunks of a
// level, the segments whose states have all been expanded, for the next
// level's buckets to take, so that the level being expanded and the one
// being filled do not both stay whole in memory: a BFS then holds about
// one level at its widest instead of two (chang-roberts N=6: 25 of its 64
// MiB at the peak were levels).
//
// A segment's entries are expanded by several workers when the chunks
// that read them are (the chunks of this level cut the ranks anew, and a
// segment holds the candidates of several chunks of the level before):
// so each segment counts down the entries left to expand (segment.left,
// set by prepareRelease before the level is expanded), and the worker
// whose expansions take it to 0, the last to read it, gives it back.
// Workers count their expansions per bucket, a segment at a time (a
// bucket's entries come in index order: the merge keeps each bucket's
// order), and do not read an entry after counting it. A search that may
// read a level again after expanding it (checkpoints, the state graph,
// Config.OnExpand, the depth limit) does not release it.
type releaser struct {
	cur *level
	// seg[id] is the segment of bucket id whose entries are being
	// counted, n[id] how many so far.
	seg, n []int32
}

// newReleaser returns a releaser of the level cur.
func newReleaser(cur *level) *releaser {
	return &releaser{cur: cur, seg: make([]int32, len(cur.buckets)), n: make([]int32, len(cur.buckets))}
}

// releaseEvery is how many states a worker expands between releases.
const releaseEvery = 1024

// prepareRelease sets the count of every segment of cur's buckets to its
// entries to be expanded: all but the holes. Segments of nothing but
// holes go back to the pool at once.
func prepareRelease(cur *level) {
	for _, b := range cur.buckets {
		for i, s := range b.segs {
			if s == nil {
				continue
			}
			left := int32(min(segLen, b.n-i<<segShift)) - s.holes
			if left <= 0 {
				b.segs[i] = nil
				b.pool.put(s)
				continue
			}
			s.left.Store(left)
		}
	}
}

// expanded counts the states of ranks lo to hi as expanded, and gives back
// the segments no state is left to expand in.
func (r *releaser) expanded(lo, hi int) {
	if r.cur.ref == nil {
		for k := lo; k < hi; {
			seg := k >> segShift
			end := min(hi, (seg+1)<<segShift)
			r.seg[0], r.n[0] = int32(seg), int32(end-k)
			r.flush(0)
			k = end
		}
		return
	}
	for _, ref := range r.cur.ref[lo:hi] {
		id, seg := int(ref>>48), int32(int(ref&(1<<48-1))>>segShift)
		if seg != r.seg[id] {
			r.flush(id)
			r.seg[id] = seg
		}
		r.n[id]++
	}
	for id := range r.n {
		r.flush(id)
	}
}

// flush takes the entries counted in bucket id from its segment's count,
// and gives the segment back when that reaches 0.
func (r *releaser) flush(id int) {
	n := r.n[id]
	if n == 0 {
		return
	}
	r.n[id] = 0
	b := r.cur.buckets[id]
	s := b.segs[r.seg[id]]
	if s.left.Add(-n) == 0 {
		b.segs[r.seg[id]] = nil
		b.pool.put(s)
	}
}
