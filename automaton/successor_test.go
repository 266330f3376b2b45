package automaton_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
)

// logger appends to its log until it holds 200 entries: its encoding grows
// past 127 bytes, where a segment's length takes two bytes.
type logger struct{ Log []int }

func (p *logger) Steps(_ *automaton.View[logger, int], out []automaton.Step) []automaton.Step {
	if len(p.Log) < 200 {
		out = append(out, automaton.Do("log"))
	}
	return out
}

func (p *logger) Do(automaton.Step, *automaton.Effects[int]) { p.Log = append(p.Log, len(p.Log)%2) }

func (p *logger) Receive(int, int, *automaton.Effects[int]) {}

// TestSuccessorEncoding: a successor is the exact encoding of the state,
// also when a process's encoding grows past 127 bytes (a two-byte segment
// length) and the other process's segment follows it.
func TestSuccessorEncoding(t *testing.T) {
	sys := mustNew[logger, int, *logger](t, automaton.Config[logger, int]{Initial: [][]logger{{{}, {Log: []int{1}}}}})
	// want is the state with a log of k entries in process 1 and [1] in
	// process 2: the empty environment segment, then the processes.
	want := func(k int) []byte {
		var seg []byte
		seg = binary.AppendUvarint(seg, uint64(k))
		for i := range k {
			seg = append(seg, byte(i%2)<<1)
		}
		out := []byte{0}
		out = binary.AppendUvarint(out, uint64(len(seg)))
		return append(append(out, seg...), 2, 1, 2)
	}
	w := sys.NewWorker()
	st := want(0)
	for k := 1; k <= 200; k++ {
		var next []byte // the first successor: process 1's step
		if _, err := explorer.Successors(w, st, func(_ explorer.Transition, s []byte) {
			if next == nil {
				next = append([]byte(nil), s...)
			}
		}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(next, want(k)) {
			t.Fatalf("log of %d: successor\n% x\nwant\n% x", k, next, want(k))
		}
		st = next
	}
}
