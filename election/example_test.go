package election_test

import (
	"fmt"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/election"
	"github.com/vacheck/vacheck/explorer"
)

// node is a process of a one-round election on a complete graph: it sends
// its ID U to every other process, keeps the largest ID heard in Best, and
// knows the leader once it has heard from everyone.
type node struct {
	U, Best, Heard int
	Sent           bool
}

// Steps: send(U) to everyone, once.
func (p *node) Steps(_ *automaton.View[node, int], out []automaton.Step) []automaton.Step {
	if !p.Sent {
		out = append(out, automaton.Do("send"))
	}
	return out
}

func (p *node) Do(_ automaton.Step, fx *automaton.Effects[int]) {
	p.Sent = true
	for j := 0; j < fx.N(); j++ {
		if j != fx.Self() {
			fx.Send(j, p.U)
		}
	}
}

// Receive: keep the larger ID.
func (p *node) Receive(_ int, u int, _ *automaton.Effects[int]) {
	p.Best = max(p.Best, u)
	p.Heard++
}

// The accessors the kit reads.
func id(p *node) int            { return p.U }
func done(p *node) bool         { return p.Sent && p.Heard == 2 }
func known(p *node) (int, bool) { return p.Best, done(p) }
func isLeader(p *node) bool     { return done(p) && p.Best == p.U }

// Example checks the one-round election on 3 processes with IDs 2, 3, 1:
// UNIQ, AGREE and VALID hold in every reachable state, and every run ends
// with every process knowing the leader 3 (TERM/KNOW). Each process has
// either not sent yet, or sent with each of its two messages delivered or
// not: 1+4 = 5 local situations, 5³ = 125 states.
func Example() {
	winner := election.Max[node, int](id)
	knows := election.EveryoneKnows(known, winner, done)
	sys, err := automaton.New(automaton.Config[node, int]{
		Initial: [][]node{{{U: 2, Best: 2}, {U: 3, Best: 3}, {U: 1, Best: 1}}},
		Links:   automaton.Complete(3, false),
		Invariants: []automaton.Invariant[node, int]{
			election.Uniqueness[node, int](isLeader),
			election.Agreement[node, int](known),
			election.Validity(known, winner),
		},
		ValidEnd:    knows,
		Termination: knows,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := explorer.Check(sys, explorer.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("status", res.Status)
	fmt.Println("states", res.States)
	// Output:
	// status ok
	// states 125
}
