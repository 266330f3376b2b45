package explorer

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// releaseState is the 40-byte state of candidate (rank, act) in the
// levels of TestReleaseKeepsWhatIsNotExpanded.
func releaseState(rank, act uint32) []byte {
	st := make([]byte, 40)
	for i := range st {
		st[i] = byte(rank*7 + act*13 + uint32(i) + 1)
	}
	return st
}

// releaseLevel builds a merged level as phase 2 leaves it: the buckets of
// W workers that claimed the chunks of the level before at random (with
// holes when W > 1), their segments from pool, large enough that
// releasing gives whole segments back; with one worker, one bucket.
func releaseLevel(rng *rand.Rand, W int, pool *segPool) ([][]*bucket, *level) {
	out := make([][]*bucket, W)
	for w := range out {
		out[w] = make([]*bucket, W)
		for sh := range out[w] {
			out[w][sh] = newBucket(pool)
		}
	}
	n := W * (2*segLen + rng.IntN(2*segLen))
	var ch chunks
	if W == 1 {
		ch.cut(n, 1, 0, false)
		for r := range n {
			for a := uint32(0); a < uint32(rng.IntN(5)); a++ {
				out[0][0].add(releaseState(uint32(r), a), uint64(r)<<8|uint64(a), uint32(r), a, stateRef(r))
			}
		}
		ch.span(0, 0).hi = out[0][0].len()
	} else {
		chunkedLevel(rng, W, n, 4, false, out, &ch, releaseState)
	}
	return out, mergeChunks(out, &ch, nil, func(fn func(w int)) {
		for w := range W {
			fn(w)
		}
	})
}

// counter is what releaseErrors asks of a releaser: to count the ranks lo
// to hi as expanded.
type counter interface{ expanded(lo, hi int) }

// releaseErrors expands the level l with W workers that claim chunks of
// chunkLen states in turn and take turns at random (as if they ran at
// once), each counting what it expanded through its counter rel(w) at
// random points and at the end of each chunk, and counts the states a
// worker then read that were no longer whole: a segment given back has
// been taken again and written over, or is gone. It also returns how many
// segments the releases gave back at most, and how many segments of the
// level's buckets were left when every state was expanded.
func releaseErrors(rng *rand.Rand, l *level, W, chunkLen int, pool *segPool, rel func(w int) counter) (errs, freed, left int) {
	var ch chunks
	ch.cut(l.n, W, chunkLen, rng.IntN(2) == 0)
	type worker struct {
		r, hi, from, claims int
		rel                 counter
		done                bool
	}
	ws := make([]worker, W)
	for w := range ws {
		ws[w].rel = rel(w)
	}
	read := func(r int) (st []byte, fp uint64, ok bool) {
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		st, fp, _ = l.get(r)
		return st, fp, true
	}
	for busy := true; busy; {
		busy = false
		for _, w := range rng.Perm(W) {
			x := &ws[w]
			for k := rng.IntN(700); k > 0 && !x.done; k-- {
				if x.r == x.hi {
					if x.from < x.r {
						x.rel.expanded(x.from, x.r)
						x.from = x.r
					}
					c, ok := ch.claim(w, x.claims)
					x.claims++
					if !ok {
						x.done = true
						break
					}
					x.r, x.hi, x.from = ch.bounds[c], ch.bounds[c+1], ch.bounds[c]
					continue
				}
				st, fp, ok := read(x.r)
				want := releaseState(uint32(fp>>8), uint32(fp&0xff))
				if !ok || string(st) != string(want) || fp == 0 && x.r > 0 {
					errs++
				}
				x.r++
			}
			if rng.IntN(2) == 0 && x.from < x.r {
				x.rel.expanded(x.from, x.r)
				x.from = x.r
			}
			freed = max(freed, pool.segments())
			// Another bucket takes the segments given back, and writes
			// over them.
			for _, s := range pool.free {
				clear(s.fps)
				clear(s.arena.Slice())
			}
			busy = busy || !x.done
		}
	}
	for _, b := range l.buckets {
		for _, s := range b.segs {
			if s != nil {
				left++
			}
		}
	}
	return errs, freed, left
}

// stretchReleaser is the mutant of TestReleaseKeepsWhatIsNotExpanded: the
// rule of the releaser before chunks, which gave back the whole segments
// between the first and the last entry a worker expanded in a bucket. A
// worker's entries of a bucket were one stretch when it expanded one range
// of the level; with chunks, other workers' entries lie in between.
type stretchReleaser struct {
	l        *level
	from, to map[int]int
}

func (r *stretchReleaser) expanded(lo, hi int) {
	for k := lo; k < hi; k++ {
		id, i := 0, k
		if r.l.ref != nil {
			id, i = int(r.l.ref[k]>>48), int(r.l.ref[k]&(1<<48-1))
		}
		if f, ok := r.from[id]; !ok || i < f {
			r.from[id] = i
		}
		r.to[id] = max(r.to[id], i+1)
	}
	for id, from := range r.from {
		b := r.l.buckets[id]
		for s := (from + segMask) >> segShift; s < len(b.segs) && min((s+1)<<segShift, b.n) <= r.to[id]; s++ {
			if seg := b.segs[s]; seg != nil {
				b.segs[s] = nil
				b.pool.put(seg)
			}
		}
	}
}

// TestReleaseKeepsWhatIsNotExpanded checks that the memory the workers give
// back as they expand a level (releaser) is only that of states expanded:
// with 1 to 4 workers claiming chunks of random sizes and taking turns at
// random, over merged levels with holes (and a level of one bucket that
// several workers expand, as level 0), every state read is whole, memory
// was given back along the way, and every segment once the level is
// expanded. The mutant, the releaser's rule before chunks (the whole
// segments between the first and last entries a worker expanded in a
// bucket), gives back states another worker has yet to read, and is
// caught.
func TestReleaseKeepsWhatIsNotExpanded(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 5))
	for _, c := range []struct{ built, W int }{{1, 1}, {1, 3}, {2, 2}, {3, 3}, {4, 2}, {4, 4}} {
		t.Run(fmt.Sprintf("built=%d/W=%d", c.built, c.W), func(t *testing.T) {
			for trial := 0; trial < 3; trial++ {
				pool := &segPool{shared: true}
				out, l := releaseLevel(rng, c.built, pool)
				prepareRelease(l)
				chunkLen := 1 + rng.IntN(3*segLen)
				errs, freed, left := releaseErrors(rng, l, c.W, chunkLen, pool, func(int) counter { return newReleaser(l) })
				if errs > 0 {
					t.Fatalf("trial %d: %d states read after their memory was given back", trial, errs)
				}
				if freed < 1 || left > 0 {
					t.Fatalf("trial %d: the releases gave back %d segments at most of a level of %d states, and left %d", trial, freed, l.n, left)
				}
				for _, bs := range out {
					for _, b := range bs {
						b.free()
					}
				}
				pool.trim(0)
			}
		})
	}
	t.Run("mutant", func(t *testing.T) {
		caught := 0
		for trial := 0; trial < 5 && caught == 0; trial++ {
			pool := &segPool{shared: true}
			out, l := releaseLevel(rng, 3, pool)
			stretch := func(int) counter { return &stretchReleaser{l: l, from: map[int]int{}, to: map[int]int{}} }
			if errs, _, _ := releaseErrors(rng, l, 3, 500, pool, stretch); errs > 0 {
				caught++
			}
			for _, bs := range out {
				for _, b := range bs {
					b.free()
				}
			}
			pool.trim(0)
		}
		if caught == 0 {
			t.Fatal("a releaser that gives back other workers' states was not caught")
		}
	})
}
