package automaton_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// mbNode is a process of the mailbox tests: processes 1 and 2 (0 and 1)
// each send 1 then 2 to process 3 (2), which logs what it receives as
// 10*(sender+1)+value, so that its state tells who sent what and in which
// order it arrived.
type mbNode struct {
	Sent int
	Log  []int
}

func (p *mbNode) Steps(v *automaton.View[mbNode, int], out []automaton.Step) []automaton.Step {
	if v.Self() < 2 && p.Sent < 2 {
		out = append(out, automaton.Out("send", 2))
	}
	return out
}

func (p *mbNode) Do(s automaton.Step, fx *automaton.Effects[int]) {
	if s.Name != "send" {
		panic("unknown step " + s.Name)
	}
	p.Sent++
	fx.Send(2, p.Sent)
}

func (p *mbNode) Receive(from int, m int, _ *automaton.Effects[int]) {
	p.Log = append(p.Log, 10*(from+1)+m)
}

// mbSystem builds the two-senders model with channels disc and capacity.
func mbSystem(t *testing.T, disc channel.Discipline, capacity int) *automaton.System[mbNode, int, *mbNode] {
	t.Helper()
	sys, err := automaton.New(automaton.Config[mbNode, int]{
		Initial:  [][]mbNode{{{}, {}, {}}},
		Links:    []automaton.Link{{From: 0, To: 2}, {From: 1, To: 2}},
		Channels: disc,
		Capacity: capacity,
	})
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

// letter is a message in the literal model's mailbox.
type letter struct{ from, v int }

// mbState is a state of the literal model: what each sender has sent, the
// receiver's log, and the mailbox, a bag of letters kept sorted.
type mbState struct {
	sent [2]int
	log  []int
	box  []letter
}

func (s mbState) key() string { return fmt.Sprint(s.sent, s.log, s.box) }

// mbLiteral counts the states and transitions of the two-senders model by
// a next-state function written from the definition of a mailbox: one bag
// per receiver, every send adds (sender, value) to it, receive takes any
// distinct letter of it and tells the receiver its sender. mutant
// "fifo" makes each sender's letters arrive in the order sent (what a
// mailbox that treats itself as FIFO would do); "nosender" keeps only the
// values, and the receiver is told the first sender (what a mailbox that
// drops the sender would do).
func mbLiteral(mutant string) (states, transitions int64) {
	next := func(s mbState) []mbState {
		var out []mbState
		for i := range 2 {
			if s.sent[i] < 2 {
				n := mbState{sent: s.sent, log: s.log, box: slices.Clone(s.box)}
				n.sent[i]++
				l := letter{i, n.sent[i]}
				if mutant == "nosender" {
					l.from = 0
				}
				n.box = append(n.box, l)
				if mutant == "fifo" { // send order per sender, senders apart
					slices.SortStableFunc(n.box, func(a, b letter) int { return a.from - b.from })
				} else {
					slices.SortFunc(n.box, func(a, b letter) int { return (a.from*10 + a.v) - (b.from*10 + b.v) })
				}
				out = append(out, n)
			}
		}
		seen := map[letter]bool{}
		for k, l := range s.box {
			if seen[l] {
				continue
			}
			if mutant == "fifo" && slices.ContainsFunc(s.box[:k], func(o letter) bool { return o.from == l.from }) {
				continue // not the head of its sender's queue
			}
			seen[l] = true
			n := mbState{sent: s.sent, log: append(slices.Clone(s.log), 10*(l.from+1)+l.v)}
			n.box = slices.Delete(slices.Clone(s.box), k, k+1)
			out = append(out, n)
		}
		return out
	}
	seen := map[string]bool{}
	queue := []mbState{{}}
	seen[queue[0].key()] = true
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, n := range next(s) {
			transitions++
			if !seen[n.key()] {
				seen[n.key()] = true
				queue = append(queue, n)
			}
		}
	}
	return int64(len(seen)), transitions
}

// TestMailboxLiteral pins the two-senders model with a mailbox against a
// literal model of the definition, and shows that the mutants a mailbox
// could be (FIFO per sender, or without the sender) have other counts, so
// the pin catches them. The engine with FIFO channels matches the
// literal FIFO mutant, which checks the literal model itself.
func TestMailboxLiteral(t *testing.T) {
	ls, lt := mbLiteral("")
	// By hand: sender i has sent s_i in {0,1,2} letters and process 3 has
	// received a subset R_i of them, the rest being in the mailbox, in
	// any order of R_1 ∪ R_2 in the log. Per sender the sizes |R_i| over
	// (s_i, R_i) are 0 three times, 1 three times, 2 once, so the states
	// number Σ c_a·c_b·(a+b)! = 9 + 2·9 + 9·2 + 2·3·2 + 2·3·6 + 24 = 117,
	// with the 4! = 24 complete logs terminal. The transitions (170) are
	// the literal model's: a send per sender below 2, a receive per
	// letter in the mailbox.
	if ls != 117 || lt != 170 {
		t.Fatalf("literal mailbox model: %d states, %d transitions; want 117, 170", ls, lt)
	}
	r := checkAll(t, mbSystem(t, channel.Mailbox, 4))
	if r.Status != explorer.OK || r.States != ls || r.Transitions != lt || r.Terminal != 24 {
		t.Errorf("mailbox: %v, %d states, %d transitions, %d terminal; literal %d, %d, 24", r.Status, r.States, r.Transitions, r.Terminal, ls, lt)
	}
	// Unordered channels per pair: the same (one bag of letters, one bag
	// per sender: a bijection).
	if u := checkAll(t, mbSystem(t, channel.Unordered, 4)); u.States != ls || u.Transitions != lt {
		t.Errorf("unordered per pair: %d states, %d transitions; want the mailbox's %d, %d", u.States, u.Transitions, ls, lt)
	}
	// FIFO per sender: R_i is a prefix of what i sent (sizes 0 three
	// times, 1 twice, 2 once) and the log keeps each sender's order:
	// Σ c_a·c_b·C(a+b, a) = 9 + 12 + 8 + 6 + 12 + 6 = 53 states.
	for _, mutant := range []string{"fifo", "nosender"} {
		ms, mt := mbLiteral(mutant)
		if ms == ls && mt == lt {
			t.Errorf("mutant %s: %d states, %d transitions, as the mailbox: the pin would not catch it", mutant, ms, mt)
		}
		if mutant == "fifo" {
			f := checkAll(t, mbSystem(t, channel.FIFO, 4))
			if f.States != ms || f.Transitions != mt || ms != 53 {
				t.Errorf("engine FIFO: %d states, %d transitions; literal FIFO %d, %d", f.States, f.Transitions, ms, mt)
			}
		}
	}
}

