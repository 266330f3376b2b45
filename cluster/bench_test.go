package cluster

import (
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// BenchmarkClusterChangRoberts runs chang-roberts --n 5 --ids all (the
// instance of bench/cluster.sh, smaller) on 2 in-process ranks of 1
// worker each, and reports the bytes sent per state; -long
// stands for N=6.
func BenchmarkClusterChangRoberts(b *testing.B) {
	n := "5"
	if *long {
		n = "6"
	}
	mk := func() explorer.Model { return model(b, "chang-roberts", map[string]string{"n": n, "ids": "all"}) }
	props := safety(mk())
	var states, bytes int64
	for b.Loop() {
		outs, errs := runRanks(b, 2, 1, mk, func(c *Config) { c.Properties = props; c.batchBytes = defaultBatchBytes })
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		states, bytes = outs[0].Result.States, 0
		for _, o := range outs {
			bytes += o.Share.Bytes
		}
	}
	b.ReportMetric(float64(states), "states")
	b.ReportMetric(float64(bytes)/float64(states), "bytes/state")
}
