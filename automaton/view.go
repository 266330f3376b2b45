package automaton

import (
	"bytes"
	"encoding/binary"
	"unsafe"
)

// View is a read-only view of a global state. Invariants, valid-end
// predicates and, where a precondition needs the whole system (a timeout
// oracle), Steps read the system through it. Values it returns must not be
// modified and must not be kept after the call that received the View.
type View[S any, M Message] struct {
	sys    viewSys[S, M]
	state  []byte
	bounds [][2]int // payload start and end of every segment
	segs   [][]byte // the payload of every segment (seg)
	self   int
	procs  []S
	// cur[i] is the state of process i once decoded, nil before: in the
	// cache, or in procs (normalize). ents[i] is then its cache entry, or
	// nil.
	cur     []*S
	ents    []*procEntry[S]
	chans   [][]M
	chReady []bool
	chanIdx []int32 // from*N+to -> channel index, or -1 (the System's)
	g       globals
	arena   arena
	// cache holds, per process, the values it was decoded to lately (see
	// decodeProc); it is made when the view first decodes a process, with
	// room to remember effects when memos is set (worker.stepKeyed).
	cache []procEntry[S]
	memos bool
	// keys, when the worker computed them for the state loaded, holds the
	// key of each segment (stateKey); nil otherwise.
	keys []uint64
	// procArena[i] holds the slices of procs[i] when normalize decodes it
	// to rewrite it.
	procArena []arena
	// obs reads the view for an explorer.Observation (System.observed),
	// once one has asked.
	obs *observedState[S, M]
	// loads counts the states loaded (load and reload): the worker's
	// ExpandPick knows by it that the view still holds the state it
	// picked a successor of.
	loads uint64
	// peeked is set by every method that reads the state beyond Self and
	// N (Chan, Up and the rest; Proc when it decodes, see
	// worker.rememberSteps): worker.enumerate remembers what a process's
	// Steps returned only when Steps did not peek.
	peeked bool
}

// procCacheSize is the number of entries of a view's cache per process: a
// process of the catalog's models takes few distinct values, most states
// of a level share them, and each decoding costs more than a lookup.
const procCacheSize = 1 << procCacheBits

// procCacheBits is the number of bits of the hash that pick an entry.
const procCacheBits = 6

// procEntry is an entry of a view's cache of decoded processes: enc, when
// used, decodes to val, whose slices are in mem; key is enc's segKey.
// memos, in the view a worker expands states in, remember what the
// process's transitions did from this value (worker.stepKeyed); they go
// when the entry takes another value.
type procEntry[S any] struct {
	used bool
	// stepsOK, peeks and steps: what Steps returned for val
	// (worker.enumerate): when stepsOK, once for all, since Steps read
	// nothing of the view but Self and N; when peeks, since it did, for
	// the state being expanded. They go, like memos, when the entry takes
	// another value. Next to used and key, which a lookup reads: the
	// fields enumerate reads for every process of every state share
	// their cache line.
	stepsOK, peeks bool
	key            uint64
	steps          []Step
	enc            []byte
	val            S
	mem            arena
	memos          []effectMemo // memoSlots of them, or none
	next           uint8        // the slot of memos the next new effect takes
	// obs, when obsOK, is the value an explorer.Observation made of val
	// (observedState.Proc).
	obs   any
	obsOK bool
}

// procEntryWords and procEntryBytes are the room an entry has for its
// value's slices (in words) and its encoding, in memory the view allocates
// for all its entries at once: a process's slices and encoding are short,
// and a search that allocates nothing as it goes runs without the
// collector (whose write barriers slow every copy of a value with slices).
// A longer value or encoding gets memory of its own.
const (
	procEntryWords = 16
	procEntryBytes = 16
)

// viewSys is what a View needs from its System, without the process type
// parameter.
type viewSys[S any, M Message] interface {
	decodeProc(dst *S, i int, seg []byte, a *arena)
	decodeChan(v *View[S, M], c int)
	numProcs() int
	numLinks() int
	link(c int) Link
	chanTable() []int32
	portChan(from, to int, port string) int
	steps(v *View[S, M], i int, out []Step) []Step
	crashes() int
}

