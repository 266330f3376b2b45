package automaton

import (
	"fmt"
	"math/bits"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
)

// PartialOrder declares that a system may be searched with partial-order
// reduction (explorer.PartialOrder, --reduction por), and tells the
// reduction which transitions the invariants can see.
//
// Setting it is a promise about the processes, which the reduction's
// soundness rests on:
//
//   - processes interact only through channels: Steps, Do, Receive and
//     Accepts of process i read nothing but process i's own state, the step
//     or message, Self and N; never another process (View.Proc), a channel
//     (View.Chan, InTransit, ChannelsEmpty) or Up;
//   - the invariants read only process variables, and a transition that can
//     change what they read is one Visible reports.
//
// Then transitions of different processes commute, and in each state the
// search may explore only the transitions of a set of processes that no
// other process can interfere with before one of them moves (a stubborn
// set, Valmari 1990): a process whose FIFO channel from process k is empty
// brings k into the set, since k's next message could be received first;
// with unordered channels every sender does. Invariants, assertions made in
// effects, and deadlocks (with the valid-end predicate) are preserved;
// liveness properties and metrics are not, and the explorer refuses them.
// Capacity violations are caught where the search goes, as without
// reduction, but a reduced search may not go everywhere a channel is at its
// fullest: check a new model's capacity once without reduction.
//
// A process may also implement Commuter, to declare receives that commute
// with everything else it does; the reduction then explores such a receive
// alone, the strongest reduction there is.
type PartialOrder[S any] struct {
	// Visible reports whether a transition that took a process from before
	// to after may change the value of an invariant. Visible transitions
	// are never deferred: a state where the chosen set would include one is
	// expanded fully.
	Visible func(before, after *S) bool
}

// Commuter is an optional interface of a process in a system with a
// PartialOrder: it declares receives that may be done first, alone.
//
// Commutes reports whether receiving m from process from, in the process's
// current state, commutes with everything else the process can do before
// it receives m: for every sequence of the process's other transitions
// (its steps, and its receives on other channels of any message that may
// arrive meanwhile), receiving m first and then doing the sequence is
// possible whenever the sequence then receiving m is, and both leave the
// same process state and send the same messages on every channel, in the
// same order (with Config.Normalize: the same states once normalized).
// Wave algorithms have many such receives: a message of an extinguished
// wave that is dropped, or an answer that only sets a flag every later
// transition either ignores or resets.
//
// Such a receive commutes with every transition of the system: other
// processes touch neither the process nor the head of its channel. So
// when one is enabled and invisible, it alone is a stubborn set, and the
// reduction explores nothing else in that state. Commutes must only read
// the process's state and its arguments. A wrong true loses interleavings
// silently: check a new Commutes on small instances with
// automatontest.CheckReduction, which compares with the full search.
type Commuter[M Message] interface {
	Commutes(from int, m M) bool
}

// Silencer is an optional interface of a process in a system with a
// PartialOrder: it narrows the stubborn sets by telling when the process
// cannot send to a process of the set.
//
// Silent reports whether the process (index self) cannot send to process
// to as long as the processes frozen reports send it nothing new: whatever
// the other processes send it, and whatever it receives of inTransit(j),
// the messages from j already on their way to it, every way it has to
// send to to needs a message that a frozen process has not sent yet. to is
// always frozen. Silent must only read the process's state and what it is
// given. A wrong true loses interleavings silently: check a new Silent on
// small instances with automatontest.CheckReduction.
//
// Without it, a process outside the set that can move and has an empty
// FIFO channel into the set always joins it.
type Silencer[M Message] interface {
	Silent(self, to int, frozen func(j int) bool, inTransit func(j int) []M) bool
}

// Reducible implements explorer.Reducible: a system with a PartialOrder
// allows partial-order reduction.
func (sys *System[S, M, P]) Reducible() bool { return sys.cfg.PartialOrder != nil }

// reduced is Expand under Reduce for the state loaded in w.v: the
// transitions of the stubborn set of processes with the fewest enabled
// transitions (the lowest process first among equals) whose transitions are
// all invisible, or every enabled transition when no such set is smaller
// than the whole.
func (w *worker[S, M, P]) reduced(emit func(t explorer.Transition, next []byte)) (enabled int, all bool, err error) {
	defer catch(&err)
	w.assume(&w.v, OfPartialOrder, func() string { return "in the last state of the trace" })
	w.enumerate()
	if k, ok := w.commuting(); ok {
		// commuting stepped the transition last: finish its successor.
		w.finish(w.acts[k], w.lastChanged[0], w.lastChanged[1])
		t := w.lastT
		t.Action = uint32(k)
		emit(t, w.out)
		return len(w.acts), false, nil
	}
	if mask, ok := w.ample(); ok {
		for i, a := range w.acts {
			if mask&(1<<uint(a.proc)) != 0 {
				t := w.apply(a)
				t.Action = uint32(i)
				emit(t, w.out)
			}
		}
		return len(w.acts), false, nil
	}
	for i, a := range w.acts {
		t := w.apply(a)
		t.Action = uint32(i)
		emit(t, w.out)
	}
	return len(w.acts), true, nil
}

