package specs

import (
	"fmt"
	"strconv"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/election"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// fmMsg is MAX(x) of 1.9, tagged with the round it was sent in (for the
// round-sync assertion; with FIFO the tag is the message's position on its
// link, so it adds no states).
type fmMsg struct {
	X     int
	Round int
}

func (m fmMsg) String() string { return fmt.Sprintf("MAX(%d)@%d", m.X, m.Round) }

// fmStatus is st of 1.9.
type fmStatus uint8

const (
	fmRunning fmStatus = iota
	fmLeader
	fmNonleader
)

func (s fmStatus) String() string { return [...]string{"running", "leader", "nonleader"}[s] }

// fmNode is the process automaton of FloodMax on a connected graph
// (docs/algorithms/floodmax.md; Lynch, Distributed Algorithms, 4.1.2):
// synchronous rounds simulated over FIFO channels. In every round a process
// sends the largest ID it has seen to every neighbour and waits for one message
// from each; after D rounds, D the known diameter bound, it decides.
//
// The rounds are synchronised by receive preconditions (the Choice of 0.2,
// automaton.Acceptor): a process accepts a message only after it has sent
// its own round's messages and only one per neighbour per round, so
// information travels one hop per round. Ports are the neighbours in
// ascending order; heard holds process indices. Leader 0 is ⊥.
type fmNode struct {
	U       int
	Round   int
	MaxSeen int
	Sent    bool
	Heard   echoSet
	Leader  int `vacheck:",bottom"`
	St      fmStatus
	Nbrs    []int     `vacheck:"-"`
	D       int       `vacheck:"-"`
	Obj     objective `vacheck:"-"`
}

type fmView = automaton.View[fmNode, fmMsg]

// The steps of a FloodMax process: send this round's messages, then end
// the round.
const (
	fmSendRound = "sendRound"
	fmEndRound  = "endRound"
)

// Steps: sendRound_i (running, this round's messages not yet sent) and
// endRound_i (sent, and heard from every port).
func (p *fmNode) Steps(_ *fmView, out []automaton.Step) []automaton.Step {
	switch {
	case p.St != fmRunning:
	case !p.Sent:
		out = append(out, automaton.Broadcast(fmSendRound))
	case p.Heard == p.all():
		out = append(out, automaton.Do(fmEndRound))
	}
	return out
}

// all is the set of every port.
func (p *fmNode) all() echoSet {
	var s echoSet
	for _, q := range p.Nbrs {
		s |= 1 << uint(q)
	}
	return s
}

// Do performs sendRound_i or endRound_i.
func (p *fmNode) Do(s automaton.Step, fx *automaton.Effects[fmMsg]) {
	if s.Name == fmSendRound {
		for _, q := range p.Nbrs {
			fx.Send(q, fmMsg{p.MaxSeen, p.Round})
		}
		p.Sent = true
		return
	}
	if s.Name != fmEndRound {
		panic(unknownStep("floodmax", s))
	}
	if p.Round < p.D {
		p.Round, p.Sent, p.Heard = p.Round+1, false, 0
		return
	}
	p.Leader, p.St = p.MaxSeen, fmNonleader
	if p.MaxSeen == p.U {
		p.St = fmLeader
	}
}

// Accepts is the process side of receive MAX(x) on p: st = running ∧ sent
// ∧ p ∉ heard.
func (p *fmNode) Accepts(from int, _ fmMsg) bool {
	return p.St == fmRunning && p.Sent && !p.Heard.has(from)
}

// Receive performs receive MAX(x) on the port from.
func (p *fmNode) Receive(from int, m fmMsg, fx *automaton.Effects[fmMsg]) {
	fx.Assert(fmRoundSync, m.Round == p.Round)
	p.MaxSeen = p.Obj.best(p.MaxSeen, m.X)
	p.Heard |= 1 << uint(from)
}

// fmRoundSync asserts that every message is received in the round it was
// sent in (what FIFO and the receive precondition guarantee).
const fmRoundSync = "round-sync"

// fmBest returns the best ID of all processes.
func fmBest(v *fmView) int {
	return bestID(v, v.Proc(0).Obj, func(p *fmNode) (int, bool) { return p.U, true })
}

// fmEnd is the valid end state of 0.8: every process finished round D and
// decided; channels empty.
func fmEnd(v *fmView) bool {
	return everyProc(v, func(p *fmNode) bool { return p.St != fmRunning }) && v.ChannelsEmpty()
}

func fmExplain(v *fmView) []string {
	var lines []string
	for i := 0; i < v.N(); i++ {
		p := v.Proc(i)
		if p.St != fmRunning {
			lines = append(lines, fmt.Sprintf("process %d (ID %d): %v after %d rounds, leader %d", i+1, p.U, p.St, p.Round, p.Leader))
			continue
		}
		lines = append(lines, fmt.Sprintf("process %d (ID %d): round %d of %d, maxSeen %d, heard from %v", i+1, p.U, p.Round, p.D, p.MaxSeen, p.Heard))
	}
	return lines
}

// floodmax returns floodmax (docs/algorithms/floodmax.md), which declares its
// broken twin.
func floodmax() Spec {
	s := Spec{
		Name:    "floodmax",
		Section: "1.9",
		Summary: "FloodMax on a connected graph: D synchronous rounds of flooding the largest ID seen, 2ED messages",
		Params: []Param{
			graphNParam,
			graphTopologyParam("line"),
			idsParam,
			{Flag: "diameter", Default: "graph", Usage: "the diameter bound D every process knows: graph (the graph's diameter) or a number ≥ 1; below the graph's diameter, agreement and uniqueness fail"},
			objectiveParam,
		},
		Claims: []string{properties.Uniqueness, properties.Agreement, properties.Validity, fmRoundSync,
			properties.DeadlockFreedom, properties.Termination},
		Broken: &Twin{
			Summary: "FloodMax with a bug",
			Bug:     "every process takes D = the graph's diameter − 1, one round too few: the ends of a longest path never hear of each other",
		},
	}
	s.Broken.Params = withoutParams(s.Params, "diameter")
	s.Build = func(p *Params) (explorer.Model, error) {
		broken := p.Broken()
		g := p.graph()
		if err := p.Err(); err != nil {
			return nil, err
		}
		n, diam := g.N, g.Diameter()
		d := max(diam, 1)
		switch {
		case broken:
			if diam < 2 {
				return nil, Usagef("topology", p.String("topology"), "%s has diameter %d; floodmax-broken needs a graph of diameter at least 2 (such as line with --n 3)", g.Name, diam)
			}
			d = diam - 1
		case p.String("diameter") != "graph":
			v := p.String("diameter")
			var err error
			if d, err = strconv.Atoi(v); err != nil || d < 1 || d > maxN {
				return nil, Usagef("diameter", v, "allowed: graph (the graph's diameter, %d) or a number from 1 to %d", diam, maxN)
			}
		}
		p.Set("diameter", d)
		obj, idsets := p.objective(), p.ids(n)
		// A neighbour is at most one round ahead: two messages per link.
		disc, capacity := p.ChannelFlags(channel.FIFO, 2)
		if err := p.Err(); err != nil {
			return nil, err
		}
		initial := initialStates(idsets, noFlags(n), func(i, id int, _ bool) fmNode {
			return fmNode{U: id, Round: 1, MaxSeen: id, Nbrs: g.Adj[i], D: d, Obj: obj}
		}, func(p *fmNode) (int, bool) { return p.U, false })
		allKnow := func(v *fmView) bool {
			w := fmBest(v)
			return everyProc(v, func(p *fmNode) bool { return p.Leader == w }) && fmEnd(v)
		}
		return automaton.New(withInitial(initial, automaton.Config[fmNode, fmMsg]{
			StepNames:    []string{fmSendRound, fmEndRound},
			MessageTypes: []string{"MAX"},

			Links:    automaton.Undirected(g.Adj),
			Channels: disc,
			Capacity: capacity,
			Invariants: []automaton.Invariant[fmNode, fmMsg]{
				described(election.Uniqueness[fmNode, fmMsg](func(p *fmNode) bool { return p.St == fmLeader }), "never two processes in st = leader"),
				described(election.Agreement[fmNode, fmMsg](func(p *fmNode) (int, bool) { return p.Leader, p.Leader != 0 }), "no two processes hold different leaders"),
				described(election.Validity(func(p *fmNode) (int, bool) { return p.U, p.St == fmLeader }, fmBest), "a process in st = leader holds the best ID of all"),
			},
			Assertions:  []automaton.Assertion{{Name: fmRoundSync, Doc: "every MAX is received in the round it was sent in"}},
			ValidEnd:    fmEnd,
			Termination: allKnow,
			Explain:     fmExplain,
		}))
	}
	return s
}
