package simulate_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/vacheck/vacheck/simulate"
)

// TestChangRobertsMean128 is vacheck simulate chang-roberts --n 128 --ids
// all --runs R --metric messages, beyond the 64 processes a mask could
// hold. Over arrangements drawn uniformly the mean is N·H_N = 695.44 for
// N = 128 (Chang & Roberts 1979): each ID travels to the first larger one,
// k hops with probability 1/(k(k+1)), and the largest travels N. The
// message count does not depend on the schedule, only on the arrangement,
// so the figures below, of seed 1's first 40 arrangements, are exact; and
// their mean lies within three standard errors of N·H_N. With -long, 1,000
// runs (about 20 s idle) must come within 2% of it: 695.01 was measured.
func TestChangRobertsMean128(t *testing.T) {
	const n = 128
	runs := 40
	if *long {
		runs = 1000
	}
	m := build(t, "chang-roberts", map[string]string{"n": strconv.Itoa(n), "ids": "all"})
	// The worst arrangement sends N(N+1)/2 messages, two steps each.
	res, err := simulate.Simulate(m, simulate.Config{Runs: runs, Seed: 1, Metrics: []string{"messages"}, MaxSteps: n * (n + 1)})
	if err != nil {
		t.Fatal(err)
	}
	checkMean(t, res, n)
	s := res.Metrics[0]
	if *long {
		return // checkMean: within 2%
	}
	want := float64(n) * harmonic(n)
	if se := s.StdDev / math.Sqrt(float64(s.Runs)); math.Abs(s.Mean-want) > 3*se {
		t.Errorf("mean %.2f messages over %d runs, want within 3 standard errors (%.2f) of N·H_N = %.2f", s.Mean, s.Runs, se, want)
	}
	if got := strconv.FormatFloat(s.Mean, 'f', 3, 64); got != "700.125" || s.Min != 584 || s.Max != 894 {
		t.Errorf("seed 1, %d runs: mean %s, min %d, max %d; want the pinned 700.125, 584 and 894", runs, got, s.Min, s.Max)
	}
}
