package automaton

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
	"github.com/zeebo/xxh3"
)

func (sys *System[S, M, P]) numProcs() int              { return sys.n }
func (sys *System[S, M, P]) numLinks() int              { return len(sys.cfg.Links) }
func (sys *System[S, M, P]) link(c int) Link            { return sys.cfg.Links[c] }
func (sys *System[S, M, P]) crashes() int               { return sys.cfg.Crashes }
func (sys *System[S, M, P]) chanTable() []int32         { return sys.chanIdx }
func (sys *System[S, M, P]) chanIndex(from, to int) int { return chanAt(sys.chanIdx, sys.n, from, to) }

// chanAt returns the index of the channel from process from to process to
// in table (from*n+to -> index, or -1), or -1 if there is no such channel.
func chanAt(table []int32, n, from, to int) int {
	if uint(from) >= uint(n) || uint(to) >= uint(n) {
		return -1
	}
	return int(table[from*n+to])
}

// decodeProc decodes seg, an encoding of process i, into *dst, its slices
// in memory from a.
func (sys *System[S, M, P]) decodeProc(dst *S, i int, seg []byte, a *arena) {
	if len(sys.pc.consts) > 0 {
		// Constant fields come from the prototype; decoding overwrites
		// every other field and gives slices fresh memory.
		*dst = sys.protos[i]
	}
	if _, err := sys.pc.dec(unsafe.Pointer(dst), seg, a); err != nil {
		panic(fmt.Errorf("decoding process %d: %w", i+1, err))
	}
}

// decodeChan decodes the messages of channel c of v's state.
func (sys *System[S, M, P]) decodeChan(v *View[S, M], c int) {
	msgs := v.chans[c][:0]
	seg := v.seg(1 + sys.n + c)
	var zero M
	for off := 0; off < len(seg); {
		start, end := channel.Next(seg, off)
		msgs = append(msgs, zero)
		if _, err := sys.mc.dec(unsafe.Pointer(&msgs[len(msgs)-1]), seg[start:end], &v.arena); err != nil {
			panic(fmt.Errorf("decoding a message: %w", err))
		}
		off = end
	}
	v.chans[c] = msgs
}

// action is one enabled transition of the state being expanded.
type action struct {
	kind    Kind
	recover bool // Fault: recover_i rather than crash_i
	// own: the step is in the cache entry of the process's value
	// (procEntry.steps), not in worker.steps (worker.stepOf).
	own        bool
	proc       int // the process whose step, input, crash or recovery it is
	step       int // Output, Internal: index into worker.steps or procEntry.steps
	ch         int // Input: channel index
	start, end int // Input: payload bounds of the message in the channel segment
}

// worker expands states of one System for one goroutine.
type worker[S any, M Message, P Process[S, M]] struct {
	_     [cacheLine]byte // the fields are written on every transition: see ownLines
	sys   *System[S, M, P]
	v     View[S, M] // the state being expanded
	cv    View[S, M] // the state being checked
	steps []Step
	acts  []action
	dl    [][2]int

	work        S
	msg         M
	sendMsg     M
	accMsg      M
	workArena   arena
	fx          Effects[M]
	enc         []byte
	gseg        []byte
	msgBuf      []byte
	pend        [][]byte // per channel: its new segment, when touched
	pendSet     []bool
	spare       []byte
	touched     []int // channels touched by the current action
	sent        int32
	out         []byte
	keys        []uint64 // expandKeyed: the key of each segment of the expanded state
	penc        []byte   // expandKeyed: the stepping process's new segment
	emptyKeys   []uint64 // expandKeyed: the key of each segment when it is empty
	memo        bool     // stepKeyed may remember effects (memoizable)
	recording   bool     // send records what it sends, in recSends and recBuf
	recSends    []memoSend
	recBuf      []byte
	failed      int                 // 1 + the index of the assertion the current effect failed
	lastFailed  int                 // failed, for the transition apply performed last
	lastT       explorer.Transition // Reduced: the transition invisible1 stepped last
	lastChanged [2]bool             // Reduced: its process and globals changed (worker.step)
	enabledOf   []int               // Reduced: enabled transitions per process
	cands       []candidate         // Reduced: stubborn sets of processes
	sendsTo     []uint64            // Reduced: per process, the processes it has a channel to
	sil         *silentArgs[S, M]   // Reduced: the arguments of Silencer.Silent
	nv          View[S, M]          // Normalize: the successor being normalized
	av          View[S, M]          // Observe: the successor an action property judges
	cur         int                 // the index in acts of the transition being expanded (StepName)
	norm        []byte
	normScratch normScratch
	// decodeGlobals is the System's, or nil when states carry no
	// environment's bookkeeping.
	decodeGlobals func([]byte) globals
	track         bool     // record the types of the messages sent (TrackTypes)
	sentTypes     []string // types of the messages the current transition sent to others
	captureTo     int      // Label: record the first message sent to this process
	captured      *M
	capturedCh    int               // the channel of captured
	tw            trackWorker[S, M] // tracked metrics (measure.go)
	// keyed: Expand offers successors by keys computed before they are
	// built (isKeyed).
	keyed bool
	// Coverage (coverage.go): coverOn records in coverSent the types of
	// the messages the current transition sent, all of them; typeNames
	// remembers the type of each message encoding met.
	coverOn   bool
	coverSent []string
	typeNames map[string]string
	// Shared actions (Step.With): joined lists the partners the current
	// transition changed, in increasing order; parts the same with the
	// process that reported the step, for assembleShared. jwork[j] is
	// partner j's new state, jenc[j] the encoding of participant j and
	// jkey[j] its key. took reports that the current effect took messages
	// (Effects.Take), which makes it depend on the channels: it is not
	// remembered (stepKeyed).
	joined, parts []int
	jwork         []S
	jenc          [][]byte
	jkey          []uint64
	took          bool
	ckey          []byte    // Constant's scratch
	savedCur      []*S      // rememberSteps's scratch
	pick          pickState // ExpandPick (pick.go)
	_             [cacheLine]byte
}

