package explorer_test

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/zeebo/xxh3"

	"github.com/vacheck/vacheck/explorer"
)

// allocGraph's workers keep 256 MiB each time they expand state 0, after
// phase 1's memory checks: with a memory limit just above what the
// process held before, phase 2's room check stops the level before it
// stores anything.
type allocGraph struct {
	*graph
	hold *[][]byte
}

func (g allocGraph) NewWorker() explorer.Worker { return allocWorker{graphWorker{g.graph}, g.hold} }

type allocWorker struct {
	graphWorker
	hold *[][]byte
}

func (w allocWorker) Successors(b []byte, emit func(explorer.Transition, []byte)) (int, error) {
	n, err := w.graphWorker.Successors(b, emit)
	if dec(b) == 0 {
		*w.hold = append(*w.hold, make([]byte, 256<<20))
	}
	return n, err
}

func (w allocWorker) Expand(b []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	return explorer.ExpandBySuccessors(w, b, x)
}

// TestMemoryStopWhileStoringALevel: a search that the memory limit stops
// while it stores a level (phase 2, with 2 workers) is incomplete, never
// complete with every property holding, although the level it stored in
// part may be empty. (Found by review: a search that stored nothing of its
// last level once counted as having run out of states.)
func TestMemoryStopWhileStoringALevel(t *testing.T) {
	// Three successors of 0, all in the shard that does not hold 0.
	h0 := xxh3.Hash(enc(0)) % 2
	var succ []int
	for s := 1; len(succ) < 3; s++ {
		if xxh3.Hash(enc(s))%2 != h0 {
			succ = append(succ, s)
		}
	}
	var hold [][]byte
	g := allocGraph{&graph{init: []int{0}, next: edges(map[int][]int{0: succ}), bad: func(s int) bool { return s == succ[0] }}, &hold}
	if r := check(t, g, explorer.Config{Workers: 2}); r.Status != explorer.Violated || r.States != 4 {
		t.Fatalf("without a limit: %v, %d states; want violated, 4", r.Status, r.States)
	}
	hold = nil
	runtime.GC()
	debug.FreeOSMemory()
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	limit := s[0].Value.Uint64() - s[1].Value.Uint64() + 128<<20
	r := check(t, g, explorer.Config{Workers: 2, MaxMemory: limit})
	hold = nil
	if r.Status == explorer.OK || r.Exhaustive {
		t.Errorf("stopped by the memory limit: %v %q, exhaustive %v, %d states; want incomplete (or the violation)", r.Status, r.Reason, r.Exhaustive, r.States)
	}
}
