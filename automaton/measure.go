package automaton

import (
	"encoding/binary"
	"fmt"

	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
)

// Mutex describes the user part of a mutual-exclusion algorithm
// (docs/properties.md) for the metrics messages-per-entry and sync-delay.
// The mutual-exclusion kit of package specs builds it from a spec's user
// part and its serves function, in one line.
//
// Entries are keyed: entry k (0-based) of process i has the key
// i*Entries + k. A message serves the entry of process Serves(...) that is
// current after the step that sends it: entry done if the process is then
// trying or critical, entry done-1 if it is idle (a RELEASE sent by exit,
// an INQUIRE that reaches a process that has left already); a message that
// serves no entry, or an idle process that has entered no critical section
// yet, is not counted; a message for which Serves returns InheritEntry
// serves what the message received in the same step serves (a reply serves
// what it answers). Enter and exit must be locally controlled steps (Steps
// and Do), and the step that enters be named "enter", as in docs/properties.md.
type Mutex[S any, M Message] struct {
	// User reads the user state of a process: trying, critical (neither
	// means idle), and done, the number of critical sections it has left.
	User func(p *S) (trying, critical bool, done int)
	// UserAt, instead of User, reads it told the process's number i
	// (0-based), for a user part that depends on which process it is.
	// Set one of them.
	UserAt func(i int, p *S) (trying, critical bool, done int)
	// Serves returns the process (0-based) whose critical-section entry the
	// message m, sent from process from to process to in the state v (the
	// state before the step), serves, -1 for none, or InheritEntry.
	Serves func(v *View[S, M], from, to int, m M) int
	// Entries bounds the critical sections of one process (R).
	Entries int
}

// user reads the user state of process i, p, through UserAt or User.
func (mx *Mutex[S, M]) user(i int, p *S) (trying, critical bool, done int) {
	if mx.UserAt != nil {
		return mx.UserAt(i, p)
	}
	return mx.User(p)
}

// InheritEntry is what Mutex.Serves returns for a message that serves
// whatever the step serves: the entry of the message the step receives (a
// request forwarded on behalf of another process, as on Raymond's tree),
// or, in a locally controlled step, the sender's own entry.
const InheritEntry = -2

// hopCap is the largest causal depth and the largest number of hops since
// an exit that are tracked (one byte each); a value that reaches it stays
// there, and the metric reports it as unbounded.
const hopCap = 255

// Instrument implements explorer.Instrumenter: the system tracking what the
// metrics time, sync-delay and messages-per-entry need.
//
// For messages-per-entry every message in transit carries the key of the
// entry it serves (see Mutex), so that a reply serves what it replies to.
// For time (causal depth, docs/properties.md) every process and every
// message in transit carries a depth, and the environment the largest depth
// so far; for sync-delay every process and message carries the hops since
// the last exit, and the environment the processes that were trying at it.
// These are part of the state, so such a run may have more states than a
// plain one (it reports its own counts).
// Messages a process sends to itself carry its depth unchanged: like the
// message count, time does not count self-communication.
func (sys *System[S, M, P]) Instrument(metrics []string) (explorer.Model, error) {
	cp := *sys
	for _, name := range metrics {
		switch name {
		case explorer.MetricTime:
			cp.instTime = true
		case explorer.MetricSyncDelay, explorer.MetricMessagesPerEntry:
			if sys.cfg.Mutex == nil {
				return nil, fmt.Errorf("--metric %s: this spec does not describe its critical-section entries (it is not a mutual-exclusion spec wired to the metric)", name)
			}
			if (sys.cfg.Mutex.User == nil) == (sys.cfg.Mutex.UserAt == nil) {
				return nil, fmt.Errorf("--metric %s: the spec's Mutex sets %s; set User or UserAt", name, map[bool]string{true: "neither User nor UserAt", false: "both User and UserAt"}[sys.cfg.Mutex.User == nil])
			}
			if sys.cfg.Mutex.Entries <= 0 {
				return nil, fmt.Errorf("--metric %s: the spec's Mutex.Entries is %d; it must be positive", name, sys.cfg.Mutex.Entries)
			}
			if name == explorer.MetricSyncDelay {
				if sys.n > 64 {
					return nil, fmt.Errorf("--metric %s: at most 64 processes", name)
				}
				cp.instSync = true
			}
			// sync-delay too needs to know which entry every message in
			// transit serves.
			cp.instEntry = true
		}
	}
	if (cp.instTime || cp.instSync || cp.instEntry) && sys.cfg.Normalize != nil {
		return nil, fmt.Errorf("--metric time, sync-delay and messages-per-entry track more in the state than this spec's state normalization (such as lamport --clocks relative or minimal) keeps; use the spec's default")
	}
	if cp.instTime {
		cp.tw++
	}
	if cp.instSync {
		cp.tw++
	}
	if cp.tw > 0 {
		cp.initial = nil
		for _, init := range cp.cfg.Initial {
			cp.initial = append(cp.initial, cp.encodeInitial(init))
		}
	}
	return &cp, nil
}

