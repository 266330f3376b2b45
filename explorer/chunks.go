package explorer

import "sync/atomic"

// chunks cuts a BFS level into contiguous chunks of ranks, which the
// workers of phase 1 claim one at a time, in increasing order, so that a
// worker that finishes early takes more of the level instead of waiting at
// the barrier for the others (a static split into one equal range per
// worker left each level's fastest worker idle for 3-7% of phase 1 at
// chang-roberts N=6 with 2 workers).
//
// A worker keeps its successors in its own buckets, one per shard, as it
// would with one range: chunk c's successors for shard sh are the stretch
// span(c, sh) of the bucket of the worker that expanded it. A worker claims
// its chunks in increasing order, so its buckets hold its chunks' stretches
// back to back in chunk order, and every key (parent rank, action) of
// chunk c is below every key of chunk c+1. Phase 2, the state limit's cut
// and the merge take the stretches in chunk order, which is canonical
// order, whichever worker expanded each chunk.
//
// Why the result does not depend on the timing: a worker drops a successor
// in phase 1 (its local set, its table of recent keys) only when the same
// worker produced the same state earlier in the level, in an earlier chunk
// or earlier in this one, so with a smaller key; and it drops a successor
// the visited set holds, which is read-only in phase 1. So among the copies
// of a new state, the one with the smallest key always reaches phase 2,
// which keeps the first copy in chunk order: that one. Each new state then
// has the same parent and action, the next level the same order and ranks,
// and every counterexample the same trace as with one worker.
//
// With one worker the level is one chunk: there is no one to balance, and
// insertFresh and the compaction of phase 2 rely on it. The state graph,
// when it is recorded, has a graph chunk per chunk, which it numbers in
// chunk order (graphRecorder.levelDone); an edge to a state the worker
// dropped by its key points back to an edge of the same graph chunk
// (graphSink.edgeAgain), so the table of recent keys is cleared at each
// chunk then.
type chunks struct {
	W      int
	static bool // one worker, one chunk
	deal   bool // the tests' knob: chunks dealt round-robin (claim)
	// bounds: chunk c is the ranks bounds[c] to bounds[c+1].
	bounds []int
	// spans[c*W+sh] is chunk c's stretch of candidates for shard sh.
	spans []span
	// ends[c] is the first rank of chunk c that was not expanded: its end
	// when the chunk was expanded whole, its start when it was never
	// claimed (settle checks what a stop or a panic left).
	ends []int
	// graph[c] is the graph chunk that recorded chunk c, when the state
	// graph is recorded (graphRecorder.levelDone).
	graph []*graphChunk
	next  atomic.Int64
}

// span is a chunk's stretch of candidates for one shard: entries lo to hi
// of the bucket out[w][sh] of the worker w that expanded the chunk, of
// which phase 2 dropped holes in place (holeRef).
type span struct {
	w, lo, hi, holes int
}

// minChunk is the smallest chunk of a level cut for several workers, but
// for its last chunks (at most minChunk states each): about a quarter of a
// millisecond of expansion in chang-roberts, against which claiming a
// chunk, a batch of the local set at its end and the heads of the merge
// cost a microsecond or two. Chunks of at least 1,024 states left the
// workers of chang-roberts --n 6 idle for 14-21 ms of phase 1 in all, of
// 256 for 6-15 ms.
const minChunk = 256

// chunkShare: a chunk of a large level takes 1/(chunkShare*W) of the
// states left, so the chunks shrink towards the end of the level (guided
// self-scheduling): few chunks (41 for a level of 150,000 states on
// 2 workers), and a last one short enough that the worker that takes it
// keeps the others waiting for no more than minChunk states.
const chunkShare = 4

// cut cuts a level of n states into chunks for W workers: into one with
// one worker, into chunks of fixed states each when fixed > 0 (the
// tests' knob, Config.chunkLen, with deal: dealt round-robin to the
// workers, Config.chunkDeal), or else into chunks that shrink from
// n/(chunkShare*W) states to minChunk, the last W of them an equal share of
// the last (at most W*minChunk) states. A level of at most W*minChunk
// states is split in W equal chunks, as without chunks.
func (k *chunks) cut(n, W int, fixed int, deal bool) {
	k.W, k.static, k.deal = W, W == 1, W > 1 && deal && fixed > 0
	k.bounds = append(k.bounds[:0], 0)
	switch {
	case W == 1:
		k.bounds = append(k.bounds, n)
	case fixed > 0:
		for lo := fixed; lo < n; lo += fixed {
			k.bounds = append(k.bounds, lo)
		}
		k.bounds = append(k.bounds, n)
	default:
		pos := 0
		for n-pos > W*minChunk {
			pos += max((n-pos)/(chunkShare*W), minChunk)
			k.bounds = append(k.bounds, pos)
		}
		rest := n - pos
		for c := 1; c <= W; c++ {
			k.bounds = append(k.bounds, pos+rest*c/W)
		}
	}
	C := len(k.bounds) - 1
	k.spans = resize(k.spans, C*W)
	clear(k.spans)
	k.ends = resize(k.ends, C)
	copy(k.ends, k.bounds[:C])
	k.graph = resize(k.graph, C)
	clear(k.graph)
	k.next.Store(0)
}

// resize returns s with n elements, reusing its memory when it can.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// count returns the number of chunks.
func (k *chunks) count() int { return len(k.bounds) - 1 }

// claim returns the next chunk for worker w, which has claimed i chunks
// before in this level, and false when none is left: chunk 0, once, with
// one worker; chunk w+i*W when the chunks are dealt (a schedule
// claiming could give, in which every worker's chunks alternate with the
// others'); else the first chunk no worker has claimed.
func (k *chunks) claim(w, i int) (int, bool) {
	switch {
	case k.static:
		return w, i == 0 && w < k.count()
	case k.deal:
		c := w + i*k.W
		return c, c < k.count()
	}
	c := int(k.next.Add(1) - 1)
	return c, c < k.count()
}

// span returns chunk c's stretch of candidates for shard sh.
func (k *chunks) span(c, sh int) *span { return &k.spans[c*k.W+sh] }

// unexpanded returns the ranges of ranks that phase 1 left unexpanded: the
// rest of a chunk a stop or a panic ended, and the chunks never claimed.
func (k *chunks) unexpanded() [][2]int {
	var out [][2]int
	for c, e := range k.ends {
		if hi := k.bounds[c+1]; e < hi {
			out = append(out, [2]int{e, hi})
		}
	}
	return out
}
