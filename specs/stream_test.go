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

// TestSymmetryStreamsInitialStates checks every catalog spec that declares
// a symmetry with --symmetry at the parameters of largeFlags and
// --max-states 10: the search ends at the state limit having built few
// initial states, within the budget of 4 MiB besides the search's own
// fixed tables. The quotient used to build and canonicalize every initial
// state (lelann --n 9 --ids all --initiators subsets: 9! × 511) before the
// search began, and to check that they were whole orbits on a map of them
// all (issue 34 item 8).
func TestSymmetryStreamsInitialStates(t *testing.T) {
	// What a search of one initial state allocates: its fixed tables.
	base := func(s Spec) uint64 {
		p, err := NewParams(s, map[string]string{"n": "3", "ids": "increasing"})
		if err != nil {
			t.Fatal(err)
		}
		m, err := s.Build(p)
		if err != nil {
			t.Fatal(err)
		}
		return allocated(func() { _, _ = explorer.Check(m, explorer.Config{Workers: 1, MaxStates: 10, Properties: []string{}}) })
	}
	for _, s := range Catalog() {
		if s.Symmetry == "" {
			continue
		}
		flags := largeFlags(s, false)
		name := caseName(s.Name, flags)
		var r *explorer.Result
		var err error
		got := allocated(func() {
			var p *Params
			if p, err = NewParams(s, flags); err != nil {
				return
			}
			var m explorer.Model
			if m, err = s.Build(p); err != nil {
				return
			}
			r, err = explorer.Check(m, explorer.Config{Workers: 1, Symmetry: true, MaxStates: 10, Properties: []string{}})
		})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if r.Status != explorer.Incomplete || r.Limit != explorer.StateLimit {
			t.Errorf("%s: %v (%s); want incomplete at the state limit", name, r.Status, r.Reason)
		}
		if b := base(s); got > b+streamBudget {
			t.Errorf("%s --symmetry --max-states 10 allocated %.1f MiB, %.1f MiB more than a search of one initial state (budget %d MiB)",
				name, float64(got)/(1<<20), float64(got-b)/(1<<20), streamBudget>>20)
		}
	}
}
