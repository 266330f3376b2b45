package automaton

import (
	"bytes"

	"github.com/vacheck/vacheck/explorer"
)

// A random simulation (package simulate) takes one successor per state and
// expands it next. ExpandPick serves it with less work than Expand:
//   - it asks Offer about every enabled transition before it performs any,
//     and performs only the one taken last, where Expand performs them all
//     to compute their keys;
//   - when the state to expand is the successor it picked last, it updates
//     the view from the segments that transition changed, keeping the
//     processes (and, when messages hold no slices, the channels) it had
//     decoded and the keys of the other segments, where Expand decodes and
//     keys the whole state again.
// The invariants are evaluated in full in every state, on the view.

// pickState is what the worker remembers of the successor ExpandPick
// emitted last, to expand it next from the view of its predecessor.
type pickState struct {
	valid bool
	loads uint64 // the view's loads when it was emitted
	out   []byte // the successor
	segs  []int  // the segments it changed
}

// ExpandPick is Expand with Offer and Emit for a caller that keeps one
// successor: Offer is asked about each enabled transition, in Expand's
// order, before any is performed, with a Transition that has only Action,
// Task and Fault set and the key 0; Emit is then called once, with the
// transition Offer took last, performed, and its successor (none if Offer
// took none). So a transition that is not taken is not performed: a model
// that panics in it is not seen to. A worker whose successors are not
// keyed (normalization, a metric's bookkeeping, action properties), or an
// Expansion that reduces, is expanded by Expand, whose Offer has every
// transition performed and whose Emit may be called several times.
func (w *worker[S, M, P]) ExpandPick(s []byte, x *explorer.Expansion) (r explorer.Expanded, err error) {
	if !w.keyed || x.Offer == nil || x.Reduce {
		return w.Expand(s, x)
	}
	defer recoverExpansion(&r, &err)
	w.loadPicked(s)
	if r.Violated = w.violations(&w.v, x.Want); r.Violated&x.Stop != 0 {
		return r, nil
	}
	r.Expanded, r.All = true, true
	w.enumerate()
	n := w.sys.n
	chosen := -1
	for i := range w.acts {
		a := &w.acts[i]
		t := explorer.Transition{Action: uint32(i), Task: int32(a.proc)}
		switch a.kind {
		case Input:
			t.Task = int32(n + a.ch)
		case Fault:
			t.Task, t.Fault = -1, true
		}
		if x.Offer(t, 0) {
			chosen = i
		}
	}
	r.Enabled = len(w.acts)
	if chosen < 0 {
		return r, nil
	}
	a := &w.acts[chosen]
	w.cur = chosen
	t, procChanged, globalsChanged, enc, _ := w.stepKeyed(a)
	t.Action = uint32(chosen)
	w.assembleWith(a.proc, procChanged, globalsChanged, enc)
	w.notePicked(a, procChanged, globalsChanged)
	x.Emit(t, w.out)
	return r, nil
}

// loadPicked loads s into w.v with its segments' keys, as loadKeyed does,
// or, when s is the successor ExpandPick emitted last and the view still
// holds its predecessor, updates the view and the keys from the segments
// that changed.
func (w *worker[S, M, P]) loadPicked(s []byte) {
	v, pk := &w.v, &w.pick
	keys := w.keys[:len(v.segs)]
	if !pk.valid || pk.loads != v.loads || !bytes.Equal(s, pk.out) {
		pk.valid = false
		w.load(v, s)
		stateKey(v, keys, w.emptyKeys)
		v.keys = keys
		v.resolve()
		return
	}
	pk.valid = false
	w.recording = false // as load: in case an effect that was recorded panicked
	v.reload(s, pk.segs, w.decodeGlobals, w.sys.mc.fresh == nil)
	for _, k := range pk.segs {
		if b := v.segs[k]; len(b) == 0 {
			keys[k] = w.emptyKeys[k]
		} else {
			keys[k] = segKey(k, b)
		}
	}
}

// notePicked remembers the successor in w.out of transition a, just
// assembled, and the segments it changed.
func (w *worker[S, M, P]) notePicked(a *action, procChanged, globalsChanged bool) {
	pk, n := &w.pick, w.sys.n
	pk.segs = pk.segs[:0]
	if globalsChanged {
		pk.segs = append(pk.segs, 0)
	}
	if procChanged {
		pk.segs = append(pk.segs, 1+a.proc)
	}
	for _, j := range w.joined {
		pk.segs = append(pk.segs, 1+j)
	}
	for _, c := range w.touched {
		pk.segs = append(pk.segs, 1+n+c)
	}
	pk.out = append(pk.out[:0], w.out...)
	pk.loads, pk.valid = w.v.loads, true
}
