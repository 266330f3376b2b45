package explorer

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vacheck/vacheck/internal/offheap"
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
// leaves them (with holes when W > 1), large enough that its columns are
// mapped and releasing gives whole pages back.
func releaseLevel(rng *rand.Rand, W int) ([][]*bucket, *level) {
	out := make([][]*bucket, W)
	rank := uint32(0)
	for w := range out {
		out[w] = make([]*bucket, W)
		for sh := range out[w] {
			out[w][sh] = &bucket{}
		}
		n := uint32(2000 + rng.IntN(3000))
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
// points, and counts the states a worker then read that were no longer
// whole. It also returns how many bytes the releases gave back at most.
func releaseErrors(rng *rand.Rand, l *level, W int, rel func(w, lo, hi int) *releaser) (errs int, freed int64) {
	type worker struct {
		r, hi int
		rel   *releaser
	}
	ws := make([]worker, W)
	for w := range ws {
		lo, hi := split(l.n, W, w)
		ws[w] = worker{r: lo, hi: hi, rel: rel(w, lo, hi)}
	}
	start := int64(offheap.Mapped())
	for busy := true; busy; {
		busy = false
		for _, w := range rng.Perm(W) {
			x := &ws[w]
			for k := rng.IntN(700); k > 0 && x.r < x.hi; k-- {
				st, fp, _ := l.get(x.r)
				want := releaseState(uint32(fp>>8), uint32(fp&0xff))
				if string(st) != string(want) || fp == 0 && x.r > 0 {
					errs++
				}
				x.r++
			}
			if x.rel != nil {
				x.rel.release(x.r)
				freed = max(freed, start-int64(offheap.Mapped()))
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
				out, l := releaseLevel(rng, W)
				errs, freed := releaseErrors(rng, l, W, func(w, lo, hi int) *releaser { return newReleaser(l, lo) })
				if errs > 0 {
					t.Fatalf("trial %d: %d states read after their memory was given back", trial, errs)
				}
				if freed < 64<<10 {
					t.Fatalf("trial %d: the releases gave back %d bytes of a level of %d states", trial, freed, l.n)
				}
				for _, bs := range out {
					for _, b := range bs {
						b.free()
					}
				}
			}
		})
	}
	t.Run("mutant", func(t *testing.T) {
		caught := 0
		for trial := 0; trial < 5; trial++ {
			out, l := releaseLevel(rng, 3)
			greedy := func(w, lo, hi int) *releaser {
				r := newReleaser(l, lo)
				for id := range r.from {
					r.from[id], r.owned[id] = 0, true
				}
				return r
			}
			if errs, _ := releaseErrors(rng, l, 3, greedy); errs > 0 {
				caught++
			}
			for _, bs := range out {
				for _, b := range bs {
					b.free()
				}
			}
		}
		if caught == 0 {
			t.Fatal("a releaser that gives back other workers' states was not caught")
		}
	})
}
