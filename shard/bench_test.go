package shard_test

import (
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/shard"
	"github.com/vacheck/vacheck/specs"
)

// BenchmarkPart checks part 0 of 4 of chang-roberts --n 5 --ids all on
// one worker, plain and with the Recorder that checks each state's
// constant part (disjoint mode): the cost of the proof that the parts'
// counts add up.
func BenchmarkPart(b *testing.B) {
	spec, err := specs.Lookup("chang-roberts")
	if err != nil {
		b.Fatal(err)
	}
	p, err := specs.NewParams(spec, map[string]string{"n": "5", "ids": "all"})
	if err != nil {
		b.Fatal(err)
	}
	m, err := spec.Model(p)
	if err != nil {
		b.Fatal(err)
	}
	sh := explorer.Shard{Index: 0, Count: 4}
	for _, recorded := range []bool{false, true} {
		name := "plain"
		if recorded {
			name = "recorded"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				cfg := explorer.Config{Workers: 1, Shard: sh}
				if recorded {
					rec, err := shard.NewRecorder(m, sh)
					if err != nil {
						b.Fatal(err)
					}
					cfg.OnExpand = rec.Hook
				}
				if _, err := explorer.Check(m, cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
