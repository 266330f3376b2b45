package automaton

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
)

// Mutex describes the user part of a mutual-exclusion algorithm
// (docs/properties.md) for the metrics messages-per-entry and sync-delay,
// which package mutex defines (mutex.Metrics builds it, with its Tracker).
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
//
// Config.Mutex is an adapter kept for the modules that set it: it adds its
// Tracker to the system's trackers, before Config.Trackers. New code may
// list mutex.Tracker in Config.Trackers instead.
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
	// Tracker computes the metrics; mutex.Metrics sets it from the fields
	// above.
	Tracker Tracker[S, M]
}

// InheritEntry is what Mutex.Serves returns for a message that serves
// whatever the step serves: the entry of the message the step receives (a
// request forwarded on behalf of another process, as on Raymond's tree),
// or, in a locally controlled step, the sender's own entry.
const InheritEntry = -2

// trackers lists the trackers a run may use, in the order their values sit
// in the state: Config.Mutex's (the deprecated adapter), Config.Trackers,
// then time (built in).
func (sys *System[S, M, P]) trackers() ([]Tracker[S, M], error) {
	var out []Tracker[S, M]
	if mx := sys.cfg.Mutex; mx != nil {
		if mx.Tracker == nil {
			return nil, fmt.Errorf("Config.Mutex has no Tracker (build it with mutex.Metrics, or set Config.Trackers to mutex.Tracker)")
		}
		out = append(out, mx.Tracker)
	}
	out = append(out, sys.cfg.Trackers...)
	return append(out, timeTracker[S, M]{}), nil
}

// TrackableMetrics implements explorer.MetricLister: the metrics of the
// system's trackers that Instrument accepts alone.
func (sys *System[S, M, P]) TrackableMetrics() []string {
	trs, err := sys.trackers()
	if err != nil {
		return nil
	}
	// Time first, as reports list it.
	trs = append(trs[len(trs)-1:], trs[:len(trs)-1]...)
	var out []string
	for _, tr := range trs {
		for _, name := range tr.Metrics() {
			if slices.Contains(out, name) {
				continue
			}
			if _, err := sys.Instrument([]string{name}); err == nil {
				out = append(out, name)
			}
		}
	}
	return out
}

// Instrument implements explorer.Instrumenter: the system tracking the
// metrics asked for, each through the first of its trackers (trackers)
// that computes it. What they track is part of the state, so such a run
// may have more states than a plain one (it reports its own counts).
func (sys *System[S, M, P]) Instrument(metrics []string) (explorer.Model, error) {
	trs, err := sys.trackers()
	// The metrics asked of each tracker, in the order asked.
	asked := make([][]string, len(trs))
	where := make([][2]int, len(metrics)) // tracker, index among its metrics asked
	for i, name := range metrics {
		k := slices.IndexFunc(trs, func(tr Tracker[S, M]) bool { return slices.Contains(tr.Metrics(), name) })
		if k < 0 {
			if err != nil && name != MetricTime {
				return nil, fmt.Errorf("--metric %s: %w", name, err)
			}
			return nil, fmt.Errorf("--metric %q: this spec does not track it; allowed: messages, messages:TYPE (e.g. messages:REQUEST), steps, and those it tracks: %s", name, strings.Join(sys.TrackableMetrics(), ", "))
		}
		where[i] = [2]int{k, len(asked[k])}
		asked[k] = append(asked[k], name)
	}
	cp := *sys
	cp.trk, cp.trkMetrics = nil, nil
	cp.trkProc, cp.trkMsg, cp.trkEnv = 0, 0, 0
	slot := make([]int, len(trs))
	for k, tr := range trs {
		slot[k] = -1
		if len(asked[k]) == 0 {
			continue
		}
		run, err := tr.Track(asked[k], sys.n)
		if err != nil {
			return nil, err
		}
		if got := len(run.Metrics()); got != len(asked[k]) {
			return nil, fmt.Errorf("--metric %s: the tracker describes %d metrics, not %d", strings.Join(asked[k], ","), got, len(asked[k]))
		}
		lay := run.Layout()
		slot[k] = len(cp.trk)
		cp.trk = append(cp.trk, trackSlot[S, M]{run: run, lay: lay, procOff: cp.trkProc, msgOff: cp.trkMsg, envOff: cp.trkEnv})
		cp.trkProc += lay.Proc
		cp.trkMsg += lay.Msg
		cp.trkEnv += lay.Env
	}
	if cp.trkEnv > MaxTrackEnv {
		return nil, fmt.Errorf("--metric %s: the trackers keep %d environment words; at most %d", strings.Join(metrics, ","), cp.trkEnv, MaxTrackEnv)
	}
	for i := range metrics {
		cp.trkMetrics = append(cp.trkMetrics, trackedMetric{k: slot[where[i][0]], j: where[i][1]})
	}
	if sys.cfg.Normalize != nil {
		return nil, fmt.Errorf("--metric %s tracks more in the state than this spec's state normalization (such as lamport --clocks relative or minimal) keeps; use the spec's default", strings.Join(metrics, ", "))
	}
	cp.initial = nil
	for _, init := range cp.cfg.Initial {
		cp.initial = append(cp.initial, cp.encodeInitial(init))
	}
	return &cp, nil
}

