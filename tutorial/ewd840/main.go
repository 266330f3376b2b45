// Command ewd840 is the second example of docs/tutorial.md: Dijkstra's
// termination detection on a ring (EWD 840; the TLA+ specification
// EWD840.tla of the tlaplus/Examples repository), whose steps change two
// nodes at once, written with shared actions. It is one file, as a user
// writes it in a module of their own; `go run . check ewd840 --n 4` checks
// it, `go run . check ewd840-broken --n 3` refutes its broken twin.
package main

import (
	"os"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/cli"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/specs"
)

// node holds the variables of one node: active, its colour (Black), and
// the token when it is here (Token) with the token's colour (TBlack).
type node struct {
	Active, Black bool
	Token, TBlack bool
	Broken        bool `vacheck:"-"` // the twin's nodes never turn black
}

// Steps lists the node's actions. SendMsg(i) and the token's moves change
// two nodes in one step, so they are shared actions: automaton.Shared
// names the partner, whose Join does its part in the same transition.
func (p *node) Steps(v *automaton.View[node, int], out []automaton.Step) []automaton.Step {
	i, n := v.Self(), v.N()
	if p.Active {
		for j := 0; j < n; j++ {
			if j != i {
				out = append(out, automaton.Shared("activate", j)) // SendMsg(i): activate j
			}
		}
		out = append(out, automaton.Do("deactivate"))
	}
	switch {
	case p.Token && i == 0 && (p.TBlack || p.Black):
		out = append(out, automaton.Shared("probe", n-1)) // InitiateProbe: a white token to N-1
	case p.Token && i > 0 && (!p.Active || p.Black || p.TBlack):
		black := 0 // the token leaves black if it or the node is
		if p.Black || p.TBlack {
			black = 1
		}
		out = append(out, automaton.SharedArg("pass", black, i-1)) // PassToken(i) to i-1
	}
	return out
}

// Do performs the node's own part of a step.
func (p *node) Do(s automaton.Step, fx *automaton.Effects[int]) {
	switch s.Name {
	case "activate": // a node that activates one above it turns black
		p.Black = p.Black || (s.Partner() > fx.Self() && !p.Broken)
	case "deactivate":
		p.Active = false
	case "probe", "pass":
		p.Token, p.TBlack, p.Black = false, false, false
	default:
		panic("unknown step " + s.Name)
	}
}

// Join performs the partner's part of a shared step of node from.
func (p *node) Join(s automaton.Step, from int, fx *automaton.Effects[int]) {
	switch s.Name {
	case "activate":
		p.Active = true
	case "probe", "pass":
		p.Token, p.TBlack = true, s.Arg == 1
	default:
		panic("unknown step " + s.Name)
	}
}

// Receive is never called: the nodes exchange no messages.
func (p *node) Receive(int, int, *automaton.Effects[int]) { panic("no messages") }

// detected is terminationDetected: node 0 holds a white token, is white
// and inactive.
func detected(v *automaton.View[node, int]) bool {
	p := v.Proc(0)
	return p.Token && !p.TBlack && !p.Black && !p.Active
}

func allInactive(v *automaton.View[node, int]) bool {
	return properties.Count(v.N(), func(i int) bool { return v.Proc(i).Active }) == 0
}

// model is EWD840 of n nodes from every initial state of the TLA+ Init:
// any nodes active, any colours, a black token anywhere.
func model(n int, broken bool) (*automaton.System[node, int, *node], error) {
	var initial [][]node
	for active := 0; active < 1<<n; active++ {
		for black := 0; black < 1<<n; black++ {
			for t := 0; t < n; t++ {
				procs := make([]node, n)
				for i := range procs {
					procs[i] = node{Active: active&(1<<i) != 0, Black: black&(1<<i) != 0, Token: t == i, TBlack: t == i, Broken: broken}
				}
				initial = append(initial, procs)
			}
		}
	}
	return automaton.New(automaton.Config[node, int]{
		Initial: initial,
		Invariants: []automaton.Invariant[node, int]{{
			Name: "termination-detection", Doc: "terminationDetected => every node is inactive",
			Holds: func(v *automaton.View[node, int]) bool { return !detected(v) || allInactive(v) },
		}},
		Liveness: []automaton.Liveness[node, int]{{
			Name: "detection", Doc: "every node inactive leads-to terminationDetected",
			When: func(v *automaton.View[node, int], _ int) bool { return allInactive(v) },
			Goal: func(v *automaton.View[node, int], _ int) bool { return detected(v) },
		}},
		ValidEnd: detected, // the only end: termination detected
	})
}

var ewd840 = specs.Spec{Name: "ewd840", Summary: "Dijkstra's termination detection on a ring (EWD 840), with shared actions",
	Params: []specs.Param{{Flag: "n", Default: "4", Usage: "number of nodes"}},
	Claims: []string{"termination-detection", "detection", properties.DeadlockFreedom},
	Broken: &specs.Twin{Summary: "EWD 840 with a bug", Bug: "a node that activates one above it stays white",
		Claims: []string{"termination-detection"}},
	Build: func(p *specs.Params) (explorer.Model, error) {
		n := p.IntFlag("n", 2, 6)
		if err := p.Err(); err != nil {
			return nil, err
		}
		return model(n, p.Broken())
	}}

func main() { os.Exit(cli.Main([]specs.Spec{ewd840})) }
