package automaton_test

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
)

// tokenAt returns the initial state of a ring of n processes in which
// process k holds the token.
func tokenAt(n, k int) []ring {
	procs := make([]ring, n)
	procs[k] = ring{Holding: true, Seen: true}
	return procs
}

// ExampleConfig_initialSample gives the token ring of Example one initial
// state per process that may hold the token first. InitialSeq yields them
// one at a time, so that a search under a state or memory limit stops
// before building them all, and InitialSample draws one of them uniformly
// without building the others, for a random simulation
// (explorer.InitialSampler).
func ExampleConfig_initialSample() {
	const n = 1000
	sys, err := automaton.New(automaton.Config[ring, string]{
		InitialSeq: func(yield func([]ring) bool) {
			for k := range n {
				if !yield(tokenAt(n, k)) {
					return
				}
			}
		},
		InitialSample: func(r *rand.Rand) []ring { return tokenAt(n, r.IntN(n)) },
		Links:         automaton.Ring(n),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 3 {
		st, err := sys.SampleInitial(r)
		if err != nil {
			fmt.Println(err)
			return
		}
		vars, _ := sys.Describe(st)
		for _, v := range vars {
			if p, ok := strings.CutSuffix(v.Name, ".holding"); ok && v.Value == true {
				fmt.Println("the token starts at", p)
			}
		}
	}
	var _ explorer.InitialSampler = sys
	// Output:
	// the token starts at p770
	// the token starts at p617
	// the token starts at p785
}