// tracking reports whether the system tracks metrics (Instrument).
func (sys *System[S, M, P]) tracking() bool { return len(sys.trk) > 0 }

// newTrackWorker sets up the worker's part of tracking.
func (w *worker[S, M, P]) newTrackWorker() {
	sys := w.sys
	if !sys.tracking() {
		return
	}
	tw := &w.tw
	tw.procBuf = make([]byte, sys.trkProc)
	for _, t := range sys.trk {
		tw.steppers = append(tw.steppers, t.run.NewStepper())
		tw.steps = append(tw.steps, TrackStep[S, M]{N: sys.n, View: &w.v, w: w,
			msgBack: sys.trkMsg - t.msgOff, msgLen: t.lay.Msg,
			procOff: t.procOff, procEnd: t.procOff + t.lay.Proc,
			msgOff: t.msgOff, msgEnd: t.msgOff + t.lay.Msg,
			envOff: t.envOff, envEnd: t.envOff + t.lay.Env})
	}
}

// procTrail returns the bytes tracker k keeps in the encoding seg of a
// process.
func (sys *System[S, M, P]) procTrail(seg []byte, k int) []byte {
	t := sys.trk[k]
	at := len(seg) - sys.trkProc + t.procOff
	if at < 0 {
		return nil
	}
	return seg[at : at+t.lay.Proc]
}

// msgTrail returns the bytes tracker k keeps in the encoding msg of a
// message.
func (sys *System[S, M, P]) msgTrail(msg []byte, k int) []byte {
	t := sys.trk[k]
	at := len(msg) - sys.trkMsg + t.msgOff
	if at < 0 {
		return nil
	}
	return msg[at : at+t.lay.Msg]
}

// trackBefore tells the trackers about transition a before its effect.
func (w *worker[S, M, P]) trackBefore(a action) {
	sys, tw := w.sys, &w.tw
	tw.forget = false
	// A recovery runs with the process marked up in the view: its sends
	// are not held, so that no stamp sees the view otherwise.
	tw.holding = a.kind != Fault
	// The trailers of the process and of the message received: what the
	// trackers keep, back to back.
	var ptrail, mtrail []byte
	if pseg := w.v.seg(1 + a.proc); len(pseg) >= sys.trkProc {
		ptrail = pseg[len(pseg)-sys.trkProc:]
	}
	if a.kind == Input {
		if msg := w.v.seg(1 + sys.n + a.ch)[a.start:a.end]; len(msg) >= sys.trkMsg {
			mtrail = msg[len(msg)-sys.trkMsg:]
		}
	}
	copy(tw.procBuf, ptrail)
	env := w.v.g.env[:]
	for k := range tw.steps {
		st := &tw.steps[k]
		st.Kind, st.Proc, st.Recover = a.kind, a.proc, a.recover
		st.Post, st.ProcChanged, st.Pass, st.Sent, st.Forget = nil, false, 0, 0, false
		st.ProcIn, st.MsgIn = nil, nil
		if ptrail != nil {
			st.ProcIn = ptrail[st.procOff:st.procEnd]
		}
		if mtrail != nil {
			st.MsgIn = mtrail[st.msgOff:st.msgEnd]
		}
		st.ProcOut = tw.procBuf[st.procOff:st.procEnd]
		st.EnvIn = env[st.envOff:st.envEnd]
		tw.steppers[k].Before(st)
	}
}

