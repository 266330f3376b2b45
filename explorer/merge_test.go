package explorer

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/vacheck/vacheck/internal/offheap"
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

// BenchmarkMergeChunks2 merges a level of 2 workers as wide as
// chang-roberts N=6's widest (about 140,000 candidates kept from 40,000
// parents), cut into chunks as the search cuts it, one candidate in ten
// a hole; one goroutine merges every chunk.
func BenchmarkMergeChunks2(b *testing.B) {
	const W, n = 2, 40000
	rng := rand.New(rand.NewPCG(7, 8))
	out := [][]*bucket{{{}, {}}, {{}, {}}}
	var ch chunks
	ch.cut(n, W, 0, false)
	st := []byte{1, 2, 3, 4}
	for c := range ch.count() {
		w := rng.IntN(W)
		for sh := range W {
			*ch.span(c, sh) = span{w: w, lo: out[w][sh].len()}
		}
		for r := ch.bounds[c]; r < ch.bounds[c+1]; r++ {
			for a := uint32(0); a < 1+uint32(rng.IntN(6)); a++ {
				sh := rng.IntN(W)
				bk := out[w][sh]
				bk.add(st, rng.Uint64(), uint32(r), a, 0)
				if rng.IntN(10) == 0 {
					k := bk.len() - 1
					bk.setRef(k, holeRef)
					bk.segs[k>>segShift].holes++
					ch.span(c, sh).holes++
				}
			}
		}
		for sh := range W {
			ch.span(c, sh).hi = out[w][sh].len()
		}
	}
	var order offheap.Array[uint64]
	defer order.Free()
	var l *level
	for b.Loop() {
		l = mergeChunks(out, &ch, &order, func(fn func(int)) { fn(0) })
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(l.n), "ns/state")
}

// merge2Check merges, with merge, pairs of stretches of two buckets: up to
// three segments long, from any entry of a segment, with entries of other
// chunks before and after them, keys interleaved entry by entry or in long
// runs, and holes none, some, most, or in runs across segment boundaries;
// and compares the result with sorting the entries that are not holes by
// key. Key 0 (rank 0, action 0) is among them. A panic is an error too.
func merge2Check(merge func(ref []uint64, a, b *mergeHead)) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the merge panicked: %v", p)
		}
	}()
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 200; trial++ {
		buckets := [2]*bucket{{}, {}}
		var heads [2]mergeHead
		type entry struct {
			key, ref uint64
		}
		var want []entry
		// The keys of both stretches: 0, 1, 2, ... dealt to a or b, one
		// at a time or in runs.
		n := rng.IntN(3 * segLen)
		runs := 1 + rng.IntN(4)
		if trial%4 == 0 {
			runs = 1 + rng.IntN(segLen)
		}
		holeEvery := []int{0, 10, 2}[trial%3]
		var keys [2][]uint64
		for key, side := uint64(0), 0; key < uint64(n); key++ {
			if rng.IntN(runs) == 0 {
				side = rng.IntN(2)
			}
			keys[side] = append(keys[side], key)
		}
		for x, bk := range buckets {
			before := rng.IntN(segLen + 10)
			if trial%5 == 0 {
				before = segLen - rng.IntN(3) // near a boundary
			}
			for range before {
				bk.add(nil, 0, 1<<31, 0, 1) // another chunk's
			}
			lo := bk.len()
			holeRun := 0
			for _, key := range keys[x] {
				bk.add(nil, 0, uint32(key>>8), uint32(key&255), 1)
				k := bk.len() - 1
				if holeEvery > 0 && rng.IntN(holeEvery) == 0 && holeRun == 0 {
					holeRun = 1 + rng.IntN(3)
					if rng.IntN(20) == 0 {
						holeRun = segLen + rng.IntN(10)
					}
				}
				if holeRun > 0 {
					holeRun--
					bk.setRef(k, holeRef)
					bk.segs[k>>segShift].holes++
					continue
				}
				want = append(want, entry{rawKey(bk, k), uint64(x)<<48 | uint64(k)})
			}
			heads[x] = mergeHead{b: bk, holes: holeEvery > 0, id: uint64(x) << 48, i: lo - 1, end: bk.len()}
			for range rng.IntN(10) {
				bk.add(nil, 0, 1<<31, 0, 1) // and another's
			}
		}
		slices.SortFunc(want, func(x, y entry) int { return cmp.Compare(x.key, y.key) })
		ref := make([]uint64, len(want)+1)
		ref[len(want)] = 12345 // must stay
		aok, bok := heads[0].load(), heads[1].load()
		switch {
		case aok && bok:
			merge(ref[:len(want)], &heads[0], &heads[1])
		case aok:
			heads[0].drain(ref, 0)
		case bok:
			heads[1].drain(ref, 0)
		}
		for k, e := range want {
			if ref[k] != e.ref {
				return fmt.Errorf("trial %d (%d keys, runs 1/%d, holes 1/%d): ref[%d] = %x, want %x", trial, n, runs, holeEvery, k, ref[k], e.ref)
			}
		}
		if ref[len(want)] != 12345 {
			return fmt.Errorf("trial %d: merge wrote past the end of its stretch", trial)
		}
		for _, bk := range buckets {
			bk.free()
		}
	}
	return nil
}

// rawKey returns entry i's key as the merge compares it.
func rawKey(b *bucket, i int) uint64 {
	r, a := b.key(i)
	return uint64(r)<<32 | uint64(a)
}

