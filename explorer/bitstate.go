package explorer

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/zeebo/xxh3"

	"github.com/vacheck/vacheck/internal/hll"
	"github.com/vacheck/vacheck/internal/offheap"
)

// DefaultBitstateHashes is the number of hash functions of a bitstate table
// when Config.BitstateHashes is zero: SPIN's default for -DBITSTATE (its
// -k flag), which is close to the best number for a table that ends a
// search a quarter to a half full.
const DefaultBitstateHashes = 3

// MaxBitstateHashes bounds Config.BitstateHashes.
const MaxBitstateHashes = 32

// MinBitstateBytes and MaxBitstateBytes bound the size of a bitstate table
// (Config.Bitstate): one machine word, and 1 TiB.
const (
	MinBitstateBytes = 8
	MaxBitstateBytes = 1 << 40
)

// bitstate is the visited set of a bitstate ("supertrace") search
// (Holzmann 1988): a Bloom filter of m bits in which a state sets k of
// them. A state whose k bits are all set already is taken to be visited,
// and is not explored: when those bits were set by other states (a false
// positive), the state is omitted, with every state reachable only through
// it. The table takes m/8 bytes whatever the number of states, so a search
// runs in a fixed memory, and may omit states, which is why a bitstate
// search never reports that a property holds.
//
// The k bit positions come from one 128-bit XXH3 hash of the state's
// encoding, with the table's own seed, by enhanced double hashing
// (Dillinger and Manolios, "Bloom filters in probabilistic verification",
// FMCAD 2004): with x and y its two halves, position i is x_i scaled to
// [0, m), where x_0 = x and x_{i+1} = x_i + y_i, y_{i+1} = y_i + i + 1
// (modulo 2^64). It behaves as k independent hash functions for a Bloom
// filter's purposes at the cost of one hash. Scaling by the high word of
// x_i·m (Lemire's multiply-shift) allows any table size, not only powers
// of two.
//
// Omissions are estimated as the search goes (see omissionTerm).
type bitstate struct {
	words offheap.Array[uint64]
	m     uint64 // bits
	k     int
	seed  uint64
	set   uint64 // bits set
	n     int64  // states stored
	// omitted is the expected number of states omitted so far: the sum of
	// term(fill, k) over the states stored, fill the fraction of bits set
	// when each was stored.
	omitted float64
	// term is omissionTerm; a test puts a wrong estimate in its place to
	// check that the estimate's test catches it.
	term func(fill float64, k int) float64
	// x, y are the hash of the state has looked up last, for insert.
	x, y uint64
}

// newBitstate returns an empty table of bytes bytes (rounded down to whole
// 64-bit words) for k hash functions seeded with seed.
func newBitstate(bytes uint64, k int, seed uint64) *bitstate {
	words := bytes / 8
	return &bitstate{words: offheap.Make[uint64](int(words)), m: words * 64, k: k, seed: seed, term: omissionTerm}
}

// has reports whether every bit of the state st is set: whether the table
// takes st to be visited. It keeps st's hash for insert.
func (b *bitstate) has(st []byte) bool {
	h := xxh3.Hash128Seed(st, b.seed)
	b.x, b.y = h.Lo, h.Hi
	w := b.words.Slice()
	x, y := b.x, b.y
	for i := 0; i < b.k; i++ {
		p, _ := bits.Mul64(x, b.m)
		if w[p>>6]&(1<<(p&63)) == 0 {
			return false
		}
		x += y
		y += uint64(i + 1)
	}
	return true
}

// insert sets the bits of the state has looked up last, which it found
// missing, and adds the state's share of expected omissions.
func (b *bitstate) insert() {
	fill := float64(b.set) / float64(b.m)
	w := b.words.Slice()
	x, y := b.x, b.y
	for i := 0; i < b.k; i++ {
		p, _ := bits.Mul64(x, b.m)
		if word, bit := &w[p>>6], uint64(1)<<(p&63); *word&bit == 0 {
			*word |= bit
			b.set++
		}
		x += y
		y += uint64(i + 1)
	}
	b.n++
	b.omitted += b.term(fill, b.k)
}

// add stores st unless the table takes it to be visited, and reports
// whether it did.
func (b *bitstate) add(st []byte) bool {
	if b.has(st) {
		return false
	}
	b.insert()
	return true
}

// omissionTerm is the expected number of new states omitted for each state
// stored while fill of the table's bits are set, with k hash functions.
//
// A state not yet visited is taken for visited when its k bits are all set
// already: with positions spread uniformly, with probability p = fill^k
// (the Bloom filter's false-positive rate, measured by the bits actually
// set rather than predicted from the number of states, so that states
// sharing bits are accounted for). Among the lookups of new states at that
// fill, a fraction 1-p is stored and p is omitted, so each state stored
// stands for p/(1-p) omitted ones on average. Summed over the states
// stored, as the table fills, this is the expected number of omissions.
// The approach is that of Dillinger and Manolios ("Fast and accurate
// bitstate verification for SPIN", SPIN 2004; "Bloom filters in
// probabilistic verification", FMCAD 2004): accumulate the filter's
// false-positive probability over the states as they are added, rather
// than judge from the final fill alone, which overstates the omissions of
// the states stored while the table was nearly empty. Two choices are
// ours: the fill is the measured fraction of bits set rather than its
// prediction 1-(1-1/m)^(k·i) from the number i of states, and the factor
// 1/(1-p) counts the omitted lookups a stored state stands for, which
// matters once the table is more than about half full. The estimate counts
// the states omitted where the search met them; the states reachable only
// through those are lost too and are not counted. TestOmissionEstimate
// compares it with the omissions measured on a model whose states are
// known.
func omissionTerm(fill float64, k int) float64 {
	// fill < 1 here: a state is stored only when one of its bits is clear.
	p := min(math.Pow(fill, float64(k)), math.Nextafter(1, 0))
	return p / (1 - p)
}

