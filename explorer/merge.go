package explorer

import (
	"sync"
	"sync/atomic"

	"github.com/vacheck/vacheck/internal/offheap"
)

// mergeChunks orders the candidates of a BFS level canonically, by key,
// into a level: out[w][sh] holds worker w's candidates for shard sh, chunk
// c's in the stretch ch.span(c, sh) of the bucket of the worker that
// expanded it, in key order, and the level's buckets are out[0][0],
// out[1][0], ..., out[0][1], ... (a shard's, worker after worker). Each
// key is one transition, so the order is one; and every candidate of
// chunk c has a key below those of chunk c+1 (chunks). Each chunk's
// stretches therefore merge on their own, into their own stretch of the
// order, all at once: par runs fn(w) for every worker, which merge the
// chunks they claim, and returns when they are done. The order is written
// into order's memory, which held the order of a level no longer needed
// (nil: into a new slice). The candidates phase 2 dropped in place
// (holes) are left out.
//
// mergeChunks is levelMerge with every stretch stored already; a BFS of
// several workers merges each chunk as soon as phase 2 has stored it
// (levelMerge).
func mergeChunks(out [][]*bucket, ch *chunks, order *offheap.Array[uint64], par func(fn func(w int))) *level {
	m := newLevelMerge(out, ch, order)
	for sh := range m.done {
		m.stored(sh, ch.count())
	}
	return m.finish(par)
}

// levelMerge merges the candidates of a BFS level into the next level
// (see mergeChunks) while phase 2 stores them: each shard's inserter says
// which chunks it has stored (stored; its stretches are final then), and
// the worker that finishes its shard first, idle until the others finish
// theirs, merges the chunks every shard has stored in the meantime
// (help); finish merges the rest. Chunk c's stretch of the order starts
// after those of the chunks before it, so chunks are claimed in order,
// each once every shard has stored it; the merge of each then runs on its
// own.
//
// In chang-roberts N=6 with 2 workers, the merge took 7 ms of the
// search's wall time after phase 2, and the worker done first with its
// shard idled for 14-15 ms in all (of 120 ms of phase 2).
type levelMerge struct {
	out   [][]*bucket
	ch    *chunks
	l     *level
	order *offheap.Array[uint64]
	// done[sh] is the number of chunks shard sh has stored.
	done []atomic.Int64
	mu   sync.Mutex
	next int // the first chunk not claimed
	pos  int // where chunk next's stretch of the order starts
}

// newLevelMerge prepares the merge of the candidates of out, before
// phase 2 stores them: it sizes the order for all of them, holes
// included (the pages of the order past the states kept are never
// written).
func newLevelMerge(out [][]*bucket, ch *chunks, order *offheap.Array[uint64]) *levelMerge {
	W := len(out)
	m := &levelMerge{out: out, ch: ch, l: &level{}, order: order, done: make([]atomic.Int64, W)}
	for sh := 0; sh < W; sh++ {
		for w := 0; w < W; w++ {
			m.l.buckets = append(m.l.buckets, out[w][sh])
		}
	}
	if W == 1 {
		return m
	}
	n := 0
	for c := range ch.count() {
		for sh := 0; sh < W; sh++ {
			sp := ch.span(c, sh)
			n += sp.hi - sp.lo
		}
	}
	if order == nil {
		m.l.ref = make([]uint64, n)
	} else {
		// Outside the Go heap, which would hold up to twice the widest
		// level's order (8 bytes a state) until a collection: the
		// array grows in place, and gives back what a narrower level
		// leaves unused (finish).
		order.Resize(n)
		m.l.ref = order.Slice()
	}
	return m
}

// stored says that shard sh has stored its stretches of the chunks before
// chunk c, which are final: none of the inserter's writes to them or to
// their entries comes after.
func (m *levelMerge) stored(sh, c int) { m.done[sh].Store(int64(c)) }

// claim returns the first chunk not claimed, when every shard has stored
// it, and where its stretch of the order starts.
func (m *levelMerge) claim() (c, pos int, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c = m.next
	if c >= m.ch.count() {
		return 0, 0, false
	}
	n := 0
	for sh := range m.done {
		if m.done[sh].Load() <= int64(c) {
			return 0, 0, false
		}
		sp := m.ch.span(c, sh)
		n += sp.hi - sp.lo - sp.holes
	}
	pos = m.pos
	m.next, m.pos = c+1, m.pos+n
	return c, pos, true
}

// help merges the chunks every shard has stored, as long as there are.
func (m *levelMerge) help() {
	if len(m.out) == 1 {
		return
	}
	heads := make([]mergeHead, 0, len(m.out))
	for {
		c, pos, ok := m.claim()
		if !ok {
			return
		}
		heads = m.mergeChunk(c, pos, heads)
	}
}

// finish merges the chunks left, once every shard has stored all of its
// own: par runs fn(w) for every worker, which merge the chunks they
// claim, and returns when they are done. It returns the level.
func (m *levelMerge) finish(par func(fn func(w int))) *level {
	W, C, l := len(m.out), m.ch.count(), m.l
	if W == 1 {
		// One worker: its one chunk is the bucket, compacted (inserter).
		for c := range C {
			sp := m.ch.span(c, 0)
			l.n += sp.hi - sp.lo - sp.holes
		}
		return l
	}
	switch left := C - m.next; {
	case left == 1:
		m.help()
	case left > 1:
		par(func(int) { m.help() })
	}
	l.n = m.pos
	l.ref = l.ref[:l.n]
	if m.order != nil {
		m.order.Truncate(l.n)
		m.order.Trim(l.n + l.n/8)
		l.ref = m.order.Slice()
	}
	return l
}

