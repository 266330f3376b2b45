package shard_test

import (
	"flag"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/shard"
	"github.com/vacheck/vacheck/specs"
)

var long = flag.Bool("long", false, "also check the large instances (minutes)")

// skipUnlessLong skips t, a large instance, unless the run has -long.
func skipUnlessLong(t testing.TB) {
	t.Helper()
	if !*long {
		t.Skip("large instance: run with -args -long")
	}
}

// partsOf checks spec with the given parameters in K parts and returns
// their results and the mode they agree on.
func partsOf(t *testing.T, name string, params map[string]string, K int) ([]*explorer.Result, shard.Mode) {
	t.Helper()
	spec, err := specs.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := specs.NewParams(spec, params)
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.Model(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []*explorer.Result
	var mode shard.Mode
	for k := range K {
		sh := explorer.Shard{Index: k, Count: K}
		rec, err := shard.NewRecorder(m, sh)
		if err != nil {
			t.Fatal(err)
		}
		if k > 0 && rec.Mode() != mode {
			t.Fatalf("part %d: mode %v, part 0's %v", k, rec.Mode(), mode)
		}
		mode = rec.Mode()
		res, err := explorer.Check(m, explorer.Config{Properties: spec.Claims, Shard: sh, OnExpand: rec.Hook})
		if err != nil {
			t.Fatal(err)
		}
		if err := rec.Verify(res); err != nil {
			t.Fatal(err)
		}
		out = append(out, res)
	}
	return out, mode
}

// TestChangRoberts7InFourParts: chang-roberts --n 7 --ids all (issue 32)
// in 4 parts of 1,260 ID arrangements each: disjoint, as chang-roberts
// declares its IDs constant, and summing to the unsharded 46,980,458
// states and 213,044,020 transitions (docs/algorithms/chang-roberts.md's
// table).
func TestChangRoberts7InFourParts(t *testing.T) {
	skipUnlessLong(t)
	parts, mode := partsOf(t, "chang-roberts", map[string]string{"n": "7", "ids": "all"}, 4)
	if mode != shard.Disjoint {
		t.Fatalf("mode %v, want disjoint", mode)
	}
	var states, trans int64
	for k, r := range parts {
		if r.Status != explorer.OK {
			t.Fatalf("part %d: %v %s", k, r.Status, r.Reason)
		}
		states += r.States
		trans += r.Transitions
		t.Logf("part %d: %d states, %d transitions, depth %d, %s", k, r.States, r.Transitions, r.Depth, r.Elapsed)
	}
	if states != 46_980_458 || trans != 213_044_020 {
		t.Errorf("%d states, %d transitions in all; want 46,980,458 and 213,044,020", states, trans)
	}
}
