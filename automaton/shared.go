package automaton

import (
	"bytes"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"unsafe"
)

// Shared actions (Step.With) and steps that take messages (Effects.Take)
// change more than one process, or a process and the channels into it, in
// one transition. The worker keeps the one-process path as it is and does
// the rest here: the partners' new states in worker.jwork, one buffer per
// participant, their encodings in worker.jenc, and a successor assembled
// from all of them (assembleShared).

// sharedEnabled reports whether the shared step st of process i can be
// performed: every partner is up. A partner that is no process, the
// process itself, or a process type that does not implement Joiner is a
// modelling error.
func (w *worker[S, M, P]) sharedEnabled(i int, st *Step) bool {
	sys := w.sys
	if !sys.joiner {
		panic(modelError{fmt.Sprintf("process %d: step %s names partners (a shared action), but %T does not implement Joiner (Join(s Step, from int, fx *Effects[M])), through which a partner takes part", i+1, st.Name, new(S))})
	}
	if st.With&(1<<uint(i)) != 0 || (sys.n < 64 && st.With>>uint(sys.n) != 0) {
		panic(modelError{fmt.Sprintf("process %d: step %s names partners %s; a shared action's partners are other processes, 1 to %d", i+1, st.Name, oneBased(st.Partners()), sys.n)})
	}
	if sys.tracking() {
		panic(modelError{fmt.Sprintf("process %d: step %s is a shared action, which tracked metrics (--metric time and the like) do not handle; drop the metric", i+1, st.Name)})
	}
	return w.v.g.down&st.With == 0
}

// oneBased formats process indices as traces number them: {2,3}.
func oneBased(procs []int) string {
	s := make([]string, len(procs))
	for k, j := range procs {
		s[k] = fmt.Sprint(j + 1)
	}
	return "{" + strings.Join(s, ",") + "}"
}

// join performs the partners' part of the shared step st of process i,
// whose own part is done: each partner, in increasing order, applies its
// Join to a copy of its state in jwork. It leaves the partners in
// w.joined and every participant in w.parts.
func (w *worker[S, M, P]) join(i int, st Step) {
	if w.jwork == nil {
		n := w.sys.n
		w.jwork = make([]S, n)
		w.jenc = make([][]byte, n)
		w.jkey = make([]uint64, n)
	}
	w.parts = w.parts[:0]
	for m := st.With; m != 0; m &= m - 1 {
		j := bits.TrailingZeros64(m)
		w.jwork[j] = *w.v.Proc(j)
		if f := w.sys.pc.fresh; f != nil {
			f(unsafe.Pointer(&w.jwork[j]), &w.workArena)
		}
		w.fx.self = j
		any(P(&w.jwork[j])).(Joiner[M]).Join(st, i, &w.fx)
		w.joined = append(w.joined, j)
		w.parts = append(w.parts, j)
	}
	w.fx.self = i
	k, _ := slices.BinarySearch(w.parts, i)
	w.parts = slices.Insert(w.parts, k, i)
}

// encodeJoined encodes every partner of the last shared step into jenc,
// with its key in jkey.
func (w *worker[S, M, P]) encodeJoined() {
	for _, j := range w.joined {
		w.jenc[j] = w.sys.pc.enc(unsafe.Pointer(&w.jwork[j]), w.jenc[j][:0])
		w.jkey[j] = segKey(1+j, w.jenc[j])
	}
}

// assembleShared is assembleWith for a shared step of process proc: the
// successor with every participant's segment replaced (proc's is enc when
// given, else encoded from w.work; the partners' are encoded now unless
// encodeJoined did it), and the channels touched.
func (w *worker[S, M, P]) assembleShared(proc int, globalsChanged bool, enc []byte) {
	v, n := &w.v, w.sys.n
	if enc == nil {
		w.jenc[proc] = w.sys.pc.enc(unsafe.Pointer(&w.work), w.jenc[proc][:0])
		w.encodeJoined()
	} else {
		w.jenc[proc] = append(w.jenc[proc][:0], enc...)
	}
	t := w.touched
	slices.Sort(t)
	out, pos := w.out[:0], 0
	if globalsChanged {
		out, pos = w.put(out, pos, 0, w.gseg)
	}
	for _, j := range w.parts {
		out, pos = w.put(out, pos, 1+j, w.jenc[j])
	}
	for _, c := range t {
		out, pos = w.put(out, pos, 1+n+c, w.pend[c])
	}
	w.out = append(out, v.state[pos:]...)
}

// take removes from the channel from process from to the process the
// effect runs in (on port *port when port is not nil) the message it
// delivers first, or, with match, the message *m where the channel can
// deliver it, and returns it (Effects.Take, Effects.Consume and their
// port forms).
func (w *worker[S, M, P]) take(from int, port *string, m *M, match bool) M {
	sys, self := w.sys, w.fx.self
	verb := "took a message"
	if match {
		verb = fmt.Sprintf("consumed %s", msgString(*m))
	}
	if sys.cfg.PartialOrder != nil {
		panic(modelError{fmt.Sprintf("process %d %s from process %d's channel inside an effect (Effects.Take), but the system has a PartialOrder, whose processes interact only through their receives; drop the PartialOrder", self+1, verb, from+1)})
	}
	if sys.tracking() {
		panic(modelError{fmt.Sprintf("process %d %s from process %d's channel inside an effect (Effects.Take), which tracked metrics (--metric time and the like) do not handle; drop the metric", self+1, verb, from+1)})
	}
	c := sys.chanIndex(from, self)
	if port != nil {
		c = sys.portChan(from, self, *port)
		if c < 0 {
			panic(modelError{fmt.Sprintf("process %d %s from process %d on port %q, but there is no such channel %d→%d", self+1, verb, from+1, *port, from+1, self+1)})
		}
	}
	if c == chanAmbiguous {
		panic(modelError{fmt.Sprintf("process %d %s from process %d, which has several channels to it, each with a port: take with TakePort or ConsumePort", self+1, verb, from+1)})
	}
	if c < 0 {
		panic(modelError{fmt.Sprintf("process %d %s from process %d, but there is no channel %d→%d", self+1, verb, from+1, from+1, self+1)})
	}
	seg := w.v.seg(1 + sys.n + c)
	if w.pendSet[c] {
		seg = w.pend[c]
	}
	w.dl = sys.disc.Deliverables(seg, w.dl[:0])
	k := 0
	if match {
		w.sendMsg = *m
		w.msgBuf = sys.mc.enc(unsafe.Pointer(&w.sendMsg), w.msgBuf[:0])
		k = slices.IndexFunc(w.dl, func(d [2]int) bool { return bytes.Equal(seg[d[0]:d[1]], w.msgBuf) })
	}
	if len(w.dl) == 0 || k < 0 {
		what := "it is empty"
		if len(w.dl) > 0 {
			what = "it cannot deliver that message now"
		}
		panic(modelError{fmt.Sprintf("process %d %s from channel %d→%d, but %s; the step's precondition (in Steps) must make sure of it", self+1, verb, from+1, self+1, what)})
	}
	d := w.dl[k]
	var out M
	if _, err := sys.mc.dec(unsafe.Pointer(&out), seg[d[0]:d[1]], &w.workArena); err != nil {
		panic(err)
	}
	if w.pendSet[c] {
		w.spare = sys.disc.Remove(w.spare[:0], seg, d[0], d[1])
		w.pend[c], w.spare = w.spare, w.pend[c]
	} else {
		w.pend[c] = sys.disc.Remove(w.pend[c][:0], seg, d[0], d[1])
		w.pendSet[c] = true
		w.touched = append(w.touched, c)
	}
	w.took = true
	return out
}