func (sys *System[S, M, P]) newWorker() *worker[S, M, P] {
	w := &worker[S, M, P]{
		sys:       sys,
		v:         newView[S, M](sys),
		nv:        newView[S, M](sys),
		cv:        newView[S, M](sys),
		pend:      ownLines[[]byte](len(sys.cfg.Links)),
		pendSet:   ownLines[bool](len(sys.cfg.Links)),
		captureTo: -1,
		// Room for most states, with a cache line to spare (see ownLines).
		out:     ownLines[byte](256)[:0],
		enc:     ownLines[byte](256)[:0],
		msgBuf:  ownLines[byte](64)[:0],
		gseg:    ownLines[byte](64)[:0],
		spare:   ownLines[byte](256)[:0],
		touched: ownLines[int](8)[:0],
		steps:   ownLines[Step](8)[:0],
		acts:    ownLines[action](16)[:0],
		dl:      ownLines[[2]int](8)[:0],
		keys:    ownLines[uint64](1 + sys.n + len(sys.cfg.Links)),
		penc:    ownLines[byte](64)[:0],
	}
	for c := range w.pend {
		w.pend[c] = ownLines[byte](256)[:0]
	}
	w.emptyKeys = make([]uint64, len(w.keys))
	for k := range w.emptyKeys {
		w.emptyKeys[k] = segKey(k, nil)
	}
	if sys.hasGlobals() {
		w.decodeGlobals = sys.decodeGlobals
	}
	w.memo = sys.memoizable()
	w.keyed = w.isKeyed()
	w.v.memos = w.memo
	w.fx = Effects[M]{n: sys.n, send: w.send, sendPort: w.sendPort, assert: w.assert, up: func(j int) bool { return w.v.Up(j) }, take: w.take}
	w.newTrackWorker()
	return w
}

func (w *worker[S, M, P]) load(v *View[S, M], s []byte) {
	w.recording = false // in case an effect that was recorded panicked
	v.load(s, w.decodeGlobals)
}

