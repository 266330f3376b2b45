// Package hll is the HyperLogLog sketch that estimates how many distinct
// states a search saw in fixed memory: the states a simulation visited
// (package simulate) and the union of a swarm's jobs (package explorer).
package hll

import (
	"math"
	"math/bits"
)

// sketchBits is the number of bits of a hash that choose a register of the
// sketch: 2^14 registers of one byte, 16 KiB, whatever the number of
// states.
const sketchBits = 14

// Error is the relative standard error of the sketch's estimate,
// 1.04/sqrt(2^14), about 0.8% (Flajolet et al. 2007, section 4); twice
// it, the bound reports print as "±2%", holds for about 95% of estimates.
var Error = 1.04 / math.Sqrt(1<<sketchBits)

// Sketch estimates how many distinct 64-bit hashes it was given in a fixed
// 16 KiB: a HyperLogLog sketch (Flajolet, Fusy, Gandouet and Meunier 2007)
// read with Ertl's improved estimator ("New cardinality estimation
// algorithms for HyperLogLog sketches", 2017, algorithm 6), which needs no
// bias-correction tables and is unbiased from a handful of hashes to
// billions. Merging sketches takes the largest of each register, so a
// merged sketch does not depend on which worker saw which hash, nor on the
// order.
type Sketch struct {
	reg [1 << sketchBits]uint8
}

// Add records hash h, which must be uniformly distributed (xxh3 of a
// state).
func (s *Sketch) Add(h uint64) {
	const q = 64 - sketchBits
	i := h >> q
	// The position of the first 1 bit in the q low bits, 1-based; q+1
	// when they are all 0.
	r := uint8(bits.LeadingZeros64(h<<sketchBits|1<<(sketchBits-1)) + 1)
	if r > s.reg[i] {
		s.reg[i] = r
	}
}

// Merge adds every hash o was given to s.
func (s *Sketch) Merge(o *Sketch) {
	for i, r := range o.reg {
		if r > s.reg[i] {
			s.reg[i] = r
		}
	}
}

// Estimate returns the estimated number of distinct hashes added.
func (s *Sketch) Estimate() float64 {
	const (
		m = 1 << sketchBits
		q = 64 - sketchBits
	)
	var c [q + 2]float64 // registers per value
	for _, r := range s.reg {
		c[r]++
	}
	z := m * tau(1-c[q+1]/m)
	for k := q; k >= 1; k-- {
		z = 0.5 * (z + c[k])
	}
	z += m * sigma(c[0]/m)
	if math.IsInf(z, 1) {
		return 0 // every register empty
	}
	return m * m / (2 * math.Ln2) / z
}

// sigma is Ertl's σ(x) = x + Σ_{k≥1} x^(2^k) 2^(k-1), for the empty
// registers.
func sigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		prev := z
		z += x * y
		y += y
		if z == prev {
			return z
		}
	}
}

// tau is Ertl's τ(x) = (1 - x - Σ_{k≥1} (1 - x^(2^-k))^2 2^-k) / 3, for the
// registers at their largest value.
func tau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		prev := z
		y *= 0.5
		z -= (1 - x) * (1 - x) * y
		if z == prev {
			return z / 3
		}
	}
}
