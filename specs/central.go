package specs

import (
	"fmt"
	"strconv"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/mutex"
	"github.com/vacheck/vacheck/properties"
)

// ctKind is the type of a central-coordinator message. The zero value is
// invalid.
type ctKind uint8

const (
	ctRequest ctKind = 1 + iota
	ctReply
	ctRelease
)

func (k ctKind) String() string {
	switch k {
	case ctRequest:
		return "REQUEST"
	case ctReply:
		return "REPLY"
	case ctRelease:
		return "RELEASE"
	}
	return fmt.Sprintf("ctKind(%d)", uint8(k))
}

// ctMsg is a message of the central coordinator; the sender is the channel's.
type ctMsg struct{ Kind ctKind }

func (m ctMsg) String() string { return m.Kind.String() }

// ctHolderAssertion is the assertion of "K receive RELEASE from j".
const ctHolderAssertion = "release-from-holder"

// ctNode is a process of the central-coordinator algorithm
// (docs/algorithms/central.md; the textbook solution, e.g. Singhal & Shivaratri
// 1994): a client has the user part of 2.0 (ust, done) and granted, "a REPLY
// has been received for the current request", which the entry condition reads;
// the coordinator K has busy, holder (automaton.NoProc for ⊥) and queue, the
// FIFO of waiting clients.
//
// Numbering: --n counts the clients, as the section's "K plus N clients",
// and the clients are processes 1..N, so that --requesters and traces use
// the same numbers; K is process N+1. Choices: K does not request the CS
// itself (the section's Choice); the channels are unordered by default,
// since FIFO is not needed (a client's RELEASE and its next REQUEST may
// then arrive in either order, which K handles: the REQUEST queues behind
// the client's own hold).
type ctNode struct {
	Ust     mutex.State
	Done    int
	Granted bool
	Busy    bool
	Holder  automaton.Proc
	Queue   []automaton.Proc
	// Coord marks K; Requests is R for a requesting client, 0 otherwise.
	Coord    bool `vacheck:"-"`
	Requests int  `vacheck:"-"`
	// Broken makes K grant every REQUEST at once, busy or not: the bug of
	// central-broken.
	Broken bool `vacheck:"-"`
}

type ctView = automaton.View[ctNode, ctMsg]

// ctUser reads the user part of a process (K stays idle).
func ctUser(p *ctNode) (mutex.State, int) { return p.Ust, p.Done }

// Uses says which fields a trace shows (automaton.FieldUser): a client's
// user part and granted, K's busy, holder and queue.
func (p *ctNode) Uses(field string) bool {
	switch field {
	case "busy", "holder", "queue":
		return p.Coord
	}
	return !p.Coord
}

// Steps: a client's request_i, enter_i (a REPLY arrived) and exit_i. K
// only receives.
func (p *ctNode) Steps(v *ctView, out []automaton.Step) []automaton.Step {
	k := v.N() - 1
	switch {
	case p.Ust.CanRequest(p.Done, p.Requests):
		out = append(out, automaton.Out(mutex.StepRequest, k))
	case p.Ust == mutex.Trying && p.Granted:
		out = append(out, automaton.Do(mutex.StepEnter))
	case p.Ust == mutex.Critical:
		out = append(out, automaton.Out(mutex.StepExit, k))
	}
	return out
}

// Do performs a client's request_i (REQUEST to K), enter_i, or exit_i
// (RELEASE to K).
func (p *ctNode) Do(s automaton.Step, fx *automaton.Effects[ctMsg]) {
	k := fx.N() - 1
	switch s.Name {
	case mutex.StepRequest:
		p.Ust.Request()
		fx.Send(k, ctMsg{ctRequest})
	case mutex.StepEnter:
		p.Ust.Enter()
		p.Granted = false
	case mutex.StepExit:
		p.Ust.Exit(&p.Done)
		fx.Send(k, ctMsg{ctRelease})
	default:
		panic(unknownStep("central", s))
	}
}

// Receive performs receive(m)_{j,i}. At a client, REPLY is the grant. At K,
// REQUEST from j: grant if not busy, else queue j; RELEASE from j (assert
// holder = j): grant the head of the queue, or become free.
func (p *ctNode) Receive(from int, m ctMsg, fx *automaton.Effects[ctMsg]) {
	switch m.Kind {
	case ctReply:
		p.Granted = true
	case ctRequest:
		if !p.Busy || p.Broken {
			p.Busy, p.Holder = true, automaton.Proc(from)
			fx.Send(from, ctMsg{ctReply})
		} else {
			p.Queue = append(p.Queue, automaton.Proc(from))
		}
	case ctRelease:
		fx.Assert(ctHolderAssertion, p.Holder == automaton.Proc(from))
		if len(p.Queue) > 0 {
			p.Holder, p.Queue = p.Queue[0], p.Queue[1:]
			fx.Send(int(p.Holder), ctMsg{ctReply})
		} else {
			p.Busy, p.Holder = false, automaton.NoProc
		}
	}
}

