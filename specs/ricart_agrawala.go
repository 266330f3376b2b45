package specs

import (
	"fmt"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/mutex"
	"github.com/vacheck/vacheck/properties"
)

// raKind is the type of a Ricart-Agrawala (or Carvalho-Roucairol) message.
// The zero value is invalid.
type raKind uint8

const (
	raRequest raKind = 1 + iota
	raReply
)

func (k raKind) String() string {
	switch k {
	case raRequest:
		return "REQUEST"
	case raReply:
		return "REPLY"
	}
	return fmt.Sprintf("raKind(%d)", uint8(k))
}

// raMsg is REQUEST(ts, i) or REPLY, where i is the sender (0-based here,
// 1-based when shown). A REPLY carries no timestamp (TS 0).
type raMsg struct {
	Kind raKind
	TS   int
	From int
}

func (m raMsg) String() string {
	if m.Kind == raRequest {
		return fmt.Sprintf("REQUEST(%d,%d)", m.TS, m.From+1)
	}
	return m.Kind.String()
}

// Fields implements automaton.Fielder: expressions read a message as
// type (REQUEST or REPLY), ts (0 for a REPLY) and from (the requester's
// number from 1, 0 for a REPLY), as in
// all(chans, all(.msgs, .type != "REQUEST" || .from == #.from)).
func (m raMsg) Fields() map[string]any {
	from := 0
	if m.Kind == raRequest {
		from = m.From + 1
	}
	return map[string]any{"type": m.Kind.String(), "ts": m.TS, "from": from}
}

// raOlder reports whether the request (t, j) is older than (u, k) in the
// order (ts, ID) of docs/properties.md.
func raOlder(t, j, u, k int) bool { return t < u || (t == u && j < k) }

// raNode is process P_i of Ricart and Agrawala's algorithm
// (docs/algorithms/ricart-agrawala.md; Ricart & Agrawala, "An optimal algorithm
// for mutual exclusion in computer networks", CACM 1981): the user part of 2.0
// (ust, done), the Lamport clock C, myTs (0 for ⊥), waiting (the processes
// whose REPLY is outstanding) and deferred (the processes whose REQUEST waits
// for exit).
//
// Clocks: with R requests per process (--requests) every clock stays at
// most N·R, the number of requests, since C grows only by request_i (one
// tick) and by the max with a received stamp, so the model is finite without the --clock-limit or the
// clock normalizations of lamport. myTs is reset to ⊥ at exit, where it is
// dead (a critical or idle process never reads it), to keep states
// canonical. Choices: self-communication is local (docs/properties.md), so
// a request asks the N-1 others; the default channels are unordered, the
// weakest discipline the section allows, which includes every FIFO run
// (--channels fifo checks FIFO alone).
type raNode struct {
	Ust      mutex.State
	Done     int
	C        int `vacheck:"C"`
	MyTs     int
	Waiting  procSet
	Deferred procSet
	// Requests is R for a requester, 0 otherwise.
	Requests int `vacheck:"-"`
	// Broken skips the clock update C := max(C, t) on REQUEST: the bug of
	// ricart-agrawala-broken.
	Broken bool `vacheck:"-"`
}

type raView = automaton.View[raNode, raMsg]

// raUser reads the user part of a process.
func raUser(p *raNode) (mutex.State, int) { return p.Ust, p.Done }

// Steps: request_i (idle with requests left), enter_i (trying with no REPLY
// outstanding), exit_i (critical).
func (p *raNode) Steps(_ *raView, out []automaton.Step) []automaton.Step {
	switch {
	case p.Ust.CanRequest(p.Done, p.Requests):
		out = append(out, automaton.Broadcast(mutex.StepRequest))
	case p.Ust == mutex.Trying && p.Waiting == 0:
		out = append(out, automaton.Do(mutex.StepEnter))
	case p.Ust == mutex.Critical:
		out = append(out, automaton.Broadcast(mutex.StepExit))
	}
	return out
}

// Do performs request_i (tick, stamp, REQUEST to every other process),
// enter_i, or exit_i (REPLY to every deferred process).
func (p *raNode) Do(s automaton.Step, fx *automaton.Effects[raMsg]) {
	self := fx.Self()
	switch s.Name {
	case mutex.StepRequest:
		p.Ust.Request()
		p.C++
		p.MyTs = p.C
		for j := 0; j < fx.N(); j++ {
			if j != self {
				p.Waiting = p.Waiting.with(j)
				fx.Send(j, raMsg{Kind: raRequest, TS: p.MyTs, From: self})
			}
		}
	case mutex.StepEnter:
		p.Ust.Enter()
	case mutex.StepExit:
		p.Ust.Exit(&p.Done)
		p.MyTs = 0
		for _, j := range p.Deferred.members() {
			fx.Send(j, raMsg{Kind: raReply, From: self})
		}
		p.Deferred = 0
	default:
		panic(unknownStep("ricart-agrawala", s))
	}
}

