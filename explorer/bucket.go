package explorer

import (
	"math/bits"

	"github.com/vacheck/vacheck/internal/offheap"
)

// bucket holds states of one BFS level: their encodings back to back, their
// fingerprints, their canonical keys (the predecessor's rank in its level, in
// 32 bits, then the action index), and their references in the visited set (a
// candidate's predecessor's, until phase 2 inserts it). Its columns live
// outside the Go heap when they are large (package offheap): they grow without
// copying and give their memory back when the search frees them.
type bucket struct {
	arena offheap.Array[byte]
	ends  offheap.Array[int]
	fps   offheap.Array[uint64]
	ranks offheap.Array[uint32]
	acts  offheap.Array[uint32]
	refs  offheap.Array[stateRef]
	// verdicts holds what checking a state found when it was checked in
	// phase 1 (verdict), and errs the errors those checks returned.
	verdicts offheap.Array[int8]
	errs     []error
	// holes is the number of candidates phase 2 dropped in place, their
	// reference holeRef, from a level of several buckets (mergeWorkers
	// leaves them out); a level of one bucket is compacted instead.
	holes int
}

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
	b.arena.AppendSlice(st)
	b.ends.Append(b.arena.Len())
	b.fps.Append(fp)
	b.ranks.Append(rank)
	b.acts.Append(act)
	b.refs.Append(ref)
	b.verdicts.Append(unchecked)
}

// len returns the number of states in the bucket.
func (b *bucket) len() int { return b.fps.Len() }

func (b *bucket) start(i int) int {
	if i == 0 {
		return 0
	}
	return b.ends.Slice()[i-1]
}

func (b *bucket) state(i int) []byte { return b.arena.Slice()[b.start(i):b.ends.Slice()[i]] }

func (b *bucket) fp(i int) uint64 { return b.fps.Slice()[i] }

func (b *bucket) act(i int) uint32 { return b.acts.Slice()[i] }

func (b *bucket) ref(i int) stateRef { return b.refs.Slice()[i] }

func (b *bucket) setRef(i int, r stateRef) { b.refs.Slice()[i] = r }

func (b *bucket) reset() {
	b.truncate(0)
	b.errs = b.errs[:0]
}

// shrink empties the bucket and gives back the memory beyond frac (< 1)
// of what each column held, with some slack: levels past the widest one
// shrink, and their buckets would otherwise keep the widest level's pages.
func (b *bucket) shrink(frac float64) {
	n, bytes := b.len(), b.arena.Len()
	b.reset()
	keep := func(n int) int { return int(float64(n)*frac) + 1024 }
	b.arena.Trim(keep(bytes))
	b.ends.Trim(keep(n))
	b.fps.Trim(keep(n))
	b.ranks.Trim(keep(n))
	b.acts.Trim(keep(n))
	b.refs.Trim(keep(n))
	b.verdicts.Trim(keep(n))
}

func (b *bucket) verdict(i int) int8 { return b.verdicts.Slice()[i] }

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
	b.verdicts.Slice()[i] = v
}

// free gives the bucket's memory back; the bucket is then empty.
func (b *bucket) free() {
	b.arena.Free()
	b.ends.Free()
	b.fps.Free()
	b.ranks.Free()
	b.acts.Free()
	b.refs.Free()
	b.verdicts.Free()
	b.errs = nil
}

// release gives the system back the memory of the entries from to to
// (exclusive), in the whole pages between them, which one worker has
// expanded and no one reads any more (see releaser); reading them finds
// zeros. The entries around them stay. The bucket takes them back when it
// is emptied for another level.
func (b *bucket) release(from, to int) {
	if to <= from {
		return
	}
	b.arena.Discard(b.start(from), b.start(to))
	b.ends.Discard(from, to-1) // state(from) reads ends[from-1], state(to) ends[to-1]
	b.fps.Discard(from, to)
	b.ranks.Discard(from, to)
	b.acts.Discard(from, to)
	b.refs.Discard(from, to)
	b.verdicts.Discard(from, to)
}

// keep moves entry k to position to (to <= k), for compaction in place.
func (b *bucket) keep(k, to int) {
	if k != to {
		from := b.state(k)
		dst := b.start(to)
		n := copy(b.arena.Slice()[dst:], from)
		b.ends.Slice()[to] = dst + n
		fps, ranks, acts, refs, vs := b.fps.Slice(), b.ranks.Slice(), b.acts.Slice(), b.refs.Slice(), b.verdicts.Slice()
		fps[to], ranks[to], acts[to], refs[to], vs[to] = fps[k], ranks[k], acts[k], refs[k], vs[k]
	}
}

// truncate keeps the first n entries, and counts no hole among them.
func (b *bucket) truncate(n int) {
	b.holes = 0
	b.arena.Truncate(b.start(n))
	b.ends.Truncate(n)
	b.fps.Truncate(n)
	b.ranks.Truncate(n)
	b.acts.Truncate(n)
	b.refs.Truncate(n)
	b.verdicts.Truncate(n)
}

func (b *bucket) key(i int) (int64, uint32) { return int64(b.ranks.Slice()[i]), b.acts.Slice()[i] }

func (b *bucket) bfsKey(i int) bfsKey { r, a := b.key(i); return bfsKey{r, a} }

