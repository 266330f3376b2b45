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

// BenchmarkFPSetFill adds 1.8 million distinct fingerprints (as many as
// chang-roberts --n 6 --ids all has states) to a new fingerprint set, which
// grows as it fills, and to one refilled after Clear, which keeps its
// tables: the difference is what growing costs. The lookups are batched
// and touched first, as the searches do.
func BenchmarkFPSetFill(b *testing.B) {
	const n = 1800000
	fill := func(s *fpSet, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 9))
		batch := make([]uint64, touchBatch)
		for i := 0; i < n; i += touchBatch {
			for k := range batch {
				batch[k] = rng.Uint64()
			}
			s.touch(batch)
			for _, h := range batch {
				s.insert(h)
			}
		}
	}
	b.Run("growing", func(b *testing.B) {
		for i := range b.N {
			s := newFPSet()
			fill(s, uint64(i))
			s.free()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/insert")
	})
	b.Run("refilled", func(b *testing.B) {
		s := newFPSet()
		fill(s, 1)
		b.ResetTimer()
		for i := range b.N {
			s.Clear()
			fill(s, uint64(i+2))
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/insert")
		s.free()
	})
}
