package specs

import (
	"syscall"
	"testing"
	"time"

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
	cpu0 := cpuTime(b)
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
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(states)/float64(b.N), "cpu-ns/state")
}

// cpuTime returns the CPU time (user and system) the process has used: on
// a shared machine it measures the work of a benchmark better than the
// time it took.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
