package explorer

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/vacheck/vacheck/internal/hll"
)

// fillWithKeys adds n distinct states (8-byte counters) to a table of
// bytes bytes with k hash functions and the omission estimate term, and
// returns the table and how many states it took for visited: each of
// those is an omission, since no state is added twice.
func fillWithKeys(bytes uint64, k, n int, term func(float64, int) float64) (*bitstate, int) {
	b := newBitstate(bytes, k, 42)
	b.term = term
	omitted := 0
	var st [8]byte
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint64(st[:], uint64(i))
		if !b.add(st[:]) {
			omitted++
		}
	}
	return b, omitted
}

// estimateAgrees checks an estimate of omissions against the omissions
// measured: they are a sum of independent rare events, whose standard
// deviation is at most the square root of their expectation, so a right
// estimate lies within 4 of those (and a few states) of the measure.
func estimateAgrees(measured int, expected float64) error {
	if d := math.Abs(float64(measured) - expected); d > 4*math.Sqrt(expected)+5 {
		return fmt.Errorf("%d states omitted, %.1f expected: %.1f standard deviations apart", measured, expected, d/math.Sqrt(max(expected, 1)))
	}
	return nil
}

// omissionCases are tables deliberately too small for their states: from
// a third to two thirds of the bits set at the end, thousands of states
// omitted.
var omissionCases = []struct {
	bytes uint64
	k, n  int
}{
	{32 << 10, 3, 100_000},
	{32 << 10, 2, 100_000},
	{64 << 10, 3, 150_000},
	{16 << 10, 1, 50_000},
	{8 << 10, 4, 20_000},
}

// TestOmissionEstimate compares the table's estimate of the states it
// omitted with the omissions measured, adding distinct states to tables
// deliberately too small for them (5 to 20% of the states omitted).
func TestOmissionEstimate(t *testing.T) {
	for _, c := range omissionCases {
		b, omitted := fillWithKeys(c.bytes, c.k, c.n, omissionTerm)
		if omitted < 1000 {
			t.Errorf("%+v: only %d states omitted: the table is not small enough to test the estimate", c, omitted)
		}
		if err := estimateAgrees(omitted, b.omitted); err != nil {
			t.Errorf("%+v (table %.0f%% full): %v", c, 100*b.stats().Fill, err)
		}
		if st := b.stats(); st.States != int64(c.n-omitted) || st.OmissionProbability < 0.999 {
			t.Errorf("%+v: stats %+v, want %d states stored and omissions certain", c, st, c.n-omitted)
		}
		b.free()
	}
}

// TestOmissionEstimateMutants checks that TestOmissionEstimate's check
// catches wrong estimates: the false-positive rate alone (forgetting that a
// state stored at fill f stands for 1/(1-p) lookups), one hash function
// too few, the final fill for every state (Holzmann's rough estimate, which
// overstates), and a fill counted in bytes rather than bits.
func TestOmissionEstimateMutants(t *testing.T) {
	mutants := map[string]struct {
		term func(fill float64, k int) float64
		// post, when set, estimates from the table once filled.
		post func(b *bitstate) float64
	}{
		"p instead of p/(1-p)": {term: func(f float64, k int) float64 { return math.Pow(f, float64(k)) }},
		"k-1 hash functions":   {term: func(f float64, k int) float64 { return omissionTerm(f, max(k-1, 1)) }},
		"final fill for every state": {post: func(b *bitstate) float64 {
			return float64(b.n) * omissionTerm(b.stats().Fill, b.k)
		}},
		"fill in bytes": {term: func(f float64, k int) float64 { return omissionTerm(1-math.Pow(1-f, 8), k) }},
	}
	for name, m := range mutants {
		caught := false
		for _, c := range omissionCases {
			b, omitted := fillWithKeys(c.bytes, c.k, c.n, omissionTerm)
			if m.term != nil {
				b.free()
				b, omitted = fillWithKeys(c.bytes, c.k, c.n, m.term)
			}
			est := b.omitted
			if m.post != nil {
				est = m.post(b)
			}
			caught = caught || estimateAgrees(omitted, est) != nil
			b.free()
		}
		if !caught {
			t.Errorf("mutant %q: its estimate passes the check", name)
		}
	}
}

// TestBitstateTable checks the table's basic promises: a state added is
// found, with at most k bits set per state; tables with other seeds set
// other bits; the size is whole words of the bytes asked.
func TestBitstateTable(t *testing.T) {
	a, b := newBitstate(1<<16, 3, 1), newBitstate(1<<16+7, 3, 2)
	defer a.free()
	defer b.free()
	if a.m != 1<<19 || b.m != 1<<19 {
		t.Fatalf("bits %d and %d, want %d", a.m, b.m, 1<<19)
	}
	var st [8]byte
	for i := 0; i < 1000; i++ {
		binary.LittleEndian.PutUint64(st[:], uint64(i))
		if !a.add(st[:]) || !b.add(st[:]) {
			t.Fatalf("state %d taken for visited in an almost empty table", i)
		}
		if !a.has(st[:]) || a.add(st[:]) {
			t.Fatalf("state %d not found after it was added", i)
		}
	}
	if a.set > 3000 || a.set < 2900 || a.n != 1000 {
		t.Errorf("%d bits set by %d states with 3 hash functions", a.set, a.n)
	}
	same := 0
	for i, w := range a.words.Slice() {
		same += bitsCount(w & b.words.Slice()[i])
	}
	if same > 100 {
		t.Errorf("tables seeded 1 and 2 share %d of about 3000 bits: their hash functions are not independent", same)
	}
}

func bitsCount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// TestDistinctSketch checks the HyperLogLog (internal/hll) the swarm reads its union with:'s estimates within 3% (about 4
// standard errors) from 10 to a million distinct fingerprints, repeats
// ignored, and that merging two estimates their union.
func TestDistinctSketch(t *testing.T) {
	for _, n := range []int{10, 1000, 50_000, 1_000_000} {
		var d hll.Sketch
		for i := 0; i < n; i++ {
			h := splitmix(uint64(i))
			d.Add(h)
			d.Add(h)
		}
		if e := d.Estimate(); math.Abs(e-float64(n)) > 0.03*float64(n)+1 {
			t.Errorf("%d distinct: estimate %.0f", n, e)
		}
	}
	var a, b hll.Sketch
	for i := 0; i < 60_000; i++ {
		a.Add(splitmix(uint64(i)))
		b.Add(splitmix(uint64(i + 30_000)))
	}
	a.Merge(&b)
	if e := a.Estimate(); math.Abs(e-90_000) > 2700 {
		t.Errorf("union of 0..60000 and 30000..90000: estimate %.0f, want 90000", e)
	}
}