// TestMailboxCapacity: the capacity bounds a receiver's whole mailbox.
// With capacity 2, two senders with two messages each fill process 3's
// mailbox with 3 messages: channel-bound is violated with mailboxes, not
// with unordered channels per pair (2 each at most): the two-sender case
// where a mailbox and per-pair channels differ.
func TestMailboxCapacity(t *testing.T) {
	r, err := explorer.Check(mbSystem(t, channel.Mailbox, 2), explorer.Config{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Violated || len(r.Violations) != 1 || r.Violations[0].Property != properties.ChannelBound {
		t.Fatalf("mailbox, capacity 2: %v %v; want channel-bound violated", r.Status, r.Violations)
	}
	if got := len(r.Violations[0].Trace.Steps); got != 3 {
		t.Errorf("counterexample of %d steps; want 3 sends", got)
	}
	u, err := explorer.Check(mbSystem(t, channel.Unordered, 2), explorer.Config{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if u.Status != explorer.OK || u.States != 117 {
		t.Errorf("unordered, capacity 2: %v, %d states; want ok, 117", u.Status, u.States)
	}
	for _, p := range mbSystem(t, channel.Mailbox, 2).Properties() {
		if p.Name == properties.ChannelBound && !strings.HasPrefix(p.Doc, "no mailbox holds more than 2 messages") {
			t.Errorf("channel-bound doc %q; want it to bound the mailbox", p.Doc)
		}
	}
}

// TestMailboxTrace: states show one mailbox_{j} per receiver, its
// letters "i:v"; receives keep their label receive(v)_{i,j}; View.Mailbox
// lists the letters with their senders.
func TestMailboxTrace(t *testing.T) {
	sys := mbSystem(t, channel.Mailbox, 4)
	init, _ := sys.Initial()
	s := init[0]
	// Process 2 sends 1, then process 1 sends 1.
	for _, want := range []string{"send(1)_{2,3}", "send(1)_{1,3}"} {
		var next []byte
		found := false
		for a := 0; ; a++ {
			l, err := sys.Label(s, a)
			if err != nil {
				break
			}
			if l == want {
				found = true
				next = successor(t, sys, s, a)
				break
			}
		}
		if !found {
			t.Fatalf("no transition %s", want)
		}
		s = next
	}
	vars, err := sys.Describe(s)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vars {
		got = append(got, fmt.Sprintf("%s=%v", v.Name, v.Value))
	}
	if want := "mailbox_{3}=[1:1 2:1]"; !slices.Contains(got, want) || slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "bag_") }) {
		t.Errorf("variables %v; want %s and no bag_", got, want)
	}
	var labels []string
	for a := 0; ; a++ {
		l, err := sys.Label(s, a)
		if err != nil {
			break
		}
		labels = append(labels, l)
	}
	for _, want := range []string{"receive(1)_{1,3}", "receive(1)_{2,3}"} {
		if !slices.Contains(labels, want) {
			t.Errorf("labels %v; want %s", labels, want)
		}
	}
	v := sys.ViewOf(s)
	letters := v.Mailbox(2, nil)
	if want := []automaton.Letter[int]{{From: 0, Msg: 1}, {From: 1, Msg: 1}}; !slices.Equal(letters, want) {
		t.Errorf("View.Mailbox(2) = %v; want %v", letters, want)
	}
	if v.Mailbox(5, nil) != nil {
		t.Error("View.Mailbox of a process outside the system is not nil")
	}
}

// TestMailboxRefusesPorts: a mailbox has one channel from each sender.
func TestMailboxRefusesPorts(t *testing.T) {
	_, err := automaton.New(automaton.Config[mbNode, int]{
		Initial:  [][]mbNode{{{}, {}, {}}},
		Chans:    []automaton.Chan[int]{{From: 0, To: 2, Port: "a"}, {From: 0, To: 2, Port: "b"}},
		Channels: channel.Mailbox,
	})
	if !errors.Is(err, automaton.ErrConfig) || !strings.Contains(err.Error(), "mailbox") {
		t.Errorf("ports with a mailbox: %v; want an ErrConfig naming the mailbox", err)
	}
}