// level is a BFS level in canonical order: the states of its buckets,
// merged by key.
type level struct {
	buckets []*bucket
	ref     []uint64 // bucket<<48 | index, in rank order; nil with one bucket
	n       int
	// stretch[w] is the rank of the first state of worker w's buckets
	// (mergeWorkers), and stretch[W] is n; nil with one bucket.
	stretch []int
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

// mergeWorkers orders the candidates of a BFS level canonically, by key,
// into a level: out[w][sh] holds worker w's candidates for shard sh, in key
// order, and the level's buckets are out[0][0], out[1][0], ..., out[0][1],
// ... (a shard's, worker after worker). Each key is one transition, so the
// order is one; and the workers expand consecutive ranges of the level, so
// every candidate of worker w has a key below those of worker w+1. Each
// worker's buckets therefore merge on their own, into their own stretch of
// the order, all at once: par runs fn(w) for every worker and returns when
// they are done. The order is written into order's memory, which held the
// order of a level no longer needed (nil: into a new slice). The
// candidates phase 2 dropped in place (holes) are left out.
func mergeWorkers(out [][]*bucket, order *offheap.Array[uint64], par func(fn func(w int))) *level {
	W := len(out)
	l := &level{}
	ends := make([]int, W+1) // worker w's stretch is ref[ends[w]:ends[w+1]]
	for sh := 0; sh < W; sh++ {
		for w := 0; w < W; w++ {
			b := out[w][sh]
			l.buckets = append(l.buckets, b)
			l.n += b.len() - b.holes
			ends[w+1] += b.len() - b.holes
		}
	}
	if len(l.buckets) == 1 {
		return l
	}
	for w := 0; w < W; w++ {
		ends[w+1] += ends[w]
	}
	if order == nil {
		l.ref = make([]uint64, l.n)
	} else {
		// Outside the Go heap, which would hold up to twice the widest
		// level's order (8 bytes a state) until a collection: the
		// array grows in place, and gives back what a narrower level
		// leaves unused.
		order.Resize(l.n)
		order.Trim(l.n + l.n/8)
		l.ref = order.Slice()
	}
	l.stretch = ends
	par(func(w int) {
		type head struct {
			ranks, acts []uint32   // the bucket's keys
			refs        []stateRef // and references, holeRef for a hole
			holes       bool
			key         uint64 // entry i's key: rank<<32 | act
			id, i       int    // the bucket's index in l.buckets; the next entry
		}
		// skip moves h past the holes from its entry i on, and reports
		// whether an entry is left.
		skip := func(h *head) bool {
			for h.holes && h.i < len(h.refs) && h.refs[h.i] == holeRef {
				h.i++
			}
			if h.i == len(h.ranks) {
				return false
			}
			h.key = uint64(h.ranks[h.i])<<32 | uint64(h.acts[h.i])
			return true
		}
		heads := make([]head, 0, W)
		for sh := 0; sh < W; sh++ {
			b := out[w][sh]
			h := head{ranks: b.ranks.Slice(), acts: b.acts.Slice(), refs: b.refs.Slice(), holes: b.holes > 0, id: sh*W + w}
			if skip(&h) {
				heads = append(heads, h)
			}
		}
		ref := l.ref[ends[w]:ends[w+1]]
		for k := range ref {
			best := 0
			for j := 1; j < len(heads); j++ {
				if heads[j].key < heads[best].key {
					best = j
				}
			}
			h := &heads[best]
			ref[k] = uint64(h.id)<<48 | uint64(h.i)
			if h.i++; !skip(h) {
				heads = append(heads[:best], heads[best+1:]...)
			}
		}
	})
	return l
}

// releaser gives back, as a worker expands its range of a level, the
// memory of the states it has expanded, so that the level being expanded
// and the one being filled do not both stay whole in memory: a BFS then
// holds about one level at its widest instead of two (chang-roberts N=6:
// 25 of its 64 MiB at the peak were levels).
//
// A bucket's entries are expanded in index order: the merge keeps each
// bucket's order (mergeWorkers), and a worker expands a contiguous range
// of ranks. So the entries of a bucket a worker expands are a contiguous
// stretch of it, and no other worker reads the whole pages inside that
// stretch: the worker gives them back, and keeps a page shared with the
// stretch of another worker. One worker releases each bucket, the one that
// expands its first entries: the buckets of the stretches of the merge
// (level.stretch) that start in its range, or with one bucket the worker
// of rank 0. A search that may read a level again after
// expanding it (checkpoints, the state graph, Config.OnExpand, the depth
// limit) does not release it.
type releaser struct {
	cur      *level
	owned    []bool // per bucket: this worker releases it
	from, to []int  // per bucket: the worker's entries expanded so far; from -1: none
	next     int    // the first rank not yet looked at
}

// releaseEvery is how many states a worker expands between releases.
const releaseEvery = 4096

// newReleaser returns the releaser of the worker that expands the ranks
// of cur from lo on.
func newReleaser(cur *level, lo int) *releaser {
	r := &releaser{cur: cur, next: lo}
	r.from = make([]int, len(cur.buckets))
	r.to = make([]int, len(cur.buckets))
	r.owned = make([]bool, len(cur.buckets))
	for id := range r.from {
		r.from[id] = -1
		if cur.ref == nil {
			r.owned[id] = lo == 0
		} else {
			W := len(cur.stretch) - 1
			r.owned[id] = cur.stretch[id%W] >= lo // bucket id is worker id%W's
		}
	}
	return r
}

// release gives back the memory of the states the worker has expanded, up
// to the state of rank rank, which it has not expanded yet.
func (r *releaser) release(rank int) {
	if r.cur.ref == nil {
		if !r.owned[0] {
			return
		}
		if r.from[0] < 0 {
			r.from[0] = r.next
		}
		r.next = rank
		r.cur.buckets[0].release(r.from[0], rank)
		return
	}
	for k := r.next; k < rank; k++ {
		ref := r.cur.ref[k]
		id, i := int(ref>>48), int(ref&(1<<48-1))
		if r.from[id] < 0 {
			r.from[id] = i
		}
		r.to[id] = i + 1
	}
	r.next = rank
	for id, from := range r.from {
		if from >= 0 && r.owned[id] {
			r.cur.buckets[id].release(from, r.to[id])
		}
	}
}
