package simulate

import (
	"math"
	"math/big"
	"slices"
)

// tally counts how many runs measured each value of a metric: the exact
// distribution, in memory that grows with the number of distinct values,
// not of runs. Tallies of several workers add up to the same tally in any
// order, so the statistics do not depend on the number of workers.
type tally map[int64]int64

func (t tally) add(v int64) { t[v]++ }

func (t tally) merge(o tally) {
	for v, n := range o {
		t[v] += n
	}
}

// Stats are the statistics of one metric over the complete runs.
type Stats struct {
	// Name is the metric, as --metric names it: messages, messages:TYPE,
	// steps or time.
	Name string
	// Runs is the number of runs measured: the complete ones (ended in a
	// terminal state, valid end or deadlock), without those whose measure
	// reached the model's tracking cap (Capped).
	Runs int64
	// Mean and StdDev (the population standard deviation) are exact up to
	// float64 rounding: computed from integer sums.
	Mean, StdDev float64
	Min, Max     int64
	// P50, P90 and P99 are the nearest-rank percentiles: the smallest
	// value at least that share of the runs measured is at most.
	P50, P90, P99 int64
	// Histogram has the runs per range of values, lowest first: a bin per
	// value when there are few, else up to MaxBins bins of equal width.
	Histogram []Bin
	// Capped is the number of complete runs whose measure reached the
	// model's tracking cap (time: a causal depth of 255), left out of the
	// figures above.
	Capped int64
	// Cap is that cap.
	Cap int64
}

// Bin is a bar of a histogram: the runs that measured Lo to Hi, both
// included.
type Bin struct {
	Lo, Hi int64
	Runs   int64
}

// MaxBins is the most bins a histogram has.
const MaxBins = 24

// stats computes the statistics of a tally.
func (t tally) stats(name string) Stats {
	s := Stats{Name: name}
	if len(t) == 0 {
		return s
	}
	vals := make([]int64, 0, len(t))
	for v := range t {
		vals = append(vals, v)
	}
	slices.Sort(vals)
	var sum, sq, x, n big.Int
	for _, v := range vals {
		c := t[v]
		s.Runs += c
		x.SetInt64(v)
		n.SetInt64(c)
		sum.Add(&sum, new(big.Int).Mul(&x, &n))
		sq.Add(&sq, new(big.Int).Mul(new(big.Int).Mul(&x, &x), &n))
	}
	// mean = sum/N; variance = (N·sq - sum²)/N², from the exact integers.
	N := new(big.Int).SetInt64(s.Runs)
	mean, _ := new(big.Rat).SetFrac(&sum, N).Float64()
	num := new(big.Int).Sub(new(big.Int).Mul(N, &sq), new(big.Int).Mul(&sum, &sum))
	variance, _ := new(big.Rat).SetFrac(num, new(big.Int).Mul(N, N)).Float64()
	s.Mean, s.StdDev = mean, math.Sqrt(variance)
	s.Min, s.Max = vals[0], vals[len(vals)-1]
	s.P50, s.P90, s.P99 = t.percentile(vals, s.Runs, 50), t.percentile(vals, s.Runs, 90), t.percentile(vals, s.Runs, 99)
	s.Histogram = t.histogram(s.Min, s.Max)
	return s
}

// percentile is the nearest-rank p-th percentile: the value of rank
// ceil(p/100 · runs) among the sorted measures.
func (t tally) percentile(vals []int64, runs int64, p int64) int64 {
	rank := (p*runs + 99) / 100
	var seen int64
	for _, v := range vals {
		if seen += t[v]; seen >= rank {
			return v
		}
	}
	return vals[len(vals)-1]
}

// histogram bins the tally from lo to hi: one bin per value when there are
// at most MaxBins of them, else bins of equal integer width.
func (t tally) histogram(lo, hi int64) []Bin {
	width := (hi - lo + MaxBins) / MaxBins // ceil((hi-lo+1)/MaxBins)
	var bins []Bin
	for b := lo; b <= hi; b += width {
		bins = append(bins, Bin{Lo: b, Hi: min(b+width-1, hi)})
	}
	for v, n := range t {
		bins[(v-lo)/width].Runs += n
	}
	return bins
}
