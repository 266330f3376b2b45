package specs

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/mutex"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/topology"
)

// rayMsg is a message of Raymond's algorithm (docs/algorithms/raymond.md):
// REQUEST or PRIVILEGE (the token). Neither carries data; the sender is the
// tree edge it travels on.
type rayMsg uint8

const (
	rayRequest rayMsg = 1 + iota
	rayPrivilege
)

func (m rayMsg) String() string {
	switch m {
	case rayRequest:
		return "REQUEST"
	case rayPrivilege:
		return "PRIVILEGE"
	}
	return "rayMsg(" + strconv.Itoa(int(m)) + ")"
}

// rayNode is a process of Raymond's tree-based token algorithm
// (docs/algorithms/raymond.md; K. Raymond, A tree-based algorithm for
// distributed mutual exclusion, ACM TOCS 7(1), 1989). The processes form a
// fixed unrooted tree; holder points along the tree towards the token, REQUESTs
// travel along the holder pointers towards it, and the PRIVILEGE travels back,
// reversing every pointer it crosses.
//
// The fields are the section's state variables: holder (self is the
// process's own number), using, the FIFO reqQ of neighbours and self, and
// asked; plus the user part of 2.0.
//
// Choice: enter_i is its own internal step, pre holder = self ∧ ¬using ∧
// head(reqQ) = self, instead of the branch of ASSIGN that pops self, so that
// every entry shows as enter_i as in the other mutual-exclusion specs (2.0).
// ASSIGN therefore leaves a self at the head of the queue to enter_i, which
// pops it, sets asked := false and using := true exactly as that branch
// does. In between, nothing at i could have acted differently: a REQUEST
// that arrives is only queued, as it would be while i is using.
type rayNode struct {
	// User part (2.0).
	Ust  mutex.State
	Done int
	// Raymond's variables.
	Holder automaton.Proc
	Using  bool
	ReqQ   []automaton.Proc
	Asked  bool

	Me       automaton.Proc `vacheck:"-"`
	Requests int            `vacheck:"-"` // R for a requester, 0 otherwise
	// Broken is the bug of raymond-broken: ASSIGN does not reset asked.
	Broken bool `vacheck:"-"`
}

type rayView = automaton.View[rayNode, rayMsg]

func rayUser(p *rayNode) (mutex.State, int) { return p.Ust, p.Done }

// Steps: request_i (the user wants the critical section), enter_i (Choice
// above: holder = self ∧ ¬using ∧ head(reqQ) = self) and exit_i, the user
// part's steps (mutex.State.Next).
func (p *rayNode) Steps(_ *rayView, out []automaton.Step) []automaton.Step {
	if step, ok := p.Ust.Next(p.Done, p.Requests, p.Holder == p.Me && !p.Using && len(p.ReqQ) > 0 && p.ReqQ[0] == p.Me); ok {
		out = append(out, automaton.Do(step))
	}
	return out
}

// Do performs request_i (append self; ASSIGN; ASK), enter_i (pop self,
// asked := false, using := true) and exit_i (using := false; ASSIGN; ASK).
func (p *rayNode) Do(s automaton.Step, fx *automaton.Effects[rayMsg]) {
	switch s.Name {
	case mutex.StepRequest:
		p.Ust.Request()
		p.ReqQ = append(p.ReqQ, p.Me)
	case mutex.StepEnter:
		p.ReqQ = p.ReqQ[1:]
		p.Asked = false
		p.Using = true
		p.Ust.Enter()
		return
	case mutex.StepExit:
		p.Using = false
		p.Ust.Exit(&p.Done)
	default:
		panic(unknownStep("raymond", s))
	}
	p.assign(fx)
	p.ask(fx)
}

// Receive performs receive REQUEST from x (append x; ASSIGN; ASK) and
// receive PRIVILEGE (holder := self; ASSIGN; ASK).
func (p *rayNode) Receive(from int, m rayMsg, fx *automaton.Effects[rayMsg]) {
	if m == rayRequest {
		p.ReqQ = append(p.ReqQ, automaton.Proc(from))
	} else {
		p.Holder = p.Me
	}
	p.assign(fx)
	p.ask(fx)
}

// assign is ASSIGN(): the holder of an unused token hands it to the head of
// its queue, reversing its holder pointer. A self at the head is left to
// enter_i (Choice above).
func (p *rayNode) assign(fx *automaton.Effects[rayMsg]) {
	if p.Holder != p.Me || p.Using || len(p.ReqQ) == 0 || p.ReqQ[0] == p.Me {
		return
	}
	p.Holder, p.ReqQ = p.ReqQ[0], p.ReqQ[1:]
	if !p.Broken {
		p.Asked = false
	}
	fx.Send(int(p.Holder), rayPrivilege)
}

