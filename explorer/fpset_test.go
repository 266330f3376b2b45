package explorer

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestFPSet(t *testing.T) {
	s := newFPSet()
	sr := &search{}
	rng := rand.New(rand.NewPCG(1, 2))
	var in []uint64
	for k := 0; k < 50000; k++ {
		h := rng.Uint64()
		if k%7 == 0 {
			h &= 0xff // many in the first table
		}
		if !s.Has(h) {
			if !s.Add(sr, h) {
				t.Fatal("Add refused without a memory limit")
			}
			in = append(in, h)
		}
	}
	for _, h := range in {
		if !s.Has(h) {
			t.Fatalf("%x added but not found", h)
		}
	}
	n := 0
	for _, p := range s.parts {
		n += p.Count()
	}
	if n != len(in) {
		t.Errorf("%d fingerprints in the tables, want %d", n, len(in))
	}
	if s.Has(^uint64(0)) && !slices.Contains(in, ^uint64(0)) {
		t.Error("a fingerprint never added is found")
	}
}