// stats returns the table's figures.
func (b *bitstate) stats() *BitstateStats {
	st := &BitstateStats{
		Bytes: b.m / 8, Hashes: b.k, Seed: b.seed, States: b.n, BitsSet: b.set,
		Fill: float64(b.set) / float64(b.m), ExpectedOmitted: b.omitted,
	}
	if b.n > 0 {
		st.HashFactor = float64(b.m) / float64(b.n)
	}
	st.OmissionProbability = -math.Expm1(-b.omitted)
	return st
}

// free gives the table's memory back.
func (b *bitstate) free() { b.words.Free() }

// BitstateStats are the figures of a bitstate search's table
// (Config.Bitstate).
type BitstateStats struct {
	// Bytes is the table's size, Hashes the number of hash functions (k),
	// Seed their seed.
	Bytes  uint64
	Hashes int
	Seed   uint64
	// States is the number of states stored in the table, BitsSet the bits
	// they set, and Fill the fraction of the table's bits set.
	States  int64
	BitsSet uint64
	Fill    float64
	// HashFactor is Holzmann's hash factor: the bits of the table per state
	// stored. SPIN's rule of thumb is that a search with a hash factor
	// above about 100 (k = 2 or 3) omits hardly any state, and one below
	// 10 omits many.
	HashFactor float64
	// ExpectedOmitted estimates how many states the search took for
	// visited when they were new, where it met them (see
	// OmissionProbability).
	ExpectedOmitted float64
	// OmissionProbability estimates the probability that the search
	// omitted at least one state: 1-exp(-ExpectedOmitted), omissions being
	// many rare independent events (Poisson). Each stored state adds
	// p/(1-p) expected omissions, p = fill^k the fill of the table's bits
	// when it was stored to the power k (the false-positive rate of the
	// Bloom filter then), after Dillinger and Manolios (SPIN 2004). The
	// states reachable only through an omitted one are lost too, and not
	// counted.
	OmissionProbability float64
}

// Coverage returns the estimated fraction of the states the search met
// that it stored: States/(States+ExpectedOmitted).
func (b *BitstateStats) Coverage() float64 {
	if b.States == 0 {
		return 1
	}
	return float64(b.States) / (float64(b.States) + b.ExpectedOmitted)
}

// bitstateReason says why a bitstate search that ran to its end is
// incomplete all the same.
func bitstateReason(st *BitstateStats) string {
	return fmt.Sprintf("bitstate search (--bitstate %s), which may omit states (%.3g expected, probability of any %.2g)",
		formatBytes(st.Bytes), st.ExpectedOmitted, st.OmissionProbability)
}

// checkBitstate refuses, for a bitstate search, what it cannot check: the
// metrics and the liveness properties need the exact state graph. With
// every property selected (Properties nil) it selects the safety
// properties only.
func (s *search) checkBitstate(live []LiveProperty) error {
	v := fmt.Sprint(s.cfg.Bitstate)
	if len(s.cfg.Metrics) > 0 {
		return configError("Bitstate", v, "{Bitstate %d} may omit states, so it cannot compute {Metrics %s} over every execution; run without {Bitstate}", s.cfg.Bitstate, s.cfg.Metrics[0])
	}
	if s.cfg.Properties == nil {
		s.cfg.Properties = s.safetyNames()
		return nil
	}
	for _, p := range live {
		if s.selected(p.Name) {
			return configError("Bitstate", v, "{Bitstate %d} checks invariants, assertions and deadlocks, not the liveness property %s, which needs the exact state graph; run without {Bitstate}, or select safety properties with {Properties}", s.cfg.Bitstate, p.Name)
		}
	}
	return nil
}

// startBitstate makes the bitstate table of a search with Config.Bitstate,
// and the sketch of the distinct states it stores (for Swarm's union).
func (s *search) startBitstate() {
	if s.cfg.Bitstate == 0 {
		return
	}
	s.bits = newBitstate(s.cfg.Bitstate, s.cfg.BitstateHashes, s.cfg.BitstateSeed)
	s.sketch = new(hll.Sketch)
}

// endBitstate ends a bitstate search: one that ran to its end is
// incomplete all the same, and none explored every state.
func (s *search) endBitstate() {
	if s.bits == nil {
		return
	}
	if s.exhausted && s.incomplete == "" {
		s.cutShort(BitstateLimit, bitstateReason(s.bits.stats()))
	}
	s.exhausted = false
}

// bitstateAdd stores the initial state st, of fingerprint fp, in the
// bitstate table.
func (s *search) bitstateAdd(st []byte, fp uint64) {
	if s.bits.add(st) {
		s.sketch.Add(fp)
	}
}

// bitstateInsert stores the state the table looked up last, which it found
// missing, of fingerprint fp.
func (s *search) bitstateInsert(fp uint64) {
	s.bits.insert()
	s.sketch.Add(fp)
}

// shuffle puts xs in a random order drawn from the search's OrderSeed, if
// it has one.
func (s *search) shuffle(xs []int) {
	if s.order == nil || len(xs) < 2 {
		return
	}
	s.order.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
}

// orderStream is the second word of the PCG that draws the order of
// successors from Config.OrderSeed.
const orderStream = 0x6f72646572 // "order"

// splitmix is the output function of SplitMix64 (Steele, Lea and Flood
// 2014), which turns nearby seeds into unrelated ones.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
