package specs

import (
	"fmt"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/election"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// adNode is the process automaton of the adoption method
// (docs/algorithms/adoption.md; Mattern, Verteilte Basisalgorithmen, 1989), the
// second of the parallel echo elections on an arbitrary connected graph. Where
// a stronger wave meets a weaker one, the conquered node does not restart the
// wave as in extinction (1.11, echo-election) but adopts the weaker wave's
// partial tree: it points its parent at the conqueror and forwards the stronger
// explorer only up its old parent chain, which reverses that path; the subtrees
// the weaker wave already explored keep reporting to their unchanged parents.
// Echoes are matched against the edge mark (the label of the last explorer sent
// over the edge), not against the node label, so the echoes of an adopted
// subtree are still accepted.
//
// The rules are the section's reconstruction (its Choice: only the case
// analysis (a)-(d) is classical; the per-edge echo matching and the
// conquered initiator, which sends nothing and echoes to its new parent once
// its edges are done, are reconstructed). In case (d) the node answers with
// an explorer of its own label, as the section decides; adoption-broken
// takes the rejected reading "send the received explorer back".
//
// The state is that of 1.11 (U, Role, Cur, Parent, Done, EchoSent, Won)
// plus Mark[q], one label per port (0 = nothing sent yet); ports are the
// neighbours in ascending order, Done holds the neighbours (process
// indices) whose port is done. With --objective min every comparison of
// labels is reversed; 0 is never a label and loses against every ID.
type adNode struct {
	U        int
	Role     echoRole
	Cur      int
	Parent   echoParent
	Done     echoSet
	EchoSent int
	Won      bool
	Mark     []int
	// Nbrs are the neighbours in port order.
	Nbrs []int `vacheck:"-"`
	// Obj is the election objective.
	Obj objective `vacheck:"-"`
	// Broken answers case (d) with the received explorer: the bug of
	// adoption-broken.
	Broken bool `vacheck:"-"`
}

type adView = automaton.View[adNode, echoMsg]

// Assertions of 1.12, unreachable with the rules as written.
const (
	adCaseDParent = "case-d-not-parent"  // case (d) never happens on the parent port
	adCaseCOld    = "case-c-old-not-k"   // case (c) never has old = k
	adEchoMark    = "echo-mark"          // an ECHO(j) on k never has mark[k] < j
	adEchoParent  = "echo-not-on-parent" // an ECHO never arrives on the parent port
)

// stronger reports whether label a beats label b; 0 (nothing) beats no
// label and loses against every ID.
func (p *adNode) stronger(a, b int) bool {
	return a != 0 && (b == 0 || p.Obj.beats(a, b))
}

// port returns the port index of neighbour q.
func (p *adNode) port(q int) int {
	for k, n := range p.Nbrs {
		if n == q {
			return k
		}
	}
	panic(fmt.Sprintf("adoption: %d is not a neighbour of process with ID %d", q+1, p.U))
}

// Steps: start_i is enabled for a designated initiator that is still
// asleep (cur = 0).
func (p *adNode) Steps(_ *adView, out []automaton.Step) []automaton.Step {
	if p.Role == echoDesignated && p.Cur == 0 {
		out = append(out, automaton.Do(stepStart))
	}
	return out
}

// Do performs start_i: as in 1.11, and mark[q] := u for every port q.
func (p *adNode) Do(s automaton.Step, fx *automaton.Effects[echoMsg]) {
	if s.Name != stepStart {
		panic(unknownStep("adoption", s))
	}
	p.Role = echoInitiator
	p.Cur, p.Parent, p.Done = p.U, echoVirtual, 0
	for k, q := range p.Nbrs {
		fx.Send(q, echoMsg{echoExp, p.U})
		p.Mark[k] = p.U
	}
	p.check(fx)
}

// Receive performs receive EXP(j) and receive ECHO(j) on port from.
func (p *adNode) Receive(from int, msg echoMsg, fx *automaton.Effects[echoMsg]) {
	k := p.port(from)
	j, m, i := msg.J, p.Mark[k], p.Cur
	if msg.Kind == echoEcho {
		fx.Assert(adEchoParent, echoParent(from) != p.Parent)
		switch {
		case m == j: // answers my explorer over k
			p.Done |= 1 << uint(from)
			p.check(fx)
		case p.stronger(m, j): // stale: a stronger explorer is pending on k
		default:
			fx.Assert(adEchoMark, false)
		}
		return
	}
	switch {
	case i == 0: // a free node: JOIN as in 1.11, marking every other port
		if p.Role == echoDesignated {
			p.Role = echoPassive // woken before it started
		}
		p.Cur, p.Parent, p.EchoSent, p.Done = j, echoParent(from), 0, 0
		for q, n := range p.Nbrs {
			if n != from {
				fx.Send(n, echoMsg{echoExp, j})
				p.Mark[q] = j
			}
		}
	case j == m: // (a) explorers with equal labels crossed on k
		p.Done |= 1 << uint(from)
	case p.stronger(m, j): // (b) my stronger explorer will sort the neighbour out
	case p.stronger(j, i): // (c) ADOPT
		old := p.Parent
		fx.Assert(adCaseCOld, old != echoParent(from))
		p.Parent, p.Cur = echoParent(from), j
		if old >= 0 && old != echoParent(from) { // forward up the old parent chain
			fx.Send(int(old), echoMsg{echoExp, j})
			p.Mark[p.port(int(old))] = j
			p.Done &^= 1 << uint(old)
		}
		// old = VIRTUAL: a conquered initiator loses its virtual edge and
		// echoes through CHECK once its edges are done.
	default: // (d) m < j ≤ i: the neighbour's wave is not stronger than mine
		fx.Assert(adCaseDParent, echoParent(from) != p.Parent)
		label := i
		if p.Broken {
			label = j // the rejected reading: send the received explorer back
		}
		fx.Send(from, echoMsg{echoExp, label})
		p.Mark[k] = label
		if j == i {
			p.Done |= 1 << uint(from)
		} else {
			p.Done &^= 1 << uint(from)
		}
	}
	p.check(fx)
}

// check is CHECK() of 1.11: once every port but the parent is done, echo
// ECHO(cur) to the parent, or win at the root.
func (p *adNode) check(fx *automaton.Effects[echoMsg]) {
	if p.Cur == 0 || p.EchoSent == p.Cur || echoPending(p.Nbrs, p.Parent, p.Done) != 0 {
		return
	}
	p.EchoSent = p.Cur
	if p.Parent == echoVirtual {
		p.Won = true // u = cur is the leader
	} else {
		fx.Send(int(p.Parent), echoMsg{echoEcho, p.Cur})
	}
}

// adWon reads whether a process has won.
func adWon(p *adNode) bool { return p.Won }

// adEnd is the valid end state of 1.12 (docs/properties.md, graph election
// without announcement): all channels empty and exactly one process won.
func adEnd(v *adView) bool {
	return v.ChannelsEmpty() && properties.Count(v.N(), func(i int) bool { return v.Proc(i).Won }) == 1
}

// adKnow is the goal of termination (TERM and KNOW in value form): a valid
// end state in which every process has cur = the winner's ID. 1.12 expects
// it to fail: nodes inside an adopted subtree keep the weaker label.
func adKnow(v *adView) bool {
	if !adEnd(v) {
		return false
	}
	u := v.Proc(procWhere(v, adWon)).U
	return everyProc(v, func(p *adNode) bool { return p.Cur == u })
}

// adExplain says who belongs to which wave and what each node waits for,
// as echo-election's explanation does, with the edge marks.
func adExplain(v *adView) []string {
	var lines []string
	for i := 0; i < v.N(); i++ {
		p := v.Proc(i)
		head := echoHead(i, p.U, p.Role)
		switch {
		case p.Cur == 0:
			lines = append(lines, head+": asleep")
		case p.Won:
			lines = append(lines, fmt.Sprintf("%s: won; its wave %d came home over the virtual tree edge", head, p.Cur))
		case p.EchoSent == p.Cur:
			lines = append(lines, fmt.Sprintf("%s: in wave %d, echoed to %v; edge marks %v", head, p.Cur, p.Parent, p.Mark))
		default:
			lines = append(lines, fmt.Sprintf("%s: in wave %d, parent %v, waits for an answer from %v; edge marks %v", head, p.Cur, p.Parent, echoPending(p.Nbrs, p.Parent, p.Done), p.Mark))
		}
	}
	return lines
}

// adoption returns adoption (docs/algorithms/adoption.md), which declares its
// broken twin.
func adoption() Spec {
	s := Spec{
		Name:    "adoption",
		Section: "1.12",
		Summary: "Echo election by adoption on an arbitrary connected graph: a stronger wave adopts the weaker wave's tree",
		Params:  waveParams(),
		Claims:  []string{properties.Uniqueness, properties.Validity, adCaseDParent, adCaseCOld, adEchoMark, adEchoParent, properties.DeadlockFreedom},
		Broken: &Twin{
			Summary: "Echo election by adoption, with a bug",
			Bug:     `case (d) read as "send the received explorer back": the weaker wave takes the edge as finished, completes, and two initiators win`,
		},
	}
	s.Build = func(p *Params) (explorer.Model, error) {
		g := p.graph()
		n := g.N
		inits, idsets, obj := p.initiators(n), p.ids(n), p.objective()
		// Per label, a node sends at most one explorer over an edge and at
		// most one echo, and there are at most N labels.
		disc, capacity := p.ChannelFlags(channel.FIFO, 2*n)
		if err := p.Err(); err != nil {
			return nil, err
		}
		broken := p.Broken()
		initial := initialStates(idsets, inits, func(i, id int, init bool) adNode {
			q := adNode{U: id, Parent: echoNoParent, Mark: make([]int, len(g.Adj[i])), Nbrs: g.Adj[i], Obj: obj, Broken: broken}
			if init {
				q.Role = echoDesignated
			}
			return q
		}, func(p *adNode) (int, bool) { return p.U, p.Role == echoDesignated })
		invariants := []automaton.Invariant[adNode, echoMsg]{
			described(election.Uniqueness[adNode, echoMsg](adWon), "never two processes won"),
			described(election.Validity(func(p *adNode) (int, bool) { return p.U, p.Won }, func(v *adView) int {
				return bestID(v, obj, func(p *adNode) (int, bool) { return p.U, p.Role == echoInitiator })
			}), "a process that has won holds the best ID (--objective) among the actual initiators"),
		}
		return automaton.New(withInitial(initial, automaton.Config[adNode, echoMsg]{
			StepNames:    []string{stepStart},
			MessageTypes: []string{"EXP", "ECHO"},

			Links:      automaton.Undirected(g.Adj),
			Channels:   disc,
			Capacity:   capacity,
			Invariants: invariants,
			Assertions: []automaton.Assertion{
				{Name: adCaseDParent, Doc: "case (d) of receive EXP never happens on the parent port"},
				{Name: adCaseCOld, Doc: "case (c) (adoption) never comes over the old parent port"},
				{Name: adEchoMark, Doc: "a received ECHO(j) on port k has mark[k] ≥ j"},
				{Name: adEchoParent, Doc: "no ECHO arrives on the parent port"},
			},
			ValidEnd:    adEnd,
			Termination: adKnow,
			Explain:     adExplain,
		}))
	}
	return s
}
