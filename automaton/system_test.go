package automaton_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/automaton/automatontest"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// ---- Helpers ----

func mustNew[S any, M automaton.Message, P automaton.Process[S, M]](tb testing.TB, cfg automaton.Config[S, M]) *automaton.System[S, M, P] {
	tb.Helper()
	sys, err := automaton.New[S, M, P](cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return sys
}

// check runs explorer.Check on the given properties (nil: all) breadth
// first on one and on two workers and depth first. BFS gives the same
// result for every worker count; when the search completes, DFS visits the
// same states and transitions.
func check(tb testing.TB, m explorer.Model, props ...string) *explorer.Result {
	tb.Helper()
	run := func(cfg explorer.Config) *explorer.Result {
		tb.Helper()
		cfg.Properties = props
		r, err := explorer.Check(m, cfg)
		if err != nil {
			tb.Fatal(err)
		}
		return r
	}
	r := run(explorer.Config{Strategy: explorer.BFS, Workers: 1})
	r2 := run(explorer.Config{Strategy: explorer.BFS, Workers: 2})
	if r2.Status != r.Status || r2.States != r.States || r2.Transitions != r.Transitions || r2.Terminal != r.Terminal {
		tb.Errorf("BFS on 2 workers: %v, %d states, %d transitions, %d terminal; on 1 worker: %v, %d, %d, %d",
			r2.Status, r2.States, r2.Transitions, r2.Terminal, r.Status, r.States, r.Transitions, r.Terminal)
	}
	if r.Status == explorer.OK {
		d := run(explorer.Config{Strategy: explorer.DFS})
		if d.Status != r.Status || d.States != r.States || d.Transitions != r.Transitions || d.Terminal != r.Terminal {
			tb.Errorf("DFS: %v, %d states, %d transitions, %d terminal; BFS: %v, %d, %d, %d",
				d.Status, d.States, d.Transitions, d.Terminal, r.Status, r.States, r.Transitions, r.Terminal)
		}
	}
	return r
}

// describe formats a state as "name=value name=value ...".
func describe(tb testing.TB, m explorer.Model, s []byte) string {
	tb.Helper()
	vars, err := m.(explorer.Describer).Describe(s)
	if err != nil {
		tb.Fatal(err)
	}
	return formatVars(vars)
}

func formatVars(vars []explorer.Var) string {
	var parts []string
	for _, v := range vars {
		parts = append(parts, fmt.Sprintf("%s=%v", v.Name, v.Value))
	}
	return strings.Join(parts, " ")
}

// successors returns the successors of s and the labels of their actions.
func successors(tb testing.TB, m explorer.Model, s []byte) (next [][]byte, labels []string, ts []explorer.Transition) {
	tb.Helper()
	_, err := explorer.Successors(m.NewWorker(), s, func(t explorer.Transition, n []byte) {
		next = append(next, bytes.Clone(n))
		ts = append(ts, t)
	})
	if err != nil {
		tb.Fatal(err)
	}
	for a := range next {
		l, err := m.(explorer.Describer).Label(s, a)
		if err != nil {
			tb.Fatal(err)
		}
		labels = append(labels, l)
	}
	return next, labels, ts
}

// reachable describes every reachable state, and separately every state
// without a non-fault transition, each list sorted.
func reachable(tb testing.TB, m explorer.Model) (all, terminal []string) {
	tb.Helper()
	queue, err := m.Initial()
	if err != nil {
		tb.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range queue {
		seen[string(s)] = true
	}
	w := m.NewWorker()
	for i := 0; i < len(queue); i++ {
		s := queue[i]
		all = append(all, describe(tb, m, s))
		live := 0
		if _, err := explorer.Successors(w, s, func(t explorer.Transition, n []byte) {
			if !t.Fault {
				live++
			}
			if !seen[string(n)] {
				seen[string(n)] = true
				queue = append(queue, bytes.Clone(n))
			}
		}); err != nil {
			tb.Fatal(err)
		}
		if live == 0 {
			terminal = append(terminal, describe(tb, m, s))
		}
	}
	slices.Sort(all)
	slices.Sort(terminal)
	return all, terminal
}

// ---- (a) Ping-pong over FIFO channels ----

// pp is a process of the ping-pong system. Process 1 (the pinger) sends
// pings 1 and 2 without waiting; process 2 echoes every ping it receives
// as a pong; process 1 counts the pongs.
type pp struct {
	Pinger bool `vacheck:"-"`
	Sent   int  // pinger: pings sent
	Got    int  // pinger: pongs received
	Echoed int  // ponger: pings echoed
}

func (p *pp) Steps(_ *automaton.View[pp, int], out []automaton.Step) []automaton.Step {
	if p.Pinger && p.Sent < 2 {
		out = append(out, automaton.Out("ping", 1))
	}
	return out
}

func (p *pp) Do(_ automaton.Step, fx *automaton.Effects[int]) {
	p.Sent++
	fx.Send(1, p.Sent)
}

func (p *pp) Receive(from int, m int, fx *automaton.Effects[int]) {
	if p.Pinger {
		p.Got++
		return
	}
	p.Echoed++
	fx.Send(from, m)
}

func pingPong(tb testing.TB) explorer.Model {
	return mustNew(tb, automaton.Config[pp, int]{
		Initial: [][]pp{{{Pinger: true}, {}}},
		Links:   automaton.Complete(2, false),
	})
}

// TestPingPong checks the figures of the ping-pong system, derived by
// hand. A state is determined by (s, e, g): pings sent, pings echoed, pongs
// received, with 0 <= g <= e <= s <= 2; the FIFO channels then hold the
// pings e+1..s and the pongs g+1..e. There are C(5,3) = 10 such triples.
// Transitions: p = ping (s+1, when s < 2), r = receive a ping and echo it
// (e+1, when e < s), q = receive a pong (g+1, when g < e):
//
//	000 -p-> 100 -p-> 200
//	          |r       |r
//	          v        v
//	         110 -p-> 210 -r-> 220
//	          |q       |q       |q
//	          v        v        v
//	         111 -p-> 211 -r-> 221 -q-> 222
//
// 10 states, 12 transitions, one terminal state (222, a valid end: no
// ValidEnd is set), depth 6 (a state's BFS level is s+e+g).
func TestPingPong(t *testing.T) {
	m := pingPong(t)
	r := check(t, m)
	if r.Status != explorer.OK || r.States != 10 || r.Transitions != 12 || r.Terminal != 1 || r.Depth != 6 {
		t.Errorf("got %v, %d states, %d transitions, %d terminal, depth %d; want ok, 10, 12, 1, 6",
			r.Status, r.States, r.Transitions, r.Terminal, r.Depth)
	}
	_, terminal := reachable(t, m)
	want := "p1.sent=2 p1.got=2 p1.echoed=0 p2.sent=0 p2.got=0 p2.echoed=2 queue_{1,2}=[] queue_{2,1}=[]"
	if len(terminal) != 1 || terminal[0] != want {
		t.Errorf("terminal states %q, want [%q]", terminal, want)
	}
	automatontest.CheckPure(t, m, 1000)
}

// ---- (b) Unordered and FIFO channels, several messages in one step ----

// burst is a process that, as process 1, sends all of Msgs to process 2 in
// one step; process 2 records what it receives, in order.
type burst struct {
	Msgs []int `vacheck:"-"` // non-nil for the sender
	Done bool
	Got  []int
}

func (p *burst) Steps(_ *automaton.View[burst, int], out []automaton.Step) []automaton.Step {
	if p.Msgs != nil && !p.Done {
		out = append(out, automaton.Out("burst", 1))
	}
	return out
}

func (p *burst) Do(_ automaton.Step, fx *automaton.Effects[int]) {
	p.Done = true
	for _, m := range p.Msgs {
		fx.Send(1, m)
	}
}

func (p *burst) Receive(_ int, m int, _ *automaton.Effects[int]) { p.Got = append(p.Got, m) }

func burstSystem(tb testing.TB, disc channel.Discipline, msgs ...int) explorer.Model {
	return mustNew(tb, automaton.Config[burst, int]{
		Initial:  [][]burst{{{Msgs: msgs}, {}}},
		Links:    []automaton.Link{{From: 0, To: 1}},
		Channels: disc,
		Invariants: []automaton.Invariant[burst, int]{{
			Name: "in-order", Doc: "2 is never received before 1",
			Holds: func(v *automaton.View[burst, int]) bool {
				return !slices.Equal(v.Proc(1).Got, []int{2, 1})
			},
		}},
	})
}

// TestDeliveryOrders: two messages sent in one step can be received in
// either order over an unordered channel, in the order sent over a FIFO
// one. Figures by hand, writing the channel and process 2's Got:
//
//	unordered 1,2: s0 -burst-> {1,2};[] -r1-> {2};[1] -r2-> {};[1 2]
//	                                    -r2-> {1};[2] -r1-> {};[2 1]
//	               6 states, 5 transitions, 2 terminal
//	FIFO 1,2:      s0 -> [1 2];[] -> [2];[1] -> [];[1 2]
//	               4 states, 3 transitions, 1 terminal
//	unordered 7,7: s0 -> {7,7};[] -> {7};[7] -> {};[7 7]: equal
//	               messages are one choice, so 4 states, 3 transitions
func TestDeliveryOrders(t *testing.T) {
	tests := []struct {
		name          string
		disc          channel.Discipline
		msgs          []int
		states, trans int64
		terminal      []string // process 2's Got in the terminal states
	}{
		{"unordered", channel.Unordered, []int{1, 2}, 6, 5, []string{"[1 2]", "[2 1]"}},
		{"fifo", channel.FIFO, []int{1, 2}, 4, 3, []string{"[1 2]"}},
		{"unordered duplicates", channel.Unordered, []int{7, 7}, 4, 3, []string{"[7 7]"}},
		{"fifo duplicates", channel.FIFO, []int{7, 7}, 4, 3, []string{"[7 7]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := burstSystem(t, tt.disc, tt.msgs...)
			r := check(t, m, properties.DeadlockFreedom)
			if r.States != tt.states || r.Transitions != tt.trans || r.Terminal != int64(len(tt.terminal)) {
				t.Errorf("%d states, %d transitions, %d terminal; want %d, %d, %d",
					r.States, r.Transitions, r.Terminal, tt.states, tt.trans, len(tt.terminal))
			}
			_, terminal := reachable(t, m)
			var got []string
			for _, s := range terminal {
				// The channel follows: queue_{1,2}, or bag_{1,2} when unordered.
				end := strings.Index(s, " queue_")
				if tt.disc == channel.Unordered {
					end = strings.Index(s, " bag_")
				}
				got = append(got, s[strings.Index(s, "p2.got=")+len("p2.got="):end])
			}
			if !slices.Equal(got, tt.terminal) {
				t.Errorf("delivery orders %q, want %q", got, tt.terminal)
			}
			automatontest.CheckPure(t, m, 1000)
		})
	}

	// With the in-order invariant checked, the unordered channel gives the
	// shortest counterexample: deliver 2 (action 1), then 1.
	r := check(t, burstSystem(t, channel.Unordered, 1, 2))
	if r.Status != explorer.Violated || len(r.Violations) != 1 || r.Violations[0].Property != "in-order" {
		t.Fatalf("unordered: %v %+v, want in-order violated", r.Status, r.Violations)
	}
	want := []string{"burst(1)_{1,2}", "receive(2)_{1,2}", "receive(1)_{1,2}"}
	if got := explorer.Actions(r.Violations[0].Trace.Steps); !slices.Equal(got, want) {
		t.Errorf("trace %q, want %q", got, want)
	}
	if r := check(t, burstSystem(t, channel.FIFO, 1, 2)); r.Status != explorer.OK {
		t.Errorf("fifo: %v, want ok", r.Status)
	}
}

// ---- (c) Sending without a link; (d) a panicking effect ----

// sender sends 5 to process To in its first step.
type sender struct {
	To   int `vacheck:"-"`
	Sent bool
}

func (p *sender) Steps(_ *automaton.View[sender, int], out []automaton.Step) []automaton.Step {
	if p.To >= 0 && !p.Sent {
		out = append(out, automaton.Out("send", p.To))
	}
	return out
}

func (p *sender) Do(_ automaton.Step, fx *automaton.Effects[int]) {
	p.Sent = true
	fx.Send(p.To, 5)
}

func (p *sender) Receive(int, int, *automaton.Effects[int]) {}

// TestSendWithoutLink: process 1 sends to process 3 on the ring 1->2->3->1,
// which has no channel 1->3. That is a modelling error: the search fails
// and says which processes, numbered from 1, instead of crashing.
func TestSendWithoutLink(t *testing.T) {
	m := mustNew(t, automaton.Config[sender, int]{
		Initial: [][]sender{{{To: 2}, {To: -1}, {To: -1}}},
		Links:   automaton.Ring(3),
	})
	for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}, {Strategy: explorer.DFS}} {
		r, err := explorer.Check(m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		const want = "process 1 sent 5 to process 3, but there is no channel 1→3"
		if r.Status != explorer.Failed || r.Reason != want {
			t.Errorf("%v: %v %q, want %v %q", cfg.Strategy, r.Status, r.Reason, explorer.Failed, want)
		}
		if r.Failure == nil || len(r.Failure.Steps) != 0 {
			t.Errorf("%v: failure trace %+v, want the initial state", cfg.Strategy, r.Failure)
		}
	}
}

// bomb counts up and panics when asked to count past 2.
type bomb struct{ Count int }

func (p *bomb) Steps(_ *automaton.View[bomb, int], out []automaton.Step) []automaton.Step {
	return append(out, automaton.Do("inc"))
}

func (p *bomb) Do(_ automaton.Step, _ *automaton.Effects[int]) {
	if p.Count == 2 {
		panic("boom")
	}
	p.Count++
}

func (p *bomb) Receive(int, int, *automaton.Effects[int]) {}

// TestPanickingEffect: a panic in Do fails the search with the path to the
// state whose expansion panicked (count=2, two inc steps), and replaying
// that path reaches a state whose expansion fails the same way.
func TestPanickingEffect(t *testing.T) {
	m := mustNew(t, automaton.Config[bomb, int]{Initial: [][]bomb{{{}}}})
	for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}, {Strategy: explorer.DFS}} {
		r, err := explorer.Check(m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != explorer.Failed || r.Reason != "the model panicked: boom" || r.Err == nil {
			t.Fatalf("%v: %v %q (err %v), want a failure: the model panicked: boom", cfg.Strategy, r.Status, r.Reason, r.Err)
		}
		if r.Failure == nil {
			t.Fatalf("%v: no failure trace", cfg.Strategy)
		}
		if got := explorer.Actions(r.Failure.Steps); !slices.Equal(got, []string{"inc_{1}", "inc_{1}"}) {
			t.Errorf("%v: failure trace %q, want [inc_{1} inc_{1}]", cfg.Strategy, got)
		}
		last := r.Failure.Steps[len(r.Failure.Steps)-1]
		if got := formatVars(last.State); got != "p1.count=2" {
			t.Errorf("%v: failing state %s, want p1.count=2", cfg.Strategy, got)
		}
		// Replay the action indices from the initial state.
		init, _ := m.Initial()
		cur := init[r.Failure.Initial]
		for _, st := range r.Failure.Steps {
			next, _, _ := successors(t, m, cur)
			cur = next[st.ActionIndex]
		}
		if _, err := explorer.Successors(m.NewWorker(), cur, func(explorer.Transition, []byte) {}); err == nil || err.Error() != "the model panicked: boom" {
			t.Errorf("%v: expanding the replayed state: %v, want the model panicked: boom", cfg.Strategy, err)
		}
	}
}