func newView[S any, M Message](sys viewSys[S, M]) View[S, M] {
	n, c := sys.numProcs(), sys.numLinks()
	return View[S, M]{
		sys:       sys,
		bounds:    ownLines[[2]int](1 + n + c),
		procs:     ownLines[S](n),
		cur:       ownLines[*S](n),
		ents:      ownLines[*procEntry[S]](n),
		segs:      ownLines[[]byte](1 + n + c),
		procArena: ownLines[arena](n),
		chans:     ownLines[[]M](c),
		chReady:   ownLines[bool](c),
		chanIdx:   sys.chanTable(),
	}
}

// makeCache makes v's cache: the entries of every process, with their room
// for slices and encodings (and effects) in memory allocated at once.
func (v *View[S, M]) makeCache() {
	size := len(v.procs) * procCacheSize
	v.cache = ownLines[procEntry[S]](size)
	words := ownLines[uint64](size * procEntryWords)
	encs := ownLines[byte](size * procEntryBytes)
	var memos []effectMemo
	if v.memos {
		memos = ownLines[effectMemo](size * memoSlots)
	}
	for k := range v.cache {
		e, w, b := &v.cache[k], k*procEntryWords, k*procEntryBytes
		e.mem = arena{buf: words[w : w+procEntryWords : w+procEntryWords], chunk: procEntryWords}
		e.enc = encs[b : b : b+procEntryBytes]
		if memos != nil {
			e.memos = memos[k*memoSlots : (k+1)*memoSlots : (k+1)*memoSlots]
		}
	}
}

// load points the view at state s and forgets what it had decoded.
// decodeGlobals may be nil when states carry no environment's bookkeeping.
func (v *View[S, M]) load(s []byte, decodeGlobals func([]byte) globals) {
	v.state = s
	v.keys = nil
	v.loads++
	v.split(s)
	// Loops the compiler does not turn into calls of the runtime's
	// memclr, which cost more than these few stores.
	for cur, i := v.cur, 0; i < len(cur); i++ {
		cur[i] = nil
	}
	for ready, c := v.chReady, 0; c < len(ready); c++ {
		ready[c] = false
	}
	v.arena.reset()
	if v.obs != nil {
		clear(v.obs.got) // the channels are to be read again
	}
	if decodeGlobals == nil {
		v.g = globals{}
	} else {
		v.g = decodeGlobals(v.seg(0))
	}
}

// loadKeyed is load followed by stateKey and resolve, in one pass over the
// segments: it points the view at state s with the key of each segment in
// keys (empty holds the key of each segment when it is empty), finds each
// process whose encoding the cache holds, and returns the state's key.
func (v *View[S, M]) loadKeyed(s []byte, decodeGlobals func([]byte) globals, keys, empty []uint64) (sum uint64) {
	v.state = s
	v.loads++
	segs, n := v.segs, len(v.procs)
	bounds, keys, empty := v.bounds[:len(segs)], keys[:len(segs)], empty[:len(segs)]
	cur, ents, cache := v.cur[:n], v.ents[:n], v.cache
	off := 0
	for k := range segs {
		var l uint64
		if s[off] < 0x80 {
			l = uint64(s[off])
			off++
		} else {
			var m int
			l, m = binary.Uvarint(s[off:])
			off += m
		}
		end := off + int(l)
		bounds[k] = [2]int{off, end}
		// With the capacity of the rest of the state: packShort reads a
		// short payload in one load.
		b := s[off:end]
		segs[k] = b
		off = end
		var h uint64
		if len(b) == 0 {
			h = empty[k]
		} else if x, ok := packShort(b); ok {
			h = mixKey(x, k)
		} else {
			h = segKeyLong(k, b)
		}
		keys[k] = h
		sum += h
		if i := k - 1; uint(i) < uint(n) {
			// resolve, for process i.
			cur[i] = nil
			if cache != nil {
				if e := &cache[i*procCacheSize+int(h>>(64-procCacheBits))]; e.holds(h, b) {
					cur[i], ents[i] = &e.val, e
				}
			}
		}
	}
	v.keys = keys
	for ready, c := v.chReady, 0; c < len(ready); c++ {
		ready[c] = false
	}
	v.arena.reset()
	if v.obs != nil {
		clear(v.obs.got) // the channels are to be read again
	}
	if decodeGlobals == nil {
		v.g = globals{}
	} else {
		v.g = decodeGlobals(v.seg(0))
	}
	return sum
}

