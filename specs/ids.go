package specs

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/internal/input"
)

// maxAllN bounds --n for --ids all: N! initial states.
const maxAllN = 9

// maxN bounds --n for the specs that use a 64-bit process mask: crash
// bookkeeping (automaton.Config.Crashes, Down), shared actions
// (automaton.Step.With), partial-order reduction, the sync-delay metric,
// the mutual-exclusion specs' procSet, and the graph specs, whose
// topologies and per-neighbour sets have not been audited beyond it.
const maxN = 64

// maxRingN bounds --n for the elections on rings (chang-roberts and its
// variants, lelann, peterson): none of them uses a process mask, so they
// go beyond maxN, to the 256 of the curves of docs/simulate.md. A random
// simulation reaches it in seconds; an exhaustive check is allowed too
// and stops at its limits. docs/simulate.md lists what was audited.
const maxRingN = 256

var idsParam = Param{
	Flag:    "ids",
	Default: "all",
	Usage:   "ID arrangement: increasing or decreasing (along the direction messages travel), a list such as 3,1,2, or all (every permutation of 1..N)",
}

// parseIDs reads --ids for n processes and returns the ID vectors, one
// per initial state: the one given, or every permutation of 1..N.
func parseIDs(p *Params, n int) (choices[[]int], error) {
	v := p.String("ids")
	switch v {
	case "increasing", "decreasing":
		ids := make([]int, n)
		for i := range ids {
			ids[i] = i + 1
			if v == "decreasing" {
				ids[i] = n - i
			}
		}
		p.Set("ids", v)
		return oneChoice(ids, cloneSlice), nil
	case "all":
		if n > maxAllN && !p.Sampling() {
			return choices[[]int]{}, Usagef("n", strconv.Itoa(n), "too large for --ids all (N! initial states); allowed: 1 to %d", maxAllN)
		}
		p.Set("ids", v)
		c := permutationsOf(n)
		c.name = func(ids []int) map[string]string { return map[string]string{"ids": joinInts(ids)} }
		return c, nil
	}
	const allowed = "give N distinct positive integers separated by commas, or increasing, decreasing, all"
	if strings.TrimSpace(v) == "" {
		return choices[[]int]{}, Usagef("ids", `""`, "empty; %s", allowed)
	}
	parts := strings.Split(v, ",")
	ids := make([]int, len(parts))
	seen := map[int]bool{}
	for i, s := range parts {
		id, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || id <= 0 {
			return choices[[]int]{}, Usagef("ids", input.Clip(v), "%q is not a positive integer; %s", input.Clip(s), allowed)
		}
		if seen[id] {
			return choices[[]int]{}, Usagef("ids", input.Clip(v), "ID %d appears twice; IDs must be distinct", id)
		}
		seen[id] = true
		ids[i] = id
	}
	if len(ids) != n {
		return choices[[]int]{}, Usagef("ids", input.Clip(v), "%d IDs given for --n %d; %s", len(ids), n, allowed)
	}
	p.Set("ids", v)
	return oneChoice(ids, cloneSlice), nil
}

// joinInts returns the integers of s separated by commas: "2,1,3", the
// form --ids takes.
func joinInts(s []int) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, ",")
}

// ids is parseIDs with a sticky error (Params.Err).
func (p *Params) ids(n int) choices[[]int] {
	return sticky(p, func() (choices[[]int], error) { return parseIDs(p, n) })
}

// permutationsOf is every permutation of 1..n, yielded in lexicographic
// order one at a time (the next from the last, as Narayana Pandita did),
// counted as n!, and sampled by Fisher-Yates: n draws, whatever n! is.
func permutationsOf(n int) choices[[]int] {
	return choices[[]int]{
		count: func() (uint64, bool) {
			c := uint64(1)
			for k := 2; k <= n; k++ {
				hi, lo := bits.Mul64(c, uint64(k))
				if hi != 0 {
					return 0, false
				}
				c = lo
			}
			return c, true
		},
		each: func(yield func([]int) bool) {
			perm := make([]int, n)
			for i := range perm {
				perm[i] = i + 1
			}
			for {
				if !yield(cloneSlice(perm)) || !nextPermutation(perm) {
					return
				}
			}
		},
		at: permutationAt(n),
		sample: func(r *rand.Rand) []int {
			perm := make([]int, n)
			for i := range perm {
				perm[i] = i + 1
			}
			for i := 0; i < n-1; i++ {
				j := i + r.IntN(n-i) // uniform in [i, n)
				perm[i], perm[j] = perm[j], perm[i]
			}
			return perm
		},
	}
}

// permutationAt builds the k-th permutation of 1..n in lexicographic
// order from the digits of k in the factorial number system, or is nil
// when n! exceeds a uint64.
func permutationAt(n int) func(k uint64) []int {
	if n > 20 {
		return nil
	}
	fact := make([]uint64, n+1) // fact[i] = i!
	fact[0] = 1
	for i := 1; i <= n; i++ {
		fact[i] = fact[i-1] * uint64(i)
	}
	return func(k uint64) []int {
		left := make([]int, n)
		for i := range left {
			left[i] = i + 1
		}
		perm := make([]int, 0, n)
		for i := n - 1; i >= 0; i-- {
			d := k / fact[i]
			k %= fact[i]
			perm = append(perm, left[d])
			left = slices.Delete(left, int(d), int(d)+1)
		}
		return perm
	}
}

// nextPermutation rearranges perm into the next permutation in
// lexicographic order, and reports false when perm was the last.
func nextPermutation(perm []int) bool {
	i := len(perm) - 2
	for i >= 0 && perm[i] >= perm[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(perm) - 1
	for perm[j] <= perm[i] {
		j--
	}
	perm[i], perm[j] = perm[j], perm[i]
	slices.Reverse(perm[i+1:])
	return true
}

// ChannelFlags is Channels with a sticky error: it records Channels' error
// (see Err) and returns zero values instead. Once p has an error it returns
// zero values without reading the flags.
func (p *Params) ChannelFlags(def channel.Discipline, defCap int) (channel.Discipline, int) {
	if p.err != nil {
		return 0, 0
	}
	disc, capacity, err := p.Channels(def, defCap)
	p.Fail(err)
	return disc, capacity
}

// Channels reads the common parameters --channels and --capacity that
// every spec takes, with the spec's defaults: the discipline the algorithm
// assumes and a capacity that bounds every channel. A bad value is an
// ErrUsage error naming the flag and what is allowed. The values chosen are
// recorded (Set) for the report's header and its JSON.
func (p *Params) Channels(def channel.Discipline, defCap int) (channel.Discipline, int, error) {
	disc := def
	if p.Given("channels") {
		d, err := channel.Parse(p.String("channels"))
		if err != nil {
			return 0, 0, Usagef("channels", p.String("channels"), "allowed values are fifo, unordered and mailbox")
		}
		disc = d
	}
	p.Set("channels", disc.String())
	capacity := defCap
	if p.Given("capacity") {
		c, err := p.Int("capacity", 1, 1<<20)
		if err != nil {
			return 0, 0, err
		}
		capacity = c
	}
	p.Set("capacity", capacity)
	return disc, capacity, nil
}

// constantIDs returns an automaton.Config.Constant that declares the
// processes' IDs, read by id, the constant part of the states: the ID
// arrangement, which no transition changes.
func constantIDs[S any, M automaton.Message](id func(p *S) int) func(v *automaton.View[S, M], key []byte) []byte {
	return func(v *automaton.View[S, M], key []byte) []byte {
		for i := 0; i < v.N(); i++ {
			key = binary.AppendVarint(key, int64(id(v.Proc(i))))
		}
		return key
	}
}
