package automaton

import (
	"unsafe"
)

// normalize replaces the successor in w.out with its representative under
// Config.Normalize: it decodes every process and channel of the successor,
// checks the assumptions of the normalization on it (where names the state
// for the message), lets Normalize rewrite them, and encodes the result.
func (w *worker[S, M, P]) normalize(where func() string) {
	sys, v := w.sys, &w.nv
	v.load(w.out, sys.decodeGlobals)
	for i := 0; i < sys.n; i++ {
		// Normalize rewrites procs[i]: decoded into memory of its own,
		// not shared with the view's cache.
		v.procArena[i].reset()
		sys.decodeProc(&v.procs[i], i, v.seg(1+i), &v.procArena[i])
		v.cur[i], v.ents[i] = &v.procs[i], nil
	}
	for c := range sys.cfg.Links {
		sys.decodeChan(v, c)
		v.chReady[c] = true
	}
	w.rewrite(where)
}

// normalizeStep is normalize for the successor that w.step and
// w.assemble left in w.out, the transition of process proc (its new state
// in w.work when procChanged): it takes the successor's processes and the
// channels the step did not touch from the expanded state, whose values
// w.v has decoded already (deep copies, which Normalize may rewrite),
// instead of decoding the successor again. Equal to normalize: a value
// and its deep copy encode alike. A step of several processes (Step.With)
// takes normalize's way.
func (w *worker[S, M, P]) normalizeStep(proc int, procChanged bool, where func() string) {
	sys, v, p := w.sys, &w.nv, &w.v
	if len(w.joined) > 0 || sys.tracking() {
		w.normalize(where)
		return
	}
	v.load(w.out, sys.decodeGlobals)
	fresh := sys.pc.fresh
	for i := 0; i < sys.n; i++ {
		if i == proc && procChanged {
			v.procs[i] = w.work
		} else {
			v.procs[i] = *p.Proc(i)
		}
		if fresh != nil {
			v.procArena[i].reset()
			fresh(unsafe.Pointer(&v.procs[i]), &v.procArena[i])
		}
		v.cur[i], v.ents[i] = &v.procs[i], nil
	}
	shallow := sys.mc.fresh == nil // messages hold no slices: a copy is deep
	for c := range sys.cfg.Links {
		switch {
		case w.pendSet[c] || !shallow:
			v.decodeChan(c)
		default:
			v.chans[c] = append(v.chans[c][:0], p.chanAt(c)...)
			v.chReady[c] = true
		}
	}
	w.rewrite(where)
}

// rewrite finishes normalize once the successor is decoded in w.nv: it
// checks the assumptions of the normalization, lets Normalize rewrite the
// values and encodes them into w.out.
func (w *worker[S, M, P]) rewrite(where func() string) {
	sys, v := w.sys, &w.nv
	w.assume(v, OfNormalize, where)
	sys.cfg.Normalize(v.procs, v.chans)
	w.norm = sys.encodeState(w.norm[:0], v.seg(0), v.procs, v.chans, &w.normScratch)
	w.out, w.norm = w.norm, w.out
}

// encodeState encodes a whole state: the environment segment g, then the
// processes, then the channels with their messages in order (an unordered
// channel sorts them).
func (sys *System[S, M, P]) encodeState(out, g []byte, procs []S, chans [][]M, scratch *normScratch) []byte {
	out = appendSeg(out, g)
	for i := range procs {
		scratch.seg = sys.pc.enc(unsafe.Pointer(&procs[i]), scratch.seg[:0])
		out = appendSeg(out, scratch.seg)
	}
	for c := range sys.cfg.Links {
		scratch.seg = scratch.seg[:0]
		for k := range chans[c] {
			scratch.msg = sys.mc.enc(unsafe.Pointer(&chans[c][k]), scratch.msg[:0])
			scratch.alt = sys.disc.Append(scratch.alt[:0], scratch.seg, scratch.msg)
			scratch.seg, scratch.alt = scratch.alt, scratch.seg
		}
		out = appendSeg(out, scratch.seg)
	}
	return out
}

// normScratch is the scratch memory of encodeState.
type normScratch struct{ seg, alt, msg []byte }

// normalizeInitial normalizes the initial state in w.out, which what names
// ("initial state 3"), and returns the model failure of an assumption it
// breaks.
func (w *worker[S, M, P]) normalizeInitial(what string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError(r)
		}
	}()
	w.normalize(func() string { return "in " + what })
	return nil
}
