package automaton_test

import (
	"fmt"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// ring is the state of one process of a token ring. The token starts at
// process 1 and travels once around the ring; each process records that it
// has seen it, and process 1 keeps it when it comes back.
type ring struct {
	Holding bool // the token is here and must be passed on
	Seen    bool // the token has been here
}

// Steps lists the transitions enabled in this state: pass(token)_{i,i+1}
// while the process holds the token.
func (p *ring) Steps(v *automaton.View[ring, string], out []automaton.Step) []automaton.Step {
	if p.Holding {
		out = append(out, automaton.Out("pass", (v.Self()+1)%v.N()))
	}
	return out
}

// Do performs pass: hand the token to the next process.
func (p *ring) Do(_ automaton.Step, fx *automaton.Effects[string]) {
	p.Holding = false
	fx.Send((fx.Self()+1)%fx.N(), "token")
}

// Receive performs receive(token)_{i-1,i}.
func (p *ring) Receive(_ int, _ string, fx *automaton.Effects[string]) {
	p.Seen = true
	p.Holding = fx.Self() != 0 // back at process 1: the round is over
}

// Example checks a token that circulates once around a ring of 3
// processes: the token is never duplicated, and the run ends with every
// process having seen it. The system goes pass, receive three times: 7
// states and 6 transitions.
func Example() {
	sys, err := automaton.New(automaton.Config[ring, string]{
		Initial: [][]ring{{{Holding: true, Seen: true}, {}, {}}},
		Links:   automaton.Ring(3),
		Invariants: []automaton.Invariant[ring, string]{{
			Name: properties.TokenUniqueness,
			Doc:  "at most one token, held or in transit",
			Holds: func(v *automaton.View[ring, string]) bool {
				held := properties.Count(v.N(), func(i int) bool { return v.Proc(i).Holding })
				return held+v.InTransit() <= 1
			},
		}},
		// A terminal state is a valid end when everyone has seen the token;
		// any other terminal state is a deadlock.
		ValidEnd: func(v *automaton.View[ring, string]) bool {
			return properties.Count(v.N(), func(i int) bool { return v.Proc(i).Seen }) == v.N()
		},
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
	fmt.Println("transitions", res.Transitions)
	// Output:
	// status ok
	// states 7
	// transitions 6
}
