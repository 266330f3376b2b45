package automaton

import (
	"bytes"
	"slices"
	"unsafe"

	"github.com/vacheck/vacheck/channel"

	"github.com/vacheck/vacheck/explorer"
)

// What an effect does depends on the process's state, the step or the
// message, Self and N, and whether other processes are up; nothing else
// (Effects offers nothing else). Where every process is always up, a
// keyed expansion remembers each effect in the cache entry of the value the
// process had (procEntry.memos), and does it again from memory: the
// process's new encoding and its key, the messages sent, the assertion
// failed. Most states of a search share their processes' values, and the
// few transitions each value has: chang-roberts N=6 meets about 1,600
// effects in 7 million transitions.

// memoSlots is how many effects a cache entry remembers.
const memoSlots = 4

// effectMemo is what one transition of a process did from the value of its
// cache entry: a step, or the delivery of message msg on channel ch. The
// fields memoFor reads to find it come first, with those a replay reads
// most, in the memo's first cache line or two.
type effectMemo struct {
	used, input bool
	// short: word is msg packed with its length (packShort), as most
	// messages are, compared in one instruction.
	short bool
	// packed: pieces holds what the sends append to each channel, each
	// in 7 bytes of a FIFO channel (packPieces, lazyKey).
	packed bool
	sent   int32 // messages sent to other processes
	// own is 1 + the index of the step in the cache entry's steps, when
	// they are remembered (procEntry.stepsOK): memoFor finds the effect
	// of such a step by its index.
	own    int32
	failed int32 // worker.failed after the effect
	ch     int
	word   uint64
	key    uint64 // the process's segKey after the effect
	enc    []byte // the process's encoding after the effect
	pieces []memoPiece
	step   Step
	msg    []byte
	sends  []memoSend
	buf    []byte // the messages sent, encoded, one after the other
}

// memoSend is a message an effect sent: on channel c, ending at end in
// effectMemo.buf, where the one before it ends.
type memoSend struct {
	c, end int32
}

// memoizable reports whether effects may be remembered: no process ever
// goes down, and no metric stamps what is sent.
func (sys *System[S, M, P]) memoizable() bool {
	return sys.cfg.Crashes == 0 && sys.cfg.Recoveries == 0 && sys.down == 0 && !sys.tracking()
}

// memoProbe is what memoFor learnt of a transition it found no remembered
// effect for, which stepRecord needs to remember it: the cache entry of
// the process's value (nil if effects are not remembered), the message
// delivered (packed in word when short) or the step.
type memoProbe[S any] struct {
	e     *procEntry[S]
	msg   []byte
	word  uint64
	short bool
	st    *Step
}

// memoFor returns the remembered effect of transition a, or nil, leaving
// then in *p what stepRecord needs to remember one (the caller's variable,
// written only on a miss: a probe returned by value cost a copy on every
// transition).
func (w *worker[S, M, P]) memoFor(a *action, p *memoProbe[S]) *effectMemo {
	var st *Step
	if a.kind == Output || a.kind == Internal {
		st = w.stepOf(a)
	}
	if !w.memo || w.track || w.captureTo >= 0 || a.kind == Fault || (a.kind != Input && st.With != 0) {
		*p = memoProbe[S]{st: st}
		return nil
	}
	v := &w.v
	v.Proc(a.proc) // decoded already, for Steps or Accepts, or now
	e := v.ents[a.proc]
	if e == nil {
		*p = memoProbe[S]{st: st}
		return nil
	}
	if a.kind == Input {
		msg := v.seg(1 + w.sys.n + a.ch)[a.start:a.end]
		word, short := packShort(msg)
		for k := range e.memos {
			if m := &e.memos[k]; m.used && m.matchesInput(a, msg, word, short) {
				return m
			}
		}
		*p = memoProbe[S]{e: e, msg: msg, word: word, short: short}
		return nil
	}
	*p = memoProbe[S]{e: e, st: st}
	if a.own && e.stepsOK {
		// The entry's steps are fixed: the index tells the step.
		own := int32(a.step + 1)
		for k := range e.memos {
			if m := &e.memos[k]; m.used && m.own == own {
				return m
			}
		}
		return nil
	}
	for k := range e.memos {
		if m := &e.memos[k]; m.used && !m.input && m.step == *st {
			return m
		}
	}
	return nil
}

// stepKeyed is step for expandKeyed, which also needs the process's new
// encoding, when the process stepped, and its key: it returns them (the
// encoding valid until the next step). It does a remembered effect again
// from memory, and remembers the others.
func (w *worker[S, M, P]) stepKeyed(a *action) (t explorer.Transition, procChanged, globalsChanged bool, enc []byte, key uint64) {
	var p memoProbe[S]
	if m := w.memoFor(a, &p); m != nil {
		t, globalsChanged = w.replay(a, m)
		return t, true, globalsChanged, m.enc, m.key
	}
	return w.stepRecord(a, &p)
}

