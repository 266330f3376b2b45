package specs

import (
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// crBenchStates is how many reachable states of chang-roberts N=6 --ids all
// the automaton benchmarks run on.
const crBenchStates = 200_000

// reachable returns the first limit states of m that a breadth-first search
// reaches, in BFS order, with a worker of m.
func reachable(tb testing.TB, m explorer.Model, limit int) [][]byte {
	tb.Helper()
	w := m.NewWorker()
	seen := make(map[string]struct{}, limit)
	var states [][]byte
	add := func(st []byte) {
		if len(states) < limit {
			if _, ok := seen[string(st)]; !ok {
				seen[string(st)] = struct{}{}
				states = append(states, append([]byte(nil), st...))
			}
		}
	}
	init, err := m.Initial()
	if err != nil {
		tb.Fatal(err)
	}
	for _, st := range init {
		add(st)
	}
	for next := 0; next < len(states) && len(states) < limit; next++ {
		if _, err := explorer.Successors(w, states[next], func(_ explorer.Transition, st []byte) { add(st) }); err != nil {
			tb.Fatal(err)
		}
	}
	return states
}

// crBench builds chang-roberts N=6 with every ID arrangement and collects
// the states the automaton benchmarks run on, and the properties of the
// command of issue 14 (uniqueness, validity, and the channel-bound
// assertion) as a Check mask.
func crBench(b *testing.B) (explorer.Model, [][]byte, uint64) {
	b.Helper()
	m := build(b, "chang-roberts", map[string]string{"n": "6", "ids": "all"})
	states := reachable(b, m, crBenchStates)
	var want uint64
	for k, p := range m.Properties() {
		if p.Name == properties.Uniqueness || p.Name == properties.Validity || p.Kind == properties.Assertion {
			want |= 1 << uint(k)
		}
	}
	return m, states, want
}

// BenchmarkChangRobertsSuccessors times Worker.Successors alone, with an
// emit that does nothing, on the first 200,000 states a BFS of
// chang-roberts N=6 --ids all reaches, in BFS order (as the explorer
// expands them); it reports ns/state.
func BenchmarkChangRobertsSuccessors(b *testing.B) {
	m, states, _ := crBench(b)
	w := m.NewWorker()
	emit := func(explorer.Transition, []byte) {}
	b.ResetTimer()
	for range b.N {
		for _, st := range states {
			if _, err := explorer.Successors(w, st, emit); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(states)), "ns/state")
}

// BenchmarkChangRobertsCheck times Worker.Check with uniqueness, validity
// and the channel bound on the states of BenchmarkChangRobertsSuccessors, in
// BFS order; it reports ns/state.
func BenchmarkChangRobertsCheck(b *testing.B) {
	m, states, want := crBench(b)
	w := m.NewWorker()
	b.ResetTimer()
	for range b.N {
		for _, st := range states {
			if mask, err := w.Check(st, want); err != nil || mask != 0 {
				b.Fatalf("Check = %#x, %v", mask, err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(states)), "ns/state")
}
