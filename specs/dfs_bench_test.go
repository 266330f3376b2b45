package specs

import (
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// BenchmarkDFS explores chang-roberts with every arrangement of 5 IDs
// (80,965 distinct states) depth first: with the exact visited set, which
// the bitstate hooks must not slow down, with a shuffled order of
// successors, and with bitstate tables of 1 MiB (hash factor 104) and 16
// KiB (80% full, many states omitted). It reports distinct states per
// second.
func BenchmarkDFS(b *testing.B) {
	m := build(b, "chang-roberts", map[string]string{"n": "5", "ids": "all"})
	claims := changRoberts().Claims
	for _, c := range []struct {
		name string
		cfg  explorer.Config
	}{
		{"visited=exact", explorer.Config{Strategy: explorer.DFS, Properties: claims}},
		{"visited=shuffled", explorer.Config{Strategy: explorer.DFS, Properties: claims, OrderSeed: 1}},
		{"visited=bitstate-1MiB", explorer.Config{Bitstate: 1 << 20, Properties: claims}},
		{"visited=bitstate-16KiB", explorer.Config{Bitstate: 16 << 10, Properties: claims}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var states int64
			for i := 0; i < b.N; i++ {
				r, err := explorer.Check(m, c.cfg)
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
