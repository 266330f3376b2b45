package automaton

import (
	"bytes"
	"encoding/binary"
)

// View is a read-only view of a global state. Invariants, valid-end
// predicates and, where a precondition needs the whole system (a timeout
// oracle), Steps read the system through it. Values it returns must not be
// modified and must not be kept after the call that received the View.
type View[S any, M Message] struct {
	sys     viewSys[S, M]
	state   []byte
	bounds  []int // payload start and end of every segment
	self    int
	procs   []S
	ready   []bool
	chans   [][]M
	chReady []bool
	g       globals
	arena   arena
	// decoded[i] is the encoding procs[i] was last decoded from, with its
	// own arena, so that a process whose encoding did not change from the
	// previous state is not decoded again.
	decoded   [][]byte
	procArena []arena
}

// viewSys is what a View needs from its System, without the process type
// parameter.
type viewSys[S any, M Message] interface {
	decodeProc(v *View[S, M], i int)
	decodeChan(v *View[S, M], c int)
	numProcs() int
	numLinks() int
	link(c int) Link
	chanIndex(from, to int) int
	crashes() int
}

func newView[S any, M Message](sys viewSys[S, M]) View[S, M] {
	n, c := sys.numProcs(), sys.numLinks()
	return View[S, M]{
		sys:       sys,
		bounds:    make([]int, 2*(1+n+c)),
		procs:     make([]S, n),
		ready:     make([]bool, n),
		decoded:   make([][]byte, n),
		procArena: make([]arena, n),
		chans:     make([][]M, c),
		chReady:   make([]bool, c),
	}
}

// load points the view at state s and forgets what it had decoded.
// decodeGlobals may be nil when states carry no environment's bookkeeping.
func (v *View[S, M]) load(s []byte, decodeGlobals func([]byte) globals) {
	v.state = s
	off := 0
	for k := 0; k < len(v.bounds); k += 2 {
		var l uint64
		if s[off] < 0x80 {
			l = uint64(s[off])
			off++
		} else {
			var m int
			l, m = binary.Uvarint(s[off:])
			off += m
		}
		v.bounds[k], v.bounds[k+1] = off, off+int(l)
		off += int(l)
	}
	clear(v.ready)
	clear(v.chReady)
	v.arena.reset()
	if decodeGlobals == nil {
		v.g = globals{}
	} else {
		v.g = decodeGlobals(v.seg(0))
	}
}

// seg returns the payload of segment k: 0 the environment, 1..N the
// processes, then the channels.
func (v *View[S, M]) seg(k int) []byte { return v.state[v.bounds[2*k]:v.bounds[2*k+1]] }

// N returns the number of processes.
func (v *View[S, M]) N() int { return len(v.procs) }

// Self returns the process whose Steps is being asked; it is meaningful only
// inside Steps.
func (v *View[S, M]) Self() int { return v.self }

// Proc returns the state of process i (0-based).
func (v *View[S, M]) Proc(i int) *S {
	if !v.ready[i] {
		if seg := v.seg(1 + i); v.decoded[i] == nil || !bytes.Equal(seg, v.decoded[i]) {
			v.procArena[i].reset()
			v.sys.decodeProc(v, i)
			v.decoded[i] = append(v.decoded[i][:0], seg...)
			if v.decoded[i] == nil {
				v.decoded[i] = []byte{} // decoded, from an empty encoding
			}
		}
		v.ready[i] = true
	}
	return &v.procs[i]
}

// Chan returns the messages in the channel from process from to process to,
// head first (for an unordered channel, in canonical order), or nil if there
// is no such channel.
func (v *View[S, M]) Chan(from, to int) []M {
	c := v.sys.chanIndex(from, to)
	if c < 0 {
		return nil
	}
	if !v.chReady[c] {
		v.sys.decodeChan(v, c)
		v.chReady[c] = true
	}
	return v.chans[c]
}

// ChannelsEmpty reports whether every channel is empty.
func (v *View[S, M]) ChannelsEmpty() bool {
	n := v.N()
	for c := 0; c < v.sys.numLinks(); c++ {
		if len(v.seg(1+n+c)) > 0 {
			return false
		}
	}
	return true
}

// InTransit returns the number of messages in all channels.
func (v *View[S, M]) InTransit() int {
	total := 0
	for c := 0; c < v.sys.numLinks(); c++ {
		total += len(v.Chan(v.sys.link(c).From, v.sys.link(c).To))
	}
	return total
}

// Up reports whether process i has not crashed.
func (v *View[S, M]) Up(i int) bool { return v.g.down&(1<<uint(i)) == 0 }

// CrashesLeft returns how many more crashes the environment may inject.
func (v *View[S, M]) CrashesLeft() int { return v.g.budget }
