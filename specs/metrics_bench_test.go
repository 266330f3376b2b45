package specs

import (
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// BenchmarkMutexMetrics times explorer.Check with the tracked metrics of
// mutual exclusion (and time) on one worker: the cost of the trackers'
// per-transition hooks and of the states they split.
func BenchmarkMutexMetrics(b *testing.B) {
	for _, bc := range []struct {
		name    string
		spec    string
		params  map[string]string
		metrics []string
	}{
		{"lamport-n2r2-all", "lamport", map[string]string{"n": "2", "requests": "2"}, []string{"time", "sync-delay", "messages-per-entry"}},
		{"ricart-agrawala-n3-entry", "ricart-agrawala", map[string]string{"n": "3"}, []string{"messages-per-entry"}},
		{"ricart-agrawala-n3-sync", "ricart-agrawala", map[string]string{"n": "3"}, []string{"sync-delay"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := build(b, bc.spec, bc.params)
			var r *explorer.Result
			for range b.N {
				var err error
				if r, err = explorer.Check(m, explorer.Config{Workers: 1, Properties: []string{}, Metrics: bc.metrics}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(r.States), "states")
		})
	}
}