// ---- (e) Channel capacity ----

// flood sends 0 to process 2 forever; process 2 receives and ignores it.
type flood struct {
	Sender bool `vacheck:"-"`
}

func (p *flood) Steps(_ *automaton.View[flood, int], out []automaton.Step) []automaton.Step {
	if p.Sender {
		out = append(out, automaton.Out("send", 1))
	}
	return out
}

func (p *flood) Do(_ automaton.Step, fx *automaton.Effects[int]) { fx.Send(1, 0) }

func (p *flood) Receive(int, int, *automaton.Effects[int]) {}

// TestCapacity: with Capacity 2 the third message in the channel violates
// the channel-bound assertion. States are the channel lengths 0..3; length
// 3 violates and is not expanded. Transitions: 1 from length 0 (send), 2
// from lengths 1 and 2 (send, receive): 4 states, 5 transitions, and the
// shortest counterexample is three sends.
func TestCapacity(t *testing.T) {
	m := mustNew(t, automaton.Config[flood, int]{
		Initial:  [][]flood{{{Sender: true}, {}}},
		Links:    []automaton.Link{{From: 0, To: 1}},
		Capacity: 2,
	})
	r := check(t, m)
	if r.Status != explorer.Violated || r.States != 4 || r.Transitions != 5 {
		t.Errorf("%v, %d states, %d transitions; want violated, 4, 5", r.Status, r.States, r.Transitions)
	}
	if len(r.Violations) != 1 || r.Violations[0].Property != properties.ChannelBound || r.Violations[0].Kind != properties.Assertion {
		t.Fatalf("violations %+v, want channel-bound (an assertion)", r.Violations)
	}
	tr := r.Violations[0].Trace
	if got, want := explorer.Actions(tr.Steps), []string{"send(0)_{1,2}", "send(0)_{1,2}", "send(0)_{1,2}"}; !slices.Equal(got, want) {
		t.Errorf("trace %q, want %q", got, want)
	}
	if got := formatVars(tr.Steps[len(tr.Steps)-1].State); got != "p1={Sender:true} p2={Sender:false} queue_{1,2}=[0 0 0]" {
		t.Errorf("last state %s", got)
	}
	if got := m.Capacity(); got != 2 {
		t.Errorf("Capacity() = %d, want 2", got)
	}
	if got := mustNew(t, automaton.Config[flood, int]{Initial: [][]flood{{{}}}}).Capacity(); got != 16 {
		t.Errorf("default Capacity() = %d, want 16", got)
	}
}

