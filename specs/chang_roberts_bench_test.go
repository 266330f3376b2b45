package specs

import (
	"runtime"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// benchChangRoberts searches chang-roberts with every ID arrangement of n
// processes and every claim, breadth first on the given number of workers,
// and reports states/s and the peak memory per stored state.
func benchChangRoberts(b *testing.B, n string, workers int, props ...string) {
	s, err := Lookup("chang-roberts")
	if err != nil {
		b.Fatal(err)
	}
	p, err := NewParams(s, map[string]string{"n": n, "ids": "all"})
	if err != nil {
		b.Fatal(err)
	}
	m, err := s.Build(p)
	if err != nil {
		b.Fatal(err)
	}
	if len(props) == 0 {
		props = s.Claims
	}
	var states int64
	var secs, bytes float64
	b.ResetTimer()
	for range b.N {
		runtime.GC()
		r, err := explorer.Check(m, explorer.Config{Workers: workers, Properties: props})
		if err != nil {
			b.Fatal(err)
		}
		if r.Status != explorer.OK {
			b.Fatalf("status %v: %s", r.Status, r.Reason)
		}
		states = r.States
		secs += r.Elapsed.Seconds()
		bytes += float64(r.PeakMemory)
	}
	b.ReportMetric(float64(states)*float64(b.N)/secs, "states/s")
	b.ReportMetric(bytes/float64(b.N)/float64(states), "B/state")
	b.ReportMetric(float64(states), "states")
}

func BenchmarkChangRoberts5W1(b *testing.B) { benchChangRoberts(b, "5", 1) }
func BenchmarkChangRoberts6W1(b *testing.B) { benchChangRoberts(b, "6", 1) }
func BenchmarkChangRoberts6W2(b *testing.B) { benchChangRoberts(b, "6", 2) }

// The properties bench/compare.sh checks, those of its Promela model.
var spinChecks = []string{"uniqueness", "validity", "deadlock-freedom"}

func BenchmarkChangRoberts6W1Spin(b *testing.B) { benchChangRoberts(b, "6", 1, spinChecks...) }
func BenchmarkChangRoberts6W2Spin(b *testing.B) { benchChangRoberts(b, "6", 2, spinChecks...) }
