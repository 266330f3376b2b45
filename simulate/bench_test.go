package simulate_test

import (
	"runtime"
	"testing"

	"github.com/vacheck/vacheck/simulate"
)

// BenchmarkSimulateChangRoberts64 is the speed instance,
// chang-roberts --n 64 --ids all with the messages metric, on one worker;
// each iteration is 100 runs (about 300 messages and 6,000 steps each).
// It reports steps per second, the figure to hold against the exhaustive
// engine's transitions per second, and the time and allocations per step
// (each iteration builds its workers and their caches anew, which a
// simulation of 10,000 runs does once per worker: most of the
// allocations).
func BenchmarkSimulateChangRoberts64(b *testing.B) {
	m := build(b, "chang-roberts", map[string]string{"n": "64", "ids": "all"})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	var steps int64
	for i := 0; b.Loop(); i++ {
		res, err := simulate.Simulate(m, simulate.Config{Runs: 100, Seed: uint64(i), Workers: 1, Metrics: []string{"messages"}})
		if err != nil {
			b.Fatal(err)
		}
		steps += res.Steps
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(steps), "allocs/step")
}
