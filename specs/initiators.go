package specs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/vacheck/vacheck/internal/input"
)

// maxSubsetsN bounds --n for --initiators subsets: 2^N − 1 initial states
// per ID arrangement.
const maxSubsetsN = 12

// initiatorsParam returns the --initiators parameter
// (docs/algorithms/README.md) with the spec's default value.
func initiatorsParam(def string) Param {
	return Param{
		Flag:    "initiators",
		Default: def,
		Usage: "designated initiators: all, one (process 1 only: ONE(1)), a list of processes such as 1,3 " +
			"(ONE(i) or FIXED(set)), or subsets (every non-empty subset, as separate initial states)",
	}
}

// parseInitiators reads --initiators for n processes
// (docs/algorithms/README.md, "initiators": ALL, ONE(i), FIXED(set),
// ALL_SUBSETS) and returns the membership vectors, one per initial state:
// set[i] tells whether process i (0-based) is a designated initiator. Process
// numbers in the flag are 1-based. "one" is ONE(1), process 1; ONE(i) for
// another i is the one-element list "i". "subsets" yields the sets in the order
// of their bit masks 1 .. 2^N−1, bit i standing for process i+1, so the initial
// state for the single initiator 1 comes first.
//
// Whether a designated initiator actually starts is up to the run: the
// wake-up rule lets it start only while it is still asleep.
func parseInitiators(p *Params, n int) (choices[[]bool], error) {
	v := strings.TrimSpace(p.String("initiators"))
	const allowed = "allowed: all, one, subsets, or a list of distinct process numbers from 1 to N such as 1,3"
	switch v {
	case "all", "one":
		set := make([]bool, n)
		for i := range set {
			set[i] = v == "all" || i == 0
		}
		p.Set("initiators", v)
		return oneChoice(set, cloneSlice), nil
	case "subsets":
		if n > maxSubsetsN && !p.Sampling() {
			return choices[[]bool]{}, Usagef("initiators", v, "--n %d gives 2^%d−1 initial states; allowed for --n up to %d", n, n, maxSubsetsN)
		}
		p.Set("initiators", v)
		c := subsetsOf(n, true)
		c.name = func(set []bool) map[string]string { return map[string]string{"initiators": procListCanon(set)} }
		return c, nil
	case "":
		return choices[[]bool]{}, Usagef("initiators", `""`, "empty value; %s", allowed)
	}
	set, err := parseProcList("initiators", v, n, procListWhy{
		notNumber: func(elem string) string {
			return fmt.Sprintf("%q is not a process number; %s", input.Clip(strings.TrimSpace(elem)), allowed)
		},
		outside: func(i int) string {
			return fmt.Sprintf("there is no process %d with --n %d; processes are numbered 1 to %d", i, n, n)
		},
		twice: func(i int) string { return fmt.Sprintf("process %d is listed twice; list each initiator once", i) },
	})
	if err != nil {
		return choices[[]bool]{}, err
	}
	p.Set("initiators", procListCanon(set))
	return oneChoice(set, cloneSlice), nil
}

// initiators is parseInitiators with a sticky error (Params.Err).
func (p *Params) initiators(n int) choices[[]bool] {
	return sticky(p, func() (choices[[]bool], error) { return parseInitiators(p, n) })
}

// subsetsOf is every subset of n processes, or every non-empty one, as
// membership vectors yielded one at a time in the order of their bit
// masks (bit i standing for process i: the empty set, {1}, {2}, {1,2},
// ...), counted as 2^n (less one), and sampled by a fair coin per process,
// drawn again when nonEmpty and the set came out empty (rejection: each
// non-empty set keeps the same chance).
func subsetsOf(n int, nonEmpty bool) choices[[]bool] {
	return choices[[]bool]{
		count: func() (uint64, bool) {
			switch {
			case n < 64:
				c := uint64(1) << n
				if nonEmpty {
					c--
				}
				return c, true
			case n == 64 && nonEmpty:
				return math.MaxUint64, true
			}
			return 0, false
		},
		each: func(yield func([]bool) bool) {
			set := make([]bool, n)
			if !nonEmpty && !yield(cloneSlice(set)) {
				return
			}
			for {
				// The next mask: add 1, bit 0 first.
				i := 0
				for i < n && set[i] {
					set[i] = false
					i++
				}
				if i == n {
					return // past the last mask
				}
				set[i] = true
				if !yield(cloneSlice(set)) {
					return
				}
			}
		},
		at: func(k uint64) []bool {
			if nonEmpty {
				k++ // the empty set, mask 0, is left out
			}
			set := make([]bool, n)
			for i := range set {
				set[i] = i < 64 && k>>uint(i)&1 != 0
			}
			return set
		},
		sample: func(r *rand.Rand) []bool {
			set := make([]bool, n)
			for {
				some := false
				var coins uint64
				for i := range set {
					if i%64 == 0 {
						coins = r.Uint64()
					}
					set[i] = coins&1 != 0
					coins >>= 1
					some = some || set[i]
				}
				if some || !nonEmpty || n == 0 {
					return set
				}
			}
		},
	}
}