// enumerate lists the transitions enabled in w.v: every up process's steps
// in process order, then deliveries in channel order, then crashes.
func (w *worker[S, M, P]) enumerate() {
	sys, v := w.sys, &w.v
	// Built in locals, stored when done: appending to the worker's fields
	// would store every slice header back.
	steps, acts := w.steps[:0], w.acts[:0]
	for i := 0; i < sys.n; i++ {
		if !v.Up(i) {
			continue
		}
		v.self = i
		p := v.Proc(i)
		if e := v.ents[i]; w.memo && e != nil {
			// The steps go in the cache entry of the process's value:
			// remembered there when Steps read nothing but Self and N
			// (the same for process i), asked anew otherwise.
			if e.peeks {
				e.steps = P(p).Steps(v, e.steps[:0])
				checkKinds(i, e.steps)
			} else if !e.stepsOK {
				w.rememberSteps(i, p, e)
			}
			for k := range e.steps {
				if st := &e.steps[k]; st.With == 0 || w.sharedEnabled(i, st) {
					acts = append(acts, action{kind: st.Kind, own: true, proc: i, step: k})
				}
			}
			continue
		}
		before := len(steps)
		steps = P(p).Steps(v, steps)
		checkKinds(i, steps[before:])
		for k := before; k < len(steps); k++ {
			if steps[k].With != 0 && !w.sharedEnabled(i, &steps[k]) {
				continue
			}
			acts = append(acts, action{kind: steps[k].Kind, proc: i, step: k})
		}
	}
	for c, l := range sys.cfg.Links {
		seg := v.seg(1 + sys.n + c)
		if len(seg) == 0 {
			continue
		}
		if sys.disc == channel.FIFO && !sys.accepts {
			// The head only, without Deliverables' list.
			start, end := channel.Next(seg, 0)
			acts = append(acts, action{kind: Input, proc: l.To, ch: c, start: start, end: end})
			continue
		}
		w.dl = sys.disc.Deliverables(seg, w.dl[:0])
		for _, d := range w.dl {
			if sys.accepts && v.Up(l.To) {
				if _, err := sys.mc.dec(unsafe.Pointer(&w.accMsg), seg[d[0]:d[1]], &v.arena); err != nil {
					panic(err)
				}
				if !acceptsMsg[S, M](P(v.Proc(l.To)), l.To, l.From, w.accMsg) {
					continue
				}
			}
			acts = append(acts, action{kind: Input, proc: l.To, ch: c, start: d[0], end: d[1]})
		}
	}
	if v.g.budget > 0 {
		for i := 0; i < sys.n; i++ {
			if v.Up(i) {
				acts = append(acts, action{kind: Fault, proc: i})
			}
		}
	}
	if v.g.recoveries > 0 {
		for i := 0; i < sys.n; i++ {
			if !v.Up(i) {
				acts = append(acts, action{kind: Fault, proc: i, recover: true})
			}
		}
	}
	w.steps, w.acts = steps, acts
}

// rememberSteps asks the Steps of process i, whose value p is that of
// cache entry e, for e.steps, and remembers the answer (stepsOK) when
// Steps read nothing of the view but Self and N: then every state where
// process i has this value enables the same steps. Otherwise it marks the
// entry (peeks), whose steps enumerate asks anew in each state: whether
// Steps reads the view is decided by the value alone, since until its
// first read it sees nothing else. Every method of View that reads the
// state sets peeked, Proc in decodeProc, which it reaches here since the
// view's decoded processes are hidden for the call (cur cleared) and put
// back after it.
func (w *worker[S, M, P]) rememberSteps(i int, p *S, e *procEntry[S]) {
	v := &w.v
	saved := append(w.savedCur[:0], v.cur...)
	clear(v.cur)
	v.peeked = false
	e.steps = P(p).Steps(v, e.steps[:0])
	copy(v.cur, saved)
	w.savedCur = saved
	checkKinds(i, e.steps)
	e.stepsOK, e.peeks = !v.peeked, v.peeked
}

// checkKinds panics unless every step process i reported is an Output or
// Internal one.
func checkKinds(i int, steps []Step) {
	for k := range steps {
		if kind := steps[k].Kind; kind != Output && kind != Internal {
			panic(modelError{fmt.Sprintf("process %d: step %q has kind %v; Steps reports Output or Internal steps", i+1, steps[k].Name, kind)})
		}
	}
}

// stepOf returns the step of action a, an Output or Internal one: in the
// cache entry of its process's value when enumerate took it from there
// (own), else in w.steps.
func (w *worker[S, M, P]) stepOf(a *action) *Step {
	if a.own {
		return &w.v.ents[a.proc].steps[a.step]
	}
	return &w.steps[a.step]
}

