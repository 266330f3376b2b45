package mutex_test

import (
	"fmt"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/mutex"
)

// node is a process of the central coordinator of docs/algorithms/central.md: a
// client has the user part (Ust, Done) and Granted; the coordinator, the
// last process, has Busy and the queue of waiting clients.
type node struct {
	Ust     mutex.State
	Done    int
	Granted bool
	Busy    bool
	Queue   []int
}

// The messages: a client's REQUEST and RELEASE, the coordinator's REPLY.
const (
	request = "REQUEST"
	reply   = "REPLY"
	release = "RELEASE"
)

func user(p *node) (mutex.State, int) { return p.Ust, p.Done }

// Steps: a client's request (once), enter (granted) and exit.
func (p *node) Steps(v *automaton.View[node, string], out []automaton.Step) []automaton.Step {
	k := v.N() - 1
	switch {
	case v.Self() == k:
	case p.Ust == mutex.Idle && p.Done == 0:
		out = append(out, automaton.Out("request", k))
	case p.Ust == mutex.Trying && p.Granted:
		out = append(out, automaton.Do("enter"))
	case p.Ust == mutex.Critical:
		out = append(out, automaton.Out("exit", k))
	}
	return out
}

func (p *node) Do(s automaton.Step, fx *automaton.Effects[string]) {
	switch s.Name {
	case "request":
		p.Ust = mutex.Trying
		fx.Send(fx.N()-1, request)
	case "enter":
		p.Ust, p.Granted = mutex.Critical, false
	case "exit":
		p.Ust, p.Done = mutex.Idle, p.Done+1
		fx.Send(fx.N()-1, release)
	}
}

// Receive: the coordinator grants a REQUEST or queues it, and on RELEASE
// grants the head of its queue.
func (p *node) Receive(from int, m string, fx *automaton.Effects[string]) {
	switch {
	case m == reply:
		p.Granted = true
	case m == request && !p.Busy:
		p.Busy = true
		fx.Send(from, reply)
	case m == request:
		p.Queue = append(p.Queue, from)
	case len(p.Queue) > 0: // RELEASE
		fx.Send(p.Queue[0], reply)
		p.Queue = p.Queue[1:]
	default:
		p.Busy = false
	}
}

// serves: a REPLY serves its receiver, a REQUEST or RELEASE its sender.
func serves(from, to int, m string) int {
	if m == reply {
		return to
	}
	return from
}

// Example checks the central coordinator with two clients making one
// request each: GA1, GA2, GA2' and the valid end hold, and every entry
// costs exactly 3 messages (REQUEST, REPLY, RELEASE). The 41 states are
// those of the catalog's "vacheck check central --n 2 --channels fifo".
func Example() {
	users := mutex.Users{R: 1, Requesters: []bool{true, true, false}}
	sys, err := automaton.New(automaton.Config[node, string]{
		Initial:    [][]node{{{Ust: mutex.Idle}, {Ust: mutex.Idle}, {Ust: mutex.Idle}}},
		Links:      automaton.Star(3, 2),
		Invariants: []automaton.Invariant[node, string]{mutex.Exclusion[node, string](user)},
		Liveness:   mutex.Liveness[node, string](user),
		ValidEnd: mutex.ValidEnd[node, string](users, user, func(p *node) bool {
			return !p.Busy && len(p.Queue) == 0
		}),
		Mutex: mutex.Metrics(users.R, user, serves),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := explorer.Check(sys, explorer.Config{Metrics: []string{"messages-per-entry"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("status", res.Status)
	fmt.Println("states", res.States)
	m := res.Metrics[0]
	fmt.Println(m.Name, m.Min, m.Max)
	// Output:
	// status ok
	// states 41
	// messages-per-entry 3 3
}
