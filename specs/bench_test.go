package specs

import (
	"fmt"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// BenchmarkChangRobertsAll explores chang-roberts with every ID
// arrangement: N=6 has 1,809,852 distinct states. It reports distinct
// states per second for 1 and 2 workers. N=7 runs with -bench-large.
func BenchmarkChangRobertsAll(b *testing.B) {
	for _, n := range benchSizes() {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("spec=chang-roberts/ids=all/n=%d/workers=%d", n, workers), func(b *testing.B) {
				m := build(b, "chang-roberts", map[string]string{"n": fmt.Sprint(n), "ids": "all"})
				claims := changRoberts().Claims
				var states int64
				for i := 0; i < b.N; i++ {
					r, err := explorer.Check(m, explorer.Config{Workers: workers, Properties: claims})
					if err != nil {
						b.Fatal(err)
					}
					states = r.States
				}
				b.ReportMetric(float64(states)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
				b.ReportMetric(float64(states), "states")
			})
		}
	}
}

// BenchmarkLivenessCost measures what checking termination adds to the
// safety-only run of the same model (chang-roberts-announce, every ID
// arrangement; N=5, and N=6 with -bench-large): the state graph recorded
// during the search, its memory and the SCC passes. It reports ns/state
// (time per distinct state) and B/state (peak memory per distinct state);
// compare the two check= lines of one N for the ratio.
func BenchmarkLivenessCost(b *testing.B) {
	sizes := []int{5}
	if *benchLarge {
		sizes = append(sizes, 6)
	}
	for _, n := range sizes {
		m := build(b, "chang-roberts-announce", map[string]string{"n": fmt.Sprint(n)})
		safety := []string{properties.Uniqueness, properties.Agreement, properties.Validity, "no-elect-after-done", properties.DeadlockFreedom}
		for _, mode := range []struct {
			name  string
			props []string
		}{{"safety", safety}, {"safety+termination", append(safety, properties.Termination)}} {
			b.Run(fmt.Sprintf("spec=chang-roberts-announce/n=%d/check=%s", n, mode.name), func(b *testing.B) {
				var r *explorer.Result
				peak := uint64(0)
				for i := 0; i < b.N; i++ {
					var err error
					if r, err = explorer.Check(m, explorer.Config{Properties: mode.props}); err != nil {
						b.Fatal(err)
					}
					if r.Status != explorer.OK {
						b.Fatalf("%v: %s", r.Status, r.Reason)
					}
					peak = max(peak, r.PeakMemory)
				}
				states := float64(r.States)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/states, "ns/state")
				b.ReportMetric(float64(peak)/states, "B/state")
				b.ReportMetric(states, "states")
				if r.Graph != nil {
					b.ReportMetric(float64(r.Graph.Bytes)/float64(r.Graph.States), "graph-B/state")
				}
			})
		}
	}
}

// BenchmarkReduction measures partial-order reduction against the full
// search on the same model: echo-election on the complete graph with every
// initiator subset (N=4; N=5 only reduced, the full space is about 10^10
// states) and lamport with minimal clocks (N=3; N=4 with three requesters
// only reduced). It reports states and states/s.
func BenchmarkReduction(b *testing.B) {
	cases := []struct {
		spec  string
		flags map[string]string
		full  bool
	}{
		{"echo-election", map[string]string{"n": "4", "topology": "complete", "initiators": "subsets"}, true},
		{"echo-election", map[string]string{"n": "5", "topology": "complete", "initiators": "subsets"}, false},
		{"lamport", map[string]string{"n": "3", "clocks": "minimal"}, true},
		{"lamport", map[string]string{"n": "4", "requesters": "1,2,3", "clocks": "minimal"}, false},
	}
	for _, c := range cases {
		for _, red := range []explorer.Reduction{explorer.NoReduction, explorer.PartialOrder} {
			if red == explorer.NoReduction && !c.full {
				continue
			}
			b.Run(fmt.Sprintf("spec=%s%s/reduction=%v", c.spec, flagString(c.flags), red), func(b *testing.B) {
				m := build(b, c.spec, c.flags)
				cfg := explorer.Config{Strategy: explorer.DFS, Reduction: red, Properties: safetyNames(m)}
				var states int64
				for i := 0; i < b.N; i++ {
					r, err := explorer.Check(m, cfg)
					if err != nil {
						b.Fatal(err)
					}
					if r.Status != explorer.OK {
						b.Fatalf("%v: %s", r.Status, r.Reason)
					}
					states = r.States
				}
				b.ReportMetric(float64(states)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
				b.ReportMetric(float64(states), "states")
			})
		}
	}
}

// safetyNames returns deadlock-freedom and m's safety properties.
func safetyNames(m explorer.Model) []string {
	names := []string{properties.DeadlockFreedom}
	for _, p := range m.Properties() {
		names = append(names, p.Name)
	}
	return names
}
