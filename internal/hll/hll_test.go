package hll

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/zeebo/xxh3"
)

func hashOf(i int) uint64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(i))
	return xxh3.Hash(b[:])
}

// TestError checks the estimate against known counts: within three
// standard errors (Error, 0.8%) from a hundred hashes to two
// million, and within one hash of the truth below a hundred, where the
// estimator is in effect linear counting.
func TestError(t *testing.T) {
	var s Sketch
	if e := s.Estimate(); e != 0 {
		t.Errorf("empty sketch: estimate %v, want 0", e)
	}
	added := 0
	for _, n := range []int{1, 10, 50, 100, 1000, 10_000, 30_000, 100_000, 1_000_000, 2_000_000} {
		for ; added < n; added++ {
			s.Add(hashOf(added))
		}
		e := s.Estimate()
		err := math.Abs(e-float64(n)) / float64(n)
		switch {
		case n < 100 && math.Abs(e-float64(n)) > 1:
			t.Errorf("%d distinct: estimate %.2f, want within 1", n, e)
		case err > 3*Error:
			t.Errorf("%d distinct: estimate %.0f, relative error %.2f%% > %.2f%%", n, e, 100*err, 300*Error)
		}
		t.Logf("%9d distinct: estimate %12.1f (%+.3f%%)", n, e, 100*(e-float64(n))/float64(n))
	}
	// Hashes added again change nothing.
	before := s.Estimate()
	for i := 0; i < 1000; i++ {
		s.Add(hashOf(i))
	}
	if s.Estimate() != before {
		t.Errorf("repeated hashes changed the estimate from %.0f to %.0f", before, s.Estimate())
	}
}

// TestSketchMerge: sketches of two halves, merged in either order, equal
// the sketch of the whole.
func TestSketchMerge(t *testing.T) {
	var whole, a, b Sketch
	for i := 0; i < 50_000; i++ {
		whole.Add(hashOf(i))
		if i%3 == 0 {
			a.Add(hashOf(i))
		} else {
			b.Add(hashOf(i))
		}
	}
	ab, ba := a, b
	ab.Merge(&b)
	ba.Merge(&a)
	if ab != whole || ba != whole {
		t.Error("merged sketches differ from the sketch of all the hashes")
	}
}