// Expand implements explorer.Worker. The invariants are evaluated on the
// view the steps then read, so that each process is decoded once for both.
// With Offer, a worker whose successors can be told apart before they are
// built (keyed) offers each by a key it computes from the segments the
// transition changes; otherwise it builds each successor and offers it by
// a hash of its encoding.
func (w *worker[S, M, P]) Expand(s []byte, x *explorer.Expansion) (r explorer.Expanded, err error) {
	if x.Offer != nil && w.keyed {
		return w.expandKeyed(s, x)
	}
	if r.Violated, r.CheckErr = w.check(&w.v, s, x.Want); r.CheckErr != nil || r.Violated&x.Stop != 0 {
		return r, nil
	}
	r.Expanded = true
	if x.Reduce && w.sys.cfg.PartialOrder != nil {
		r.Enabled, r.All, err = w.reduced(x.Emit)
		return r, err
	}
	r.Enabled, err = w.expand(x)
	r.All = true
	return r, err
}

// catch turns a panic of the model into the error *err; it is deferred.
func catch(err *error) {
	if r := recover(); r != nil {
		*err = panicError(r)
	}
}

// expand emits the successors of the state loaded in w.v, offering each
// first when x has Offer.
func (w *worker[S, M, P]) expand(x *explorer.Expansion) (n int, err error) {
	defer catch(&err)
	w.enumerate()
	actions := w.sys.obs != nil && len(w.sys.obs.o.Actions) > 0
	for i, a := range w.acts {
		w.cur = i
		t := w.apply(a)
		if actions {
			t = w.checkActions(a, t)
		}
		t.Action = uint32(i)
		if x.Offer == nil || x.Offer(t, explorer.SuccessorKey(w.out)) {
			x.Emit(t, w.out)
		}
	}
	return len(w.acts), nil
}

func panicError(r any) error {
	if e, ok := r.(modelError); ok {
		return e
	}
	return fmt.Errorf("the model panicked: %v", r)
}

// decodeWork puts process i of the expanded state into w.work: a deep copy
// of the view's decoded value (which enumerate decoded already for Steps),
// its slices in fresh memory from w.workArena, equal to decoding it again.
func (w *worker[S, M, P]) decodeWork(i int) {
	w.work = *w.v.Proc(i)
	if f := w.sys.pc.fresh; f != nil {
		f(unsafe.Pointer(&w.work), &w.workArena)
	}
}

// apply performs transition a of w.v and leaves the successor in w.out.
func (w *worker[S, M, P]) apply(a action) explorer.Transition {
	t, procChanged, globalsChanged := w.step(a)
	w.finish(a, procChanged, globalsChanged)
	return t
}

// step performs transition a of w.v on the worker's scratch state: the
// process's new state in w.work, the channels it changed in w.pend, the
// globals in w.gseg. finish then writes the successor; partial-order
// reduction inspects a step without paying for that.
func (w *worker[S, M, P]) step(a action) (t explorer.Transition, procChanged, globalsChanged bool) {
	sys := w.sys
	tracking := sys.tracking()
	if tracking {
		w.trackBefore(a)
	}
	t, procChanged = w.effect(a)
	if a.kind != Fault && w.failed == 0 && !tracking {
		// Nothing the environment keeps can change (the common case).
		w.lastFailed = 0
		return t, procChanged, false
	}
	g := w.v.g
	if a.kind == Fault {
		if a.recover {
			g.recoveries--
			g.down &^= 1 << uint(a.proc)
		} else {
			g.budget--
			g.down |= 1 << uint(a.proc)
		}
		t.Task, t.Fault = -1, true
	}
	if tracking && w.trackAfter(procChanged, &g) && !w.trackRestamp() {
		// A tracker stamps the messages anew (the keys it learnt from the
		// step, or values it forgets), and the sends were not held to be
		// stamped again: run the effect again.
		t, procChanged = w.effect(a)
	}
	if tracking {
		w.releaseHeld()
	}
	w.lastFailed = w.failed
	if w.failed != 0 {
		g.failed = w.failed
		w.failed = 0
	}
	return t, procChanged, w.settleGlobals(g)
}

// settleGlobals makes w.gseg the encoding of g, the environment's
// bookkeeping after a step, unless it is that of the expanded state, and
// reports whether it is not.
func (w *worker[S, M, P]) settleGlobals(g globals) bool {
	if g == w.v.g {
		return false
	}
	w.gseg = w.sys.encodeGlobals(w.gseg[:0], g)
	return true
}

// untouch forgets the channels the last step touched.
func (w *worker[S, M, P]) untouch() {
	for _, c := range w.touched {
		w.pendSet[c] = false
	}
	w.touched = w.touched[:0]
	w.joined = w.joined[:0]
	w.took = false
}