// appendTrailer appends the tracked depth d and hops s to the encoding of a
// process or message (one byte each, d first, only those tracked).
func (sys *System[S, M, P]) appendTrailer(b []byte, d, s int) []byte {
	if sys.instTime {
		b = append(b, byte(d))
	}
	if sys.instSync {
		b = append(b, byte(s))
	}
	return b
}

// trailer reads the depth and the hops at the end of an encoding.
func (sys *System[S, M, P]) trailer(b []byte) (d, s int) {
	if sys.tw == 0 || len(b) < sys.tw {
		return 0, 0
	}
	t := b[len(b)-sys.tw:]
	if sys.instTime {
		d, t = int(t[0]), t[1:]
	}
	if sys.instSync {
		s = int(t[0])
	}
	return d, s
}

// measure is the worker's scratch memory for the metrics. Hops since the
// last exit are kept as 0 for none (not causally after the exit) and h+1
// for h hops.
type measure struct {
	newD, newS             int     // the stepping process's depth and hops after the step
	stampD, stampS         int     // what the messages it sends to others carry
	maxStamp               int     // the largest depth a message of the step carries
	clearChans, clearProcs bool    // sync-delay: forget the hops since the previous exit
	servedBy               []int32 // messages-per-entry: the process each message to another serves
	served                 []int32 // and the key of the entry it serves, or -1
	stampKeys              bool    // the effect is redone to stamp the keys in served on its messages
	lastTime, lastSync     int32
	msgScratch             []byte
	enterSteps             []Step
	segScratch             []byte
}

// prepareStamps reads the depth and hops of the process that steps (and of
// the message it receives) and sets what the step's messages carry.
func (w *worker[S, M, P]) prepareStamps(a action) {
	v, sys := &w.v, w.sys
	w.clearChans, w.clearProcs = false, false
	if a.kind == Fault {
		return
	}
	d, s := sys.trailer(v.seg(1 + a.proc))
	if a.kind == Input {
		seg := v.seg(1 + sys.n + a.ch)
		md, ms := sys.trailer(seg[a.start:a.end])
		d, s = max(d, md), max(s, ms)
	}
	w.newD, w.newS = d, s
	w.stampD, w.stampS = min(d+1, hopCap), 0
	if s > 0 {
		w.stampS = min(s+1, hopCap)
	}
}

// stamp appends to a message's encoding what it carries.
func (w *worker[S, M, P]) stamp(b []byte, self bool) []byte {
	d, s := w.stampD, w.stampS
	if self {
		d, s = w.newD, w.newS
	}
	w.maxStamp = max(w.maxStamp, d)
	return w.sys.appendTrailer(b, d, s)
}

// timeStep updates the largest depth so far.
func (w *worker[S, M, P]) timeStep(procChanged bool, g *globals) {
	top := g.top
	if procChanged {
		g.top = max(g.top, w.newD)
	}
	g.top = max(g.top, w.maxStamp)
	w.lastTime = int32(g.top - top)
	if g.top >= hopCap && top < hopCap {
		w.lastTime = -1
	}
}

