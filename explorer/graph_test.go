package explorer

import (
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/vacheck/vacheck/internal/offheap"
)

// TestTaskCol: tasks are stored in one byte while they fit, then in two,
// then in four, and read back the same, faults included; max is the
// largest.
func TestTaskCol(t *testing.T) {
	var want []int32
	var c taskCol
	add := func(ts ...int32) {
		for _, x := range ts {
			c.add(x)
			want = append(want, x)
		}
	}
	check := func(size int) {
		t.Helper()
		if c.size() != size {
			t.Errorf("%d tasks: %d bytes a task, want %d", len(want), c.size(), size)
		}
		top := int32(-1)
		for e, x := range want {
			if got := c.at(e); got != x {
				t.Fatalf("edge %d: task %d, want %d", e, got, x)
			}
			top = max(top, x)
		}
		if c.max() != top {
			t.Errorf("%d tasks: the largest %d, want %d", len(want), c.max(), top)
		}
	}
	check(1) // no edge
	add(0, -1, 3, 253)
	check(1)
	add(254, 255, 7, -1)
	check(2)
	add(65533, 65534, 65535, 1)
	check(4)
	var d taskCol
	d.add(2)
	d.appendCol(&c)
	d.add(-1)
	want = append(append([]int32{2}, want...), -1)
	c = d
	check(4)
}

// TestFPIndex: every fingerprint is found at its position, also where two
// share a tag (the index then verifies), a missing one is not, and a
// duplicate is refused.
func TestFPIndex(t *testing.T) {
	fps := make([]uint64, 5000)
	for i := range fps {
		fps[i] = uint64(i)*0x9e3779b97f4a7c15 + 1
	}
	// tagged: states 100 and 101 share a tag (the low 32 bits) and a home
	// slot, so that placing either walks past the other.
	tagged := append([]uint64(nil), fps...)
	tagged[101] = tagged[100] + 1<<32
	never := func(int) bool { return false }
	for _, w := range []int{1, 2, 4} {
		for _, c := range []struct {
			name   string
			fps    []uint64
			verify bool
		}{{"distinct tags", fps, false}, {"a tag twice", tagged, true}} {
			x, err := newFPIndex(c.fps, never, w)
			if err != nil {
				t.Fatal(err)
			}
			if x.verify != c.verify {
				t.Errorf("%d goroutines, %s: verify %v", w, c.name, x.verify)
			}
			for i, fp := range c.fps {
				if j, ok := x.get(fp); !ok || int(j) != i {
					t.Fatalf("%d goroutines, %s, fingerprint %d: %d %v", w, c.name, i, j, ok)
				}
			}
			if _, ok := x.get(12345); ok {
				t.Errorf("%d goroutines, %s: a missing fingerprint was found", w, c.name)
			}
			out := make([]uint32, 50)
			var sink uint64
			if !x.getAll(c.fps[80:130], out, &sink) {
				t.Errorf("%d goroutines, %s: getAll missed", w, c.name)
			}
			for k, j := range out {
				if int(j) != 80+k {
					t.Errorf("%d goroutines, %s: getAll found %d for state %d", w, c.name, j, 80+k)
				}
			}
			x.free()
		}
		// A copy in another goroutine's range, or in the same one.
		for _, at := range []int{3, 4999} {
			if _, err := newFPIndex(append(fps[:len(fps):len(fps)], fps[at]), never, w); err != errIncomplete {
				t.Errorf("%d goroutines, fingerprint %d twice: %v", w, at, err)
			}
		}
		if _, err := newFPIndex(fps, func(i int) bool { return i >= 64 }, w); err != errHalted {
			t.Errorf("%d goroutines, halted: %v", w, err)
		}
	}
}

// randomGraph returns a graph of n states with up to 4 edges each, some of
// them faults; with forward, every edge leads to a higher number.
func randomGraph(rng *rand.Rand, n int, forward bool) *stateGraph {
	g := &stateGraph{n: n, first: []uint32{0}}
	for u := 0; u < n; u++ {
		for k := rng.IntN(5); k > 0; k-- {
			v := rng.IntN(n)
			if forward {
				if u == n-1 {
					break
				}
				v = u + 1 + rng.IntN(n-u-1)
			}
			g.to = append(g.to, uint32(v))
			task := int32(rng.IntN(3))
			if rng.IntN(6) == 0 {
				task = -1 // a fault: a state with only faults is terminal
			}
			g.task.add(task)
		}
		g.first = append(g.first, uint32(len(g.to)))
	}
	return g
}

