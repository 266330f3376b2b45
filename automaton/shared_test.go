package automaton_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/automaton/automatontest"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// literalBFS counts the states and transitions reachable from init by
// next, a model written out by hand over a comparable state: the
// independent figures the tests of shared actions compare with.
func literalBFS[T comparable](init T, next func(T) []T) (states, transitions int) {
	return literalBFSFrom([]T{init}, next)
}

// literalBFSFrom is literalBFS from several initial states.
func literalBFSFrom[T comparable](inits []T, next func(T) []T) (states, transitions int) {
	seen := map[T]bool{}
	var queue []T
	for _, s := range inits {
		if !seen[s] {
			seen[s] = true
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, t := range next(s) {
			transitions++
			if !seen[t] {
				seen[t] = true
				queue = append(queue, t)
			}
		}
	}
	return len(seen), transitions
}

// checkCounts searches m with every property and fails the test unless the
// figures are states and transitions.
func checkCounts(t *testing.T, m explorer.Model, cfg explorer.Config, states, transitions int64) *explorer.Result {
	t.Helper()
	r, err := explorer.Check(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.States != states || r.Transitions != transitions {
		t.Errorf("%d states and %d transitions, want %d and %d", r.States, r.Transitions, states, transitions)
	}
	return r
}

// holder is a process of a token ring with mutual exclusion: the holder of
// the token may enter its critical section, leave it, and hand the token
// to the next process in one atomic step (the shared action pass_{i,i+1})
// or, with Split, by sending it over the channel (the mutant: pass then
// receive, two steps).
type holder struct {
	Token, Crit bool
	Split       bool `vacheck:"-"`
}

func (p *holder) Steps(v *automaton.View[holder, string], out []automaton.Step) []automaton.Step {
	next := (v.Self() + 1) % v.N()
	switch {
	case p.Crit:
		out = append(out, automaton.Do("exit"))
	case p.Token && p.Split:
		out = append(out, automaton.Do("enter"), automaton.Out("pass", next))
	case p.Token:
		out = append(out, automaton.Do("enter"), automaton.Shared("pass", next))
	}
	return out
}

func (p *holder) Do(s automaton.Step, fx *automaton.Effects[string]) {
	switch s.Name {
	case "enter":
		p.Crit = true
	case "exit":
		p.Crit = false
	case "pass":
		p.Token = false
		if p.Split {
			fx.Send((fx.Self()+1)%fx.N(), "token")
		}
	default:
		panic("unknown step " + s.Name)
	}
}

// Join performs the input pass_{i-1,i}: the token arrives.
func (p *holder) Join(s automaton.Step, from int, fx *automaton.Effects[string]) {
	if s.Name != "pass" {
		panic("unknown shared step " + s.Name)
	}
	p.Token = true
}

func (p *holder) Receive(from int, m string, fx *automaton.Effects[string]) { p.Token = true }

func tokenRing(t *testing.T, n int, split bool, sym automaton.Symmetry) *automaton.System[holder, string, *holder] {
	t.Helper()
	procs := make([]holder, n)
	for i := range procs {
		procs[i].Split = split
	}
	procs[0].Token = true
	initial := [][]holder{procs}
	if sym != automaton.NoSymmetry {
		// Every rotation of the initial state: a union of orbits.
		initial = nil
		for k := 0; k < n; k++ {
			ps := make([]holder, n)
			for i := range ps {
				ps[i].Split = split
			}
			ps[k].Token = true
			initial = append(initial, ps)
		}
	}
	sys, err := automaton.New(automaton.Config[holder, string]{
		Name:     "token ring",
		Initial:  initial,
		Links:    automaton.Ring(n),
		Symmetry: sym,
		Invariants: []automaton.Invariant[holder, string]{{
			Name: properties.MutualExclusion,
			Holds: func(v *automaton.View[holder, string]) bool {
				return properties.Count(v.N(), func(i int) bool { return v.Proc(i).Crit }) <= 1
			},
		}, {
			Name: properties.TokenUniqueness,
			Holds: func(v *automaton.View[holder, string]) bool {
				return properties.Count(v.N(), func(i int) bool { return v.Proc(i).Token })+v.InTransit() == 1
			},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

// ringState is the literal model of the token ring: where the token is
// (held by process at, or in the channel into it when moving), and whether
// its holder is critical.
type ringState struct {
	at           int
	crit, moving bool
}

func ringNext(n int, split bool) func(ringState) []ringState {
	return func(s ringState) []ringState {
		switch {
		case s.moving: // receive(token)_{at-1,at}
			return []ringState{{at: s.at}}
		case s.crit: // exit_{at}
			return []ringState{{at: s.at}}
		case split: // enter_{at}; pass_{at,at+1} onto the channel
			return []ringState{{at: s.at, crit: true}, {at: (s.at + 1) % n, moving: true}}
		}
		// enter_{at}; pass_{at,at+1}, the token handed over at once
		return []ringState{{at: s.at, crit: true}, {at: (s.at + 1) % n}}
	}
}

// TestSharedTokenHandover hands a token from i to i+1 in one step. By
// hand: the token is at one of n processes, whose holder is critical or
// not: 2n states; a holder outside has enter and pass, one inside has
// exit: 3n transitions (8 and 12 for n = 4), as the literal model counts.
func TestSharedTokenHandover(t *testing.T) {
	const n = 4
	states, trans := literalBFS(ringState{}, ringNext(n, false))
	if states != 2*n || trans != 3*n {
		t.Fatalf("literal model: %d states and %d transitions, want %d and %d", states, trans, 2*n, 3*n)
	}
	sys := tokenRing(t, n, false, automaton.NoSymmetry)
	for _, workers := range []int{1, 2} {
		checkCounts(t, sys, explorer.Config{Workers: workers}, int64(states), int64(trans))
	}
	checkCounts(t, sys, explorer.Config{Strategy: explorer.DFS}, int64(states), int64(trans))
	automatontest.CheckPure(t, sys, 100)

	// The label names both participants, and the step changes both.
	init, _ := sys.Initial()
	if st := automaton.Shared("tick", 3, 1); st.Partner() != 1 || len(st.Partners()) != 2 || st.Partners()[1] != 3 || automaton.Do("x").Partner() != -1 {
		t.Errorf("Shared(tick, 3, 1): Partner %d, Partners %v; want 1 and [1 3]", st.Partner(), st.Partners())
	}
	if l, err := sys.Label(init[0], 1); err != nil || l != "pass_{1,2}" {
		t.Errorf("Label = %q, %v; want pass_{1,2}", l, err)
	}
	tr, err := explorer.Replay(sys, 0, []uint32{1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for _, v := range tr.Steps[0].State {
		got[v.Name] = v.Value
	}
	if got["p1.token"] != false || got["p2.token"] != true {
		t.Errorf("after pass_{1,2}: %v; want p1.token false and p2.token true", tr.Steps[0].State)
	}
}

// TestSharedActionSplitChangesCounts is the mutant: the same handover
// split into two steps (send the token, then receive it) adds a state per
// process, the token in transit, and a transition, its receive: 3n states
// and 4n transitions, which the literal split model counts too and which
// the pinned figures of the atomic ring tell apart.
func TestSharedActionSplitChangesCounts(t *testing.T) {
	const n = 4
	states, trans := literalBFS(ringState{}, ringNext(n, true))
	if states != 3*n || trans != 4*n {
		t.Fatalf("literal split model: %d states and %d transitions, want %d and %d", states, trans, 3*n, 4*n)
	}
	r := checkCounts(t, tokenRing(t, n, true, automaton.NoSymmetry), explorer.Config{}, int64(states), int64(trans))
	if r.States == 2*n {
		t.Errorf("the split ring has the atomic ring's %d states", r.States)
	}
	// The synchronous round split the same way breaks its invariant.
	automatontest.ExpectViolation(t, roundSystem(t, 2, true), "lockstep")
}

// rounder is a process of a synchronous round among three: each process
// gets ready on its own, and process 1, once everyone is ready, ticks the
// round for all in one step (the shared action tick_{1,2,3}). With Split
// the tick is a broadcast each process receives later (the mutant).
type rounder struct {
	Round int
	Ready bool
	R     int  `vacheck:"-"` // the last round
	Split bool `vacheck:"-"`
}

func (p *rounder) Steps(v *automaton.View[rounder, int], out []automaton.Step) []automaton.Step {
	if !p.Ready && p.Round < p.R {
		out = append(out, automaton.Do("ready"))
	}
	if v.Self() == 0 && p.Ready && v.Proc(1).Ready && v.Proc(2).Ready {
		if p.Split {
			return append(out, automaton.Broadcast("tick"))
		}
		out = append(out, automaton.Shared("tick", 1, 2))
	}
	return out
}

func (p *rounder) Do(s automaton.Step, fx *automaton.Effects[int]) {
	switch s.Name {
	case "ready":
		p.Ready = true
	case "tick":
		p.Ready, p.Round = false, p.Round+1
		if p.Split {
			fx.Send(1, p.Round)
			fx.Send(2, p.Round)
		}
	default:
		panic("unknown step " + s.Name)
	}
}

func (p *rounder) Join(s automaton.Step, from int, fx *automaton.Effects[int]) {
	p.Ready, p.Round = false, p.Round+1
}

func (p *rounder) Receive(from int, m int, fx *automaton.Effects[int]) {
	p.Ready, p.Round = false, m
}

func roundSystem(t *testing.T, rounds int, split bool) *automaton.System[rounder, int, *rounder] {
	t.Helper()
	p := rounder{R: rounds, Split: split}
	sys, err := automaton.New(automaton.Config[rounder, int]{
		Initial: [][]rounder{{p, p, p}},
		Links:   automaton.Complete(3, false),
		Invariants: []automaton.Invariant[rounder, int]{{
			Name: "lockstep", Doc: "every process is in the same round",
			Holds: func(v *automaton.View[rounder, int]) bool {
				return v.Proc(0).Round == v.Proc(1).Round && v.Proc(1).Round == v.Proc(2).Round
			},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

// TestSharedSynchronousRound ticks three processes in one step. By hand:
// in each of the R rounds before the last, any subset of the three may be
// ready (8 states), and in round R nobody is (1): 8R+1 states; each round
// has 12 ready transitions (3 per subset size summed: 3·4) and one tick:
// 13R transitions. For R = 2, 17 and 26, as the literal model counts.
func TestSharedSynchronousRound(t *testing.T) {
	const rounds = 2
	type state struct {
		round int
		ready [3]bool
	}
	next := func(s state) []state {
		var out []state
		for i := range s.ready {
			if !s.ready[i] && s.round < rounds {
				n := s
				n.ready[i] = true
				out = append(out, n)
			}
		}
		if s.ready == [3]bool{true, true, true} {
			out = append(out, state{round: s.round + 1})
		}
		return out
	}
	states, trans := literalBFS(state{}, next)
	if states != 8*rounds+1 || trans != 13*rounds {
		t.Fatalf("literal model: %d states and %d transitions, want %d and %d", states, trans, 8*rounds+1, 13*rounds)
	}
	sys := roundSystem(t, rounds, false)
	r := checkCounts(t, sys, explorer.Config{}, int64(states), int64(trans))
	if r.Status != explorer.OK {
		t.Errorf("status %v, want ok: %s", r.Status, r.Reason)
	}
	automatontest.CheckPure(t, sys, 100)
	tr, err := explorer.Replay(sys, 0, []uint32{0, 0, 0, 0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Steps[3].Action; got != "tick_{1,2,3}" {
		t.Errorf("the fourth step is %s, want tick_{1,2,3}", got)
	}
}

// caller is a process of a handshake: two clients (0 and 1) each want the
// server (2) once; a client and the free server shake hands (hello_{i,3})
// in one step, and later part (bye_{i,3}). With Careless, the server
// shakes hands while busy (a broken server).
type caller struct {
	Want, In, Busy bool
	Served         int
	Peer           automaton.Proc
	Careless       bool `vacheck:"-"`
}

func (p *caller) Steps(v *automaton.View[caller, string], out []automaton.Step) []automaton.Step {
	const server = 2
	switch {
	case v.Self() == server:
	case p.In:
		out = append(out, automaton.Shared("bye", server))
	case p.Want && (!v.Proc(server).Busy || p.Careless):
		out = append(out, automaton.Shared("hello", server))
	case !p.Want && p.Served == 0:
		out = append(out, automaton.Do("want"))
	}
	return out
}

func (p *caller) Do(s automaton.Step, fx *automaton.Effects[string]) {
	switch s.Name {
	case "want":
		p.Want = true
	case "hello":
		p.Want, p.In = false, true
	case "bye":
		p.In, p.Served = false, p.Served+1
	default:
		panic("unknown step " + s.Name)
	}
}

func (p *caller) Join(s automaton.Step, from int, fx *automaton.Effects[string]) {
	switch s.Name {
	case "hello":
		p.Busy, p.Peer = true, automaton.Proc(from)
	case "bye":
		fx.Assert("bye-from-peer", p.Peer == automaton.Proc(from))
		p.Busy, p.Peer = false, automaton.NoProc
	default:
		panic("unknown shared step " + s.Name)
	}
}

func (p *caller) Receive(int, string, *automaton.Effects[string]) { panic("no messages") }

func handshake(t *testing.T, careless bool) *automaton.System[caller, string, *caller] {
	t.Helper()
	c := caller{Peer: automaton.NoProc, Careless: careless}
	sys, err := automaton.New(automaton.Config[caller, string]{
		Initial:    [][]caller{{c, c, c}},
		Assertions: []automaton.Assertion{{Name: "bye-from-peer", Doc: "the server parts from the client it shook hands with"}},
		Invariants: []automaton.Invariant[caller, string]{{
			Name: properties.MutualExclusion,
			Holds: func(v *automaton.View[caller, string]) bool {
				return !(v.Proc(0).In && v.Proc(1).In)
			},
		}},
		ValidEnd: func(v *automaton.View[caller, string]) bool {
			return v.Proc(0).Served == 1 && v.Proc(1).Served == 1
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

// TestSharedHandshake shakes hands atomically between a client and the
// server, against the literal model of the same protocol: each client
// goes idle, wanting, in, done (4 phases), the server busy exactly when a
// client is in; a wanting client shakes hands only with a free server.
// Of the 16 pairs of phases, the 1 with both in is unreachable: 15 states,
// 20 transitions.
func TestSharedHandshake(t *testing.T) {
	const idle, wanting, in, done = 0, 1, 2, 3
	type state struct{ c [2]int }
	next := func(s state) []state {
		var out []state
		busy := s.c[0] == in || s.c[1] == in
		for i, ph := range s.c {
			n := s
			switch {
			case ph == idle:
				n.c[i] = wanting
			case ph == wanting && !busy:
				n.c[i] = in
			case ph == in:
				n.c[i] = done
			default:
				continue
			}
			out = append(out, n)
		}
		return out
	}
	states, trans := literalBFS(state{}, next)
	if states != 15 || trans != 20 {
		t.Fatalf("literal model: %d states and %d transitions, want 15 and 20", states, trans)
	}
	sys := handshake(t, false)
	r := checkCounts(t, sys, explorer.Config{}, int64(states), int64(trans))
	if r.Status != explorer.OK {
		t.Errorf("status %v, want ok: %s", r.Status, r.Reason)
	}
	automatontest.CheckPure(t, sys, 100)

	// The careless server lets both clients in; the counterexample shows
	// both participants of each handshake change in its one step.
	bad := automatontest.ExpectViolation(t, handshake(t, true), properties.MutualExclusion)
	if bad == nil {
		return
	}
	var labels []string
	for _, s := range bad.Violations[0].Trace.Steps {
		labels = append(labels, s.Action)
	}
	if got := strings.Join(labels, " "); got != "want_{1} hello_{1,3} want_{2} hello_{2,3}" {
		t.Errorf("counterexample %s, want want_{1} hello_{1,3} want_{2} hello_{2,3}", got)
	}
}

// collector takes the heads of its two channels in one step once both
// have a message: process 3 adds the values processes 1 and 2 send it.
type collector struct {
	Val  int
	Sent bool
	Sum  int
}

func (p *collector) Steps(v *automaton.View[collector, int], out []automaton.Step) []automaton.Step {
	switch {
	case v.Self() < 2 && !p.Sent:
		out = append(out, automaton.Out("send", 2))
	case v.Self() == 2 && len(v.Chan(0, 2)) > 0 && len(v.Chan(1, 2)) > 0:
		out = append(out, automaton.Do("sum"))
	}
	return out
}

func (p *collector) Do(s automaton.Step, fx *automaton.Effects[int]) {
	switch s.Name {
	case "send":
		p.Sent = true
		fx.Send(2, p.Val)
	case "sum":
		p.Sum += fx.Take(0) + fx.Take(1)
	default:
		panic("unknown step " + s.Name)
	}
}

func (p *collector) Receive(int, int, *automaton.Effects[int]) {}

// Accepts leaves the messages to process 3's sum step.
func (p *collector) Accepts(int, int) bool { return false }

// TestTakeSeveralMessages consumes the heads of two channels in one step.
// By hand: each of the two senders has sent or not (4 states), and once
// both have, the sum takes both messages (1 more): 5 states and 5
// transitions, ending with the sum 3+4 and the channels empty.
func TestTakeSeveralMessages(t *testing.T) {
	sys, err := automaton.New(automaton.Config[collector, int]{
		Initial: [][]collector{{{Val: 3}, {Val: 4}, {}}},
		Links:   []automaton.Link{{From: 0, To: 2}, {From: 1, To: 2}},
		ValidEnd: func(v *automaton.View[collector, int]) bool {
			return v.Proc(2).Sum == 7 && v.ChannelsEmpty()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := checkCounts(t, sys, explorer.Config{}, 5, 5)
	if r.Status != explorer.OK {
		t.Errorf("status %v, want ok (the sum is 7 and the channels empty at the end): %s", r.Status, r.Reason)
	}
	automatontest.CheckPure(t, sys, 100)
}

// TestSharedRefusals covers what cannot take part in a shared action:
// each is refused with an error that names it, never a silent result.
func TestSharedRefusals(t *testing.T) {
	// A partial-order reduction assumes processes change one at a time.
	_, err := automaton.New(automaton.Config[holder, string]{
		Initial:      [][]holder{{{Token: true}, {}}},
		Links:        automaton.Ring(2),
		PartialOrder: &automaton.PartialOrder[holder]{Visible: func(a, b *holder) bool { return a.Crit != b.Crit }},
	})
	if !errors.Is(err, automaton.ErrConfig) || !strings.Contains(err.Error(), "Joiner") {
		t.Errorf("PartialOrder with a Joiner: %v, want ErrConfig naming Joiner", err)
	}

	run := func(name string, m explorer.Model, want string) {
		t.Helper()
		r, err := explorer.Check(m, explorer.Config{})
		if err == nil && r.Status == explorer.Failed {
			err = r.Err
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want the search to fail saying %q", name, err, want)
		}
	}
	// A shared step whose process type has no Join.
	noJoin, err := automaton.New(automaton.Config[loner, string]{Initial: [][]loner{{{}, {}}}})
	if err != nil {
		t.Fatal(err)
	}
	run("no Joiner", noJoin, "step meet names partners (a shared action), but *automaton_test.loner does not implement Joiner")
	// A partner that is no process.
	far, err := automaton.New(automaton.Config[stray, string]{Initial: [][]stray{{{To: 5}, {}}}})
	if err != nil {
		t.Fatal(err)
	}
	run("partner 6 of 2", far, "step meet names partners {6}; a shared action's partners are other processes, 1 to 2")
	self, err := automaton.New(automaton.Config[stray, string]{Initial: [][]stray{{{To: 0}, {}}}})
	if err != nil {
		t.Fatal(err)
	}
	run("itself", self, "names partners {1}")
	// Taking from an empty channel.
	empty, err := automaton.New(automaton.Config[taker, int]{Initial: [][]taker{{{}, {}}}, Links: automaton.Ring(2)})
	if err != nil {
		t.Fatal(err)
	}
	run("take from empty", empty, "process 1 took a message from channel 2→1, but it is empty")
}

type loner struct{ Met bool }

func (p *loner) Steps(v *automaton.View[loner, string], out []automaton.Step) []automaton.Step {
	if !p.Met && v.Self() == 0 {
		out = append(out, automaton.Shared("meet", 1))
	}
	return out
}
func (p *loner) Do(automaton.Step, *automaton.Effects[string])        { p.Met = true }
func (p *loner) Receive(int, string, *automaton.Effects[string])      {}
func (p *stray) Join(automaton.Step, int, *automaton.Effects[string]) {}
func (p *stray) Receive(int, string, *automaton.Effects[string])      {}
func (p *stray) Do(automaton.Step, *automaton.Effects[string])        {}
func (p *taker) Receive(int, int, *automaton.Effects[int])            {}
func (p *taker) Do(_ automaton.Step, fx *automaton.Effects[int])      { p.Got = fx.Take(1) }
func (p *taker) Steps(v *automaton.View[taker, int], out []automaton.Step) []automaton.Step {
	if v.Self() == 0 && p.Got == 0 {
		out = append(out, automaton.Do("grab"))
	}
	return out
}

type stray struct{ To int }

func (p *stray) Steps(v *automaton.View[stray, string], out []automaton.Step) []automaton.Step {
	if v.Self() == 0 {
		out = append(out, automaton.Shared("meet", p.To))
	}
	return out
}

type taker struct{ Got int }

// TestSharedUnderSymmetry checks the handover ring under the rotations:
// one orbit per (holder critical or not), 2 states standing for the 2n
// of each of the n initial states' rings, with the verdicts of the full
// search. A ring whose last process hands the token to process 2 instead
// of 1 is not symmetric, and the search says so.
func TestSharedUnderSymmetry(t *testing.T) {
	const n = 4
	sys := tokenRing(t, n, false, automaton.Rotations)
	full := checkCounts(t, sys, explorer.Config{}, 2*n, 3*n)
	red := checkCounts(t, sys, explorer.Config{Symmetry: true}, 2, 3)
	if full.Status != explorer.OK || red.Status != explorer.OK {
		t.Errorf("statuses %v and %v, want ok", full.Status, red.Status)
	}

	sk, err := automaton.New(automaton.Config[skewed, string]{
		Initial:  [][]skewed{{{Token: true}, {}, {}}, {{}, {Token: true}, {}}, {{}, {}, {Token: true}}},
		Links:    automaton.Ring(3),
		Symmetry: automaton.Rotations,
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := explorer.Check(sk, explorer.Config{Symmetry: true})
	if err == nil && r.Status == explorer.Failed {
		err = r.Err
	}
	if err == nil || !strings.Contains(err.Error(), "not symmetric") {
		t.Errorf("skewed ring under symmetry: %v, want an error saying it is not symmetric", err)
	}
}

// skewed hands the token on around a ring, except that process 3 hands it
// to process 2.
type skewed struct{ Token bool }

func (p *skewed) Steps(v *automaton.View[skewed, string], out []automaton.Step) []automaton.Step {
	if p.Token {
		next := (v.Self() + 1) % v.N()
		if v.Self() == v.N()-1 {
			next = 1
		}
		out = append(out, automaton.Shared("pass", next))
	}
	return out
}
func (p *skewed) Do(automaton.Step, *automaton.Effects[string])        { p.Token = false }
func (p *skewed) Join(automaton.Step, int, *automaton.Effects[string]) { p.Token = true }
func (p *skewed) Receive(int, string, *automaton.Effects[string])      {}

// picker receives x from a bag, and picks y out of it with a step of its
// own (Effects.Consume).
type picker struct{ Sent, GotX, GotY bool }

func (p *picker) Steps(v *automaton.View[picker, string], out []automaton.Step) []automaton.Step {
	switch {
	case v.Self() == 0 && !p.Sent:
		out = append(out, automaton.Broadcast("send"))
	case v.Self() == 1 && !p.GotY && slices.Contains(v.Chan(0, 1), "y"):
		out = append(out, automaton.Do("pick"))
	}
	return out
}

func (p *picker) Do(s automaton.Step, fx *automaton.Effects[string]) {
	if s.Name == "send" {
		p.Sent = true
		fx.Send(1, "x")
		fx.Send(1, "y")
		return
	}
	fx.Consume(0, "y")
	p.GotY = true
}

func (p *picker) Receive(_ int, m string, _ *automaton.Effects[string]) { p.GotX = true }
func (p *picker) Accepts(_ int, m string) bool                          { return m == "x" }

// TestConsumeFromABag picks a chosen message out of an unordered channel.
// By hand: the send puts x and y in the bag; then the pick of y and the
// receive of x in either order: 5 states, 5 transitions, ending with both
// and the bag empty. In a FIFO channel y is behind x, so the same pick is
// a modelling error.
func TestConsumeFromABag(t *testing.T) {
	for _, disc := range []channel.Discipline{channel.Unordered, channel.FIFO} {
		sys, err := automaton.New(automaton.Config[picker, string]{
			Initial:  [][]picker{{{}, {}}},
			Links:    []automaton.Link{{From: 0, To: 1}},
			Channels: disc,
			ValidEnd: func(v *automaton.View[picker, string]) bool {
				return v.Proc(1).GotX && v.Proc(1).GotY && v.ChannelsEmpty()
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		r, err := explorer.Check(sys, explorer.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if disc == channel.FIFO {
			if r.Status != explorer.Failed || !strings.Contains(r.Reason, "process 2 consumed y from channel 1→2, but it cannot deliver that message now") {
				t.Errorf("FIFO: %v %s, want a model failure naming the message", r.Status, r.Reason)
			}
			continue
		}
		if r.Status != explorer.OK || r.States != 5 || r.Transitions != 5 {
			t.Errorf("bag: %v with %d states and %d transitions, want ok with 5 and 5: %s", r.Status, r.States, r.Transitions, r.Reason)
		}
	}
}