// syncStep follows the synchronisation delay (docs/properties.md): the
// message hops from an exit to the next enter by a process that was waiting
// at the exit. It recognises an exit (critical to not critical) and an
// enter (trying to critical) of the stepping process, and a step of a
// waiting process that enables its enter step, which closes the delay:
// what follows until the process takes the step adds nothing to it. It
// reports whether the effect must be redone because the hops since the
// exit are reset. The processes waiting at an exit are those trying with no
// message that serves their entry in transit: their requests have been
// dealt with, and they wait for the critical section only (the heavy load
// of the classical figures).
func (w *worker[S, M, P]) syncStep(a action, g *globals) bool {
	w.lastSync = -1
	if a.kind == Fault {
		return false
	}
	mx, v := w.sys.cfg.Mutex, &w.v
	preTry, preCrit, _ := mx.user(a.proc, v.Proc(a.proc))
	postTry, postCrit, _ := mx.user(a.proc, &w.work)
	local := a.kind == Output || a.kind == Internal
	switch {
	case local && preCrit && !postCrit: // exit
		var armed uint64
		for j := 0; j < w.sys.n; j++ {
			if j != a.proc && v.Up(j) {
				if try, _, done := mx.user(j, v.Proc(j)); try && !w.inTransitFor(j*mx.Entries+done) {
					armed |= 1 << uint(j)
				}
			}
		}
		if armed == 0 && g.armed == 0 {
			return false
		}
		g.armed = armed
		w.newS, w.stampS = 0, 0
		if armed != 0 {
			w.newS, w.stampS = 1, 2
		}
	case local && preTry && postCrit: // enter
		if g.armed == 0 {
			return false
		}
		g.armed = 0
		w.newS, w.stampS = 0, 0
	case g.armed&(1<<uint(a.proc)) != 0 && postTry && w.enterEnabled(a.proc):
		w.lastSync = int32(max(w.newS-1, 0))
		if w.newS >= hopCap {
			w.lastSync = -2
		}
		g.armed &^= 1 << uint(a.proc)
		if g.armed != 0 {
			return false
		}
		w.newS, w.stampS = 0, 0
	default:
		return false
	}
	w.clearChans, w.clearProcs = true, true
	return true
}

// enterEnabled reports whether the stepping process, in its state after the
// step (w.work), has its step named enter enabled.
func (w *worker[S, M, P]) enterEnabled(i int) bool {
	w.v.self = i
	w.enterSteps = P(&w.work).Steps(&w.v, w.enterSteps[:0])
	for _, st := range w.enterSteps {
		if st.Name == "enter" {
			return true
		}
	}
	return false
}

// inTransitFor reports whether a message in transit in the expanded state
// serves the entry of key.
func (w *worker[S, M, P]) inTransitFor(key int) bool {
	sys, found := w.sys, false
	for c := range sys.cfg.Links {
		channel.Each(w.v.seg(1+sys.n+c), func(msg []byte) {
			found = found || sys.msgKey(msg) == key
		})
		if found {
			return true
		}
	}
	return false
}

// clearChannels puts every channel that holds messages, but skip (the one
// a receive takes its message from, which the receive clears), into w.pend
// with the hops of its messages forgotten.
func (w *worker[S, M, P]) clearChannels(skip int) {
	sys, v := w.sys, &w.v
	for c := range sys.cfg.Links {
		seg := v.seg(1 + sys.n + c)
		if len(seg) == 0 || c == skip {
			continue
		}
		w.pend[c] = w.clearSeg(w.pend[c][:0], seg)
		w.pendSet[c] = true
		w.touched = append(w.touched, c)
	}
}

// clearSeg appends to dst the channel state seg with the hops of its
// messages forgotten (the hops are the last byte of a message), in the
// channel's canonical order.
func (w *worker[S, M, P]) clearSeg(dst, seg []byte) []byte {
	channel.Each(seg, func(msg []byte) {
		w.msgScratch = append(w.msgScratch[:0], msg...)
		w.msgScratch[len(w.msgScratch)-1] = 0
		w.spare = w.sys.disc.Append(w.spare[:0], dst, w.msgScratch)
		dst, w.spare = w.spare, dst
	})
	return dst
}

