package explorer

import (
	"math"
	"math/bits"
)

// sketchBits is the precision of a distinctSketch: it has 2^sketchBits
// registers, one byte each (16 KiB), for a relative standard error of
// 1.04/sqrt(2^14), about 0.8%.
const sketchBits = 14

// distinctSketch estimates the number of distinct 64-bit fingerprints it
// was given, in fixed memory: a HyperLogLog (Flajolet, Fusy, Gandouet and
// Meunier 2007) whose register j keeps the largest rank (leading zeros
// plus one) of the fingerprints whose top sketchBits bits are j, with the
// small-range correction by linear counting. Two sketches merge by taking
// each register's maximum, which estimates the union of what they were
// given: the swarm's union of states, over jobs whose bitstate tables
// cannot be merged (each has its own hash functions).
//
// Fingerprints are XXH3 hashes already, so they are used as they are.
type distinctSketch struct {
	reg [1 << sketchBits]uint8
}

// add records the fingerprint h.
func (d *distinctSketch) add(h uint64) {
	j := h >> (64 - sketchBits)
	rank := uint8(bits.LeadingZeros64(h<<sketchBits|1<<(sketchBits-1)) + 1)
	if rank > d.reg[j] {
		d.reg[j] = rank
	}
}

// merge adds what o was given to d.
func (d *distinctSketch) merge(o *distinctSketch) {
	for j, r := range o.reg {
		if r > d.reg[j] {
			d.reg[j] = r
		}
	}
}

// estimate returns the estimated number of distinct fingerprints given.
func (d *distinctSketch) estimate() float64 {
	const m = 1 << sketchBits
	alpha := 0.7213 / (1 + 1.079/m)
	sum, zeros := 0.0, 0
	for _, r := range d.reg {
		sum += math.Ldexp(1, -int(r))
		if r == 0 {
			zeros++
		}
	}
	e := alpha * m * m / sum
	if e <= 2.5*m && zeros > 0 {
		// Linear counting: few registers are set, and their number is
		// the better estimate.
		return m * math.Log(float64(m)/float64(zeros))
	}
	return e
}