// removeDelivered makes the new segment of delivery a's channel the
// channel without the message delivered, and returns the channel's segment
// in the expanded state.
func (w *worker[S, M, P]) removeDelivered(a *action) []byte {
	seg := w.v.seg(1 + w.sys.n + a.ch)
	w.pend[a.ch] = w.sys.disc.Remove(w.pend[a.ch][:0], seg, a.start, a.end)
	w.pendSet[a.ch] = true
	w.touched = append(w.touched, a.ch)
	return seg
}

// effect performs the effect of transition a on the worker's scratch state
// (the process in w.work, the channels in w.pend) and returns the
// transition's description, without the environment's bookkeeping.
func (w *worker[S, M, P]) effect(a action) (t explorer.Transition, procChanged bool) {
	sys, v := w.sys, &w.v
	w.workArena.reset()
	w.untouch()
	w.sent = 0
	w.sentTypes = w.sentTypes[:0]
	if w.coverOn {
		w.coverSent = w.coverSent[:0]
	}
	if w.sys.tracking() {
		w.trackEffectStart()
		if w.tw.forget {
			skip := -1
			if a.kind == Input {
				skip = a.ch
			}
			w.forgetChannels(skip)
		}
	}
	t = explorer.Transition{Task: int32(a.proc)}
	switch a.kind {
	case Output, Internal:
		w.decodeWork(a.proc)
		w.fx.self = a.proc
		st := w.stepOf(&a)
		P(&w.work).Do(*st, &w.fx)
		procChanged = true
		if st.With != 0 {
			w.join(a.proc, *st)
		}
	case Input:
		seg := w.removeDelivered(&a)
		if w.tw.forget {
			w.tw.scratch2 = append(w.tw.scratch2[:0], w.pend[a.ch]...)
			w.pend[a.ch] = w.forgetSeg(w.pend[a.ch][:0], w.tw.scratch2)
		}
		t.Task = int32(sys.n + a.ch)
		if v.Up(a.proc) {
			if _, err := sys.mc.dec(unsafe.Pointer(&w.msg), seg[a.start:a.end], &w.workArena); err != nil {
				panic(err)
			}
			w.decodeWork(a.proc)
			w.fx.self = a.proc
			w.fx.port = sys.portOf(a.ch)
			P(&w.work).Receive(sys.cfg.Links[a.ch].From, w.msg, &w.fx)
			w.fx.port = ""
			procChanged = true
		}
	case Fault:
		if a.recover {
			// recover_i: the recovery action runs as the process is up
			// again, so that fx.Up(self) is true inside Recover; step
			// does the environment's bookkeeping.
			v.g.down &^= 1 << uint(a.proc)
			w.decodeWork(a.proc)
			w.fx.self = a.proc
			any(&w.work).(Recoverer[M]).Recover(&w.fx)
			v.g.down |= 1 << uint(a.proc)
			procChanged = true
		}
	}
	t.Messages = w.sent
	return t, procChanged
}

// finish writes the successor of the last step into w.out: the state of
// w.v with the changed segments replaced, normalized.
func (w *worker[S, M, P]) finish(a action, procChanged, globalsChanged bool) {
	w.assemble(a.proc, procChanged, globalsChanged)
	if w.tw.forget {
		w.forgetProcs(a.proc)
	}
	if w.sys.cfg.Normalize != nil {
		w.normalizeStep(a.proc, procChanged, func() string {
			return "after " + w.actionLabel(a) + " from the last state of the trace, before normalization"
		})
	}
}

// assemble writes the successor into w.out: the expanded state with the
// changed segments replaced, the process's (when it changed) encoded from
// w.work in place.
func (w *worker[S, M, P]) assemble(proc int, procChanged, globalsChanged bool) {
	w.assembleWith(proc, procChanged, globalsChanged, nil)
}