// clearProcHops forgets the hops of every process of the successor but
// keep, in place (the hops are the last byte of a process's segment).
func (w *worker[S, M, P]) clearProcHops(keep int) {
	out, off := w.out, 0
	for k := 0; k <= w.sys.n; k++ {
		l, m := binary.Uvarint(out[off:])
		off += m + int(l)
		if k > 0 && k-1 != keep && l > 0 {
			out[off-1] = 0
		}
	}
}

// msgKey reads the entry key stamped on a message, or -1.
func (sys *System[S, M, P]) msgKey(msg []byte) int {
	off := len(msg) - sys.tw - 2
	if !sys.instEntry || off < 0 {
		return -1
	}
	return int(msg[off]) | int(msg[off+1])<<8 - 1
}

// entryKeys computes the entry keys of the messages the step sent to
// others, in w.served, -1 for none. A message for which Serves says
// InheritEntry serves the entry of the message the step receives (an ACK
// serves the request it acknowledges, even when the requester has moved on
// since); any other message serves the entry that is current for its
// process after the step (a REPLY that a coordinator sends on a RELEASE
// serves the next request of its receiver, not the entry the RELEASE
// ended).
func (w *worker[S, M, P]) entryKeys(a action, procChanged bool) {
	mx, sys := w.sys.cfg.Mutex, w.sys
	w.served = w.served[:0]
	inKey := -1
	if a.kind == Input {
		inKey = sys.msgKey(w.v.seg(1 + sys.n + a.ch)[a.start:a.end])
	}
	for _, p := range w.servedBy {
		if p == InheritEntry {
			if inKey >= 0 {
				w.served = append(w.served, int32(inKey))
				continue
			}
			p = int32(a.proc)
		}
		if p < 0 {
			w.served = append(w.served, -1)
			continue
		}
		if int(p) >= w.sys.n {
			panic(modelError{fmt.Sprintf("Mutex.Serves returned process %d; there are %d", p+1, w.sys.n)})
		}
		var st *S
		if int(p) == a.proc && procChanged {
			st = &w.work
		} else {
			st = w.v.Proc(int(p))
		}
		try, crit, done := mx.user(int(p), st)
		k := done
		if !try && !crit {
			k--
		}
		if k < 0 {
			w.served = append(w.served, -1)
			continue
		}
		if k >= mx.Entries {
			panic(modelError{fmt.Sprintf("process %d is at critical section %d, beyond Mutex.Entries %d", p+1, k+1, mx.Entries)})
		}
		w.served = append(w.served, p*int32(mx.Entries)+int32(k))
	}
}

// TimeIncrease implements explorer.MeasureWorker.
func (w *worker[S, M, P]) TimeIncrease() int32 { return w.lastTime }

// SyncDelay implements explorer.MeasureWorker.
func (w *worker[S, M, P]) SyncDelay() int32 { return w.lastSync }

// Served implements explorer.MeasureWorker.
func (w *worker[S, M, P]) Served(out []int32) []int32 {
	for _, k := range w.served {
		if k >= 0 {
			out = append(out, k)
		}
	}
	return out
}

// EntryKeys implements explorer.MeasureWorker.
func (w *worker[S, M, P]) EntryKeys() int {
	if w.sys.cfg.Mutex == nil {
		return 0
	}
	return w.sys.n * w.sys.cfg.Mutex.Entries
}

// EntryName implements explorer.MeasureWorker.
func (w *worker[S, M, P]) EntryName(key int) string {
	r := w.sys.cfg.Mutex.Entries
	return fmt.Sprintf("critical section %d of process %d", key%r+1, key/r+1)
}

// Entered implements explorer.MeasureWorker: whether process key/R has
// entered its critical section key%R in state s.
func (w *worker[S, M, P]) Entered(s []byte, key int) (ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError(r)
		}
	}()
	r := w.sys.cfg.Mutex.Entries
	w.load(&w.cv, s)
	_, crit, done := w.sys.cfg.Mutex.user(key/r, w.cv.Proc(key/r))
	return done > key%r || (done == key%r && crit), nil
}

// SentTypes implements explorer.TypeLister.
func (w *worker[S, M, P]) SentTypes(out []string) []string {
	return append(out, w.sentTypes...)
}