// ask is ASK(): a process without the token that has requests queued asks
// its holder once for it.
func (p *rayNode) ask(fx *automaton.Effects[rayMsg]) {
	if p.Holder != p.Me && len(p.ReqQ) > 0 && !p.Asked {
		fx.Send(int(p.Holder), rayRequest)
		p.Asked = true
	}
}

// rayTokenAt returns, for every process, whether the token is there: it
// holds it (holder = self) or a PRIVILEGE to it is in transit.
func rayTokenAt(v *rayView) []bool {
	at := make([]bool, v.N())
	for i := range at {
		if p := v.Proc(i); p.Holder == p.Me {
			at[i] = true
		}
		for j := 0; j < v.N(); j++ {
			for _, m := range v.Chan(j, i) {
				at[i] = at[i] || m == rayPrivilege
			}
		}
	}
	return at
}

// rayOneToken is TOKEN-1: exactly one token, counting the processes with
// holder = self and the PRIVILEGEs in transit.
func rayOneToken(v *rayView) bool {
	k := properties.Count(v.N(), func(i int) bool { p := v.Proc(i); return p.Holder == p.Me })
	for i := 0; i < v.N(); i++ {
		for j := 0; j < v.N(); j++ {
			for _, m := range v.Chan(j, i) {
				if m == rayPrivilege {
					k++
				}
			}
		}
	}
	return k == 1
}

// rayAcyclic is the invariant of 2.11: following holder pointers from any
// process leads, without a cycle, to the token holder or to the endpoint
// of a PRIVILEGE in transit. (The sender of a PRIVILEGE and its receiver
// point at each other while it travels; the walk stops at the receiver.)
func rayAcyclic(v *rayView) bool {
	at := rayTokenAt(v)
	for i := 0; i < v.N(); i++ {
		k := i
		for steps := 0; !at[k]; steps++ {
			if steps == v.N() {
				return false
			}
			k = int(v.Proc(k).Holder)
		}
	}
	return true
}

// rayValidEnd is a valid end state of mutual exclusion (docs/properties.md):
// every process idle with its R requests served, channels empty, every
// queue empty and nobody asking; the one token is then held by a process.
func rayValidEnd(u mutex.Users) func(v *rayView) bool {
	return mutex.ValidEnd[rayNode, rayMsg](u, rayUser, func(p *rayNode) bool { return len(p.ReqQ) == 0 && !p.Asked && !p.Using })
}

// rayExplain says where every holder pointer leads and who waits for what.
func rayExplain(v *rayView) []string {
	var lines []string
	for i := 0; i < v.N(); i++ {
		p := v.Proc(i)
		line := fmt.Sprintf("process %d is %v", i+1, p.Ust)
		if p.Holder == p.Me {
			line += ", holds the token"
		} else {
			line += fmt.Sprintf(", holder %v", p.Holder)
		}
		if len(p.ReqQ) > 0 {
			q := make([]string, len(p.ReqQ))
			for k, x := range p.ReqQ {
				q[k] = x.String()
				if x == p.Me {
					q[k] = "self"
				}
			}
			line += ", queue [" + strings.Join(q, " ") + "]"
			if p.Holder != p.Me && !p.Asked {
				line += ", has not asked"
			}
		}
		if p.Asked {
			line += ", asked"
		}
		lines = append(lines, line)
	}
	if k := v.InTransit(); k > 0 {
		lines = append(lines, inTransit(k))
	}
	return lines
}

// rayTopology reads --topology and --n, refusing a graph that is not a
// tree, with a sticky error (Params.Err).
func rayTopology(p *Params) topology.Graph {
	return sticky(p, func() (topology.Graph, error) {
		g, err := parseGraphTopology(p)
		if err == nil && !g.IsTree() {
			err = Usagef("topology", p.String("topology"), "%s is not a tree (%d nodes, %d edges%s); raymond needs a tree: line, star, or an edge-list file of a tree", g.Name, g.N, g.NumEdges(), map[bool]string{true: "", false: ", not connected"}[g.Connected()])
		}
		return g, err
	})
}

