package automaton

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// cacheProc is a process whose values encode to a few bytes or to dozens,
// with a constant field and slices, for the view's cache of decoded
// processes.
type cacheProc struct {
	Who  int `vacheck:"-"`
	A    int
	Tail []int32
	Name string
}

func (p *cacheProc) Steps(_ *View[cacheProc, int], out []Step) []Step { return out }
func (p *cacheProc) Do(Step, *Effects[int])                           {}
func (p *cacheProc) Receive(int, int, *Effects[int])                  {}

// TestViewCacheDecodesEveryProcess: loaded with states drawn at random
// from far more process values than the cache holds (short encodings,
// which the cache tells apart by their keys alone, long ones, and values
// that fill an entry's room for slices), with and without the segments'
// keys, a view gives each process the value it was encoded from; and a
// value read from one state is still right after other states evicted and
// reused its entry, when that state is loaded again.
func TestViewCacheDecodesEveryProcess(t *testing.T) {
	const n = 3
	protos := make([]cacheProc, n)
	for i := range protos {
		protos[i] = cacheProc{Who: 10 + i}
	}
	sys, err := New[cacheProc, int, *cacheProc](Config[cacheProc, int]{Initial: [][]cacheProc{protos}, Links: Ring(n)})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	values := make([][]cacheProc, n)
	for i := range values {
		for k := 0; k < 40*procCacheSize; k++ {
			p := cacheProc{Who: 10 + i, A: rng.IntN(300)}
			switch rng.IntN(4) {
			case 1:
				p.Tail = []int32{int32(rng.IntN(50))}
			case 2:
				p.Name = string(rune('a' + rng.IntN(26)))
			case 3:
				// longer than an entry's room for slices, and than 7 bytes
				p.Tail = make([]int32, procEntryWords*2+rng.IntN(8))
				for j := range p.Tail {
					p.Tail[j] = int32(rng.IntN(1000))
				}
				p.Name = "a longer name, past the entry's room for its encoding"
			}
			values[i] = append(values[i], p)
		}
	}
	w := sys.newWorker()
	states := make([][]cacheProc, 2000)
	encoded := make([][]byte, len(states))
	for s := range states {
		procs := make([]cacheProc, n)
		for i := range procs {
			// Mostly a few values, as in a search, sometimes any.
			if rng.IntN(4) == 0 {
				procs[i] = values[i][rng.IntN(len(values[i]))]
			} else {
				procs[i] = values[i][rng.IntN(procCacheSize/2)]
			}
		}
		states[s], encoded[s] = procs, sys.encodeInitial(procs)
	}
	for round := 0; round < 3; round++ {
		for s, st := range encoded {
			if (s+round)%2 == 0 {
				w.load(&w.v, st)
			} else {
				w.loadKeyed(st)
			}
			for i := n - 1; i >= 0; i-- {
				if got, want := w.v.Proc(i), states[s][i]; got.Who != want.Who || got.A != want.A || got.Name != want.Name || !slices.Equal(got.Tail, want.Tail) {
					t.Fatalf("round %d, state %d, keys %v: process %d decoded to %+v, want %+v", round, s, w.v.keys != nil, i, *got, want)
				}
			}
		}
	}
}
