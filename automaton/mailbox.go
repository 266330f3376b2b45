package automaton

import (
	"fmt"
	"reflect"

	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
)

// Mailboxes (Config.Channels = channel.Mailbox): each receiver j has one
// bag fed by every process with a channel to j (Config.Links decides who
// may send to whom). The bag holds (sender, message) pairs; it is stored
// as the sub-bags of the channels i→j, each sorted, which is the bag
// sorted by sender then message: a canonical encoding, so equal mailboxes
// are equal states. Sends, receives, symmetry, partial-order reduction,
// Normalize and View.Chan therefore work on the channels i→j exactly as
// for unordered channels, and a receive keeps its label receive(v)_{i,j}.
// What is the mailbox's own:
//   - the capacity (channel-bound) bounds the whole bag of each receiver;
//   - Describe shows one variable mailbox_{j} per receiver that has a
//     sender, each message as "i:v" (from process i, value v);
//   - View.Mailbox lists a receiver's bag.

// mailbox reports whether the system's channels are mailboxes.
func (sys *System[S, M, P]) mailbox() bool { return sys.disc == channel.Mailbox }

// checkMailbox refuses what a mailbox does not support: several channels
// between a pair (ports), whose messages a mailbox would have to tell
// apart by port as well as by sender.
func (sys *System[S, M, P]) checkMailbox() error {
	if !sys.mailbox() {
		return nil
	}
	for c, shown := range sys.showPort {
		if shown {
			l := sys.cfg.Links[c]
			return fmt.Errorf("%w: mailboxes (channel.Mailbox) with several channels from process %d to process %d (ports): a mailbox has one bag per receiver, with at most one channel from each sender", ErrConfig, l.From, l.To)
		}
	}
	return nil
}

// receivers returns, in increasing order, the processes that some channel
// leads to: those that have a mailbox.
func (sys *System[S, M, P]) receivers() []int {
	has := make([]bool, sys.n)
	for _, l := range sys.cfg.Links {
		has[l.To] = true
	}
	var out []int
	for j, ok := range has {
		if ok {
			out = append(out, j)
		}
	}
	return out
}

// mailboxOver reports whether some receiver's mailbox in the state loaded
// in v holds more than the capacity, counting every sender's messages.
func (sys *System[S, M, P]) mailboxOver(v *View[S, M]) bool {
	var buf [64]int
	total := buf[:0]
	if sys.n > len(buf) {
		total = make([]int, 0, sys.n)
	}
	total = total[:sys.n]
	for c, l := range sys.cfg.Links {
		seg := v.seg(1 + sys.n + c)
		if len(seg) == 0 {
			continue
		}
		total[l.To] += channel.Len(seg)
		if total[l.To] > sys.capacity {
			return true
		}
	}
	return false
}

// describeMailboxes appends to vars one variable mailbox_{j} per receiver
// j, its messages as "i:v", sender by sender in increasing order, each
// sender's in canonical order (reports reorder them by send order).
func (sys *System[S, M, P]) describeMailboxes(vars []explorer.Var, v *View[S, M]) []explorer.Var {
	for _, j := range sys.receivers() {
		msgs := []any{}
		for c, l := range sys.cfg.Links {
			if l.To != j {
				continue
			}
			for _, m := range v.chanAt(c) {
				msgs = append(msgs, fmt.Sprintf("%d:%v", l.From+1, display(reflect.ValueOf(m))))
			}
		}
		vars = append(vars, explorer.Var{Name: fmt.Sprintf("mailbox_{%d}", j+1), Value: msgs})
	}
	return vars
}

// Letter is a message in a mailbox with the process that sent it
// (0-based).
type Letter[M Message] struct {
	From int
	Msg  M
}

// Mailbox appends to out the messages in transit to process to, with
// their senders: with mailboxes (channel.Mailbox), its mailbox, sender by
// sender in increasing order and each sender's in canonical order; with
// other disciplines, the same from every channel to it. It returns nil
// for a process outside the system.
func (v *View[S, M]) Mailbox(to int, out []Letter[M]) []Letter[M] {
	if uint(to) >= uint(v.N()) {
		return nil
	}
	for c := 0; c < v.sys.numLinks(); c++ {
		l := v.sys.link(c)
		if l.To != to {
			continue
		}
		for _, m := range v.chanAt(c) {
			out = append(out, Letter[M]{From: l.From, Msg: m})
		}
	}
	return out
}

// bounded names what the capacity bounds, for channel-bound's doc.
func (sys *System[S, M, P]) bounded() string {
	if sys.mailbox() {
		return "mailbox"
	}
	return "channel"
}

// overfillsMailbox reports whether, after the step the worker performed
// last, the mailbox channel c leads to holds more than the capacity: its
// channels' new segments where the step touched them, their segments in
// the expanded state elsewhere.
func (w *worker[S, M, P]) overfillsMailbox(c int) bool {
	sys := w.sys
	to, total := sys.cfg.Links[c].To, 0
	for k, l := range sys.cfg.Links {
		if l.To != to {
			continue
		}
		seg := w.v.seg(1 + sys.n + k)
		if w.pendSet[k] {
			seg = w.pend[k]
		}
		total += channel.Len(seg)
	}
	return total > sys.capacity
}
