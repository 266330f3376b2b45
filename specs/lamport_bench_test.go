package specs

import (
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// BenchmarkLamportN4 runs the first 300,000 states of lamport --n 4
// --requests 1 --clocks minimal --reduction por, depth first on one worker
// as the CLI does: the 804,447,141-state instance of issue 33, whose cost a
// state is dominated by normalization and the choice of stubborn sets. It
// reports states/s and the nanoseconds a state, from which the whole run is
// projected (bench/README.md).
func BenchmarkLamportN4(b *testing.B) {
	m := build(b, "lamport", map[string]string{"n": "4", "requests": "1", "clocks": "minimal"})
	cfg := explorer.Config{Strategy: explorer.DFS, Reduction: explorer.PartialOrder, Properties: safetyNames(m), MaxStates: 300_000}
	var states int64
	for i := 0; i < b.N; i++ {
		r, err := explorer.Check(m, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if r.Status != explorer.Incomplete || r.States != cfg.MaxStates {
			b.Fatalf("%v after %d states: %s", r.Status, r.States, r.Reason)
		}
		states = r.States
	}
	b.ReportMetric(float64(states)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(states)/float64(b.N), "ns/state")
}
