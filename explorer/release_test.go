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

// releaseLevel builds a merged level of W workers' buckets, as phase 2
// leaves them (with holes when W > 1), their segments from pool, large
// enough that releasing gives whole segments back.
func releaseLevel(rng *rand.Rand, W int, pool *segPool) ([][]*bucket, *level) {
	out := make([][]*bucket, W)
	rank := uint32(0)
	for w := range out {
		out[w] = make([]*bucket, W)
		for sh := range out[w] {
			out[w][sh] = newBucket(pool)
		}
		n := uint32(2*segLen + rng.IntN(2*segLen))
		for r := rank; r < rank+n; r++ {
			for a := uint32(0); a < uint32(rng.IntN(5)); a++ {
				b := out[w][rng.IntN(W)]
				b.add(releaseState(r, a), uint64(r)<<8|uint64(a), r, a, stateRef(r))
				if W > 1 && rng.IntN(4) == 0 {
					b.setRef(b.len()-1, holeRef)
					b.holes++
				}
			}
		}
		rank += n
	}
	return out, mergeWorkers(out, nil, func(fn func(w int)) {
		for w := range W {
			fn(w)
		}
	})
}

// releaseErrors expands the level l with W workers taking turns at random
// (as if they ran at once), each releasing through rel(w, lo, hi) at random
// points into pool, and counts the states a worker then read that were no
// longer whole: a segment given back has been taken again and written
// over, or is gone. It also returns how many segments the releases gave
// back at most.
func releaseErrors(rng *rand.Rand, l *level, W int, pool *segPool, rel func(w, lo, hi int) *releaser) (errs int, freed int) {
	type worker struct {
		r, hi int
		rel   *releaser
	}
	ws := make([]worker, W)
	for w := range ws {
		lo, hi := split(l.n, W, w)
		ws[w] = worker{r: lo, hi: hi, rel: rel(w, lo, hi)}
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
			for k := rng.IntN(700); k > 0 && x.r < x.hi; k-- {
				st, fp, ok := read(x.r)
				want := releaseState(uint32(fp>>8), uint32(fp&0xff))
				if !ok || string(st) != string(want) || fp == 0 && x.r > 0 {
					errs++
				}
				x.r++
			}
			if x.rel != nil {
				x.rel.release(x.r)
				freed = max(freed, pool.segments())
				// Another bucket takes the segments given back, and
				// writes over them.
				for _, s := range pool.free {
					clear(s.fps)
					clear(s.arena.Slice())
				}
			}
			busy = busy || x.r < x.hi
		}
	}
	return errs, freed
}

// TestReleaseKeepsWhatIsNotExpanded checks that the memory a worker gives
// back as it expands a level (releaser) is only that of states it has
// expanded itself: with 1 to 4 workers taking turns at random, every state
// read is whole, and the releases gave memory back. The mutant, a releaser
// that releases every bucket it reads from its start instead of from the
// first entry it expanded, gives back states the worker before it has yet
// to expand, and is caught.
func TestReleaseKeepsWhatIsNotExpanded(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 5))
	for W := 1; W <= 4; W++ {
		t.Run(fmt.Sprintf("W=%d", W), func(t *testing.T) {
			for trial := 0; trial < 3; trial++ {
				pool := &segPool{shared: true}
				out, l := releaseLevel(rng, W, pool)
				errs, freed := releaseErrors(rng, l, W, pool, func(w, lo, hi int) *releaser { return newReleaser(l, lo) })
				if errs > 0 {
					t.Fatalf("trial %d: %d states read after their memory was given back", trial, errs)
				}
				if freed < 1 {
					t.Fatalf("trial %d: the releases gave back %d segments of a level of %d states", trial, freed, l.n)
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
			greedy := func(w, lo, hi int) *releaser {
				r := newReleaser(l, lo)
				for id := range r.from {
					r.from[id], r.owned[id] = 0, true
				}
				return r
			}
			if errs, _ := releaseErrors(rng, l, 3, pool, greedy); errs > 0 {
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
