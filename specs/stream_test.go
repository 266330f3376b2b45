package specs

import (
	"runtime"
	"slices"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// streamBudget is what building a spec's model and its first initial
// states may allocate: each spec takes 3 to 52 KiB for five of them (at
// N = 9 and 20), and the N! ID vectors of --ids all at N = 9 alone take
// 37 MB.
const streamBudget = 4 << 20

// allocated returns the bytes that fn allocated on the Go heap.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// largeFlags returns the flags that give s the most initial states a
// check accepts: --ids all at N = 9 (9! arrangements), --initiators
// subsets (2^N − 1 sets, at N = 12 without --ids all); with sampling, N =
// 20 (20! arrangements). A spec without either takes its defaults: it has
// one initial state.
func largeFlags(s Spec, sampling bool) map[string]string {
	has := func(flag string) bool {
		return slices.ContainsFunc(s.Params, func(p Param) bool { return p.Flag == flag })
	}
	flags := map[string]string{}
	switch {
	case sampling && (has("ids") || has("initiators")):
		flags["n"] = "20"
	case has("ids"):
		flags["n"] = "9"
	case has("initiators"):
		flags["n"] = "12"
	}
	if has("ids") {
		flags["ids"] = "all"
	}
	if has("initiators") {
		flags["initiators"] = "subsets"
	}
	return flags
}

// TestCatalogStreamsInitialStates builds every catalog spec at the largest
// parameters a check takes, and at N = 20 for sampling, and takes its first
// initial states through explorer.InitialStreamer: building the model and
// those states allocates less than streamBudget, which a spec that builds
// all its initial states first (as six specs and their twins did: lelann
// --n 9 was killed for want of memory in 2 GiB) exceeds. It alone does not
// run in parallel with the others: allocated reads the process's heap
// counters, which a parallel test would add to.
func TestCatalogStreamsInitialStates(t *testing.T) {
	if got := allocated(func() { _ = slices.Collect(permutationsOf(9).each) }); got < streamBudget {
		t.Fatalf("the yardstick: the 9! ID vectors take %d bytes, within the budget of %d", got, streamBudget)
	}
	for _, s := range Catalog() {
		for _, sampling := range []bool{false, true} {
			flags := largeFlags(s, sampling)
			if sampling && flags["n"] == "" {
				continue
			}
			name := caseName(s.Name, flags)
			if sampling {
				name += " (sampling)"
			}
			var taken int
			var err error
			got := allocated(func() {
				var p *Params
				if p, err = NewParams(s, flags); err != nil {
					return
				}
				p.SetSampling(sampling)
				var m explorer.Model
				if m, err = s.Build(p); err != nil {
					return
				}
				is, ok := m.(explorer.InitialStreamer)
				if !ok {
					t.Errorf("%s: the model is not an InitialStreamer", name)
					return
				}
				err = is.InitialStates(func([]byte) bool {
					taken++
					return taken < 5
				})
			})
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if taken == 0 {
				t.Errorf("%s: no initial state", name)
			}
			if got > streamBudget {
				t.Errorf("%s: building the model and %d initial states allocated %.1f MiB (budget %d MiB)", name, taken, float64(got)/(1<<20), streamBudget>>20)
			}
		}
	}
}