// ---- (f) Crash faults ----

// relay: process 1 sends 5 to process 2 once; process 2 notes it got it.
type relay struct {
	Sender bool `vacheck:"-"`
	Sent   bool
	Got    bool
}

func (p *relay) Steps(_ *automaton.View[relay, int], out []automaton.Step) []automaton.Step {
	if p.Sender && !p.Sent {
		out = append(out, automaton.Out("send", 1))
	}
	return out
}

func (p *relay) Do(_ automaton.Step, fx *automaton.Effects[int]) {
	p.Sent = true
	fx.Send(1, 5)
}

func (p *relay) Receive(int, int, *automaton.Effects[int]) { p.Got = true }

func relaySystem(tb testing.TB, crashes int) explorer.Model {
	return mustNew(tb, automaton.Config[relay, int]{
		Initial: [][]relay{{{Sender: true}, {}}},
		Links:   []automaton.Link{{From: 0, To: 1}},
		Crashes: crashes,
	})
}

// TestCrashes derives the figures by hand. Without crashes: unsent ->
// sent (channel [5]) -> got: 3 states, 2 transitions, 1 terminal. With one
// crash (A: nobody crashed, B: process 1 crashed, C: process 2 crashed):
//
//	A0 unsent      -send-> A1, -crash1-> B0, -crash2-> C0   3
//	A1 sent,[5]    -recv-> A2, -crash1-> B1, -crash2-> C1   3
//	A2 got                     -crash1-> B2, -crash2-> C3   2
//	B0 unsent, 1 down: process 1 takes no step             0
//	B1 sent,[5], 1 down -recv-> B2                         1
//	B2 got, 1 down                                         0
//	C0 unsent, 2 down -send-> C1                           1
//	C1 sent,[5], 2 down -recv (discarded)-> C2             1
//	C2 sent,[], got=false, 2 down                          0
//	C3 got, 2 down                                         0
//
// 10 states, 11 transitions; terminal (no transition but crashes): A2, B0,
// B2, C2, C3 = 5.
func TestCrashes(t *testing.T) {
	tests := []struct {
		crashes                 int
		states, trans, terminal int64
	}{
		{0, 3, 2, 1},
		{1, 10, 11, 5},
	}
	for _, tt := range tests {
		r := check(t, relaySystem(t, tt.crashes))
		if r.Status != explorer.OK || r.States != tt.states || r.Transitions != tt.trans || r.Terminal != tt.terminal {
			t.Errorf("crashes %d: %v, %d states, %d transitions, %d terminal; want ok, %d, %d, %d",
				tt.crashes, r.Status, r.States, r.Transitions, r.Terminal, tt.states, tt.trans, tt.terminal)
		}
	}

	m := relaySystem(t, 1)
	automatontest.CheckPure(t, m, 1000)
	init, _ := m.Initial()
	next, lbls, ts := successors(t, m, init[0])
	if want := []string{"send(5)_{1,2}", "crash_{1}", "crash_{2}"}; !slices.Equal(lbls, want) {
		t.Errorf("labels %q, want %q", lbls, want)
	}
	wantTs := []explorer.Transition{{Task: 0, Messages: 1}, {Task: -1, Action: 1, Fault: true}, {Task: -1, Action: 2, Fault: true}}
	if !slices.Equal(ts, wantTs) {
		t.Errorf("transitions %+v, want %+v", ts, wantTs)
	}
	if got, want := describe(t, m, next[2]), "p1.sent=false p1.got=false p2.sent=false p2.got=false queue_{1,2}=[] crashed=[2] crashes-left=0"; got != want {
		t.Errorf("after crash_{2}:\n got %s\nwant %s", got, want)
	}
	// B0: a crashed process takes no step.
	if n, _, _ := successors(t, m, next[1]); len(n) != 0 {
		t.Errorf("process 1 crashed before sending: %d transitions, want 0", len(n))
	}

	all, terminal := reachable(t, m)
	discarded := "p1.sent=true p1.got=false p2.sent=false p2.got=false queue_{1,2}=[] crashed=[2] crashes-left=0"
	if !slices.Contains(all, discarded) || !slices.Contains(terminal, discarded) {
		t.Errorf("the message to crashed process 2 is not discarded: no terminal state %s among %q", discarded, all)
	}
	if len(all) != 10 || len(terminal) != 5 {
		t.Errorf("%d states, %d terminal; want 10, 5", len(all), len(terminal))
	}
}

