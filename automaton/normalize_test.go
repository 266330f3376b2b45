package automaton

import (
	"bytes"
	"slices"
	"testing"
	"unsafe"
)

// nproc is a process whose state holds a slice that the normalization of
// the test below rewrites in place: a step appends to Vals and sends the
// new value to the other process, a receive appends what it received, and
// a step that changes nothing (idle) keeps Vals as it is.
type nproc struct {
	Vals []int
	Sent int
}

type nmsg struct{ V, From int }

func (p *nproc) Steps(_ *View[nproc, nmsg], out []Step) []Step {
	if p.Sent < 2 {
		out = append(out, Step{Name: "send", Kind: Output})
	}
	return append(out, Step{Name: "idle", Kind: Internal})
}

func (p *nproc) Do(s Step, fx *Effects[nmsg]) {
	if s.Name == "idle" {
		return
	}
	p.Sent++
	v := 10*(fx.Self()+1) + p.Sent
	p.Vals = append(p.Vals, v)
	fx.Send(1-fx.Self(), nmsg{V: v, From: fx.Self()})
}

func (p *nproc) Receive(from int, m nmsg, _ *Effects[nmsg]) {
	p.Vals = append(p.Vals, m.V+100*from)
}

// nnormalize adds to every value of every process the number of messages
// in transit, modulo 3, and sorts each process's Vals in place,
// descending; it makes the values in transit relative to the smallest.
// (A model's Normalize is a bisimulation; this one need not be: it only
// has to rewrite, in place, the values of processes a step did not
// change.)
func nnormalize(procs []nproc, chans [][]nmsg) {
	low, n := -1, 0
	for _, ms := range chans {
		n += len(ms)
		for _, m := range ms {
			if low < 0 || m.V < low {
				low = m.V
			}
		}
	}
	for i := range procs {
		for k := range procs[i].Vals {
			procs[i].Vals[k] = (procs[i].Vals[k] + n) % 3
		}
		slices.Sort(procs[i].Vals)
		slices.Reverse(procs[i].Vals)
	}
	for _, ms := range chans {
		for k := range ms {
			ms[k].V -= low
		}
	}
}

// TestNormalizeFromParent checks that normalizing a successor from its
// parent's decoded values (normalizeStep) gives, for every transition of
// every reachable state, the bytes that decoding the successor again and
// normalizing it gives (normalize), and that Normalize rewriting the
// copies leaves the parent's decoded values, which the view caches, as
// they were. With normalizeStep taking the cached values themselves
// instead of deep copies, the parent's Vals are rewritten under it and the
// test fails.
func TestNormalizeFromParent(t *testing.T) {
	sys, err := New(Config[nproc, nmsg]{
		Initial:   [][]nproc{{{Vals: []int{3, 1}}, {Vals: []int{2}}}},
		Links:     Complete(2, false),
		Normalize: nnormalize,
	})
	if err != nil {
		t.Fatal(err)
	}
	w, ref := sys.newWorker(), sys.newWorker()
	seen := map[string]bool{string(sys.initial[0]): true}
	queue := [][]byte{sys.initial[0]}
	transitions := 0
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		w.load(&w.v, s)
		w.enumerate()
		for _, a := range w.acts {
			w.apply(a) // finish: normalizeStep
			got := bytes.Clone(w.out)
			transitions++

			// The reference: the same successor, decoded again.
			w.step(a)
			w.assemble(a.proc, true, false)
			ref.out = append(ref.out[:0], w.out...)
			ref.normalize(func() string { return "" })
			if !bytes.Equal(got, ref.out) {
				t.Fatalf("state %x, action %+v: from the parent %x, decoded again %x", s, a, got, ref.out)
			}
			for i := 0; i < sys.n; i++ {
				enc := sys.pc.enc(unsafe.Pointer(w.v.Proc(i)), nil)
				if !bytes.Equal(enc, w.v.seg(1+i)) {
					t.Fatalf("state %x, action %+v: process %d of the parent now encodes as %x, its segment is %x", s, a, i+1, enc, w.v.seg(1+i))
				}
			}
			if !seen[string(got)] {
				seen[string(got)] = true
				queue = append(queue, got)
			}
		}
	}
	// The figures of this walk, pinned so that a walk that stops early
	// does not pass unnoticed.
	if len(seen) != 3717 || transitions != 13303 {
		t.Errorf("%d states and %d transitions, want 3,717 and 13,303", len(seen), transitions)
	}
}