// Receive performs receive(m)_{j,i}. REQUEST(t, j): C := max(C, t) whatever
// the decision, then REPLY at once if idle or trying with a younger own
// request, otherwise defer j. REPLY: j's permission arrived.
func (p *raNode) Receive(from int, m raMsg, fx *automaton.Effects[raMsg]) {
	switch m.Kind {
	case raRequest:
		if !p.Broken {
			p.C = max(p.C, m.TS)
		}
		if p.Ust == mutex.Idle || p.Ust == mutex.Trying && raOlder(m.TS, from, p.MyTs, fx.Self()) {
			fx.Send(from, raMsg{Kind: raReply, From: fx.Self()})
		} else {
			p.Deferred = p.Deferred.with(from)
		}
	case raReply:
		p.Waiting = p.Waiting.without(from)
	}
}

// raStamp is the timestamp of a process's request (none when myTs = ⊥),
// for FAIR-TS (mutex.TimestampOrder) in state form, as in lamport: a
// critical process's request (myTs, j) is older than the request of every
// trying process. It is at least as strict as the event form of
// docs/properties.md (when j enters, no trying i has an older request); for
// Ricart-Agrawala the two agree, since a process that requests while j is
// critical has replied to j's REQUEST before, so its clock is at least j's
// stamp and its new request is younger.
func raStamp(p *raNode) (int, bool) { return p.MyTs, p.MyTs != 0 }

// raExplain says what every process that is not idle waits for.
func raExplain(v *raView) []string {
	var lines []string
	for i := 0; i < v.N(); i++ {
		p := v.Proc(i)
		var deferring string
		if p.Deferred != 0 {
			deferring = fmt.Sprintf(", deferring %v", p.Deferred)
		}
		switch p.Ust {
		case mutex.Critical:
			lines = append(lines, fmt.Sprintf("process %d is in the critical section with request (%d,%d)%s", i+1, p.MyTs, i+1, deferring))
		case mutex.Trying:
			lines = append(lines, fmt.Sprintf("process %d is trying with request (%d,%d), waiting for a REPLY from %v%s", i+1, p.MyTs, i+1, p.Waiting, deferring))
		}
	}
	if n := v.InTransit(); n > 0 {
		lines = append(lines, inTransit(n))
	}
	return lines
}

// ricartAgrawala returns the spec ricart-agrawala of
// docs/algorithms/ricart-agrawala.md, which
// declares its broken twin ricart-agrawala-broken.
func ricartAgrawala() Spec {
	s := Spec{
		Name:    "ricart-agrawala",
		Section: "2.3",
		Summary: "Ricart-Agrawala mutual exclusion with logical clocks: REQUEST to all, REPLY at once or deferred to exit; channels need not be FIFO",
		Params: []Param{
			{Flag: "n", Default: "3", Usage: "number of processes", Max: maxN},
			requestsParam,
			requestersParam,
		},
		Claims: []string{properties.MutualExclusion, properties.Progress, properties.StarvationFreedom, properties.TimestampOrder, properties.DeadlockFreedom},
		Broken: &Twin{
			Summary: "Ricart-Agrawala with a bug",
			Bug:     "a process does not update its clock on REQUEST, so after replying while idle it can request with an older (ts, ID) than the request it replied to, and both enter",
			Claims:  []string{properties.MutualExclusion, properties.DeadlockFreedom},
		},
	}
	s.Build = func(p *Params) (explorer.Model, error) {
		users := p.mutexUsers(p.IntFlag("n", 1, maxN))
		// A channel i→j holds at most one REQUEST of i (i enters, and may
		// request again, only after j's REPLY to it) and one REPLY to j's
		// current request. FIFO is not needed
		// (docs/algorithms/ricart-agrawala.md), so the default is unordered: it
		// includes every FIFO run.
		return mutexModel(p, users, raUser, channel.Unordered, 2, eachProcess(func(i int) raNode {
			return raNode{Ust: mutex.Idle, Requests: users.Requests(i), Broken: p.Broken()}
		}), automaton.Config[raNode, raMsg]{
			MessageTypes: []string{"REQUEST", "REPLY"},
			Mutex:        mutex.Metrics(users.R, raUser, raServes),
			Invariants: []automaton.Invariant[raNode, raMsg]{
				mutex.Exclusion[raNode, raMsg](raUser),
				mutex.TimestampOrder[raNode, raMsg](raUser, raStamp),
			},
			// Valid end (docs/properties.md): all served, channels empty,
			// nothing deferred and no REPLY awaited.
			ValidEnd: mutex.ValidEnd[raNode, raMsg](users, raUser, func(p *raNode) bool { return p.Deferred == 0 && p.Waiting == 0 }),
			Explain:  raExplain,
		})
	}
	return s
}

// raServes attributes a message to the entry it serves (the metrics
// messages-per-entry and sync-delay): a REPLY serves its receiver, a
// REQUEST its sender. carvalho-roucairol uses it too.
func raServes(from, to int, m raMsg) int {
	if m.Kind == raReply {
		return to
	}
	return from
}
