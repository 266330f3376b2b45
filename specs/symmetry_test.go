package specs

import (
	"fmt"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// BenchmarkChangRobertsSymmetry explores chang-roberts with every ID
// arrangement under --symmetry (rotations): N=6 stores 301,642 orbits of
// the 1,809,852 states. It reports orbits per second and the bytes of peak
// memory per orbit. N=7 runs with -bench-large.
func BenchmarkChangRobertsSymmetry(b *testing.B) {
	for _, n := range benchSizes() {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("spec=chang-roberts/ids=all/symmetry/n=%d/workers=%d", n, workers), func(b *testing.B) {
				m := build(b, "chang-roberts", map[string]string{"n": fmt.Sprint(n), "ids": "all"})
				claims := changRoberts(false).Claims
				var r *explorer.Result
				for i := 0; i < b.N; i++ {
					var err error
					if r, err = explorer.Check(m, explorer.Config{Workers: workers, Properties: claims, Symmetry: true}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(r.States)*float64(b.N)/b.Elapsed().Seconds(), "orbits/s")
				b.ReportMetric(float64(r.States), "orbits")
				b.ReportMetric(float64(r.RawStates), "raw-states")
				b.ReportMetric(float64(r.PeakMemory)/float64(r.States), "peak-bytes/orbit")
			})
		}
	}
}
