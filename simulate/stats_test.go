package simulate

import (
	"math"
	"slices"
	"testing"
)

func TestStats(t *testing.T) {
	// Ten runs: 1 once, 2 twice, 3 three times and 10 four times.
	tl := tally{1: 1, 2: 2, 3: 3, 10: 4}
	s := tl.stats("messages")
	// mean (1+4+9+40)/10 = 5.4; E[x²] = (1+8+27+400)/10 = 43.6, so the
	// variance is 43.6 - 5.4² = 14.44 and the deviation 3.8.
	if s.Runs != 10 || s.Mean != 5.4 || math.Abs(s.StdDev-3.8) > 1e-12 || s.Min != 1 || s.Max != 10 {
		t.Errorf("%+v", s)
	}
	// Sorted: 1 2 2 3 3 3 10 10 10 10; ranks 5, 9 and 10.
	if s.P50 != 3 || s.P90 != 10 || s.P99 != 10 {
		t.Errorf("percentiles %d %d %d, want 3 10 10", s.P50, s.P90, s.P99)
	}
	want := []Bin{{1, 1, 1}, {2, 2, 2}, {3, 3, 3}, {4, 4, 0}, {5, 5, 0}, {6, 6, 0}, {7, 7, 0}, {8, 8, 0}, {9, 9, 0}, {10, 10, 4}}
	if !slices.Equal(s.Histogram, want) {
		t.Errorf("histogram %v, want %v", s.Histogram, want)
	}
	// Wide ranges are binned: 0..99 in bins of 5 (ceil(100/24)).
	wide := tally{}
	for v := int64(0); v < 100; v++ {
		wide.add(v)
	}
	h := wide.stats("steps").Histogram
	if len(h) != 20 || h[0] != (Bin{0, 4, 5}) || h[19] != (Bin{95, 99, 5}) {
		t.Errorf("histogram of 0..99: %v", h)
	}
	if s := (tally{}).stats("x"); s.Runs != 0 || s.Histogram != nil {
		t.Errorf("empty tally: %+v", s)
	}
	// A single value.
	if s := (tally{7: 3}).stats("x"); s.Mean != 7 || s.StdDev != 0 || s.P99 != 7 || len(s.Histogram) != 1 {
		t.Errorf("one value: %+v", s)
	}
}