// trackStamp appends to a message's encoding what the trackers stamp on
// it.
func (w *worker[S, M, P]) trackStamp(b []byte, to int, m M) []byte {
	tw := &w.tw
	n := len(b)
	b = append(b, make([]byte, w.sys.trkMsg)...)
	trail := b[n:]
	for k := range tw.steps {
		st := &tw.steps[k]
		tw.steppers[k].Stamp(st, to, m, trail[st.msgOff:st.msgEnd])
		if to != st.Proc {
			st.Sent++
		}
	}
	return b
}

// trackEffectStart readies the trackers for a run of the effect.
func (w *worker[S, M, P]) trackEffectStart() {
	tw := &w.tw
	for k := range tw.steps {
		tw.steps[k].Sent = 0
	}
	tw.held, tw.heldMsgs, tw.heldBuf = tw.held[:0], tw.heldMsgs[:0], tw.heldBuf[:0]
}

// holdSend holds the send of m to process to on channel c, encoded and
// stamped in b, until releaseHeld.
func (w *worker[S, M, P]) holdSend(c, to int, m M, b []byte) {
	tw := &w.tw
	start := len(tw.heldBuf)
	tw.heldBuf = append(tw.heldBuf, b...)
	tw.held = append(tw.held, heldSend{c: c, to: to, start: start, end: len(tw.heldBuf)})
	tw.heldMsgs = append(tw.heldMsgs, m)
}

// trackRestamp stamps the held sends of the transition again (Pass 1),
// as a second run of the effect would, and reports whether it did: not
// when the sends were not held, or when a tracker forgets values, which
// the effect's second run does.
func (w *worker[S, M, P]) trackRestamp() bool {
	sys, tw := w.sys, &w.tw
	if !tw.holding || tw.forget {
		return false
	}
	for k := range tw.steps {
		tw.steps[k].Sent = 0
	}
	for i, h := range tw.held {
		trail := tw.heldBuf[h.end-sys.trkMsg : h.end]
		clear(trail)
		for k := range tw.steps {
			st := &tw.steps[k]
			tw.steppers[k].Stamp(st, h.to, tw.heldMsgs[i], trail[st.msgOff:st.msgEnd])
			if h.to != st.Proc {
				st.Sent++
			}
		}
	}
	return true
}

// releaseHeld sends the held sends of the transition, in the order the
// effect sent them.
func (w *worker[S, M, P]) releaseHeld() {
	tw := &w.tw
	for _, h := range tw.held {
		w.appendPend(h.c, tw.heldBuf[h.start:h.end])
	}
	tw.holding = false
	tw.held = tw.held[:0]
}

// trackAfter tells the trackers about the transition after its effect,
// with g the environment after it, and reports whether the effect must
// run again.
func (w *worker[S, M, P]) trackAfter(procChanged bool, g *globals) (again bool) {
	tw := &w.tw
	// The trackers write the environment's words in the worker's copy,
	// not in g: a slice of g kept in a TrackStep would move g, and every
	// transition's globals, to the heap.
	tw.env = g.env
	for k := range tw.steps {
		st := &tw.steps[k]
		st.Post, st.ProcChanged = &w.work, procChanged
		st.EnvOut = tw.env[st.envOff:st.envEnd]
		if tw.steppers[k].After(st) {
			again = true
		}
		if st.Forget {
			tw.forget, again = true, true
		}
	}
	g.env = tw.env
	if again {
		for k := range tw.steps {
			tw.steps[k].Pass = 1
		}
	}
	return again
}

