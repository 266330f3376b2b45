package specs

import (
	"fmt"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/mutex"
	"github.com/vacheck/vacheck/properties"
)

// Property names of carvalho-roucairol beyond the common ones.
const (
	cvNoMutualPermission = "no-mutual-permission"
	cvOneRequestAssert   = "one-request-per-attempt"
)

// cvNode is process P_i of the Carvalho-Roucairol optimisation of
// Ricart-Agrawala (docs/algorithms/carvalho-roucairol.md; Carvalho & Roucairol,
// "On mutual exclusion in computer networks", CACM 1983): the state of raNode
// with perm (the processes whose permission i holds) in place of waiting, since
// a REPLY is a permission that i keeps until j asks for it. Messages are raMsg:
// REQUEST(ts, i) and REPLY.
//
// Asked is a history variable, not part of the algorithm: the processes i
// sent a REQUEST to in the current attempt, for the section's assertion
// "at most one REQUEST from i to j per attempt".
//
// Choices: initially perm is empty for all pairs (everybody asks everybody
// at first), or with --permissions ordered perm_i[j] = (i < j), the
// asymmetric initialisation the section allows. Clocks, myTs and channels
// as in raNode (unordered by default, FIFO not needed).
type cvNode struct {
	Ust      mutex.State
	Done     int
	C        int `vacheck:"C"`
	MyTs     int
	Perm     procSet
	Deferred procSet
	Asked    procSet
	// Requests is R for a requester, 0 otherwise.
	Requests int `vacheck:"-"`
	// Broken keeps perm[j] when replying to j: the bug of
	// carvalho-roucairol-broken.
	Broken bool `vacheck:"-"`
}

type cvView = automaton.View[cvNode, raMsg]

func cvUser(p *cvNode) (mutex.State, int) { return p.Ust, p.Done }

// allPerms reports whether i holds the permission of every other process.
func (p *cvNode) allPerms(self, n int) bool {
	return p.Perm.with(self) == procSet(1<<uint(n)-1)
}

// Steps: request_i, enter_i (every permission held), exit_i.
func (p *cvNode) Steps(v *cvView, out []automaton.Step) []automaton.Step {
	switch {
	case p.Ust.CanRequest(p.Done, p.Requests):
		out = append(out, automaton.Broadcast(mutex.StepRequest))
	case p.Ust == mutex.Trying && p.allPerms(v.Self(), v.N()):
		out = append(out, automaton.Do(mutex.StepEnter))
	case p.Ust == mutex.Critical:
		out = append(out, automaton.Broadcast(mutex.StepExit))
	}
	return out
}

// Do performs request_i (REQUEST only to the processes whose permission i
// lacks), enter_i, or exit_i (give up the deferred permissions, replying).
func (p *cvNode) Do(s automaton.Step, fx *automaton.Effects[raMsg]) {
	self := fx.Self()
	switch s.Name {
	case mutex.StepRequest:
		p.Ust.Request()
		p.C++
		p.MyTs = p.C
		for j := 0; j < fx.N(); j++ {
			if j != self && !p.Perm.has(j) {
				p.Asked = p.Asked.with(j)
				fx.Send(j, raMsg{Kind: raRequest, TS: p.MyTs, From: self})
			}
		}
	case mutex.StepEnter:
		p.Ust.Enter()
	case mutex.StepExit:
		p.Ust.Exit(&p.Done)
		p.MyTs = 0
		p.Asked = 0
		for _, j := range p.Deferred.members() {
			p.Perm = p.Perm.without(j)
			fx.Send(j, raMsg{Kind: raReply, From: self})
		}
		p.Deferred = 0
	default:
		panic(unknownStep("carvalho-roucairol", s))
	}
}

// Receive performs receive(m)_{j,i}. REQUEST(t, j): C := max(C, t); if idle
// or trying with a younger request, give j the permission (REPLY) and, if
// trying and the permission was held, ask for it back at once; otherwise
// defer j. REPLY: j's permission arrived.
func (p *cvNode) Receive(from int, m raMsg, fx *automaton.Effects[raMsg]) {
	self := fx.Self()
	switch m.Kind {
	case raRequest:
		p.C = max(p.C, m.TS)
		if p.Ust == mutex.Idle || p.Ust == mutex.Trying && raOlder(m.TS, from, p.MyTs, self) {
			had := p.Perm.has(from)
			if !p.Broken {
				p.Perm = p.Perm.without(from)
			}
			fx.Send(from, raMsg{Kind: raReply, From: self})
			if p.Ust == mutex.Trying && had {
				fx.Assert(cvOneRequestAssert, !p.Asked.has(from))
				p.Asked = p.Asked.with(from)
				fx.Send(from, raMsg{Kind: raRequest, TS: p.MyTs, From: self})
			}
		} else {
			p.Deferred = p.Deferred.with(from)
		}
	case raReply:
		p.Perm = p.Perm.with(from)
	}
}