// mergeChunk merges the stretches of chunk c into the order from pos on.
func (m *levelMerge) mergeChunk(c, pos int, heads []mergeHead) []mergeHead {
	W := len(m.out)
	heads = heads[:0]
	n := 0
	for sh := 0; sh < W; sh++ {
		sp := m.ch.span(c, sh)
		n += sp.hi - sp.lo - sp.holes
		h := mergeHead{b: m.out[sp.w][sh], holes: sp.holes > 0, id: uint64(sh*W+sp.w) << 48, i: sp.lo - 1, end: sp.hi}
		if h.load() {
			heads = append(heads, h)
		}
	}
	ref := m.l.ref[pos : pos+n]
	if len(heads) == 2 {
		merge2(ref, &heads[0], &heads[1])
		return heads
	}
	for k := range ref {
		best := 0
		for j := 1; j < len(heads); j++ {
			if heads[j].key < heads[best].key {
				best = j
			}
		}
		h := &heads[best]
		ref[k] = h.id | uint64(h.i)
		if !h.load() {
			heads = append(heads[:best], heads[best+1:]...)
		}
	}
	return heads
}

// mergeHead is a stretch of a chunk's candidates being merged: entries
// (after) i to end of bucket b, whose index in the level's buckets is
// id>>48. keys and refs are the columns of entry i's segment.
type mergeHead struct {
	b     *bucket
	keys  []uint64   // rank<<32 | act
	refs  []stateRef // holeRef for a hole
	key   uint64     // entry i's key
	id    uint64     // the bucket's index << 48
	i     int
	end   int
	holes bool // the stretch has holes to skip
}

// load moves h to its next entry that is not a hole, loading the columns
// of each segment it enters, and reports whether there is one.
func (h *mergeHead) load() bool {
	for {
		if h.i++; h.i >= h.end {
			return false
		}
		j := h.i & segMask
		if j == 0 || h.keys == nil {
			s := h.b.segs[h.i>>segShift]
			h.keys, h.refs = s.keys, s.refs
		}
		if !h.holes || h.refs[j] != holeRef {
			h.key = h.keys[j]
			return true
		}
	}
}

// drain writes into ref, from ref[k] on, the references of h's entries
// that are not holes, from entry i (not a hole) to the end of its stretch.
func (h *mergeHead) drain(ref []uint64, k int) {
	for {
		ref[k] = h.id | uint64(h.i)
		k++
		if !h.load() {
			return
		}
	}
}

// merge2 is the merge of a chunk's two stretches a and b, each at an
// entry that is not a hole, into ref, which holds their entries that are
// not holes. The stretches interleave at random (a candidate's shard is
// its fingerprint's), so a comparison that branched would guess wrong
// about every other entry: instead, while both are within a segment, a
// step takes the smaller key without a branch. A hole counts as key 0 and
// is taken first; it writes its reference where the next entry's will
// overwrite it, and does not move on in ref (nor writes beyond it). When
// either leaves its segment, both move past holes, the next segment is
// loaded, and once one stretch ends, the other's rest goes out (drain).
// Keys are never equal (each is one transition), but a hole's 0 and the
// key 0 (rank 0, action 0), whose order does not matter.
//
// Merging a level as wide as chang-roberts N=6's widest
// (BenchmarkMergeChunks2) costs 5.1 ns a state, against 12.3 with the
// k-way merge of two heads (and 8.7 with a merge that branched, copying
// each run of one stretch in a loop).
func merge2(ref []uint64, a, b *mergeHead) {
	k := 0
	for {
		ja, jb := a.i&segMask, b.i&segMask
		sa, sb := a.i-ja, b.i-jb
		na, nb := min(segLen, a.end-sa), min(segLen, b.end-sb)
		ak, ar := a.keys[:na], a.refs[:na]
		bk, br := b.keys[:nb], b.refs[:nb]
		abase, bbase := a.id|uint64(sa), b.id|uint64(sb)
		for ja < na && jb < nb {
			ka, kb := ak[ja], bk[jb]
			ra, rb := ar[ja], br[jb]
			if ra == holeRef {
				ka = 0
			}
			if rb == holeRef {
				kb = 0
			}
			// t is 1 to take b's entry, 0 to take a's; m is t's mask.
			t := 0
			if kb < ka {
				t = 1
			}
			m := -uint64(t)
			va, vb := abase|uint64(ja), bbase|uint64(jb)
			r := ra ^ (ra^rb)&stateRef(m)
			if k < len(ref) {
				ref[k] = va ^ (va^vb)&m
			}
			hole := 0
			if r == holeRef {
				hole = 1
			}
			k += 1 - hole
			ja += 1 - t
			jb += t
		}
		a.i, b.i = sa+ja-1, sb+jb-1
		switch aok, bok := a.load(), b.load(); {
		case !aok && !bok:
			return
		case !aok:
			b.drain(ref, k)
			return
		case !bok:
			a.drain(ref, k)
			return
		}
	}
}
