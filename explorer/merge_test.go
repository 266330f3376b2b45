package explorer

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMergeWorkers compares mergeWorkers with sorting every candidate of a
// level by its key, for random levels of 1 to 4 workers: each worker's
// candidates have parents in its own consecutive range of ranks, spread
// over the shards, some buckets empty. With several workers, phase 2
// leaves holes where it dropped a candidate (a third of them here, some
// buckets nothing but holes), which the merge leaves out.
func TestMergeWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 300; trial++ {
		W := 1 + rng.IntN(4)
		out := make([][]*bucket, W)
		type entry struct {
			rank, act uint32
			id, i     int
		}
		var want []entry
		rank := uint32(0)
		for w := range out {
			out[w] = make([]*bucket, W)
			for sh := range out[w] {
				out[w][sh] = &bucket{}
			}
			// Worker w expands ranks [rank, rank+n): each parent has up to
			// 5 transitions, each to one shard.
			n := rng.IntN(40)
			if trial%10 == 0 {
				n = 0
			}
			for r := rank; r < rank+uint32(n); r++ {
				for a := uint32(0); a < uint32(rng.IntN(6)); a++ {
					sh := rng.IntN(W)
					b := out[w][sh]
					b.add([]byte{byte(r), byte(a)}, uint64(r)<<8|uint64(a), r, a, 0)
					if W > 1 && (rng.IntN(3) == 0 || trial%7 == 0 && sh == 0) {
						b.setRef(b.len()-1, holeRef)
						b.holes++
						continue
					}
					want = append(want, entry{r, a, sh*W + w, b.len() - 1})
				}
			}
			rank += uint32(n)
		}
		slices.SortFunc(want, func(x, y entry) int {
			return cmp.Or(cmp.Compare(x.rank, y.rank), cmp.Compare(x.act, y.act))
		})
		par := func(fn func(w int)) {
			for w := W - 1; w >= 0; w-- { // any order
				fn(w)
			}
		}
		l := mergeWorkers(out, nil, par)
		if l.n != len(want) {
			t.Fatalf("trial %d: %d states, want %d", trial, l.n, len(want))
		}
		for k, e := range want {
			st, fp, _ := l.get(k)
			if fp != uint64(e.rank)<<8|uint64(e.act) || st[0] != byte(e.rank) || st[1] != byte(e.act) {
				t.Fatalf("trial %d (W=%d): rank %d is (%d,%d), want (%d,%d)", trial, W, k, st[0], st[1], e.rank, e.act)
			}
			if W > 1 && l.ref[k] != uint64(e.id)<<48|uint64(e.i) {
				t.Fatalf("trial %d (W=%d): ref %d is %x, want bucket %d entry %d", trial, W, k, l.ref[k], e.id, e.i)
			}
		}
		for w := range out {
			for _, b := range out[w] {
				b.free()
			}
		}
	}
}
