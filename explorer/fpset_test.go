package explorer

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestFPSet(t *testing.T) {
	s := newFPSet()
	sr := &search{}
	rng := rand.New(rand.NewPCG(1, 2))
	in := map[uint64]bool{}
	for k := 0; k < 50000; k++ {
		h := rng.Uint64()
		switch {
		case k%7 == 0:
			h &= 0xff // many in the first table, and 0 among them
		case k%11 == 0:
			h |= 0xff << 56 // and in the last
		}
		if s.Has(h) != in[h] {
			t.Fatalf("Has(%x) = %v before adding it, want %v", h, s.Has(h), in[h])
		}
		if !s.Add(sr, h) {
			t.Fatal("Add refused without a memory limit")
		}
		in[h] = true
	}
	if !in[0] || !s.Has(0) {
		t.Fatal("the zero fingerprint was not added, or is not found")
	}
	for h := range in {
		if !s.Has(h) {
			t.Fatalf("%x added but not found", h)
		}
	}
	if s.Len() != int64(len(in)) {
		t.Errorf("Len = %d, want %d", s.Len(), len(in))
	}
	n := 0
	s.Each(func(h uint64) bool {
		if !in[h] {
			t.Fatalf("Each gave %x, never added", h)
		}
		n++
		return true
	})
	if n != len(in) {
		t.Errorf("Each gave %d fingerprints, want %d", n, len(in))
	}
	for k := 0; k < 1000; k++ {
		if h := rng.Uint64(); !in[h] && s.Has(h) {
			t.Fatalf("%x never added is found", h)
		}
	}
	// Each table is at most four fifths full and grew by half at a time:
	// the set holds fewer than 8/0.5 bytes a fingerprint.
	if b := s.bytes(); b > 16*uint64(len(in)) {
		t.Errorf("%d bytes for %d fingerprints", b, len(in))
	}
	s.Clear()
	if s.Len() != 0 || s.Has(0) || s.Has(rng.Uint64()) {
		t.Error("Clear left fingerprints")
	}
	for h := range in {
		if s.Has(h) {
			t.Fatalf("%x found after Clear", h)
		}
	}
}

// TestFPSetGrowsInSmallParts pins that growing the set allocates a small
// part of it at a time, and that growth names that size beforehand.
func TestFPSetGrowsInSmallParts(t *testing.T) {
	s := newFPSet()
	rng := rand.New(rand.NewPCG(3, 4))
	for k := 0; k < 1<<18; k++ {
		h := rng.Uint64()
		before := s.bytes()
		g := s.growth(h)
		s.insert(h)
		after := s.bytes()
		if after != before {
			if g == 0 || after-before > g {
				t.Fatalf("the set grew by %d bytes, growth said %d", after-before, g)
			}
			if before > 1<<20 && g > before/100 {
				t.Fatalf("one growth step of %d bytes for a set of %d", g, before)
			}
		} else if g != 0 {
			t.Fatalf("growth said %d bytes, the set did not grow", g)
		}
	}
}

// TestFPSetMemoryLimit pins that Add refuses to grow a table past the
// memory limit and stops the search as out of memory.
func TestFPSetMemoryLimit(t *testing.T) {
	sr := &search{cfg: Config{MaxMemory: 1}}
	s := newFPSet()
	if s.Add(sr, 12345) {
		t.Fatal("Add grew a table beyond a 1-byte memory limit")
	}
	if sr.stop.Load() != stopMemory {
		t.Errorf("the search was not stopped for memory: stop = %d", sr.stop.Load())
	}
	if s.Has(12345) || s.Len() != 0 {
		t.Error("the refused fingerprint was stored")
	}
	// The zero fingerprint takes no table.
	if !s.Add(sr, 0) || !s.Has(0) {
		t.Error("the zero fingerprint was refused")
	}
	big := &search{cfg: Config{MaxMemory: 1 << 50}}
	if !s.Add(big, 12345) || !s.Has(12345) {
		t.Error("Add refused under a large limit")
	}
}

