// Package msc builds message sequence charts from counterexamples and
// metric witnesses: one lifeline per process, the steps in order, and an
// arrow from each send to its receive. It renders them as text (Text) and
// as a self-contained HTML page (HTML).
//
// Message events are derived from the channel variables queue_{i,j} (FIFO)
// and bag_{i,j} (unordered) of the states, and from mailbox_{j} (a
// receiver's mailbox, each message as "i:v", sent by i), not from the action labels,
// because one step may send several messages (a broadcast): a message that
// appears in queue_{i,j} is sent by
// process i in that step, one that leaves it is received by process j (or
// lost, when the step is not j's receive of it, as when j crashes, or when
// j is down and its receive only drops it). FIFO
// channels match receives to sends in order; unordered channels by value,
// the oldest pending send first, so that a message that overtakes another
// is visible as crossing arrows.
package msc

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/vacheck/vacheck/explorer"
)

// Kind is the kind of a step.
type Kind uint8

// The kinds of step.
const (
	Local   Kind = iota // an output or internal action of its actor
	Receive             // an input action: the actor receives a message
	Crash
	Recover
)

// Change is a variable a step changed.
type Change struct {
	Name     string
	Old, New string
	Proc     int // 0-based process the variable belongs to, or -1
}

// Step is one step of the chart: step 0 is the initial state.
type Step struct {
	Index  int    // 1-based; 0 for the initial state
	Action string // the action label, "" for step 0
	Name   string // the action's name without arguments: request, receive, ...
	Actor  int    // 0-based process, or -1 when the label names none
	Kind   Kind
	// InCycle says that the step belongs to a lasso's cycle.
	InCycle bool
	Changes []Change // every variable that changed, channels included
	State   []explorer.Var
	Sends   []int // messages sent, by index in Chart.Messages
	Recv    int   // the message received, or -1
	Lost    []int // messages that left a channel without being received
	// With lists the other processes a local step changed: the partners
	// of a shared action (automaton.Shared), which took part in the same
	// step. Taken lists the messages the step took out of the channels
	// into its participants (automaton's Effects.Take): received, though
	// not by a receive step.
	With  []int
	Taken []int
}

// Message is one message from its send to its receive.
type Message struct {
	ID       int // 1-based, in the order of sending: shown as m1, m2, ...
	From, To int // 0-based processes
	Value    string
	Sent     int // step that sent it (0: in a channel initially)
	Received int // step that received it, or -1
	Lost     int // step in which it left its channel unreceived, or -1
	// Overtakes lists the messages (indexes) on the same channel sent
	// before this one and still in transit when it was received.
	Overtakes []int
	// Counted marks a message that the metric of a witness counted: the
	// HTML page draws it bold and says so (set by the caller, not Build).
	Counted bool
}

// InTransit reports whether the message is still in its channel at the end.
func (m Message) InTransit() bool { return m.Received < 0 && m.Lost < 0 }

// Chart is a message sequence chart of one trace.
type Chart struct {
	N     int    // processes (lifelines)
	Steps []Step // Steps[0] is the initial state
	// CycleStart is the index of the first step of a lasso's cycle, or 0.
	CycleStart int
	CycleTasks []string
	Messages   []Message
	// Crashed[k][p] says that process p is down after step k.
	Crashed [][]bool
}

var (
	labelRE = regexp.MustCompile(`^(.*)_\{(\d+)(?:,(\d+))?(?:,\d+)*\}$`)
	queueRE = regexp.MustCompile(`^(?:queue|bag)_\{(\d+),(\d+)\}$`)
	// mailboxRE matches a mailbox, and letterRE one of its messages.
	mailboxRE = regexp.MustCompile(`^mailbox_\{(\d+)\}$`)
	letterRE  = regexp.MustCompile(`^(\d+):(.*)$`)
	procRE    = regexp.MustCompile(`^p(\d+)(?:\.|$)`)
)

// ParseAction splits a label such as receive(REQUEST(1,1))_{1,2} into its
// name (receive), argument (REQUEST(1,1)) and processes (0-based; b is -1
// for a label with one process, both are -1 for a label without). A shared
// action names more (tick_{1,2,3}): a is its actor, b its first partner.
func ParseAction(label string) (name, arg string, a, b int) {
	a, b = -1, -1
	rest := label
	if m := labelRE.FindStringSubmatch(label); m != nil {
		rest = m[1]
		a, _ = strconv.Atoi(m[2])
		a--
		if m[3] != "" {
			b, _ = strconv.Atoi(m[3])
			b--
		}
	}
	name = rest
	if i := strings.IndexByte(rest, '('); i >= 0 && strings.HasSuffix(rest, ")") {
		name, arg = rest[:i], rest[i+1:len(rest)-1]
	}
	return name, arg, a, b
}