// rayInitial is the initial state: process 1 holds the token and every
// other process points to its parent in the tree rooted at process 1, that
// is towards the token.
func rayInitial(g topology.Graph, users mutex.Users, broken bool) []rayNode {
	procs := make([]rayNode, g.N)
	for u := range procs {
		procs[u] = rayNode{Ust: mutex.Idle, Holder: automaton.Proc(u), Me: automaton.Proc(u), Requests: users.Requests(u), Broken: broken}
	}
	seen := make([]bool, g.N)
	seen[0] = true
	for queue := []int{0}; len(queue) > 0; queue = queue[1:] {
		for _, w := range g.Adj[queue[0]] {
			if !seen[w] {
				seen[w] = true
				procs[w].Holder = automaton.Proc(queue[0])
				queue = append(queue, w)
			}
		}
	}
	return procs
}

// raymond returns raymond (docs/algorithms/raymond.md), which declares its
// broken twin.
func raymond() Spec {
	return Spec{
		Name:    "raymond",
		Section: "2.11",
		Summary: "Raymond's tree-based token mutual exclusion: REQUESTs travel up holder pointers, the PRIVILEGE comes back down",
		Params: []Param{
			{Flag: "n", Default: "4", Usage: "number of processes (with an edge-list file, defaults to the file's)", Max: maxN},
			{Flag: "topology", Default: "line", Usage: "a tree: line (1-2-...-N), star (centre 1), or an edge-list file of a tree; process 1 holds the token first"},
			requestsParam, requestersParam,
		},
		Claims: []string{properties.TokenUniqueness, properties.MutualExclusion, "holder-acyclic", properties.DeadlockFreedom, properties.Progress, properties.StarvationFreedom},
		Broken: &Twin{
			Summary: "Raymond's tree-based token algorithm with a bug",
			Bug:     "ASSIGN does not reset asked when the token passes through, so a process that later needs the token never asks for it again",
		},
		Build: func(p *Params) (explorer.Model, error) {
			g := rayTopology(p)
			users := p.mutexUsers(g.N)
			// A tree edge carries at most a PRIVILEGE followed by a REQUEST.
			return mutexModel(p, users, rayUser, channel.FIFO, 2, func(int) []rayNode { return rayInitial(g, users, p.Broken()) }, automaton.Config[rayNode, rayMsg]{
				MessageTypes: []string{"REQUEST", "PRIVILEGE"},
				Mutex:        mutex.MetricsView(users.R, rayUser, rayServes),
				Links:        automaton.Undirected(g.Adj),
				Invariants:   rayInvariants(),
				ValidEnd:     rayValidEnd(users),
				Explain:      rayExplain,
			})
		},
	}
}

// rayInvariants are the invariants of raymond and its twin.
func rayInvariants() []automaton.Invariant[rayNode, rayMsg] {
	return []automaton.Invariant[rayNode, rayMsg]{
		{Name: properties.TokenUniqueness, Doc: "TOKEN-1: exactly one token, counting holders (holder = self) and PRIVILEGEs in transit", Holds: rayOneToken},
		mutex.Exclusion[rayNode, rayMsg](rayUser),
		{Name: "holder-acyclic", Doc: "following holder pointers from any process leads without a cycle to the token holder or to the receiver of the PRIVILEGE in transit", Holds: rayAcyclic},
	}
}

// rayServes attributes a message to the entry it serves (the metrics
// messages-per-entry and sync-delay). Raymond's messages do not say whom
// they serve, so the state before the step does:
//   - A PRIVILEGE goes to the head of its sender's queue and serves the
//     process found by following the heads of the queues from its receiver
//     until a process that heads its own queue.
//   - A REQUEST sent while the sender's queue is empty is request_i itself
//     or a REQUEST forwarded while receiving one: it serves what the step
//     serves (automaton.InheritEntry).
//   - A REQUEST sent while the queue is not empty is MAKE_REQUEST after
//     ASSIGN: the token has just gone to the head, and the REQUEST asks it
//     back for the next entry of the queue, whose chain it serves.
//
// With one requester this is exact; with several, a REQUEST that stands
// for a whole queue is charged to the first entry in it.
func rayServes(v *rayView, from, to int, m rayMsg) int {
	k := to
	if m == rayRequest {
		q := v.Proc(from).ReqQ
		switch len(q) {
		case 0:
			return automaton.InheritEntry
		case 1:
			return -1 // not reached: ASSIGN empties a queue of one
		}
		if k = int(q[1]); k == from {
			return from
		}
	}
	for range v.N() {
		q := v.Proc(k).ReqQ
		if len(q) == 0 {
			return -1
		}
		if int(q[0]) == k {
			return k
		}
		k = int(q[0])
	}
	return -1
}