// stepRecord is stepKeyed for a transition without a remembered effect,
// which memoFor probed: it steps and remembers the effect in p.e, if not
// nil.
func (w *worker[S, M, P]) stepRecord(a *action, p *memoProbe[S]) (t explorer.Transition, procChanged, globalsChanged bool, enc []byte, key uint64) {
	sys, e := w.sys, p.e
	w.recording, w.recSends, w.recBuf = e != nil, w.recSends[:0], w.recBuf[:0]
	t, procChanged, globalsChanged = w.step(*a)
	w.recording = false
	if !procChanged {
		return t, false, globalsChanged, nil, 0
	}
	w.penc = sys.pc.enc(unsafe.Pointer(&w.work), w.penc[:0])
	key = segKey(1+a.proc, w.penc)
	if len(w.joined) > 0 {
		w.encodeJoined()
	}
	if e != nil && !w.took {
		m := &e.memos[e.next%memoSlots]
		e.next++
		m.used, m.input, m.ch, m.own = true, a.kind == Input, a.ch, 0
		if !m.input {
			m.step = *p.st
			if a.own && e.stepsOK {
				m.own = int32(a.step + 1)
			}
		}
		m.msg = append(m.msg[:0], p.msg...)
		m.word, m.short = p.word, p.short
		if m.enc == nil {
			m.enc = []byte{} // non-nil: assembleWith encodes w.work for nil
		}
		m.enc = append(m.enc[:0], w.penc...)
		m.key, m.failed, m.sent = key, int32(w.lastFailed), t.Messages
		m.sends = append(m.sends[:0], w.recSends...)
		m.buf = append(m.buf[:0], w.recBuf...)
		m.packPieces(sys.disc == channel.FIFO)
	}
	return t, true, globalsChanged, w.penc, key
}

// memoPiece is what a remembered effect appends to FIFO channel c, packed
// as packShort packs a payload: n bytes (up to 7) in word.
type memoPiece struct {
	c    int32
	n    uint8
	word uint64
}

// packPieces sets m.pieces to what m's sends append to each channel, in
// the order of the sends, and m.packed when fifo and every channel's part
// fits in 7 bytes, so that lazyKey can compute the successor's key
// without the channels' new segments.
func (m *effectMemo) packPieces(fifo bool) {
	m.pieces, m.packed = m.pieces[:0], fifo
	if !fifo {
		return
	}
	start := int32(0)
	for _, s := range m.sends {
		msg := m.buf[start:s.end]
		start = s.end
		k := slices.IndexFunc(m.pieces, func(p memoPiece) bool { return p.c == s.c })
		if k < 0 {
			k = len(m.pieces)
			m.pieces = append(m.pieces, memoPiece{c: s.c})
		}
		p := &m.pieces[k]
		if int(p.n)+1+len(msg) > 7 {
			m.packed = false
			return
		}
		// channel.Discipline.Append: the length, one byte below 0x80, then
		// the message.
		p.word |= uint64(len(msg)) << (8 * p.n)
		for j, b := range msg {
			p.word |= uint64(b) << (8 * (uint(p.n) + 1 + uint(j)))
		}
		p.n += uint8(1 + len(msg))
	}
}

// lazyKey returns the key of the successor of transition a, which does
// the remembered effect m (packed, no assertion failed), from the key of
// the state with the process's segment replaced, key, and from m.pieces:
// the channels' new segments are not built, as they are when the
// successor is. It reports false when a channel's segment, old or new, is
// longer than 7 bytes (or cannot be read in one load), and the caller
// then takes stepKeyed's way.
func (w *worker[S, M, P]) lazyKey(a *action, m *effectMemo, key uint64) (uint64, bool) {
	segs, keys, n := w.v.segs, w.v.keys, w.sys.n
	in := -1
	if a.kind == Input {
		// FIFO: the head goes, the rest moves to the front.
		in = a.ch
		k := 1 + n + in
		seg := segs[k]
		x, ok := packShort(seg)
		if !ok {
			return 0, false
		}
		l := uint(len(seg) - a.end)
		x = x & (1<<56 - 1) >> (8 * uint(a.end))
		for _, p := range m.pieces {
			if int(p.c) == in {
				if l+uint(p.n) > 7 {
					return 0, false
				}
				x |= p.word << (8 * l)
				l += uint(p.n)
			}
		}
		key += mixKey(x|uint64(l)<<56, k) - keys[k]
	}
	for _, p := range m.pieces {
		if int(p.c) == in {
			continue
		}
		k := 1 + n + int(p.c)
		seg := segs[k]
		x, ok := packShort(seg)
		l := uint(len(seg)) + uint(p.n)
		if !ok || l > 7 {
			return 0, false
		}
		x = x&(1<<56-1) | p.word<<(8*uint(len(seg)))
		key += mixKey(x|uint64(l)<<56, k) - keys[k]
	}
	return key, true
}

// matchesInput reports whether m remembers transition a, the delivery of
// msg (packed in word when short).
func (m *effectMemo) matchesInput(a *action, msg []byte, word uint64, short bool) bool {
	if short {
		return m.input && m.ch == a.ch && m.short && m.word == word
	}
	return m.input && m.ch == a.ch && !m.short && bytes.Equal(m.msg, msg)
}

// replay does transition a again from m, as step does it: the channels it
// touches in w.pend, the environment's segment in w.gseg when an assertion
// failed.
func (w *worker[S, M, P]) replay(a *action, m *effectMemo) (t explorer.Transition, globalsChanged bool) {
	w.untouch()
	t = explorer.Transition{Task: int32(a.proc), Messages: m.sent}
	if a.kind == Input {
		w.removeDelivered(a)
		t.Task = int32(w.sys.n + a.ch)
	}
	start := int32(0)
	for _, s := range m.sends {
		w.appendPend(int(s.c), m.buf[start:s.end])
		start = s.end
	}
	w.sent = m.sent
	// step's ending, for an effect that changed nothing the environment
	// keeps but may have failed an assertion.
	w.lastFailed = int(m.failed)
	if m.failed == 0 {
		return t, false
	}
	g := w.v.g
	g.failed = int(m.failed)
	return t, w.settleGlobals(g)
}