func TestVisitedSet(t *testing.T) {
	v := newVisitedSet(3)
	type rec struct {
		fp     uint64
		parent stateRef
		act    uint32
	}
	var recs []rec
	var refs []stateRef
	rng := rand.New(rand.NewPCG(5, 6))
	for k := 0; k < 3*recChunk+17; k++ {
		fp := rng.Uint64()
		if k == 5 {
			fp = 0
		}
		parent, act := noRef, uint32(k)
		if k > 0 {
			parent = refs[rng.IntN(len(refs))]
			act = uint32(rng.IntN(40))
			if k%1000 == 1 {
				act = bigAct + uint32(k) // does not fit in a record
			}
		}
		r, added := v.Add(fp, parent, act)
		if !added {
			t.Fatalf("Add(%x) of a new fingerprint did not add it", fp)
		}
		if r.shard() != 3 || r.pos() != uint64(k) {
			t.Fatalf("state %d has reference shard %d position %d", k, r.shard(), r.pos())
		}
		if _, again := v.Add(fp, noRef, 0); again {
			t.Fatalf("Add(%x) added it twice", fp)
		}
		recs, refs = append(recs, rec{fp, parent, act}), append(refs, r)
	}
	if v.Len() != int64(len(recs)) {
		t.Errorf("Len = %d, want %d", v.Len(), len(recs))
	}
	for k, r := range refs {
		if !v.Has(recs[k].fp) {
			t.Fatalf("%x not found", recs[k].fp)
		}
		p, a, ok := v.Parent(r)
		if !ok || p != recs[k].parent || a != recs[k].act {
			t.Fatalf("Parent(%d) = %x, %d, %v; want %x, %d", k, p, a, ok, recs[k].parent, recs[k].act)
		}
	}
	if _, _, ok := v.Parent(stateRef(uint64(2) << refPosBits)); ok {
		t.Error("Parent answered for a reference of another shard")
	}
	if _, _, ok := v.Parent(stateRef(uint64(3)<<refPosBits | uint64(len(refs)))); ok {
		t.Error("Parent answered for a reference past the last record")
	}
	k := 0
	v.EachRecord(func(r, p stateRef, a uint32) bool {
		if r != refs[k] || p != recs[k].parent || a != recs[k].act {
			t.Fatalf("EachRecord's record %d is %x %x %d", k, r, p, a)
		}
		k++
		return true
	})
	if k != len(refs) {
		t.Errorf("EachRecord gave %d records, want %d", k, len(refs))
	}
	n := 0
	v.EachFP(func(uint64) bool { n++; return true })
	if n != len(refs) {
		t.Errorf("EachFP gave %d fingerprints, want %d", n, len(refs))
	}
}

// TestFPSetRemove checks linear probing's deletion against a map, with
// fingerprints crowded into few tables so that clusters are long and wrap
// around the end of a table.
func TestFPSetRemove(t *testing.T) {
	s := newFPSet()
	rng := rand.New(rand.NewPCG(7, 8))
	in := map[uint64]bool{}
	var all []uint64
	for k := 0; k < 20000; k++ {
		h := rng.Uint64()
		if k%3 == 0 {
			h = h&^(0xff<<56) | 5<<56 // table 5
		}
		if k%17 == 0 {
			h |= 0xfffff << 36 // homes at the end of their table
		}
		if k == 100 {
			h = 0
		}
		if s.insert(h) {
			in[h] = true
			all = append(all, h)
		}
	}
	for round := 0; round < 3; round++ {
		for _, h := range all {
			if rng.IntN(2) == 0 {
				continue
			}
			if got := s.remove(h); got != in[h] {
				t.Fatalf("remove(%x) = %v, want %v", h, got, in[h])
			}
			delete(in, h)
		}
		if s.Len() != int64(len(in)) {
			t.Fatalf("round %d: Len = %d, want %d", round, s.Len(), len(in))
		}
		for _, h := range all {
			if s.Has(h) != in[h] {
				t.Fatalf("round %d: Has(%x) = %v, want %v", round, h, s.Has(h), in[h])
			}
		}
		for _, h := range all[:len(all)/3] {
			if s.insert(h) != !in[h] {
				t.Fatalf("round %d: insert(%x) after removals", round, h)
			}
			in[h] = true
		}
	}
}

// TestVisitedSetRollback checks that a rollback leaves the set as it was
// before the states it takes out, records and all, and that adding goes on
// from there.
func TestVisitedSetRollback(t *testing.T) {
	v := newVisitedSet(0)
	rng := rand.New(rand.NewPCG(9, 10))
	var kept []uint64
	for k := 0; k < recChunk+100; k++ {
		h := rng.Uint64()
		v.Add(h, noRef, uint32(k%7))
		kept = append(kept, h)
	}
	n := uint64(v.Len())
	var extra []uint64
	for k := 0; k < recChunk+50; k++ {
		h := rng.Uint64()
		v.Add(h, stateRef(k), bigAct+uint32(k%3)) // some actions kept in bigActs
		extra = append(extra, h)
	}
	v.rollback(n, extra[:10], extra[10:])
	if uint64(v.Len()) != n || v.fps.Len() != int64(n) {
		t.Fatalf("after rollback: %d records and %d fingerprints, want %d", v.Len(), v.fps.Len(), n)
	}
	for _, h := range extra {
		if v.Has(h) {
			t.Fatalf("%x still there after rollback", h)
		}
	}
	for k, h := range kept {
		if !v.Has(h) {
			t.Fatalf("%x lost by rollback", h)
		}
		if _, a, _ := v.Parent(stateRef(k)); a != uint32(k%7) {
			t.Fatalf("record %d has action %d after rollback, want %d", k, a, k%7)
		}
	}
	if len(v.bigActs) != 0 {
		t.Errorf("%d big actions left after rollback", len(v.bigActs))
	}
	r, added := v.Add(extra[0], noRef, 3)
	if !added || r.pos() != n {
		t.Fatalf("Add after rollback: position %d added %v, want %d", r.pos(), added, n)
	}
}