// assembleWith is assemble with the process's new segment enc, when it is
// encoded already (expandKeyed), or encoded from w.work when enc is nil.
func (w *worker[S, M, P]) assembleWith(proc int, procChanged, globalsChanged bool, enc []byte) {
	if len(w.joined) > 0 {
		w.assembleShared(proc, globalsChanged, enc)
		return
	}
	v, n := &w.v, w.sys.n
	// Channels touched, in segment order (insertion sort: there are few).
	t := w.touched
	for i := 1; i < len(t); i++ {
		for j := i; j > 0 && t[j] < t[j-1]; j-- {
			t[j], t[j-1] = t[j-1], t[j]
		}
	}
	out, pos := w.out[:0], 0
	if globalsChanged {
		out, pos = w.put(out, pos, 0, w.gseg)
	}
	if procChanged && enc != nil {
		out, pos = w.put(out, pos, 1+proc, enc)
	} else if procChanged {
		out = append(out, v.state[pos:v.bounds[proc][1]]...)
		pos = v.bounds[1+proc][1]
		// One byte for the length, moved along in the rare case that the
		// encoding is 128 bytes or longer.
		hdr := len(out)
		out = append(out, 0)
		out = w.sys.pc.enc(unsafe.Pointer(&w.work), out)
		out = append(out, w.tw.procBuf...)
		if l := len(out) - hdr - 1; l < 0x80 {
			out[hdr] = byte(l)
		} else {
			w.enc = append(w.enc[:0], out[hdr+1:]...)
			out = binary.AppendUvarint(out[:hdr], uint64(l))
			out = append(out, w.enc...)
		}
	}
	for _, c := range t {
		out, pos = w.put(out, pos, 1+n+c, w.pend[c])
	}
	w.out = append(out, v.state[pos:]...)
}

// put appends to out the expanded state from pos up to segment k, then b as
// segment k, and returns out and the position after segment k.
func (w *worker[S, M, P]) put(out []byte, pos, k int, b []byte) ([]byte, int) {
	hdr := 0
	if k > 0 {
		hdr = w.v.bounds[k-1][1]
	}
	out = append(out, w.v.state[pos:hdr]...)
	if len(b) < 0x80 {
		out = append(out, byte(len(b)))
	} else {
		out = binary.AppendUvarint(out, uint64(len(b)))
	}
	return append(out, b...), w.v.bounds[k][1]
}

// send performs send(m)_{self,to}: the process's output jointly with the
// channel's input.
func (w *worker[S, M, P]) send(to int, m M) {
	sys, self := w.sys, w.fx.self
	c := sys.chanIndex(self, to)
	if c < 0 {
		if c == chanAmbiguous {
			panic(modelError{fmt.Sprintf("process %d sent %v to process %d, which it has several channels to, each with a port: send with SendPort", self+1, m, to+1)})
		}
		panic(modelError{fmt.Sprintf("process %d sent %v to process %d, but there is no channel %d→%d", self+1, m, to+1, self+1, to+1)})
	}
	w.sendOn(c, to, m)
}

// sendOn performs send(m)_{self,to} on channel c, one from the process to
// process to.
func (w *worker[S, M, P]) sendOn(c, to int, m M) {
	sys, self := w.sys, w.fx.self
	if w.captureTo == to && w.captured == nil {
		mm := m
		w.captured, w.capturedCh = &mm, c
	}
	// Encode from a field: taking the address of m would move every
	// message to the heap.
	w.sendMsg = m
	w.msgBuf = sys.mc.enc(unsafe.Pointer(&w.sendMsg), w.msgBuf[:0])
	if w.coverOn {
		w.noteSent(m)
	}
	if sys.tracking() {
		w.msgBuf = w.trackStamp(w.msgBuf, to, m)
	}
	if w.tw.holding {
		w.holdSend(c, to, m, w.msgBuf)
	} else {
		w.appendPend(c, w.msgBuf)
	}
	if w.recording {
		w.recBuf = append(w.recBuf, w.msgBuf...)
		w.recSends = append(w.recSends, memoSend{c: int32(c), end: int32(len(w.recBuf))})
	}
	if to != self {
		w.sent++
		if w.track {
			w.sentTypes = append(w.sentTypes, messageType(m))
		}
	}
}

// appendPend appends the encoded message msg to channel c's new segment.
func (w *worker[S, M, P]) appendPend(c int, msg []byte) {
	sys := w.sys
	if !w.pendSet[c] {
		w.pend[c] = sys.disc.Append(w.pend[c][:0], w.v.seg(1+sys.n+c), msg)
		w.pendSet[c] = true
		w.touched = append(w.touched, c)
	} else {
		w.spare = sys.disc.Append(w.spare[:0], w.pend[c], msg)
		w.pend[c], w.spare = w.spare, w.pend[c]
	}
}

// TrackTypes implements explorer.TypedWorker.
func (w *worker[S, M, P]) TrackTypes(on bool) { w.track = on }

