package specs

import (
	"fmt"
	"strings"

	"github.com/vacheck/vacheck/internal/input"
)

// maxSubsetsN bounds --n for --initiators subsets: 2^N − 1 initial states
// per ID arrangement.
const maxSubsetsN = 12

// initiatorsParam returns the --initiators parameter (ALGORITHMS.md 0.6)
// with the spec's default value.
func initiatorsParam(def string) Param {
	return Param{
		Flag:    "initiators",
		Default: def,
		Usage: "designated initiators: all, one (process 1 only: ONE(1)), a list of processes such as 1,3 " +
			"(ONE(i) or FIXED(set)), or subsets (every non-empty subset, as separate initial states)",
	}
}

// parseInitiators reads --initiators for n processes (ALGORITHMS.md 0.6,
// "initiators": ALL, ONE(i), FIXED(set), ALL_SUBSETS) and returns one
// membership vector per initial state: sets[k][i] tells whether process i
// (0-based) is a designated initiator in initial state k. Process numbers
// in the flag are 1-based. "one" is ONE(1), process 1; ONE(i) for another
// i is the one-element list "i". "subsets" lists the sets in the order of
// their bit masks 1 .. 2^N−1, bit i standing for process i+1, so the
// initial state for the single initiator 1 comes first.
//
// Whether a designated initiator actually starts is up to the run: the
// wake-up rule lets it start only while it is still asleep.
func parseInitiators(p *Params, n int) ([][]bool, error) {
	v := strings.TrimSpace(p.String("initiators"))
	const allowed = "allowed: all, one, subsets, or a list of distinct process numbers from 1 to N such as 1,3"
	switch v {
	case "all", "one":
		set := make([]bool, n)
		for i := range set {
			set[i] = v == "all" || i == 0
		}
		p.Set("initiators", v)
		return [][]bool{set}, nil
	case "subsets":
		if n > maxSubsetsN {
			return nil, Usagef("initiators", v, "--n %d gives 2^%d−1 initial states; allowed for --n up to %d", n, n, maxSubsetsN)
		}
		var sets [][]bool
		for mask := 1; mask < 1<<n; mask++ {
			set := make([]bool, n)
			for i := range set {
				set[i] = mask&(1<<i) != 0
			}
			sets = append(sets, set)
		}
		p.Set("initiators", v)
		return sets, nil
	case "":
		return nil, Usagef("initiators", `""`, "empty value; %s", allowed)
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
		return nil, err
	}
	p.Set("initiators", procListCanon(set))
	return [][]bool{set}, nil
}

// initiators is parseInitiators with a sticky error (Params.Err).
func (p *Params) initiators(n int) [][]bool {
	return sticky(p, func() ([][]bool, error) { return parseInitiators(p, n) })
}
