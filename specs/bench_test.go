package specs

import (
	"fmt"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// BenchmarkChangRobertsAll explores chang-roberts with every ID
// arrangement: N=6 has 1,809,852 distinct states. It reports distinct
// states per second for 1 and 2 workers. N=7 runs with -bench-large.
func BenchmarkChangRobertsAll(b *testing.B) {
	for _, n := range benchSizes() {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("spec=chang-roberts/ids=all/n=%d/workers=%d", n, workers), func(b *testing.B) {
				m := build(b, "chang-roberts", map[string]string{"n": fmt.Sprint(n), "ids": "all"})
				claims := changRoberts(false).Claims
				var states int64
				for i := 0; i < b.N; i++ {
					r, err := explorer.Check(m, explorer.Config{Workers: workers, Properties: claims})
					if err != nil {
						b.Fatal(err)
					}
					states = r.States
				}
				b.ReportMetric(float64(states)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
				b.ReportMetric(float64(states), "states")
			})
		}
	}
}