// TestForwardBadAgreesWithSCC: where the numbering orders the states of in
// topologically, the one-pass decision of checkLive (forwardBad) finds
// the same states able to avoid the goal forever as the SCC pass; where an
// edge inside in leads back (a self-loop included), it declines, and an
// edge back to a state outside in does not stop it.
func TestForwardBadAgreesWithSCC(t *testing.T) {
	var decided, declined, bad, good int
	for seed := uint64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 5))
		n := 1 + rng.IntN(60)
		g := randomGraph(rng, n, seed%3 != 0)
		out := map[int]bool{}
		for k := rng.IntN(n/3 + 1); k > 0; k-- {
			out[rng.IntN(n)] = true
		}
		in := func(i int) bool { return !out[i] }
		backInside := false
		for u := 0; u < n; u++ {
			lo, hi := g.edges(u)
			for e := lo; e < hi; e++ {
				if v := int(g.to[e]); v <= u && in(u) && in(v) {
					backInside = true
				}
			}
		}
		fb, inB, ok := g.forwardBad(in, g.terminal)
		if ok == backInside {
			t.Fatalf("seed %d: forwardBad ok %v with an edge back inside in %v", seed, ok, backInside)
		}
		if !ok {
			declined++
			continue
		}
		decided++
		isBad, fair := g.sccBad(in, g.terminal, Weak)
		if len(fair) != 0 {
			t.Fatalf("seed %d: fair cycles %v in a graph forwardBad found acyclic", seed, fair)
		}
		for i := 0; i < n; i++ {
			if got, want := inB.has(i) && fb.has(i), isBad(i); got != want || inB.has(i) != in(i) {
				t.Fatalf("seed %d: state %d in %v: forwardBad %v, SCC %v", seed, i, in(i), got, want)
			}
			if isBad(i) {
				bad++
			} else if in(i) {
				good++
			}
		}
	}
	if decided < 50 || declined < 50 || bad < 100 || good < 100 {
		t.Errorf("the graphs cover too little: %d decided, %d declined, %d states bad and %d not", decided, declined, bad, good)
	}
}

// TestAssembleFreesOnError: a recording that assemble refuses, because its
// first state is not the initial state or a fingerprint appears twice,
// gives back the memory assemble took outside the Go heap.
func TestAssembleFreesOnError(t *testing.T) {
	const n = 200000
	initial := []byte{1}
	for _, c := range []struct {
		name  string
		spoil func(fps []uint64)
	}{
		{"the first state is not the initial state", func(fps []uint64) { fps[0]++ }},
		{"a fingerprint twice", func(fps []uint64) { fps[n-1] = fps[n-2] }},
	} {
		fps := make([]uint64, n)
		fps[0] = fingerprint(initial)
		for i := 1; i < n; i++ {
			fps[i] = fps[0] + uint64(i)*0x9e3779b97f4a7c15
		}
		c.spoil(fps)
		s := &search{initial: [][]byte{initial}}
		// Earlier tests' arrays may still be freed by their cleanups, which
		// lowers the count but never raises it: let them run first.
		for range 3 {
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
		}
		before := offheap.Mapped()
		_, err := s.assemble(&graphSpec{}, []*graphChunk{{n: n, fps: fps, nedges: make([]uint32, n)}})
		if !errors.Is(err, errIncomplete) {
			t.Errorf("%s: %v, want errIncomplete", c.name, err)
		}
		if after := offheap.Mapped(); after > before {
			t.Errorf("%s: %d bytes mapped outside the heap before, %d after", c.name, before, after)
		}
	}
}

// TestAssembleCopiesRepeatedTargets: an edge recorded with edgeAgain,
// naming an earlier edge of its chunk, resolves to that edge's target, as
// an edge recorded with the target's fingerprint does: with the targets in
// memory or in the spill files, over batches of lookups, with chunks of
// several sinks resolved by one to three goroutines.
func TestAssembleCopiesRepeatedTargets(t *testing.T) {
	initial := []byte{7}
	fp := func(i int) uint64 { return fingerprint(initial) + uint64(i)*0x9e3779b97f4a7c15 }
	for _, spill := range []bool{false, true} {
		for workers := 1; workers <= 3; workers++ {
			rng := rand.New(rand.NewPCG(uint64(workers), 7))
			const n = 5000
			sinks := make([]*graphSink, workers)
			for w := range sinks {
				k, err := newGraphSink(&graphSpec{}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if spill {
					if err := k.spillTo(); err != nil {
						t.Fatal(err)
					}
					defer k.close()
				}
				sinks[w] = k
			}
			var chunks []*graphChunk
			var want []uint32 // each edge's target, in the order of the chunks
			copies := 0
			for state, w := 0, 0; state < n; w = (w + 1) % workers {
				k := sinks[w]
				k.next()
				first := map[int]uint32{} // a target's first edge in the chunk
				for end := min(n, state+1+rng.IntN(400)); state < end; state++ {
					k.begin(nil, fp(state))
					for e := rng.IntN(6); e > 0; e-- {
						to := rng.IntN(n)
						if rng.IntN(3) > 0 {
							to = rng.IntN(40) // a few targets, often repeated
						}
						if j, ok := first[to]; ok && rng.IntN(5) > 0 {
							k.edgeAgain(Transition{}, j)
							copies++
						} else {
							k.edge(Transition{}, fp(to))
							first[to] = k.lastEdge()
						}
						want = append(want, uint32(to))
					}
					k.end(nil)
				}
				chunks = append(chunks, k.c)
			}
			for _, k := range sinks {
				if spill && (k.fpOut.flush() != nil || k.tgtOut.flush() != nil) {
					t.Fatal("the spill files failed")
				}
			}
			s := &search{initial: [][]byte{initial}, workers: make([]Worker, workers)}
			g, err := s.assemble(&graphSpec{}, chunks)
			if err != nil {
				t.Fatalf("spill %v, %d workers: %v", spill, workers, err)
			}
			if g.n != n || len(g.to) != len(want) || copies < len(want)/3 {
				t.Fatalf("spill %v, %d workers: %d states and %d edges (%d copies), want %d and %d", spill, workers, g.n, len(g.to), copies, n, len(want))
			}
			for e, to := range want {
				if g.to[e] != to {
					t.Fatalf("spill %v, %d workers: edge %d leads to %d, want %d", spill, workers, e, g.to[e], to)
				}
			}
			g.free()
		}
	}
}