// regrowCheck fills tables of random sizes between 40% and 80% full, with
// fingerprints spread evenly, or crowded at the start of the table (long
// clusters far past their home) or at its end (clusters that wrap round),
// grows each with regrow, and compares it with a table of the new size
// filled afresh: the same fingerprints, each found by probing from its
// home (no empty slot between), none twice.
func regrowCheck(regrow func(s []uint64, size int, scratch *[]uint64)) error {
	rng := rand.New(rand.NewPCG(5, 6))
	var scratch []uint64
	for trial := 0; trial < 400; trial++ {
		size := 1 + rng.IntN(3000)
		if trial%5 == 0 {
			size = 1 + rng.IntN(8)
		}
		n := size * (40 + rng.IntN(41)) / 100
		grown := 2 * size
		if trial%7 == 0 {
			grown = size + 1 + rng.IntN(3*size) // a first allocation's size
		}
		s := make([]uint64, grown)
		in := map[uint64]bool{}
		for len(in) < n {
			h := rng.Uint64()
			switch trial % 3 {
			case 1: // homes in the first few slots
				h = h>>56<<56 | h>>(20+rng.IntN(20))
			case 2: // homes in the last few slots
				h |= ^uint64(0) >> (8 + rng.IntN(12))
			}
			if h == 0 || in[h] {
				continue
			}
			in[h] = true
			place(s[:size], h)
		}
		regrow(s, size, &scratch)
		fresh := make([]uint64, grown)
		for h := range in {
			place(fresh, h)
		}
		seen := map[uint64]bool{}
		for q, h := range s {
			if h == 0 {
				continue
			}
			if !in[h] || seen[h] {
				return fmt.Errorf("trial %d (%d to %d slots): slot %d holds %x, not added or twice", trial, size, grown, q, h)
			}
			seen[h] = true
			for i := home(h, grown); i != q; i = (i + 1) % grown {
				if s[i] == 0 {
					return fmt.Errorf("trial %d (%d to %d slots): %x in slot %d past the empty slot %d after its home", trial, size, grown, h, q, i)
				}
			}
		}
		if len(seen) != len(in) {
			return fmt.Errorf("trial %d (%d to %d slots): %d fingerprints after growing, want %d", trial, size, grown, len(seen), len(in))
		}
		var a, b []uint64
		for _, h := range s {
			if h != 0 {
				a = append(a, h)
			}
		}
		for _, h := range fresh {
			if h != 0 {
				b = append(b, h)
			}
		}
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			return fmt.Errorf("trial %d: the grown table and a fresh one hold different fingerprints", trial)
		}
	}
	return nil
}

// TestRegrow checks growing a table in place against filling one afresh,
// and that the check catches three wrong ways of growing: probing from a
// home below the slot being moved (over fingerprints not moved yet),
// wrapping round past the end (into them), and leaving the old slot as it
// was.
func TestRegrow(t *testing.T) {
	if err := regrowCheck(regrow); err != nil {
		t.Fatal(err)
	}
	mutant := func(below, wrap, keep bool) func(s []uint64, size int, scratch *[]uint64) {
		return func(s []uint64, size int, scratch *[]uint64) {
			var wait []uint64
			for p := size - 1; p >= 0; p-- {
				h := s[p]
				if h == 0 {
					continue
				}
				if !keep {
					s[p] = 0
				}
				i := home(h, len(s))
				if i < p && !below {
					wait = append(wait, h)
					continue
				}
				for s[i] != 0 && (wrap || i < len(s)) {
					if s[i] == h && keep {
						break
					}
					if i++; i == len(s) {
						if !wrap {
							break
						}
						i = 0
					}
				}
				if i == len(s) {
					wait = append(wait, h)
					continue
				}
				s[i] = h
			}
			for _, h := range wait {
				place(s, h)
			}
		}
	}
	for name, fn := range map[string]func(s []uint64, size int, scratch *[]uint64){
		"probes below":  mutant(true, false, false),
		"wraps round":   mutant(false, true, false),
		"keeps the old": mutant(false, false, true),
	} {
		if regrowCheck(fn) == nil {
			t.Errorf("mutant %q passes the check", name)
		}
	}
}