// TestMerge2 checks merge2 against sorting, and that the check catches a
// merge that counts a hole as an entry, one that takes the larger key
// first, and one that leaves out the rest of a stretch when the other
// ends.
func TestMerge2(t *testing.T) {
	if err := merge2Check(merge2); err != nil {
		t.Fatal(err)
	}
	mutant := func(holes, larger, noDrain bool) func(ref []uint64, a, b *mergeHead) {
		return func(ref []uint64, a, b *mergeHead) {
			k := 0
			for {
				ja, jb := a.i&segMask, b.i&segMask
				sa, sb := a.i-ja, b.i-jb
				na, nb := min(segLen, a.end-sa), min(segLen, b.end-sb)
				for ja < na && jb < nb {
					ka, kb := rawKey(a.b, sa+ja), rawKey(b.b, sb+jb)
					ra, rb := a.b.ref(sa+ja), b.b.ref(sb+jb)
					if ra == holeRef {
						ka = 0
					}
					if rb == holeRef {
						kb = 0
					}
					take := kb < ka
					if larger {
						take = kb > ka && ra != holeRef || rb == holeRef
					}
					v, r := a.id|uint64(sa+ja), ra
					if take {
						v, r = b.id|uint64(sb+jb), rb
						jb++
					} else {
						ja++
					}
					if k < len(ref) {
						ref[k] = v
					}
					if r != holeRef || holes {
						k++
					}
				}
				a.i, b.i = sa+ja-1, sb+jb-1
				switch aok, bok := a.load(), b.load(); {
				case !aok && !bok || noDrain && (!aok || !bok):
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
	}
	for name, fn := range map[string]func(ref []uint64, a, b *mergeHead){
		"holes counted": mutant(true, false, false),
		"larger first":  mutant(false, true, false),
		"no drain":      mutant(false, false, true),
	} {
		if merge2Check(fn) == nil {
			t.Errorf("mutant %q passes the check", name)
		}
	}
}

// levelMergeCheck merges levels of 2 and 3 workers while their chunks are
// stored, with help standing for levelMerge.help: a simulated phase 2
// drops candidates of each shard's stretches chunk by chunk (holes, one in
// three) and then says so (stored), the shards taking turns at random, and
// help runs at random moments between; once every shard is stored, finish
// merges the rest. The level is compared with sorting the candidates left
// by key. With concurrent, help runs in a goroutine of its own over and
// over while the shards are stored (for the race detector).
func levelMergeCheck(help func(m *levelMerge), concurrent bool) error {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 60; trial++ {
		W := 2 + trial%2
		out := make([][]*bucket, W)
		for w := range out {
			out[w] = make([]*bucket, W)
			for sh := range out[w] {
				out[w][sh] = &bucket{}
			}
		}
		var ch chunks
		states := func(r, a uint32) []byte { return []byte{byte(r), byte(a)} }
		n := rng.IntN(400)
		if trial%5 == 0 {
			n = 2*segLen + rng.IntN(segLen)
		}
		chunkedLevel(rng, W, n, 1<<30, false, out, &ch, states)
		var order offheap.Array[uint64]
		m := newLevelMerge(out, &ch, &order)
		C := ch.count()
		next := make([]int, W) // per shard: the next chunk to store
		store := func(sh int) {
			c := next[sh]
			sp := ch.span(c, sh)
			b := out[sp.w][sh]
			for k := sp.lo; k < sp.hi; k++ {
				if rng.IntN(3) == 0 {
					b.setRef(k, holeRef)
					b.segs[k>>segShift].holes++
					sp.holes++
				}
			}
			next[sh]++
			m.stored(sh, next[sh])
		}
		var done atomic.Bool
		var wg sync.WaitGroup
		if concurrent {
			wg.Go(func() {
				for !done.Load() {
					help(m)
				}
			})
		}
		for {
			var left []int
			for sh := range W {
				if next[sh] < C {
					left = append(left, sh)
				}
			}
			if len(left) == 0 {
				break
			}
			store(left[rng.IntN(len(left))])
			if !concurrent && rng.IntN(3) == 0 {
				help(m)
			}
		}
		done.Store(true)
		wg.Wait()
		l := m.finish(func(fn func(int)) { fn(0); fn(1) })
		var want []uint64
		for sh := range W {
			for w := range W {
				b := out[w][sh]
				for k := range b.len() {
					if b.ref(k) != holeRef {
						want = append(want, uint64(sh*W+w)<<48|uint64(k))
					}
				}
			}
		}
		key := func(ref uint64) uint64 {
			return rawKey(l.buckets[ref>>48], int(ref&(1<<48-1)))
		}
		slices.SortFunc(want, func(x, y uint64) int { return cmp.Compare(key(x), key(y)) })
		if l.n != len(want) || !slices.Equal(l.ref, want) {
			return fmt.Errorf("trial %d (W=%d, %d chunks): merged %d states, want %d, or in another order", trial, W, C, l.n, len(want))
		}
		order.Free()
	}
	return nil
}

// TestLevelMerge checks merging chunks as phase 2 stores them, and that
// the check catches a merge that claims a chunk once its first shard has
// stored it (before the others have dropped their holes in it).
func TestLevelMerge(t *testing.T) {
	help := (*levelMerge).help
	if err := levelMergeCheck(help, false); err != nil {
		t.Fatal(err)
	}
	if err := levelMergeCheck(help, true); err != nil {
		t.Fatal(err)
	}
	early := func(m *levelMerge) {
		for {
			m.mu.Lock()
			c := m.next
			if c >= m.ch.count() || m.done[0].Load() <= int64(c) {
				m.mu.Unlock()
				return
			}
			n := 0
			for sh := range m.done {
				sp := m.ch.span(c, sh)
				n += sp.hi - sp.lo - sp.holes
			}
			pos := m.pos
			m.next, m.pos = c+1, m.pos+n
			m.mu.Unlock()
			m.mergeChunk(c, pos, nil)
		}
	}
	if levelMergeCheck(early, false) == nil {
		t.Error("a merge that claims chunks before every shard stored them passes the check")
	}
}