// reload points the view at s, the state it has loaded with the segments
// changed (0 the environment, 1..N the processes, then the channels)
// replaced, and forgets only what it had decoded of those: the processes
// it decoded keep their values, which live in its cache, not in the
// state. The channels it decoded keep theirs too when keepChans says that
// messages hold no slices (whose memory, in the view's arena, is reused);
// otherwise they are decoded again. The keys, when the view has them, are
// the caller's to update for the segments changed, before a process is
// read.
func (v *View[S, M]) reload(s []byte, changed []int, decodeGlobals func([]byte) globals, keepChans bool) {
	v.state = s
	v.loads++
	v.split(s)
	n := len(v.procs)
	globalsChanged := false
	for _, k := range changed {
		switch {
		case k == 0:
			globalsChanged = true
		case k <= n:
			v.cur[k-1] = nil
		case keepChans:
			v.chReady[k-1-n] = false
		}
	}
	if !keepChans {
		for ready, c := v.chReady, 0; c < len(ready); c++ {
			ready[c] = false
		}
	}
	v.arena.reset()
	if v.obs != nil {
		clear(v.obs.got)
	}
	if globalsChanged && decodeGlobals != nil {
		v.g = decodeGlobals(v.seg(0))
	}
}

// split points the view's segments (segs, bounds) at those of state s.
func (v *View[S, M]) split(s []byte) {
	off, segs := 0, v.segs
	bounds := v.bounds[:len(segs)]
	for k := range segs {
		var l uint64
		if s[off] < 0x80 {
			l = uint64(s[off])
			off++
		} else {
			var m int
			l, m = binary.Uvarint(s[off:])
			off += m
		}
		end := off + int(l)
		bounds[k] = [2]int{off, end}
		// With the capacity of the rest of the state: segKey reads a
		// short payload in one load.
		segs[k] = s[off:end]
		off = end
	}
}

// seg returns the payload of segment k: 0 the environment, 1..N the
// processes, then the channels.
func (v *View[S, M]) seg(k int) []byte { return v.segs[k] }

// N returns the number of processes.
func (v *View[S, M]) N() int { return len(v.procs) }

// Self returns the process whose Steps is being asked; it is meaningful only
// inside Steps.
func (v *View[S, M]) Self() int { return v.self }

// Proc returns the state of process i (0-based).
func (v *View[S, M]) Proc(i int) *S {
	if p := v.cur[i]; p != nil {
		return p
	}
	return v.decodeProc(i) // kept out of Proc, which is then inlined
}

// decodeProc makes cur[i] the state of process i. It looks the encoding up
// in the process's entries of the cache, by its key (segKey), and decodes
// it into the entry it finds unless that entry holds it already: the same
// key and length, and for an encoding of up to 7 bytes that is enough
// (segKey tells them all apart). A cached value is never written: views
// hand out values read-only, and a step works on a deep copy
// (worker.decodeWork).
func (v *View[S, M]) decodeProc(i int) *S {
	v.peeked = true // see worker.enumerate, which clears cur to know it
	seg := v.seg(1 + i)
	var h uint64
	if v.keys != nil {
		h = v.keys[1+i]
	} else {
		h = segKey(1+i, seg)
	}
	if v.cache == nil {
		v.makeCache()
	}
	e := &v.cache[i*procCacheSize+int(h>>(64-procCacheBits))]
	if !e.holds(h, seg) {
		// The value it held goes: it was cur[i] of an earlier state at
		// most, which no one may keep (see View).
		e.used, e.obsOK, e.obs, e.stepsOK, e.peeks = false, false, nil, false, false // until it is decoded: decoding may panic
		for k := range e.memos {
			e.memos[k].used = false
		}
		e.mem.reset()
		v.sys.decodeProc(&e.val, i, seg, &e.mem)
		e.enc = append(e.enc[:0], seg...)
		e.key, e.used = h, true
	}
	v.cur[i], v.ents[i] = &e.val, e
	return &e.val
}