// TestDown: processes listed in Config.Down are crashed from the start,
// without using the crash budget. With process 2 down and no crashes, the
// relay is C0 -send-> C1 -recv (discarded)-> C2 of TestCrashes: 3 states,
// 2 transitions, 1 terminal; with process 1 down, nothing happens: 1 state.
// A bad Down is a configuration error.
func TestDown(t *testing.T) {
	for _, tt := range []struct {
		down                    []int
		states, trans, terminal int64
		first                   string
	}{
		{[]int{1}, 3, 2, 1, "p1.sent=false p1.got=false p2.sent=false p2.got=false queue_{1,2}=[] crashed=[2] crashes-left=0"},
		{[]int{0}, 1, 0, 1, "p1.sent=false p1.got=false p2.sent=false p2.got=false queue_{1,2}=[] crashed=[1] crashes-left=0"},
	} {
		m := mustNew(t, automaton.Config[relay, int]{Initial: [][]relay{{{Sender: true}, {}}}, Links: []automaton.Link{{From: 0, To: 1}}, Down: tt.down})
		r := check(t, m)
		if r.Status != explorer.OK || r.States != tt.states || r.Transitions != tt.trans || r.Terminal != tt.terminal {
			t.Errorf("down %v: %v, %d states, %d transitions, %d terminal; want ok, %d, %d, %d",
				tt.down, r.Status, r.States, r.Transitions, r.Terminal, tt.states, tt.trans, tt.terminal)
		}
		init, _ := m.Initial()
		if got := describe(t, m, init[0]); got != tt.first {
			t.Errorf("down %v: initial state\n got %s\nwant %s", tt.down, got, tt.first)
		}
		automatontest.CheckPure(t, m, 100)
	}
	for _, down := range [][]int{{2}, {-1}, {1, 1}} {
		if _, err := automaton.New(automaton.Config[relay, int]{Initial: [][]relay{{{Sender: true}, {}}}, Links: []automaton.Link{{From: 0, To: 1}}, Down: down}); !errors.Is(err, automaton.ErrConfig) {
			t.Errorf("Down %v: %v, want a configuration error", down, err)
		}
	}
}