// postSteps implements trackHost: the steps the stepping process has
// enabled in its state after the step (w.work).
func (w *worker[S, M, P]) postSteps(out []Step) []Step {
	w.v.self = w.tw.steps[0].Proc
	return P(&w.work).Steps(&w.v, out)
}

// forgetChannels puts every channel that holds messages, but skip (the one
// a receive takes its message from, which the receive clears), into w.pend
// with what the trackers that set Forget keep for its messages reset.
func (w *worker[S, M, P]) forgetChannels(skip int) {
	sys, v := w.sys, &w.v
	for c := range sys.cfg.Links {
		seg := v.seg(1 + sys.n + c)
		if len(seg) == 0 || c == skip {
			continue
		}
		w.pend[c] = w.forgetSeg(w.pend[c][:0], seg)
		w.pendSet[c] = true
		w.touched = append(w.touched, c)
	}
}

// forgetSeg appends to dst the channel state seg with what the trackers
// that set Forget keep for its messages reset, in the channel's canonical
// order.
func (w *worker[S, M, P]) forgetSeg(dst, seg []byte) []byte {
	sys, tw := w.sys, &w.tw
	channel.Each(seg, func(msg []byte) {
		tw.scratch = append(tw.scratch[:0], msg...)
		for k := range sys.trk {
			if tw.steps[k].Forget {
				tw.steppers[k].ForgetMsg(sys.msgTrail(tw.scratch, k))
			}
		}
		w.spare = sys.disc.Append(w.spare[:0], dst, tw.scratch)
		dst, w.spare = w.spare, dst
	})
	return dst
}

// forgetProcs resets, in the successor, what the trackers that set Forget
// keep for every process but keep, in place.
func (w *worker[S, M, P]) forgetProcs(keep int) {
	sys, tw := w.sys, &w.tw
	out, off := w.out, 0
	for k := 0; k <= sys.n; k++ {
		l, m := binary.Uvarint(out[off:])
		off += m + int(l)
		if k > 0 && k-1 != keep && l > 0 {
			seg := out[off-int(l) : off]
			for j := range sys.trk {
				if tw.steps[j].Forget {
					tw.steppers[j].ForgetProc(sys.procTrail(seg, j))
				}
			}
		}
	}
}

// TrackedMetrics implements explorer.TrackWorker.
func (w *worker[S, M, P]) TrackedMetrics() []explorer.TrackedMetric {
	sys := w.sys
	out := make([]explorer.TrackedMetric, len(sys.trkMetrics))
	for i, tm := range sys.trkMetrics {
		out[i] = sys.trk[tm.k].run.Metrics()[tm.j]
	}
	return out
}

// trackOrder lists the trackers of the run in the order reports show
// them: time (built in, whose values sit last) first, then the others.
func (sys *System[S, M, P]) trackOrder() []int {
	var out []int
	for k, t := range sys.trk {
		if _, ok := t.run.(timeRun[S, M]); ok {
			out = append([]int{k}, out...)
		} else {
			out = append(out, k)
		}
	}
	return out
}

// Tracks implements explorer.TrackWorker.
func (w *worker[S, M, P]) Tracks() string {
	var parts []string
	for _, k := range w.sys.trackOrder() {
		if s := w.sys.trk[k].run.Tracks(); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "; ")
}

// Track implements explorer.TrackWorker.
func (w *worker[S, M, P]) Track(i int, out []int32) []int32 {
	tm := w.sys.trkMetrics[i]
	return w.tw.steppers[tm.k].Values(tm.j, out)
}

// Reached implements explorer.TrackWorker.
func (w *worker[S, M, P]) Reached(i int, s []byte, key int) (ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError(r)
		}
	}()
	tm := w.sys.trkMetrics[i]
	w.load(&w.cv, s)
	return w.tw.steppers[tm.k].Reached(tm.j, &w.cv, key), nil
}

// SentTypes implements explorer.TypeLister.
func (w *worker[S, M, P]) SentTypes(out []string) []string {
	return append(out, w.sentTypes...)
}
