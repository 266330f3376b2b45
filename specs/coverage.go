package specs

import (
	"slices"
	"strconv"
)

// The declarations of the catalog's specs for coverage
// (automaton.Config.StepNames and MessageTypes, check --coverage): each
// spec declares the steps its processes take and the types of its
// messages, for the instance its parameters build, and says in MayNotFire
// why a declared one may fire in no run of some instances.
// TestCatalogCoverage checks that at the default parameters every declared
// step and message type fires, or the spec says why not, and that nothing
// fires undeclared.

// idTypes are the message types of a spec whose messages are bare IDs
// (chang-roberts): each ID, in increasing order, as it prints. Every ID
// vector idsets yields is an arrangement of the same IDs, so the first
// gives them.
func idTypes(idsets choices[[]int]) []string {
	var ids []int
	if idsets.each != nil {
		for first := range idsets.each {
			ids = slices.Sorted(slices.Values(first))
			break
		}
	}
	types := make([]string, len(ids))
	for k, id := range ids {
		types[k] = strconv.Itoa(id)
	}
	return types
}

// when returns names if cond holds, else none: the steps or message types
// an instance takes only with some parameters.
func when(cond bool, names ...string) []string {
	if cond {
		return names
	}
	return nil
}
