// Command central is the tutorial of docs/tutorial.md: the central
// coordinator (docs/algorithms/central.md) proved, its broken twin refuted
// and both given the vacheck command line, with the public API only. This
// file and main_test.go are the whole program as a user writes it in a
// module of their own: parts 1 to 4 here, the tests (parts 5 to 7) there.
// `go test` proves and refutes; `go run . check central` is the command
// line.
package main

import (
	"os"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/cli"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/mutex"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/specs"
)

// 1. The process struct holds the algorithm's state variables: a client
// has the user part of mutual exclusion (Ust, Done; the mutex kit) and
// Granted ("a REPLY has been received"); K has busy, holder
// (automaton.NoProc for ⊥) and the FIFO queue. Every exported field is part
// of the state; `vacheck:"-"` marks a constant.
type node struct {
	Ust     mutex.State
	Done    int
	Granted bool
	Busy    bool
	Holder  automaton.Proc // prints 1-based, as traces number processes; NoProc is ⊥
	Queue   []automaton.Proc
	Broken  bool `vacheck:"-"` // the twin's K grants without checking busy
}

func user(p *node) (mutex.State, int) { return p.Ust, p.Done } // for the kit

// 2. Steps lists the enabled local actions: a client's request (once),
// enter (granted) and exit; K (the last process) only receives. Out names
// the receiver of the message a step sends, Do a step that sends nothing.
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

// Do performs a step: it changes p and sends through fx.
func (p *node) Do(s automaton.Step, fx *automaton.Effects[string]) {
	switch s.Name {
	case "request":
		p.Ust = mutex.Trying
		fx.Send(fx.N()-1, "REQUEST")
	case "enter":
		p.Ust, p.Granted = mutex.Critical, false
	case "exit":
		p.Ust, p.Done = mutex.Idle, p.Done+1
		fx.Send(fx.N()-1, "RELEASE")
	}
}

// Receive is the algorithm's "receive m from j", line for line.
func (p *node) Receive(from int, m string, fx *automaton.Effects[string]) {
	switch {
	case m == "REPLY":
		p.Granted = true
	case m == "REQUEST" && (!p.Busy || p.Broken):
		p.Busy, p.Holder = true, automaton.Proc(from)
		fx.Send(from, "REPLY")
	case m == "REQUEST":
		p.Queue = append(p.Queue, automaton.Proc(from))
	case m == "RELEASE":
		fx.Assert("release-from-holder", p.Holder == automaton.Proc(from))
		if len(p.Queue) > 0 {
			p.Holder, p.Queue = p.Queue[0], p.Queue[1:]
			fx.Send(int(p.Holder), "REPLY")
		} else {
			p.Busy, p.Holder = false, automaton.NoProc
		}
	}
}

// 3. The model: n clients (processes 0..n-1) and K (process n) on a star,
// with the properties of the mutex kit: GA1, GA2, GA2', the valid end
// state (all served, channels empty, K free) and messages-per-entry.
func model(n int, disc channel.Discipline, capacity int, broken bool) (explorer.Model, error) {
	users := mutex.Users{R: 1, Requesters: make([]bool, n+1)}
	procs := make([]node, n+1)
	for i := range procs {
		procs[i] = node{Ust: mutex.Idle, Holder: automaton.NoProc, Broken: broken}
		users.Requesters[i] = i < n
	}
	return automaton.New(automaton.Config[node, string]{
		Initial:    [][]node{procs},
		Links:      automaton.Star(n+1, n),
		Channels:   disc,
		Capacity:   capacity,
		Invariants: []automaton.Invariant[node, string]{mutex.Exclusion[node, string](user)},
		Assertions: []automaton.Assertion{{Name: "release-from-holder", Doc: "assert holder = j"}},
		Liveness:   mutex.Liveness[node, string](user),
		ValidEnd:   mutex.ValidEnd[node, string](users, user, func(p *node) bool { return !p.Busy && len(p.Queue) == 0 }),
		Mutex: mutex.Metrics(users.R, user, func(from, to int, m string) int {
			if m == "REPLY" { // a REPLY serves its receiver, REQUEST and RELEASE their sender
				return to
			}
			return from
		}),
	})
}

// 4. The command line: a Spec gives a model a name, flags and claims, and
// declares its broken twin, which the command line offers as
// central-broken; main hands it to cli.Main, the whole vacheck command line
// for both.
var central = specs.Spec{Name: "central", Summary: "central coordinator: K grants REQUESTs in arrival order",
	Params: []specs.Param{{Flag: "n", Default: "3", Usage: "number of clients; K is process N+1"}},
	Claims: []string{properties.MutualExclusion, properties.Progress, properties.StarvationFreedom, properties.DeadlockFreedom, "release-from-holder"},
	Broken: &specs.Twin{Summary: "central coordinator with a bug", Bug: "K grants every REQUEST without checking busy",
		Claims: []string{properties.MutualExclusion, properties.DeadlockFreedom}},
	Build: build}

// build reads --n and the common --channels (unordered unless given: the
// algorithm needs no FIFO) and --capacity (2 here: at most one message of each kind
// travels on a channel); a bad value is a usage error (exit code 2), which
// p keeps until Err asks for it. p.Broken tells the twin apart.
func build(p *specs.Params) (explorer.Model, error) {
	n := p.IntFlag("n", 1, 6)
	disc, capacity := p.ChannelFlags(channel.Unordered, 2)
	if err := p.Err(); err != nil {
		return nil, err
	}
	return model(n, disc, capacity, p.Broken())
}

func main() { os.Exit(cli.Main([]specs.Spec{central})) }
