package simulate_test

import (
	"testing"

	"github.com/vacheck/vacheck/simulate"
)

// BenchmarkSimulateChangRoberts64 is the speed instance,
// chang-roberts --n 64 --ids all with the messages metric, on one worker;
// each iteration is 100 runs (about 300 messages and 6,000 steps each).
// It reports steps per second, the figure to hold against the exhaustive
// engine's transitions per second.
func BenchmarkSimulateChangRoberts64(b *testing.B) {
	m := build(b, "chang-roberts", map[string]string{"n": "64", "ids": "all"})
	b.ResetTimer()
	var steps int64
	for i := 0; b.Loop(); i++ {
		res, err := simulate.Simulate(m, simulate.Config{Runs: 100, Seed: uint64(i), Workers: 1, Metrics: []string{"messages"}})
		if err != nil {
			b.Fatal(err)
		}
		steps += res.Steps
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
}
