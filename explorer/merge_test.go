package explorer

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// chunkedLevel fills out, the buckets of W workers, with the candidates of
// a level cut into chunks that random workers claim in turn (one chunk
// with one worker): each parent of chunk c has up to 5 transitions
// (states(rank, act) gives the state), each to a random shard, in the
// stretch ch.span(c, sh) of the claiming worker's bucket. With several
// workers, phase 2 leaves holes where it dropped a candidate (about one in
// holeEvery, and all of shard 0 in some trials), which it counts in the
// spans and the segments. It returns the level's candidates that are not
// holes, in bucket-and-entry form, in the order they were added.
func chunkedLevel(rng *rand.Rand, W, n, holeEvery int, allHoles bool, out [][]*bucket, ch *chunks, states func(r, a uint32) []byte) (kept [][2]int) {
	fixed := 1 + rng.IntN(max(1, n/3))
	ch.cut(n, W, fixed, false)
	for c := range ch.count() {
		w := rng.IntN(W)
		for sh := range W {
			*ch.span(c, sh) = span{w: w, lo: out[w][sh].len()}
		}
		for r := ch.bounds[c]; r < ch.bounds[c+1]; r++ {
			for a := uint32(0); a < uint32(rng.IntN(6)); a++ {
				sh := rng.IntN(W)
				b := out[w][sh]
				b.add(states(uint32(r), a), uint64(r)<<8|uint64(a), uint32(r), a, stateRef(r))
				k := b.len() - 1
				if W > 1 && (rng.IntN(holeEvery) == 0 || allHoles && sh == 0) {
					b.setRef(k, holeRef)
					b.segs[k>>segShift].holes++
					ch.span(c, sh).holes++
					continue
				}
				kept = append(kept, [2]int{sh*W + w, k})
			}
		}
		for sh := range W {
			ch.span(c, sh).hi = out[w][sh].len()
		}
	}
	return kept
}

// TestMergeChunks compares mergeChunks with sorting every candidate of a
// level by its key, for random levels of 1 to 4 workers, cut into chunks
// of random sizes that random workers claimed (so a worker's buckets hold
// the stretches of chunks far apart), some stretches empty, with holes
// (a third of them here, some buckets nothing but holes), which the merge
// leaves out.
func TestMergeChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 300; trial++ {
		W := 1 + rng.IntN(4)
		out := make([][]*bucket, W)
		for w := range out {
			out[w] = make([]*bucket, W)
			for sh := range out[w] {
				out[w][sh] = &bucket{}
			}
		}
		n := rng.IntN(40 * W)
		if trial%10 == 0 {
			n = 0
		}
		var ch chunks
		if W == 1 {
			ch.cut(n, 1, 0, false)
		}
		states := func(r, a uint32) []byte { return []byte{byte(r), byte(a)} }
		var kept [][2]int
		if W == 1 {
			for r := range n {
				for a := uint32(0); a < uint32(rng.IntN(6)); a++ {
					out[0][0].add(states(uint32(r), a), uint64(r)<<8|uint64(a), uint32(r), a, 0)
					kept = append(kept, [2]int{0, out[0][0].len() - 1})
				}
			}
			ch.span(0, 0).hi = out[0][0].len()
		} else {
			kept = chunkedLevel(rng, W, n, 3, trial%7 == 0, out, &ch, states)
		}
		want := slices.Clone(kept)
		key := func(e [2]int) uint64 {
			b := out[e[0]%W][e[0]/W]
			r, a := b.key(e[1])
			return uint64(r)<<32 | uint64(a)
		}
		slices.SortFunc(want, func(x, y [2]int) int { return cmp.Compare(key(x), key(y)) })
		par := func(fn func(w int)) {
			for w := W - 1; w >= 0; w-- { // any order
				fn(w)
			}
		}
		l := mergeChunks(out, &ch, nil, par)
		if l.n != len(want) {
			t.Fatalf("trial %d: %d states, want %d", trial, l.n, len(want))
		}
		for k, e := range want {
			r, a := key(e)>>32, uint32(key(e))
			st, fp, _ := l.get(k)
			if fp != r<<8|uint64(a) || st[0] != byte(r) || st[1] != byte(a) {
				t.Fatalf("trial %d (W=%d): rank %d is (%d,%d), want (%d,%d)", trial, W, k, st[0], st[1], r, a)
			}
			if W > 1 && l.ref[k] != uint64(e[0])<<48|uint64(e[1]) {
				t.Fatalf("trial %d (W=%d): ref %d is %x, want bucket %d entry %d", trial, W, k, l.ref[k], e[0], e[1])
			}
		}
		for w := range out {
			for _, b := range out[w] {
				b.free()
			}
		}
	}
}