// cvNoMutual is the section's invariant: never perm_i[j] ∧ perm_j[i].
func cvNoMutual(v *cvView) bool {
	for i := 0; i < v.N(); i++ {
		for j := i + 1; j < v.N(); j++ {
			if v.Proc(i).Perm.has(j) && v.Proc(j).Perm.has(i) {
				return false
			}
		}
	}
	return true
}

// cvStamp is the timestamp of a process's request, for FAIR-TS
// (mutex.TimestampOrder) in state form, as in ricart-agrawala. Offered, not
// claimed: docs/algorithms/carvalho-roucairol.md expects it to fail.
func cvStamp(p *cvNode) (int, bool) { return p.MyTs, true }

// cvExplain says what every process that is not idle holds and waits for.
func cvExplain(v *cvView) []string {
	var lines []string
	for i := 0; i < v.N(); i++ {
		p := v.Proc(i)
		switch p.Ust {
		case mutex.Critical:
			lines = append(lines, fmt.Sprintf("process %d is in the critical section with request (%d,%d), deferring %v", i+1, p.MyTs, i+1, p.Deferred))
		case mutex.Trying:
			lines = append(lines, fmt.Sprintf("process %d is trying with request (%d,%d), holding the permissions of %v", i+1, p.MyTs, i+1, p.Perm))
		default:
			if p.Perm != 0 {
				lines = append(lines, fmt.Sprintf("process %d is idle, holding the permissions of %v", i+1, p.Perm))
			}
		}
	}
	if n := v.InTransit(); n > 0 {
		lines = append(lines, inTransit(n))
	}
	return lines
}

// carvalhoRoucairol returns the spec carvalho-roucairol of
// docs/algorithms/carvalho-roucairol.md, which
// declares its broken twin carvalho-roucairol-broken.
func carvalhoRoucairol() Spec {
	s := Spec{
		Name:    "carvalho-roucairol",
		Section: "2.4",
		Summary: "Ricart-Agrawala with the Carvalho-Roucairol optimisation: a REPLY is a permission kept until its owner asks for it, so repeated entries cost nothing",
		Params: []Param{
			{Flag: "n", Default: "3", Usage: "number of processes", Max: maxN},
			requestsParam,
			requestersParam,
			{Flag: "permissions", Default: "none", Usage: "initial permissions: none (everybody asks everybody at first) or ordered (process i holds the permission of every j > i)"},
		},
		Claims: []string{properties.MutualExclusion, properties.Progress, properties.StarvationFreedom, cvNoMutualPermission, cvOneRequestAssert, properties.DeadlockFreedom},
		Broken: &Twin{
			Summary: "Carvalho-Roucairol with a bug",
			Bug:     "a process that replies to a REQUEST keeps the permission it gives away, so both hold each other's permission and both enter",
			Claims:  []string{properties.MutualExclusion, properties.DeadlockFreedom},
		},
	}
	// GA1 needs a second request: a kept permission is used only by a
	// later entry (N=2: 11 steps).
	s.Broken.Params = withParams(s.Params, Param{Flag: "requests", Default: "2", Usage: requestsParam.Usage})
	s.Build = func(p *Params) (explorer.Model, error) {
		users := p.mutexUsers(p.IntFlag("n", 1, maxN))
		perms := p.oneOf("permissions", "allowed values are none and ordered", "none", "ordered")
		// A channel i→j holds at most one REQUEST of i and one REPLY, as
		// in ricart-agrawala: a re-asking REQUEST replaces none in transit.
		return mutexModel(p, users, cvUser, channel.Unordered, 2, eachProcess(func(i int) cvNode {
			q := cvNode{Ust: mutex.Idle, Requests: users.Requests(i), Broken: p.Broken()}
			for j := i + 1; perms == "ordered" && j < len(users.Requesters); j++ {
				q.Perm = q.Perm.with(j)
			}
			return q
		}), automaton.Config[cvNode, raMsg]{
			MessageTypes: []string{"REQUEST", "REPLY"},
			Mutex:        mutex.Metrics(users.R, cvUser, raServes),
			Invariants: []automaton.Invariant[cvNode, raMsg]{
				mutex.Exclusion[cvNode, raMsg](cvUser),
				{Name: cvNoMutualPermission, Doc: "never do i and j hold each other's permission (perm_i[j] ∧ perm_j[i])", Holds: cvNoMutual},
				mutex.TimestampOrder[cvNode, raMsg](cvUser, cvStamp),
			},
			Assertions: []automaton.Assertion{{Name: cvOneRequestAssert, Doc: "a process sends at most one REQUEST to each other process per attempt"}},
			// Valid end (docs/properties.md): all served, channels empty,
			// nothing deferred; permissions may stay where they are.
			ValidEnd: mutex.ValidEnd[cvNode, raMsg](users, cvUser, func(p *cvNode) bool { return p.Deferred == 0 }),
			Explain:  cvExplain,
		})
	}
	return s
}
