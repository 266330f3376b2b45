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
)

// portNode is a process of the channel tests: process 1 sends, once, 1 on
// port a and 11 on port b to process 2 (or both on the pair's one channel,
// the mutant); every process records what it receives in Got and the port
// each came over in Via.
type portNode struct {
	Sent   bool
	Got    []int
	Via    string
	Mutant bool `vacheck:"-"`
}

func (p *portNode) Steps(v *automaton.View[portNode, int], out []automaton.Step) []automaton.Step {
	if v.Self() == 0 && !p.Sent {
		out = append(out, automaton.Broadcast("go"))
	}
	return out
}

func (p *portNode) Do(s automaton.Step, fx *automaton.Effects[int]) {
	if s.Name != "go" {
		panic("unknown step " + s.Name)
	}
	p.Sent = true
	if p.Mutant {
		fx.Send(1, 1)
		fx.Send(1, 11)
		return
	}
	fx.SendPort(1, "a", 1)
	fx.SendPort(1, "b", 11)
}

func (p *portNode) Receive(_ int, m int, fx *automaton.Effects[int]) {
	p.Got = append(p.Got, m)
	p.Via += fx.Port() + ";"
}

// check explores sys (BFS, BFS with 2 workers, DFS, which agree) and
// returns the first result.
func checkAll[S any, M automaton.Message, P automaton.Process[S, M]](t *testing.T, sys *automaton.System[S, M, P]) *explorer.Result {
	t.Helper()
	var first *explorer.Result
	for _, ec := range []explorer.Config{{Workers: 1}, {Workers: 2}, {Strategy: explorer.DFS}} {
		r, err := explorer.Check(sys, ec)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = r
		} else if r.States != first.States || r.Transitions != first.Transitions {
			t.Errorf("%v/%d: %d states, %d transitions; BFS %d, %d", ec.Strategy, ec.Workers, r.States, r.Transitions, first.States, first.Transitions)
		}
	}
	return first
}