// ---- (g) Acceptor ----

// picky is a process that, as process 1, sends 2 then 1 in one step; as
// process 2, accepts only the message it expects next (1, then 2).
type picky struct {
	Sender bool `vacheck:"-"`
	Sent   bool
	Next   int
}

func (p *picky) Steps(_ *automaton.View[picky, int], out []automaton.Step) []automaton.Step {
	if p.Sender && !p.Sent {
		out = append(out, automaton.Out("send", 1))
	}
	return out
}

func (p *picky) Do(_ automaton.Step, fx *automaton.Effects[int]) {
	p.Sent = true
	fx.Send(1, 2)
	fx.Send(1, 1)
}

func (p *picky) Receive(int, int, *automaton.Effects[int]) { p.Next++ }

func (p *picky) Accepts(_ int, m int) bool { return m == p.Next }

// TestAcceptor: a refused message stays in the channel. Unordered: {1,2}
// offers 1 and 2, only 1 is accepted, then 2: 4 states, 3 transitions, all
// received. FIFO: the head 2 is refused and blocks the channel: 2 states,
// 1 transition, and the terminal state with [2 1] still queued is a
// deadlock.
func TestAcceptor(t *testing.T) {
	build := func(disc channel.Discipline) explorer.Model {
		return mustNew(t, automaton.Config[picky, int]{
			Initial:  [][]picky{{{Sender: true}, {Next: 1}}},
			Links:    []automaton.Link{{From: 0, To: 1}},
			Channels: disc,
			ValidEnd: func(v *automaton.View[picky, int]) bool { return v.ChannelsEmpty() },
		})
	}
	r := check(t, build(channel.Unordered))
	if r.Status != explorer.OK || r.States != 4 || r.Transitions != 3 {
		t.Errorf("unordered: %v, %d states, %d transitions; want ok, 4, 3", r.Status, r.States, r.Transitions)
	}
	m := build(channel.FIFO)
	r = check(t, m)
	if r.Status != explorer.Violated || r.States != 2 || r.Transitions != 1 {
		t.Errorf("fifo: %v, %d states, %d transitions; want violated, 2, 1", r.Status, r.States, r.Transitions)
	}
	if len(r.Violations) != 1 || r.Violations[0].Property != properties.DeadlockFreedom {
		t.Fatalf("fifo: violations %+v, want deadlock-freedom", r.Violations)
	}
	tr := r.Violations[0].Trace
	if got, want := formatVars(tr.Steps[len(tr.Steps)-1].State), "p1.sent=true p1.next=0 p2.sent=false p2.next=1 queue_{1,2}=[2 1]"; got != want {
		t.Errorf("deadlocked state:\n got %s\nwant %s", got, want)
	}
	automatontest.CheckPure(t, m, 100)
	automatontest.CheckPure(t, build(channel.Unordered), 100)
}