// commuting returns the index in w.acts of the first enabled receive that
// its process declares commuting (Commuter) and that is invisible, having
// stepped it last, or reports that there is none.
func (w *worker[S, M, P]) commuting() (int, bool) {
	sys, v := w.sys, &w.v
	if !sys.commuter || len(w.acts) < 2 {
		return 0, false
	}
	for k, a := range w.acts {
		if a.kind != Input || !v.Up(a.proc) {
			continue
		}
		seg := v.seg(1 + sys.n + a.ch)
		if _, err := sys.mc.dec(unsafe.Pointer(&w.accMsg), seg[a.start:a.end], &v.arena); err != nil {
			panic(err)
		}
		if !commutesMsg[S, M](P(v.Proc(a.proc)), a.proc, sys.cfg.Links[a.ch].From, w.accMsg) {
			continue
		}
		if w.invisible1(a) {
			return k, true
		}
	}
	return 0, false
}

// ample chooses the processes whose transitions form the reduced set of
// w.v, as a bit mask, or reports that there is none smaller than all.
func (w *worker[S, M, P]) ample() (uint64, bool) {
	sys, n := w.sys, w.sys.n
	if sys.cfg.PartialOrder == nil || n > 64 || len(w.acts) < 2 {
		return 0, false
	}
	w.enabledOf = slices.Grow(w.enabledOf[:0], n)[:n]
	clear(w.enabledOf)
	var active uint64
	for _, a := range w.acts {
		w.enabledOf[a.proc]++
		active |= 1 << uint(a.proc)
	}
	w.cands = w.cands[:0]
	for j := 0; j < n; j++ {
		if active&(1<<uint(j)) == 0 {
			continue
		}
		mask := w.closure(j)
		if mask&active == active {
			continue
		}
		size := 0
		for i := 0; i < n; i++ {
			if mask&(1<<uint(i)) != 0 {
				size += w.enabledOf[i]
			}
		}
		w.cands = append(w.cands, candidate{mask: mask, size: size, first: j})
	}
	slices.SortFunc(w.cands, func(a, b candidate) int {
		if a.size != b.size {
			return a.size - b.size
		}
		return a.first - b.first
	})
	for k, c := range w.cands {
		if slices.ContainsFunc(w.cands[:k], func(d candidate) bool { return d.mask == c.mask }) {
			continue // already rejected
		}
		if w.invisible(c.mask) {
			return c.mask, true
		}
	}
	return 0, false
}

// candidate is a stubborn set of processes: its mask, its number of enabled
// transitions and the process it was grown from.
type candidate struct {
	mask        uint64
	size, first int
}

// closure returns the smallest set of processes containing j that is closed
// under "may send to a member before a member moves": a process outside the
// set with an empty FIFO channel into a member (a non-empty one keeps its
// head whatever the sender does), or any unordered channel into one, joins
// the set if it can move before a member does and does not declare itself
// silent towards that member (Silencer). A process can move if it
// has an enabled transition, or if a process that can move has a channel
// to it; any other process outside the set is quiescent and stays so until
// a member moves: nothing it could receive can reach it.
func (w *worker[S, M, P]) closure(j int) uint64 {
	sys, v := w.sys, &w.v
	if w.sendsTo == nil {
		w.sendsTo = sendsTo(sys.n, sys.cfg.Links)
	}
	var enabled uint64
	for i := 0; i < sys.n; i++ {
		if w.enabledOf[i] > 0 {
			enabled |= 1 << uint(i)
		}
	}
	mask := uint64(1) << uint(j)
	for {
		// Processes outside the set that can move before it does: those
		// enabled, and those a process that can move sends to.
		moving := enabled &^ mask
		for front := moving; front != 0; {
			var next uint64
			for f := front; f != 0; f &= f - 1 {
				next |= w.sendsTo[bits.TrailingZeros64(f)]
			}
			front = next &^ (mask | moving)
			moving |= front
		}
		added := uint64(0)
		for c, l := range sys.cfg.Links {
			if mask&(1<<uint(l.To)) == 0 || moving&(1<<uint(l.From)) == 0 {
				continue
			}
			if sys.disc == channel.FIFO && len(v.seg(1+sys.n+c)) > 0 {
				continue
			}
			if sys.silencer && w.silent(l.From, l.To, mask) {
				continue
			}
			added |= 1 << uint(l.From)
		}
		if added == 0 {
			return mask
		}
		mask |= added
	}
}

