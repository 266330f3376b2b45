package specs

import (
	"fmt"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/election"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// teKind tells the three messages of tree election apart.
type teKind uint8

const (
	teExplore teKind = 1 + iota // EXPLORE: the wake-up (explosion) wave
	tePropose                   // PROPOSE(x): the echo (saturation) wave
	teResult                    // RESULT(x): the information wave
)

// teMsg is a message of 1.8: EXPLORE, PROPOSE(x) or RESULT(x).
type teMsg struct {
	Kind teKind
	X    int
}

func (m teMsg) String() string {
	switch m.Kind {
	case tePropose:
		return fmt.Sprintf("PROPOSE(%d)", m.X)
	case teResult:
		return fmt.Sprintf("RESULT(%d)", m.X)
	}
	return "EXPLORE"
}

// teStatus is st of 1.8.
type teStatus uint8

const (
	teAsleep teStatus = iota
	teAwake
	teSent
	teDone
)

func (s teStatus) String() string {
	return [...]string{"asleep", "awake", "sent", "done"}[s]
}

// teNode is the process automaton of election on a tree by explosion, echo
// (saturation) and information waves (docs/algorithms/tree-election.md;
// Mattern, Verteilte Basisalgorithmen, 1989; Lynch, Distributed Algorithms, 4.2
// and 15.1). A node that has heard a PROPOSE from all neighbours but one
// proposes the best ID of the part of the tree behind it to that last
// neighbour; exactly two adjacent nodes end up proposing to each other (they
// saturate) and both know the global optimum; under --wakeup assumed a node can
// also hear from every neighbour before it proposes (the root case). With
// --info on they send the result down the tree.
//
// Ports are the neighbours in ascending order (topology.Graph); on a tree
// a neighbour identifies its port, so got and parentPort hold process
// indices, shown 1-based. Leader 0 is ⊥.
type teNode struct {
	U          int
	Designated bool // a designated initiator (0.6); start needs st = asleep
	St         teStatus
	Got        echoSet // ports from which a PROPOSE arrived
	Best       int
	ParentPort echoParent
	Leader     int       `vacheck:",bottom"`
	Nbrs       []int     `vacheck:"-"`
	Flood      bool      `vacheck:"-"` // WAKEUP = FLOOD (else ASSUMED)
	Info       bool      `vacheck:"-"` // INFO = ON
	Obj        objective `vacheck:"-"`
	// Broken proposes u instead of best: the bug of tree-election-broken.
	Broken bool `vacheck:"-"`
}

type teView = automaton.View[teNode, teMsg]

// teLeafStart is the step leafStart_i: a leaf starts on its own (without
// --flood).
const teLeafStart = "leafStart"

// Steps: start_i (a designated initiator still asleep) and, under
// ASSUMED, leafStart_i (an awake leaf that has heard nothing).
func (p *teNode) Steps(_ *teView, out []automaton.Step) []automaton.Step {
	if p.Designated && p.St == teAsleep {
		out = append(out, automaton.Do(stepStart))
	}
	if !p.Flood && p.St == teAwake && len(p.Nbrs) <= 1 && p.Got == 0 {
		out = append(out, automaton.Do(teLeafStart))
	}
	return out
}

// Do performs start_i (WAKE(⊥)) or leafStart_i (TRY()).
func (p *teNode) Do(s automaton.Step, fx *automaton.Effects[teMsg]) {
	switch s.Name {
	case stepStart:
		p.wake(echoNoParent, fx)
	case teLeafStart:
		p.try(fx)
	default:
		panic(unknownStep("tree-election", s))
	}
}

// Receive performs receive EXPLORE, PROPOSE(x) and RESULT(x) on the port
// from.
func (p *teNode) Receive(from int, m teMsg, fx *automaton.Effects[teMsg]) {
	switch m.Kind {
	case teExplore:
		if p.St == teAsleep {
			p.wake(echoParent(from), fx)
		} // otherwise ignored
	case tePropose:
		if p.St == teAsleep {
			p.wake(echoParent(from), fx) // only possible without FIFO
		}
		p.Best = p.Obj.best(p.Best, m.X)
		p.Got |= 1 << uint(from)
		switch p.St {
		case teAwake:
			if p.Got.count() == len(p.Nbrs) {
				p.root(fx) // heard from everybody before proposing (ASSUMED only)
			} else {
				p.try(fx)
			}
		case teSent: // saturated
			fx.Assert(teParentPort, echoParent(from) == p.ParentPort)
			p.Leader, p.St = p.Best, teDone
			if p.Info {
				p.sendAll(teMsg{teResult, p.Leader}, from, fx)
			}
		default:
			fx.Assert(teParentPort, false) // a PROPOSE after deciding
		}
	case teResult:
		fx.Assert(teParentPort, p.St == teSent && echoParent(from) == p.ParentPort)
		p.Leader, p.St = m.X, teDone
		p.sendAll(m, from, fx)
	}
}

// wake is WAKE(from).
func (p *teNode) wake(from echoParent, fx *automaton.Effects[teMsg]) {
	p.St = teAwake
	if p.Flood {
		p.sendAll(teMsg{Kind: teExplore}, int(from), fx)
	}
	p.try(fx)
}

// try is TRY(): decide alone (N = 1), or propose once only one neighbour
// is missing.
func (p *teNode) try(fx *automaton.Effects[teMsg]) {
	switch {
	case len(p.Nbrs) == 0:
		p.Leader, p.St = p.U, teDone
	case p.Got.count() == len(p.Nbrs)-1:
		for _, q := range p.Nbrs {
			if !p.Got.has(q) {
				p.ParentPort = echoParent(q)
			}
		}
		x := p.Best
		if p.Broken {
			x = p.U // the bug: the subtree behind the node is forgotten
		}
		fx.Send(int(p.ParentPort), teMsg{tePropose, x})
		p.St = teSent
	}
}

// root is ROOT().
func (p *teNode) root(fx *automaton.Effects[teMsg]) {
	p.Leader, p.St = p.Best, teDone
	if p.Info {
		p.sendAll(teMsg{teResult, p.Leader}, -1, fx)
	}
}

// sendAll sends m on every port except except.
func (p *teNode) sendAll(m teMsg, except int, fx *automaton.Effects[teMsg]) {
	for _, q := range p.Nbrs {
		if q != except {
			fx.Send(q, m)
		}
	}
}

func (s echoSet) count() int {
	c := 0
	for r := uint64(s); r != 0; r &= r - 1 {
		c++
	}
	return c
}

// teParentPort is the assertion of 1.8: a PROPOSE that arrives after the
// node proposed, and every RESULT, comes over parentPort.
const teParentPort = "parent-port"

// teWinner returns the ID every node should end up with: the best of all.
func teWinner(v *teView) int {
	return bestID(v, v.Proc(0).Obj, func(p *teNode) (int, bool) { return p.U, true })
}

// teQuiet: all channels empty and no process has an enabled step.
func teQuiet(v *teView) bool {
	return v.ChannelsEmpty() && everyProc(v, func(p *teNode) bool { return len(p.Steps(v, nil)) == 0 })
}

// teAllKnow is KNOW with the end of TERM: channels empty, every process
// done with leader = the winner.
var teAllKnow = election.EveryoneKnows(teKnown, teWinner, func(p *teNode) bool { return p.St == teDone })

// teKnown returns the leader process p holds, if any.
func teKnown(p *teNode) (int, bool) { return p.Leader, p.Leader != 0 }

// teEndNoInfo is the valid end state without the information wave (0.8):
// channels empty, every process has proposed or decided, and the one or
// two deciders (the saturated pair, or the root) hold the winner.
func teEndNoInfo(v *teView) bool {
	if !v.ChannelsEmpty() {
		return false
	}
	w, done := teWinner(v), 0
	for i := 0; i < v.N(); i++ {
		switch p := v.Proc(i); {
		case p.St == teDone && p.Leader == w:
			done++
		case p.St != teSent:
			return false
		}
	}
	return done == 1 || done == 2
}

func teExplain(v *teView) []string {
	var lines []string
	for i := 0; i < v.N(); i++ {
		p := v.Proc(i)
		line := fmt.Sprintf("process %d (ID %d): %v, best %d", i+1, p.U, p.St, p.Best)
		switch p.St {
		case teAwake:
			line += fmt.Sprintf(", has PROPOSEs from %v of %d neighbours", p.Got, len(p.Nbrs))
		case teSent:
			line += fmt.Sprintf(", proposed to %v", p.ParentPort)
		case teDone:
			line += fmt.Sprintf(", leader %d", p.Leader)
		}
		lines = append(lines, line)
	}
	return lines
}

// treeElection returns tree-election (docs/algorithms/tree-election.md), which
// declares its broken twin.
func treeElection() Spec {
	s := Spec{
		Name:    "tree-election",
		Section: "1.8",
		Summary: "election on a tree by explosion, saturation (echo) and information waves",
		Params: []Param{
			graphNParam,
			{Flag: "topology", Default: "line", Usage: "a tree: line, star, random:SEED:EDGES with EDGES = N−1, or an edge-list file of a tree"},
			initiatorsParam("all"),
			idsParam,
			{Flag: "info", Default: "on", Usage: "information wave announcing the result: on or off (off: only the saturated pair or the root knows; termination fails)"},
			{Flag: "wakeup", Default: "flood", Usage: "flood (initiators send EXPLORE) or assumed (everybody awake, the leaves start)"},
			objectiveParam,
		},
		Claims: []string{properties.Uniqueness, properties.Agreement, properties.Validity, teParentPort,
			properties.Quiescence, properties.DeadlockFreedom, properties.Termination},
		Broken: &Twin{
			Summary: "tree election with a bug",
			Bug:     "a node proposes its own ID instead of the best ID of the subtree behind it, so the saturated pair decides on too little",
		},
	}
	s.Build = func(p *Params) (explorer.Model, error) {
		g := p.graph()
		if p.Err() == nil && !g.IsTree() {
			p.Fail(Usagef("topology", p.String("topology"), "%s has %d edges on %d nodes and is not a tree; allowed: a tree (N−1 edges): line, star, random:SEED:%d, or an edge-list file of a tree",
				g.Name, g.NumEdges(), g.N, g.N-1))
		}
		n := g.N
		info, flood := p.either("info", "on", "off"), p.either("wakeup", "flood", "assumed")
		obj := p.objective()
		inits := noFlags(n)
		if flood {
			inits = p.initiators(n)
		} else if p.Err() == nil && p.Given("initiators") {
			p.Fail(Usagef("initiators", p.String("initiators"), "does not apply with --wakeup assumed (every process is awake and the leaves start)"))
		}
		idsets := p.ids(n)
		// A channel carries at most an EXPLORE, a PROPOSE and a RESULT.
		disc, capacity := p.ChannelFlags(channel.FIFO, 3)
		if err := p.Err(); err != nil {
			return nil, err
		}
		broken := p.Broken()
		initial := initialStates(idsets, inits, func(i, id int, init bool) teNode {
			q := teNode{U: id, Designated: init, Best: id, ParentPort: echoNoParent,
				Nbrs: g.Adj[i], Flood: flood, Info: info, Obj: obj, Broken: broken}
			if !flood {
				q.St = teAwake
			}
			return q
		}, func(p *teNode) (int, bool) { return p.U, p.Designated })
		validEnd := teEndNoInfo
		if info {
			validEnd = teAllKnow
		}
		return automaton.New(withInitial(initial, automaton.Config[teNode, teMsg]{
			StepNames:    append(when(flood, stepStart), when(!flood, teLeafStart)...),
			MessageTypes: append(append(when(flood, "EXPLORE"), "PROPOSE"), when(info, "RESULT")...),

			Links:    automaton.Undirected(g.Adj),
			Channels: disc,
			Capacity: capacity,
			Invariants: []automaton.Invariant[teNode, teMsg]{
				described(election.Uniqueness[teNode, teMsg](func(p *teNode) bool { return p.St == teDone && p.Leader == p.U }), "at most one process has decided on its own ID"),
				described(election.Agreement[teNode, teMsg](teKnown), "no two processes hold different leaders"),
				described(election.Validity(teKnown, teWinner), "every leader held is the best ID of all processes"),
			},
			Assertions: []automaton.Assertion{{Name: teParentPort,
				Doc: "a PROPOSE received after proposing, and every RESULT, arrives over parentPort (the algorithm's assertion)"}},
			ValidEnd:    validEnd,
			Liveness:    []automaton.Liveness[teNode, teMsg]{election.Quiescence(teQuiet)},
			Termination: teAllKnow,
			Explain:     teExplain,
		}))
	}
	return s
}