// ctExplain says whom K has granted and queued, and what clients wait for.
func ctExplain(v *ctView) []string {
	n := v.N() - 1
	var lines []string
	k := v.Proc(n)
	switch {
	case !v.Up(n):
		lines = append(lines, fmt.Sprintf("the coordinator (process %d) has crashed", n+1))
	case k.Busy:
		lines = append(lines, fmt.Sprintf("the coordinator (process %d) has granted process %v, queue %v", n+1, k.Holder, k.Queue))
	default:
		lines = append(lines, fmt.Sprintf("the coordinator (process %d) is free", n+1))
	}
	for i := 0; i < n; i++ {
		p, state := v.Proc(i), ""
		switch {
		case p.Ust == mutex.Critical:
			state = "is in the critical section"
		case p.Ust == mutex.Trying && p.Granted:
			state = "is trying and may enter"
		case p.Ust == mutex.Trying:
			state = "is trying, waiting for a REPLY"
		}
		if state != "" && !v.Up(i) {
			state += " (crashed)"
		}
		if state != "" {
			lines = append(lines, "process "+strconv.Itoa(i+1)+" "+state)
		}
	}
	if m := v.InTransit(); m > 0 {
		lines = append(lines, inTransit(m))
	}
	return lines
}

// ctLinks are the links of n clients and K, process n+1: a channel each
// way between K and every client, none between clients.
func ctLinks(n int) []automaton.Link {
	var links []automaton.Link
	for i := 0; i < n; i++ {
		links = append(links, automaton.Link{From: i, To: n}, automaton.Link{From: n, To: i})
	}
	return links
}

// central returns the spec central of docs/algorithms/central.md, which
// declares its broken twin central-broken.
func central() Spec {
	s := Spec{
		Name:    "central",
		Section: "2.1",
		Summary: "central coordinator: clients 1..N send REQUEST to K (process N+1), which grants with REPLY in arrival order; RELEASE on exit",
		Params: []Param{
			{Flag: "n", Default: "3", Usage: "number of clients; the coordinator K is process N+1", Max: maxN - 1},
			requestsParam,
			{Flag: "requesters", Default: "all", Usage: "clients that request the critical section: all, or distinct client numbers 1..N such as 1,3"},
			{Flag: "crashes", Default: "0", Usage: "crash-stop faults the environment may inject, at any process (K included), 0 to N"},
		},
		Claims: []string{properties.MutualExclusion, properties.Progress, properties.StarvationFreedom, properties.DeadlockFreedom, ctHolderAssertion},
		Broken: &Twin{
			Summary: "central coordinator with a bug",
			Bug:     "the coordinator grants every REQUEST at once without checking busy, so two clients hold a REPLY and both enter",
			Claims:  []string{properties.MutualExclusion, properties.DeadlockFreedom},
		},
	}
	s.Build = func(p *Params) (explorer.Model, error) {
		n := p.IntFlag("n", 1, maxN-1)
		users := p.mutexUsers(n)
		crashes := p.IntFlag("crashes", 0, n)
		// A client's channel to K holds at most its RELEASE and its next
		// REQUEST; K's channel to a client at most one REPLY.
		users.Requesters = append(users.Requesters, false) // K
		return mutexModel(p, users, ctUser, channel.Unordered, 2, func(n int) []ctNode {
			procs := eachProcess(func(i int) ctNode {
				return ctNode{Ust: mutex.Idle, Holder: automaton.NoProc, Requests: users.Requests(i), Broken: p.Broken()}
			})(n)
			procs[n-1].Coord = true
			return procs
		}, automaton.Config[ctNode, ctMsg]{
			MessageTypes: []string{"REQUEST", "REPLY", "RELEASE"},
			Mutex:        mutex.Metrics(users.R, ctUser, ctServes),
			Links:        ctLinks(n),
			Crashes:      crashes,
			Invariants:   []automaton.Invariant[ctNode, ctMsg]{mutex.Exclusion[ctNode, ctMsg](ctUser)},
			Assertions:   []automaton.Assertion{{Name: ctHolderAssertion, Doc: "K receives RELEASE only from the client it granted (assert holder = j)"}},
			// Valid end (docs/properties.md): all served, channels empty, K
			// free with an empty queue.
			ValidEnd: mutex.ValidEnd[ctNode, ctMsg](users, ctUser, func(p *ctNode) bool { return !p.Busy && len(p.Queue) == 0 }),
			Liveness: []automaton.Liveness[ctNode, ctMsg]{
				mutex.LiveProgress[ctNode, ctMsg](ctUser),
				mutex.Starvation[ctNode, ctMsg](ctUser),
			},
			Explain: ctExplain,
		})
	}
	return s
}

// ctServes attributes a message to the entry it serves (the metrics
// messages-per-entry and sync-delay): a REPLY serves its receiver, a REQUEST
// or RELEASE its sender.
func ctServes(from, to int, m ctMsg) int {
	if m.Kind == ctReply {
		return to
	}
	return from
}