// holds reports whether the entry holds the encoding seg, whose key is h:
// the same key and length, and for an encoding of up to 7 bytes that is
// enough (segKey tells them all apart).
func (e *procEntry[S]) holds(h uint64, seg []byte) bool {
	return e.used && e.key == h && len(seg) == len(e.enc) && (len(seg) <= 7 || bytes.Equal(seg, e.enc))
}

// resolve makes cur[i] the state of every process i whose encoding the
// cache holds, for a view loaded with its keys: in one loop, where Proc
// would call decodeProc for each process. The others are decoded when
// they are asked for.
func (v *View[S, M]) resolve() {
	if v.cache == nil {
		return
	}
	n := len(v.procs)
	keys, segs, cur, ents := v.keys[1:1+n], v.segs[1:1+n], v.cur[:n], v.ents[:n]
	for i, h := range keys {
		e := &v.cache[i*procCacheSize+int(h>>(64-procCacheBits))]
		if e.holds(h, segs[i]) {
			cur[i], ents[i] = &e.val, e
		}
	}
}

// Chan returns the messages in the channel from process from to process to,
// head first (for an unordered channel, in canonical order), or nil if there
// is no such channel. Where the pair has several channels (Config.Chans),
// it is the one without a port, or nil if each has one: see ChanPort.
func (v *View[S, M]) Chan(from, to int) []M {
	v.peeked = true
	c := chanAt(v.chanIdx, len(v.procs), from, to)
	if c < 0 {
		return nil
	}
	if !v.chReady[c] {
		v.decodeChan(c) // kept out of Chan, which stays short
	}
	return v.chans[c]
}

// chanAt returns the messages of channel c, as Chan does.
func (v *View[S, M]) chanAt(c int) []M {
	v.peeked = true
	if !v.chReady[c] {
		v.decodeChan(c)
	}
	return v.chans[c]
}

// decodeChan makes chans[c] the messages of channel c.
func (v *View[S, M]) decodeChan(c int) {
	if len(v.segs[1+len(v.procs)+c]) == 0 {
		v.chans[c] = v.chans[c][:0] // empty, as most channels are
	} else {
		v.sys.decodeChan(v, c)
	}
	v.chReady[c] = true
}

// ChannelsEmpty reports whether every channel is empty.
func (v *View[S, M]) ChannelsEmpty() bool {
	v.peeked = true
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
		total += len(v.chanAt(c))
	}
	return total
}

// Up reports whether process i has not crashed.
func (v *View[S, M]) Up(i int) bool {
	v.peeked = true
	return v.g.down&(1<<uint(i)) == 0
}

// CrashesLeft returns how many more crashes the environment may inject.
func (v *View[S, M]) CrashesLeft() int {
	v.peeked = true
	return v.g.budget
}

// cacheLine is the size of a cache line on the processors vacheck runs on.
const cacheLine = 64

// ownLines returns a slice of n zero Ts followed by at least a cache line of
// capacity that is never written. The views and scratch buffers of
// different workers are small allocations, made one after another, that
// the workers write on every state: without the padding, the last one of a
// worker and the first one of the next can share a cache line, which the
// two processors then pass back and forth on every write (false sharing;
// with two workers it cost about a fifth of their time).
func ownLines[T any](n int) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if size == 0 {
		return make([]T, n)
	}
	return make([]T, n, n+(cacheLine+size-1)/size)
}
