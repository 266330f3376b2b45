package automaton

import (
	"bytes"
	"unsafe"

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
// cache entry: a step, or the delivery of message msg on channel ch.
type effectMemo struct {
	used   bool
	input  bool
	ch     int
	step   Step
	msg    []byte
	enc    []byte // the process's encoding after the effect
	key    uint64 // its segKey
	failed int    // worker.failed after the effect
	sent   int32  // messages sent to other processes
	sends  []memoSend
	buf    []byte // the messages sent, encoded, one after the other
	// word is msg packed with its length (packShort), when short is set:
	// most messages, compared in one instruction.
	word  uint64
	short bool
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

// stepKeyed is step for expandKeyed, which also needs the process's new
// encoding, when the process stepped, and its key: it returns them (the
// encoding valid until the next step). It does a remembered effect again
// from memory, and remembers the others.
func (w *worker[S, M, P]) stepKeyed(a *action) (t explorer.Transition, procChanged, globalsChanged bool, enc []byte, key uint64) {
	sys, v := w.sys, &w.v
	var e *procEntry[S]
	var msg []byte
	var word uint64
	var short bool
	var st *Step // the step, for an Output or Internal transition
	if a.kind == Output || a.kind == Internal {
		st = w.stepOf(a)
	}
	if w.memo && !w.track && w.captureTo < 0 && a.kind != Fault && (a.kind == Input || st.With == 0) {
		v.Proc(a.proc) // decoded already, for Steps or Accepts, or now
		e = v.ents[a.proc]
		if a.kind == Input {
			msg = v.seg(1 + sys.n + a.ch)[a.start:a.end]
			word, short = packShort(msg)
		}
		if e != nil {
			for k := range e.memos {
				if m := &e.memos[k]; m.used && m.matches(a, st, msg, word, short) {
					t, globalsChanged = w.replay(a, m)
					return t, true, globalsChanged, m.enc, m.key
				}
			}
		}
	}
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
		m.used, m.input, m.ch = true, a.kind == Input, a.ch
		if !m.input {
			m.step = *st
		}
		m.msg = append(m.msg[:0], msg...)
		m.word, m.short = word, short
		if m.enc == nil {
			m.enc = []byte{} // non-nil: assembleWith encodes w.work for nil
		}
		m.enc = append(m.enc[:0], w.penc...)
		m.key, m.failed, m.sent = key, w.lastFailed, t.Messages
		m.sends = append(m.sends[:0], w.recSends...)
		m.buf = append(m.buf[:0], w.recBuf...)
	}
	return t, true, globalsChanged, w.penc, key
}

// matches reports whether m remembers transition a, step st or the
// delivery of msg (packed in word when short).
func (m *effectMemo) matches(a *action, st *Step, msg []byte, word uint64, short bool) bool {
	if a.kind == Input {
		if short {
			return m.input && m.ch == a.ch && m.short && m.word == word
		}
		return m.input && m.ch == a.ch && !m.short && bytes.Equal(m.msg, msg)
	}
	return !m.input && m.step == *st
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
	w.lastFailed = m.failed
	if m.failed == 0 {
		return t, false
	}
	g := w.v.g
	g.failed = m.failed
	return t, w.settleGlobals(g)
}