// sendsTo returns, for each of n processes (at most 64), the set of
// processes it has a channel to, as a bit mask.
func sendsTo(n int, links []Link) []uint64 {
	to := make([]uint64, n)
	for _, l := range links {
		to[l.From] |= 1 << uint(l.To)
	}
	return to
}

// silent reports whether process k declares (Silencer) that it cannot send
// to process to while the processes in mask send nothing new.
func (w *worker[S, M, P]) silent(k, to int, mask uint64) bool {
	a := w.sil
	if a == nil {
		a = &silentArgs[S, M]{v: &w.v}
		a.frozen, a.inTransit = a.isFrozen, a.chanTo
		w.sil = a
	}
	a.k, a.mask = k, mask
	return any(P(w.v.Proc(k))).(Silencer[M]).Silent(k, to, a.frozen, a.inTransit)
}

// silentArgs is what worker.silent hands a Silencer: the functions frozen
// and inTransit, made once as method values of the arguments of the call.
// Closures made at every call escaped to the heap: 7% of the CPU of
// lamport --n 4 --clocks minimal --reduction por went to allocating them.
type silentArgs[S any, M Message] struct {
	v         *View[S, M]
	k         int    // the process asked
	mask      uint64 // the processes frozen
	frozen    func(j int) bool
	inTransit func(j int) []M
}

func (a *silentArgs[S, M]) isFrozen(j int) bool { return j >= 0 && j < 64 && a.mask&(1<<uint(j)) != 0 }

func (a *silentArgs[S, M]) chanTo(j int) []M { return a.v.Chan(j, a.k) }

// invisible reports whether every enabled transition of the processes in
// mask is invisible: it changes nothing Visible watches, fails no
// assertion and overfills no channel.
func (w *worker[S, M, P]) invisible(mask uint64) bool {
	for _, a := range w.acts {
		if mask&(1<<uint(a.proc)) != 0 && !w.invisible1(a) {
			return false
		}
	}
	return true
}

// invisible1 steps a (worker.step) and reports whether it is invisible: it
// changes nothing Visible watches, fails no assertion and overfills no
// channel.
func (w *worker[S, M, P]) invisible1(a action) bool {
	sys, v := w.sys, &w.v
	w.lastT, w.lastChanged[0], w.lastChanged[1] = w.step(a)
	if w.lastFailed != 0 || sys.cfg.PartialOrder.Visible(v.Proc(a.proc), &w.work) {
		return false
	}
	for _, c := range w.touched {
		if channel.Len(w.pend[c]) > sys.capacity || sys.mailbox() && w.overfillsMailbox(c) {
			return false
		}
	}
	return true
}

// VisibleProjection returns a function that maps a state of the system to
// its visible valuation, for tests of a reduction
// (automatontest.CheckReduction): the values of what the invariants see,
// as PartialOrder.Visible tells them apart. Visible compares two states of
// a process; the projection puts process states that it does not tell
// apart into one class, named by the first state of the class it met and
// shown as that state, and the valuation lists the class of every process
// (and a failed assertion). Two states have the same valuation exactly
// when no process differs visibly, so a reduction that keeps what the
// invariants see reaches the same set of valuations as the full search.
// The function may be called from several goroutines. It returns nil when
// the system has no PartialOrder, or has a Normalize: a representative's
// visible values depend on its invisible ones (shifted timestamps), so
// reduced and full searches may meet the same behaviour in different
// representatives; check the reduction on the model without Normalize.
func (sys *System[S, M, P]) VisibleProjection() func(s []byte) (string, error) {
	po := sys.cfg.PartialOrder
	if po == nil || sys.cfg.Normalize != nil {
		return nil
	}
	var mu sync.Mutex
	reps := make([][]S, sys.n)
	shown := make([][]string, sys.n)
	return func(s []byte) (key string, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = panicError(r)
			}
		}()
		v := newView[S, M](sys)
		v.load(s, sys.decodeGlobals)
		var b strings.Builder
		mu.Lock()
		defer mu.Unlock()
		for i := 0; i < sys.n; i++ {
			p := sys.protos[i]
			if _, err := sys.pc.dec(unsafe.Pointer(&p), v.seg(1+i), nil); err != nil {
				return "", err
			}
			k := slices.IndexFunc(reps[i], func(r S) bool { return !po.Visible(&r, &p) && !po.Visible(&p, &r) })
			if k < 0 {
				k = len(reps[i])
				reps[i] = append(reps[i], p)
				shown[i] = append(shown[i], fmt.Sprintf("%+v", display(reflect.ValueOf(p))))
			}
			fmt.Fprintf(&b, "p%d~%s ", i+1, shown[i][k])
		}
		if f := v.g.failed; f != 0 {
			fmt.Fprintf(&b, "failed %s", sys.cfg.Assertions[f-1].Name)
		}
		return strings.TrimSpace(b.String()), nil
	}
}