// SentOfType implements explorer.TypedWorker: the number of messages of
// type typ the transition just applied sent to other processes.
func (w *worker[S, M, P]) SentOfType(typ string) int {
	n := 0
	for _, t := range w.sentTypes {
		if t == typ {
			n++
		}
	}
	return n
}

// MessageTyper is an optional interface of a message type that names the
// kind of each message (REQUEST, ACK, ...) for the metric messages:TYPE.
// Without it, the type is what the message prints before its first "(":
// REQUEST(2,1) is a REQUEST.
type MessageTyper interface {
	MessageType() string
}

func messageType(m any) string {
	if t, ok := m.(MessageTyper); ok {
		return t.MessageType()
	}
	s := fmt.Sprint(m)
	if i := strings.IndexByte(s, '('); i >= 0 {
		return s[:i]
	}
	return s
}

// assert records a failed assertion of the current effect.
// The name is checked whether or not the assertion holds, so that a
// misspelled or undeclared assertion is an error the first time it is
// reached, not only when it fails.
func (w *worker[S, M, P]) assert(name string, ok bool) {
	k := slices.IndexFunc(w.sys.cfg.Assertions, func(a Assertion) bool { return a.Name == name })
	if k < 0 {
		var names []string
		for _, a := range w.sys.cfg.Assertions {
			names = append(names, strconv.Quote(a.Name))
		}
		panic(modelError{fmt.Sprintf("process %d asserted %q, which is not among the Config's Assertions (declared: %s)", w.fx.self+1, name, strings.Join(names, ", "))})
	}
	if !ok && w.failed == 0 {
		w.failed = k + 1
	}
}

// Check implements explorer.Worker.
func (w *worker[S, M, P]) Check(s []byte, want uint64) (mask uint64, err error) {
	return w.check(&w.cv, s, want)
}

// check is Check with s loaded in v, where it stays.
func (w *worker[S, M, P]) check(v *View[S, M], s []byte, want uint64) (mask uint64, err error) {
	defer catch(&err)
	w.load(v, s)
	return w.violations(v, want), nil
}

// violations returns, as a mask, every property among want that the state
// loaded in v violates.
func (w *worker[S, M, P]) violations(v *View[S, M], want uint64) (mask uint64) {
	invs := w.sys.cfg.Invariants
	for k := range invs {
		if want&(1<<uint(k)) != 0 && !invs[k].Holds(v) {
			mask |= 1 << uint(k)
		}
	}
	if f := v.g.failed; f != 0 {
		mask |= want & (1 << uint(len(w.sys.cfg.Invariants)+f-1))
	}
	bound := uint64(1) << uint(len(w.sys.cfg.Invariants)+len(w.sys.cfg.Assertions))
	if want&bound == 0 {
		return mask
	}
	if w.sys.mailbox() {
		if w.sys.mailboxOver(v) {
			return mask | bound
		}
		return mask
	}
	n := w.sys.n
	for c := range w.sys.cfg.Links {
		if seg := v.seg(1 + n + c); len(seg) > w.sys.capacity && channel.Len(seg) > w.sys.capacity {
			return mask | bound
		}
	}
	return mask
}

// ValidEnd implements explorer.Worker.
func (w *worker[S, M, P]) ValidEnd(s []byte) (ok bool, err error) {
	if w.sys.cfg.ValidEnd == nil {
		return true, nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = panicError(r)
		}
	}()
	w.load(&w.cv, s)
	return w.sys.cfg.ValidEnd(&w.cv), nil
}

// Constant implements explorer.ConstantWorker: a hash of what
// Config.Constant encodes of s, if the Config declares it.
func (w *worker[S, M, P]) Constant(s []byte) (h uint64, ok bool, err error) {
	f := w.sys.cfg.Constant
	if f == nil {
		return 0, false, nil
	}
	defer catch(&err)
	w.load(&w.cv, s)
	w.ckey = f(&w.cv, w.ckey[:0])
	return xxh3.Hash(w.ckey), true, nil
}

// boundedWorker is the worker of a system with a Bound: only such workers
// are explorer.Bounders.
type boundedWorker[S any, M Message, P Process[S, M]] struct{ *worker[S, M, P] }

// InBound implements explorer.Bounder: whether s is inside Config.Constraint.
func (w boundedWorker[S, M, P]) InBound(s []byte) (ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError(r)
		}
	}()
	w.load(&w.cv, s)
	return w.sys.cfg.Bound(&w.cv), nil
}