// ---- (h) Describe and Label ----

type phase uint8

const (
	idle phase = iota
	busy
)

func (p phase) String() string { return [...]string{"idle", "busy"}[p] }

// desk: process 1 sends 5 to process 2; process 3 may enter or wait(2);
// process 2 logs what it receives.
type desk struct {
	Role   int `vacheck:"-"`
	Status phase
	Round  int `vacheck:"round"`
	Log    []int
}

func (p *desk) Steps(_ *automaton.View[desk, int], out []automaton.Step) []automaton.Step {
	switch {
	case p.Role == 1 && p.Status == idle:
		out = append(out, automaton.Out("send", 1))
	case p.Role == 3 && p.Status == idle:
		out = append(out, automaton.Do("enter"), automaton.DoArg("wait", 2))
	}
	return out
}

func (p *desk) Do(s automaton.Step, fx *automaton.Effects[int]) {
	p.Status = busy
	p.Round += s.Arg
	if s.Name == "send" {
		fx.Send(1, 5)
	}
}

func (p *desk) Receive(_ int, m int, _ *automaton.Effects[int]) { p.Log = append(p.Log, m) }

func TestDescribeAndLabel(t *testing.T) {
	m := mustNew(t, automaton.Config[desk, int]{
		Initial: [][]desk{{{Role: 1}, {Role: 2}, {Role: 3}}},
		Links:   []automaton.Link{{From: 0, To: 1}},
		Crashes: 1,
	})
	init, _ := m.Initial()
	s0 := init[0]
	vars, err := m.Describe(s0)
	if err != nil {
		t.Fatal(err)
	}
	want := []explorer.Var{
		{Name: "p1.status", Value: "idle"}, {Name: "p1.round", Value: 0}, {Name: "p1.log", Value: []any{}},
		{Name: "p2.status", Value: "idle"}, {Name: "p2.round", Value: 0}, {Name: "p2.log", Value: []any{}},
		{Name: "p3.status", Value: "idle"}, {Name: "p3.round", Value: 0}, {Name: "p3.log", Value: []any{}},
		{Name: "queue_{1,2}", Value: []any{}},
		{Name: "crashed", Value: []any{}}, {Name: "crashes-left", Value: 1},
	}
	if got, w := fmt.Sprintf("%#v", vars), fmt.Sprintf("%#v", want); got != w {
		t.Errorf("Describe:\n got %s\nwant %s", got, w)
	}

	next, lbls, _ := successors(t, m, s0)
	if want := []string{"send(5)_{1,2}", "enter_{3}", "wait(2)_{3}", "crash_{1}", "crash_{2}", "crash_{3}"}; !slices.Equal(lbls, want) {
		t.Errorf("labels %q, want %q", lbls, want)
	}
	if _, err := m.Label(s0, 6); err == nil || err.Error() != "action 6: the state has 6 transitions" {
		t.Errorf("Label(6): %v", err)
	}
	if _, err := m.Label(s0, -1); err == nil {
		t.Errorf("Label(-1) gave no error")
	}

	tests := []struct {
		after  int // action from the initial state
		labels []string
		state  string
	}{
		{0, []string{"enter_{3}", "wait(2)_{3}", "receive(5)_{1,2}", "crash_{1}", "crash_{2}", "crash_{3}"},
			"p1.status=busy p1.round=0 p1.log=[] p2.status=idle p2.round=0 p2.log=[] p3.status=idle p3.round=0 p3.log=[] queue_{1,2}=[5] crashed=[] crashes-left=1"},
		{2, []string{"send(5)_{1,2}", "crash_{1}", "crash_{2}", "crash_{3}"},
			"p1.status=idle p1.round=0 p1.log=[] p2.status=idle p2.round=0 p2.log=[] p3.status=busy p3.round=2 p3.log=[] queue_{1,2}=[] crashed=[] crashes-left=1"},
		{4, []string{"send(5)_{1,2}", "enter_{3}", "wait(2)_{3}"},
			"p1.status=idle p1.round=0 p1.log=[] p2.status=idle p2.round=0 p2.log=[] p3.status=idle p3.round=0 p3.log=[] queue_{1,2}=[] crashed=[2] crashes-left=0"},
	}
	for _, tt := range tests {
		s := next[tt.after]
		if got := describe(t, m, s); got != tt.state {
			t.Errorf("after %s:\n got %s\nwant %s", lbls[tt.after], got, tt.state)
		}
		if _, got, _ := successors(t, m, s); !slices.Equal(got, tt.labels) {
			t.Errorf("after %s: labels %q, want %q", lbls[tt.after], got, tt.labels)
		}
	}
	// After send and receive, process 2's log shows the message.
	afterSend := next[0]
	n2, _, _ := successors(t, m, afterSend)
	if got := describe(t, m, n2[2]); !strings.Contains(got, "p2.log=[5]") || !strings.Contains(got, "queue_{1,2}=[]") {
		t.Errorf("after receive(5)_{1,2}: %s", got)
	}
	automatontest.CheckPure(t, m, 1000)
}

