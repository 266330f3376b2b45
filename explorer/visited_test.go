package explorer

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// benchVisited adds n random fingerprints, a third of them twice, to a
// visited set, and reports the
// rate and the bytes a state costs (heap in use after, less before).
func benchVisited(b *testing.B, n int) {
	rng := rand.New(rand.NewPCG(7, 8))
	fps := make([]uint64, n)
	for i := range fps {
		if i%3 == 2 {
			fps[i] = fps[rng.IntN(i)]
		} else {
			fps[i] = rng.Uint64()
		}
	}
	var ms runtime.MemStats
	var bytes float64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.HeapInuse
		b.StartTimer()
		v := newVisitedSet(0)
		for k, h := range fps {
			v.Add(h, stateRef(k), uint32(k&7))
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		bytes += float64(ms.HeapInuse-before) / float64(v.Len())
		runtime.KeepAlive(v)
		b.StartTimer()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "adds/s")
	b.ReportMetric(bytes/float64(b.N), "B/state")
}

func BenchmarkVisitedSet4M(b *testing.B) { benchVisited(b, 4<<20) }