// TestPorts: two channels from process 1 to process 2, on ports a and b.
// By hand: the initial state; "go" (both messages sent, one per channel);
// either delivered first (2 states); then the other (2 terminal states,
// Got [1 11] or [11 1]): 6 states and 1 + 2 + 2 = 5 transitions.
// With the pair's one channel (the mutant, FIFO) the two messages queue
// behind each other: 4 states in a chain, so a model where two channels
// matter is told apart from one channel per pair. Each message is
// received with its port; traces name the port where the pair has two
// channels and not on the single channel back.
func TestPorts(t *testing.T) {
	build := func(mutant bool) *automaton.System[portNode, int, *portNode] {
		cfg := automaton.Config[portNode, int]{
			Initial: [][]portNode{{{Mutant: mutant}, {Mutant: mutant}}},
			Links:   []automaton.Link{{From: 1, To: 0}},
			Chans:   []automaton.Chan[int]{{From: 0, To: 1, Port: "a"}, {From: 0, To: 1, Port: "b"}},
		}
		if mutant {
			cfg.Chans = nil
			cfg.Links = append(cfg.Links, automaton.Link{From: 0, To: 1})
		}
		sys, err := automaton.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return sys
	}
	sys := build(false)
	r := checkAll(t, sys)
	// Edges: go; receive a or b (2); then the other (2).
	if r.Status != explorer.OK || r.States != 6 || r.Transitions != 5 || r.Terminal != 2 {
		t.Errorf("ports: %v, %d states, %d transitions, %d terminal; want ok, 6, 5, 2", r.Status, r.States, r.Transitions, r.Terminal)
	}
	if m := checkAll(t, build(true)); m.States != 4 || m.Terminal != 1 {
		t.Errorf("one channel per pair (the mutant): %d states, %d terminal; want 4, 1", m.States, m.Terminal)
	}

	// The trace's names: go, then the two deliveries with their ports.
	init, _ := sys.Initial()
	s0 := init[0]
	vars, err := sys.Describe(s0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range vars {
		names = append(names, v.Name)
	}
	want := []string{"p1.sent", "p1.got", "p1.via", "p2.sent", "p2.got", "p2.via", "queue_{2,1}", "queue_{1,2:a}", "queue_{1,2:b}"}
	if !slices.Equal(names, want) {
		t.Errorf("variables %v; want %v", names, want)
	}
	if l, err := sys.Label(s0, 0); err != nil || l != "go_{1}" {
		t.Errorf("label %q, %v; want go_{1}", l, err)
	}
	s1 := successor(t, sys, s0, 0)
	var labels []string
	for a := 0; a < 2; a++ {
		l, err := sys.Label(s1, a)
		if err != nil {
			t.Fatal(err)
		}
		labels = append(labels, l)
	}
	if !slices.Equal(labels, []string{"receive(1)_{1,2:a}", "receive(11)_{1,2:b}"}) {
		t.Errorf("labels %v; want receive(1)_{1,2:a}, receive(11)_{1,2:b}", labels)
	}
	s2 := successor(t, sys, s1, 1)
	vars, _ = sys.Describe(s2)
	via := any(nil)
	for _, v := range vars {
		if v.Name == "p2.via" {
			via = v.Value
		}
	}
	if via != "b;" {
		t.Errorf("p2.via = %v after receiving on port b; want \"b;\"", via)
	}
}

// successor returns the successor of s by transition a.
func successor(t *testing.T, m explorer.Model, s []byte, a int) []byte {
	t.Helper()
	var out []byte
	w := m.NewWorker()
	_, err := w.Expand(s, &explorer.Expansion{Emit: func(tr explorer.Transition, next []byte) {
		if int(tr.Action) == a {
			out = append([]byte(nil), next...)
		}
	}})
	if err != nil || out == nil {
		t.Fatalf("no successor %d: %v", a, err)
	}
	return out
}

// TestInitialContents: channel 1→2 holds 1, 2 and 3 at the start, and
// process 2 records what it receives. FIFO delivers them in order: a chain
// of 4 states. An unordered channel delivers any of them: the states are
// the sequences of distinct values received, 1 + 3 + 3·2 + 3·2·1 = 16,
// with 3 + 6 + 6 = 15 transitions. The initial state shows the messages.
func TestInitialContents(t *testing.T) {
	for _, tc := range []struct {
		disc                channel.Discipline
		states, transitions int64
		kind                string
	}{{channel.FIFO, 4, 3, "queue"}, {channel.Unordered, 16, 15, "bag"}} {
		sys, err := automaton.New(automaton.Config[portNode, int]{
			Initial:  [][]portNode{{{Sent: true}, {}}},
			Chans:    []automaton.Chan[int]{{From: 0, To: 1, Initial: []int{3, 1, 2}}},
			Channels: tc.disc,
		})
		if err != nil {
			t.Fatal(err)
		}
		r := checkAll(t, sys)
		if r.Status != explorer.OK || r.States != tc.states || r.Transitions != tc.transitions {
			t.Errorf("%v: %v, %d states, %d transitions; want ok, %d, %d", tc.disc, r.Status, r.States, r.Transitions, tc.states, tc.transitions)
		}
		init, _ := sys.Initial()
		vars, _ := sys.Describe(init[0])
		got := ""
		for _, v := range vars {
			if strings.HasPrefix(v.Name, tc.kind+"_") {
				got = v.Name + "=" + strings.TrimSpace(strings.Trim(strings.ReplaceAll(strings.Trim(fmt.Sprint(v.Value), "[]"), "  ", " "), " "))
			}
		}
		want := tc.kind + "_{1,2}=3 1 2"
		if tc.disc == channel.Unordered {
			want = tc.kind + "_{1,2}=1 2 3"
		}
		if got != want {
			t.Errorf("%v: the initial state shows %q; want %q", tc.disc, got, want)
		}
		if got := sys.ViewOf(init[0]).Chan(0, 1); len(got) != 3 {
			t.Errorf("%v: View.Chan holds %v at the start", tc.disc, got)
		}
	}
	// Beyond the capacity at the start: the initial state violates the
	// channel bound.
	sys, err := automaton.New(automaton.Config[portNode, int]{
		Initial:  [][]portNode{{{Sent: true}, {}}},
		Chans:    []automaton.Chan[int]{{From: 0, To: 1, Initial: []int{1, 2, 3}}},
		Capacity: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := explorer.Check(sys, explorer.Config{}); r.Status != explorer.Violated || len(r.Violations[0].Trace.Steps) != 0 {
		t.Errorf("3 messages at the start, capacity 2: %v; want the initial state to violate channel-bound", r.Status)
	}
}

// TestPortErrors: a channel listed twice, a port with a character traces
// print around it, and a Send to a pair whose channels all have ports are
// refused, each saying what to do.
func TestPortErrors(t *testing.T) {
	for _, tc := range []struct {
		chans []automaton.Chan[int]
		want  string
	}{
		{[]automaton.Chan[int]{{From: 0, To: 1, Port: "a"}, {From: 0, To: 1, Port: "a"}}, `port "a" listed twice`},
		{[]automaton.Chan[int]{{From: 0, To: 1, Port: "a:b"}}, "a port name has none of the characters"},
		{[]automaton.Chan[int]{{From: 0, To: 2}}, "outside processes"},
	} {
		_, err := automaton.New(automaton.Config[portNode, int]{Initial: [][]portNode{{{}, {}}}, Chans: tc.chans})
		if !errors.Is(err, automaton.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v; want ErrConfig saying %q", tc.chans, err, tc.want)
		}
	}
	sys, err := automaton.New(automaton.Config[portNode, int]{
		Initial: [][]portNode{{{Mutant: true}, {Mutant: true}}},
		Chans:   []automaton.Chan[int]{{From: 0, To: 1, Port: "a"}, {From: 0, To: 1, Port: "b"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := explorer.Check(sys, explorer.Config{})
	if err == nil && r.Status == explorer.Failed {
		err = r.Err
	}
	if err == nil || !strings.Contains(err.Error(), "send with SendPort") {
		t.Errorf("Send to a pair of named channels: %v; want an error saying to use SendPort", err)
	}
}

// portTaker is a process of TestTakePort: process 1 sends, once, 1 then 2
// on port a and 11 on port b to process 2, whose step "take" (enabled
// when both ports hold messages) takes the head of port b, then consumes
// the value of Want from port a, all in one transition, and records them
// in Got. Process 2 accepts no message by receive, so only "take" empties
// its channels. Mode "pair" takes with the pair's Take instead of
// TakePort, the mutant: the pair has two channels, each with a port.
type portTaker struct {
	Sent bool
	Got  []int
	Want int    `vacheck:"-"`
	Mode string `vacheck:"-"`
}

func (p *portTaker) Steps(v *automaton.View[portTaker, int], out []automaton.Step) []automaton.Step {
	switch {
	case v.Self() == 0 && !p.Sent:
		out = append(out, automaton.Broadcast("go"))
	case v.Self() == 1 && len(p.Got) == 0 && len(v.ChanPort(0, 1, "a")) > 0 && len(v.ChanPort(0, 1, "b")) > 0:
		out = append(out, automaton.Do("take"))
	}
	return out
}

func (p *portTaker) Do(s automaton.Step, fx *automaton.Effects[int]) {
	switch s.Name {
	case "go":
		p.Sent = true
		fx.SendPort(1, "a", 1)
		fx.SendPort(1, "a", 2)
		fx.SendPort(1, "b", 11)
	case "take":
		if p.Mode == "pair" {
			p.Got = append(p.Got, fx.Take(0))
			return
		}
		p.Got = append(p.Got, fx.TakePort(0, "b"))
		fx.ConsumePort(0, "a", p.Want)
		p.Got = append(p.Got, p.Want)
	default:
		panic("unknown step " + s.Name)
	}
}

func (p *portTaker) Receive(int, int, *automaton.Effects[int]) {}
func (p *portTaker) Accepts(int, int) bool                     { return false }

// TestTakePort: Effects.TakePort and ConsumePort take from the channel
// of the port they name. By hand: the initial state, "go" (port a holds
// [1 2], port b [11]), "take" (Got [11 1], port a [2]): 3 states, 2
// transitions, and the last state keeps 2 on port a and nothing on b.
// Consuming 2, which FIFO port a cannot deliver before 1, and the pair's
// Take on a pair whose channels all have ports, are model errors that
// say so.
func TestTakePort(t *testing.T) {
	build := func(want int, mode string) *automaton.System[portTaker, int, *portTaker] {
		sys, err := automaton.New(automaton.Config[portTaker, int]{
			Initial: [][]portTaker{{{Want: want, Mode: mode}, {Want: want, Mode: mode}}},
			Chans:   []automaton.Chan[int]{{From: 0, To: 1, Port: "a"}, {From: 0, To: 1, Port: "b"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		return sys
	}
	sys := build(1, "")
	r := checkAll(t, sys)
	if r.Status != explorer.OK || r.States != 3 || r.Transitions != 2 || r.Terminal != 1 {
		t.Fatalf("TakePort: %v, %d states, %d transitions, %d terminal; want ok, 3, 2, 1", r.Status, r.States, r.Transitions, r.Terminal)
	}
	init, _ := sys.Initial()
	s := successor(t, sys, successor(t, sys, init[0], 0), 0)
	v := sys.ViewOf(s)
	if got := v.Proc(1).Got; !slices.Equal(got, []int{11, 1}) {
		t.Errorf("Got %v; want [11 1] (port b's head, then 1 from port a)", got)
	}
	if a, b := v.ChanPort(0, 1, "a"), v.ChanPort(0, 1, "b"); !slices.Equal(a, []int{2}) || len(b) != 0 {
		t.Errorf("after take: port a %v, port b %v; want [2] and []", a, b)
	}
	for _, tt := range []struct {
		want int
		mode string
		err  string
	}{
		{2, "", `consumed 2 from channel 1→2, but it cannot deliver that message now`},
		{1, "pair", "which has several channels to it, each with a port: take with TakePort or ConsumePort"},
	} {
		r, err := explorer.Check(build(tt.want, tt.mode), explorer.Config{})
		if err == nil && r.Status == explorer.Failed {
			err = r.Err
		}
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("want %d, mode %q: %v; want the search to fail saying %q", tt.want, tt.mode, err, tt.err)
		}
	}
}