// ---- Configuration errors ----

func TestNewRejects(t *testing.T) {
	tests := []struct {
		name string
		cfg  automaton.Config[relay, int]
		want string
	}{
		{"no initial state", automaton.Config[relay, int]{}, "automaton: bad configuration: no initial state"},
		{"no processes", automaton.Config[relay, int]{Initial: [][]relay{{}}}, "automaton: bad configuration: no processes"},
		{"sizes differ", automaton.Config[relay, int]{Initial: [][]relay{{{}, {}}, {{}}}}, "automaton: bad configuration: initial state 1 has 1 processes, the first has 2"},
		{"link outside", automaton.Config[relay, int]{Initial: [][]relay{{{}, {}}}, Links: []automaton.Link{{0, 2}}}, "automaton: bad configuration: link 0->2 outside processes 0..1"},
		{"link twice", automaton.Config[relay, int]{Initial: [][]relay{{{}, {}}}, Links: []automaton.Link{{0, 1}, {0, 1}}}, "automaton: bad configuration: link 0->1 listed twice"},
	}
	for _, tt := range tests {
		_, err := automaton.New(tt.cfg)
		if !errors.Is(err, automaton.ErrConfig) || err.Error() != tt.want {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// ---- (f') Crash-recovery ----

// phoenix is relay with a recovery: Got is volatile (reset to false), Sent
// is stable (kept), and the recovery action of the sender announces itself
// with 9.
type phoenix struct {
	Sender bool `vacheck:"-"`
	Sent   bool
	Got    bool
}

func (p *phoenix) Steps(_ *automaton.View[phoenix, int], out []automaton.Step) []automaton.Step {
	if p.Sender && !p.Sent {
		out = append(out, automaton.Out("send", 1))
	}
	return out
}

func (p *phoenix) Do(_ automaton.Step, fx *automaton.Effects[int]) {
	p.Sent = true
	fx.Send(1, 5)
}

func (p *phoenix) Receive(int, int, *automaton.Effects[int]) { p.Got = true }

func (p *phoenix) Recover(fx *automaton.Effects[int]) {
	p.Got = false
	if p.Sender && fx.Up(fx.Self()) {
		fx.Send(1, 9)
	}
}

// TestRecoveries checks recover_i (docs/properties.md): it is a fault
// enabled for a crashed process while the budget lasts, it resets the
// volatile variables and keeps the stable ones, its recovery action runs in
// the same step with the process up, and a model whose process cannot
// recover is refused.
func TestRecoveries(t *testing.T) {
	m := mustNew(t, automaton.Config[phoenix, int]{
		Initial:    [][]phoenix{{{Sender: true}, {}}},
		Links:      []automaton.Link{{From: 0, To: 1}},
		Crashes:    1,
		Recoveries: 1,
	})
	automatontest.CheckPure(t, m, 1000)
	init, _ := m.Initial()
	next, lbls, _ := successors(t, m, init[0])
	if want := []string{"send(5)_{1,2}", "crash_{1}", "crash_{2}"}; !slices.Equal(lbls, want) {
		t.Fatalf("labels %q, want %q", lbls, want)
	}
	// send, crash_1, recover_1: Sent is kept and the recovery sends 9.
	sent := next[0]
	afterCrash, lbls, _ := successors(t, m, sent)
	if want := []string{"receive(5)_{1,2}", "crash_{1}", "crash_{2}"}; !slices.Equal(lbls, want) {
		t.Fatalf("after send: labels %q, want %q", lbls, want)
	}
	back, lbls, ts := successors(t, m, afterCrash[1])
	if want := []string{"receive(5)_{1,2}", "recover_{1}"}; !slices.Equal(lbls, want) {
		t.Fatalf("after crash_{1}: labels %q, want %q", lbls, want)
	}
	if !ts[1].Fault || ts[1].Task != -1 || ts[1].Messages != 1 {
		t.Errorf("recover_{1} transition %+v, want a fault sending one message", ts[1])
	}
	if got, want := describe(t, m, back[1]), "p1.sent=true p1.got=false p2.sent=false p2.got=false queue_{1,2}=[5 9] crashed=[] crashes-left=0 recoveries-left=0"; got != want {
		t.Errorf("after recover_{1}:\n got %s\nwant %s", got, want)
	}
	// crash_2 after it got 5, recover_2: Got is volatile and reset.
	got, _, _ := successors(t, m, afterCrash[0])
	up, lbls, _ := successors(t, m, got[1])
	if want := []string{"recover_{2}"}; !slices.Equal(lbls, want) {
		t.Fatalf("after crash_{2}: labels %q, want %q", lbls, want)
	}
	if got, want := describe(t, m, up[0]), "p1.sent=true p1.got=false p2.sent=false p2.got=false queue_{1,2}=[] crashed=[] crashes-left=0 recoveries-left=0"; got != want {
		t.Errorf("after recover_{2}:\n got %s\nwant %s", got, want)
	}
	r := check(t, m)
	if r.Status != explorer.OK {
		t.Errorf("status %v", r.Status)
	}

	_, err := automaton.New(automaton.Config[relay, int]{Initial: [][]relay{{{Sender: true}, {}}}, Links: []automaton.Link{{From: 0, To: 1}}, Crashes: 1, Recoveries: 1})
	if !errors.Is(err, automaton.ErrConfig) || !strings.Contains(err.Error(), "Recoverer") {
		t.Errorf("a process without Recover: err %v, want ErrConfig naming Recoverer", err)
	}
}

// TestPanickingInvariant: a panic in an invariant fails the search as an
// error of the check, with the path to the state being checked, in the
// keyed expansion (one deferred recover for loading, checking and
// expanding) as in the others.
func TestPanickingInvariant(t *testing.T) {
	m := mustNew(t, automaton.Config[bomb, int]{
		Initial: [][]bomb{{{}}},
		Invariants: []automaton.Invariant[bomb, int]{{Name: "small", Holds: func(v *automaton.View[bomb, int]) bool {
			if v.Proc(0).Count == 1 {
				panic("bang")
			}
			return true
		}}},
	})
	for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}, {Strategy: explorer.DFS}} {
		r, err := explorer.Check(m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != explorer.Failed || r.Reason != "the model panicked: bang" || r.Err == nil {
			t.Fatalf("%v, %d workers: %v %q (err %v), want a failure: the model panicked: bang", cfg.Strategy, cfg.Workers, r.Status, r.Reason, r.Err)
		}
		if r.Failure == nil {
			t.Fatalf("%v, %d workers: no failure trace", cfg.Strategy, cfg.Workers)
		}
		if got := explorer.Actions(r.Failure.Steps); !slices.Equal(got, []string{"inc_{1}"}) {
			t.Errorf("%v, %d workers: failure trace %q, want [inc_{1}]", cfg.Strategy, cfg.Workers, got)
		}
	}
}