// Format formats a state value as the text report does: lists in brackets,
// separated by spaces.
func Format(v any) string {
	if x, ok := v.([]any); ok {
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = Format(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return fmt.Sprint(v)
}

// procOf returns the 0-based process a variable belongs to, or -1.
func procOf(name string) int {
	if m := procRE.FindStringSubmatch(name); m != nil {
		p, _ := strconv.Atoi(m[1])
		return p - 1
	}
	return -1
}

type channel struct{ from, to int }

// Build makes the chart of trace t. unordered says that the channels are
// unordered (messages are matched by value, oldest first) rather than
// FIFO; channels named bag_{i,j} and mailboxes (mailbox_{j}) in the states
// are unordered whatever it says. It fails when the trace has no states to derive messages from.
func Build(t explorer.Trace, unordered bool) (*Chart, error) {
	if t.InitialState == nil {
		return nil, fmt.Errorf("msc: the trace has no states (the model does not describe its states)")
	}
	for _, v := range t.InitialState {
		unordered = unordered || strings.HasPrefix(v.Name, "bag_") || mailboxRE.MatchString(v.Name)
	}
	c := &Chart{CycleTasks: t.CycleTasks}
	// The processes: from the variables and the labels.
	n := 0
	see := func(p int) { n = max(n, p+1) }
	for _, v := range t.InitialState {
		see(procOf(v.Name))
		if m := queueRE.FindStringSubmatch(v.Name); m != nil {
			i, _ := strconv.Atoi(m[1])
			j, _ := strconv.Atoi(m[2])
			see(i - 1)
			see(j - 1)
		}
		if m := mailboxRE.FindStringSubmatch(v.Name); m != nil {
			j, _ := strconv.Atoi(m[1])
			see(j - 1)
		}
	}
	all := append(append([]explorer.Step(nil), t.Steps...), t.Cycle...)
	for _, s := range all {
		_, _, a, b := ParseAction(s.Action)
		see(a)
		see(b)
	}
	c.N = n

	pending := map[channel][]int{} // message indexes in the channel, in sending order
	send := func(ch channel, value string, step int) int {
		c.Messages = append(c.Messages, Message{ID: len(c.Messages) + 1, From: ch.from, To: ch.to, Value: value, Sent: step, Received: -1, Lost: -1})
		k := len(c.Messages) - 1
		pending[ch] = append(pending[ch], k)
		return k
	}
	// mailbox puts in out the channels i→j of mailbox j, whose value is
	// val: its messages by sender, and every channel to j that had a
	// message pending, now empty if none is left.
	mailbox := func(out map[channel][]string, j int, val any) {
		for ch := range pending {
			if ch.to == j {
				out[ch] = nil
			}
		}
		list, _ := val.([]any)
		for _, e := range list {
			lm := letterRE.FindStringSubmatch(Format(e))
			if lm == nil {
				continue
			}
			i, _ := strconv.Atoi(lm[1])
			ch := channel{i - 1, j}
			out[ch] = append(out[ch], lm[2])
		}
	}
	queues := func(state []explorer.Var) map[channel][]string {
		out := map[channel][]string{}
		for _, v := range state {
			if m := mailboxRE.FindStringSubmatch(v.Name); m != nil {
				j, _ := strconv.Atoi(m[1])
				mailbox(out, j-1, v.Value)
				continue
			}
			m := queueRE.FindStringSubmatch(v.Name)
			if m == nil {
				continue
			}
			i, _ := strconv.Atoi(m[1])
			j, _ := strconv.Atoi(m[2])
			var vals []string
			if list, ok := v.Value.([]any); ok {
				for _, e := range list {
					vals = append(vals, Format(e))
				}
			}
			out[channel{i - 1, j - 1}] = vals
		}
		return out
	}
	sortedChannels := func(q map[channel][]string) []channel {
		var chs []channel
		for ch := range q {
			chs = append(chs, ch)
		}
		sort.Slice(chs, func(a, b int) bool {
			if chs[a].from != chs[b].from {
				return chs[a].from < chs[b].from
			}
			return chs[a].to < chs[b].to
		})
		return chs
	}

	step0 := Step{Actor: -1, Recv: -1, State: t.InitialState}
	q0 := queues(t.InitialState)
	for _, ch := range sortedChannels(q0) {
		for _, v := range q0[ch] {
			step0.Sends = append(step0.Sends, send(ch, v, 0))
		}
	}
	c.Steps = append(c.Steps, step0)
	c.Crashed = append(c.Crashed, crashed(t.InitialState, n))

	prev := t.InitialState
	for k, s := range all {
		idx := k + 1
		st := Step{Index: idx, Action: s.Action, Actor: -1, Recv: -1, State: s.State, InCycle: k >= len(t.Steps)}
		if st.InCycle && c.CycleStart == 0 {
			c.CycleStart = idx
		}
		name, arg, a, b := ParseAction(s.Action)
		st.Name = name
		st.Actor = a
		switch {
		case name == "receive" && b >= 0:
			st.Kind, st.Actor = Receive, b
		case name == "crash":
			st.Kind = Crash
		case name == "recover":
			st.Kind = Recover
		}
		st.Changes = changes(prev, s.State)
		if st.Kind == Local && st.Actor >= 0 {
			st.With = partners(st.Changes, st.Actor)
		}
		after := queues(s.State)
		// The receive first: it removes one message of its channel.
		if st.Kind == Receive {
			ch := channel{a, b}
			p := pending[ch]
			at := -1
			if unordered {
				for i, m := range p {
					if c.Messages[m].Value == arg {
						at = i
						break
					}
				}
			}
			if at < 0 && len(p) > 0 {
				at = 0
			}
			switch {
			case at >= 0 && c.Crashed[len(c.Crashed)-1][b]:
				// A crashed process takes the message out of its channel
				// and does nothing with it: the message is lost.
				m := p[at]
				c.Messages[m].Lost = idx
				st.Lost = append(st.Lost, m)
				pending[ch] = append(append([]int(nil), p[:at]...), p[at+1:]...)
			case at >= 0:
				m := p[at]
				c.Messages[m].Received = idx
				c.Messages[m].Overtakes = append([]int(nil), p[:at]...)
				st.Recv = m
				pending[ch] = append(append([]int(nil), p[:at]...), p[at+1:]...)
			}
		}
		for _, ch := range sortedChannels(after) {
			p := pending[ch]
			now := after[ch]
			var lost, keep []int
			var added []string
			if unordered {
				left := map[string]int{}
				for _, v := range now {
					left[v]++
				}
				for _, m := range p {
					if v := c.Messages[m].Value; left[v] > 0 {
						left[v]--
						keep = append(keep, m)
					} else {
						lost = append(lost, m)
					}
				}
				for _, v := range now {
					if left[v] > 0 {
						left[v]--
						added = append(added, v)
					}
				}
			} else {
				d := 0
				for ; d < len(p); d++ {
					if isPrefix(c.Messages, p[d:], now) {
						break
					}
				}
				lost, keep = p[:d], p[d:]
				added = now[len(keep):]
			}
			for _, m := range lost {
				if st.Kind == Local && (ch.to == st.Actor || containsInt(st.With, ch.to)) {
					c.Messages[m].Received = idx
					st.Taken = append(st.Taken, m)
					continue
				}
				c.Messages[m].Lost = idx
				st.Lost = append(st.Lost, m)
			}
			pending[ch] = append([]int(nil), keep...)
			for _, v := range added {
				st.Sends = append(st.Sends, send(ch, v, idx))
			}
		}
		c.Steps = append(c.Steps, st)
		c.Crashed = append(c.Crashed, crashed(s.State, n))
		prev = s.State
	}
	return c, nil
}

func isPrefix(msgs []Message, p []int, vals []string) bool {
	if len(p) > len(vals) {
		return false
	}
	for i, m := range p {
		if msgs[m].Value != vals[i] {
			return false
		}
	}
	return true
}

// partners returns the processes other than actor whose variables
// changed, in increasing order.
func partners(chs []Change, actor int) []int {
	var out []int
	for _, ch := range chs {
		if ch.Proc >= 0 && ch.Proc != actor && !containsInt(out, ch.Proc) {
			out = append(out, ch.Proc)
		}
	}
	sort.Ints(out)
	return out
}

func containsInt(s []int, x int) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// crashed reads the variable "crashed" (a list of 1-based processes).
func crashed(state []explorer.Var, n int) []bool {
	out := make([]bool, n)
	for _, v := range state {
		if v.Name != "crashed" {
			continue
		}
		if list, ok := v.Value.([]any); ok {
			for _, e := range list {
				if p, err := strconv.Atoi(Format(e)); err == nil && p >= 1 && p <= n {
					out[p-1] = true
				}
			}
		}
	}
	return out
}

// changes lists the variables whose values differ between two states.
func changes(before, after []explorer.Var) []Change {
	old := map[string]string{}
	for _, v := range before {
		old[v.Name] = Format(v.Value)
	}
	var out []Change
	for _, v := range after {
		now := Format(v.Value)
		if was, ok := old[v.Name]; !ok || was != now {
			out = append(out, Change{Name: v.Name, Old: was, New: now, Proc: procOf(v.Name)})
		}
	}
	return out
}

// Changed reports whether step k changed the variable name.
func (s Step) Changed(name string) bool {
	for _, c := range s.Changes {
		if c.Name == name {
			return true
		}
	}
	return false
}
