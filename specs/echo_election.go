package specs

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/election"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// echoKind tells the two messages of Echo/Election apart.
type echoKind uint8

const (
	echoExp  echoKind = 1 + iota // explorer ε(j)
	echoEcho                     // echo χ(j)
)

// echoMsg is a message of Echo/Election (docs/algorithms/echo-election.md): the
// explorer EXP(j) or the echo ECHO(j) of the wave labelled j.
type echoMsg struct {
	Kind echoKind
	J    int
}

func (m echoMsg) String() string {
	if m.Kind == echoEcho {
		return fmt.Sprintf("ECHO(%d)", m.J)
	}
	return fmt.Sprintf("EXP(%d)", m.J)
}

// echoRole records the initiator status of a process
// (docs/algorithms/README.md, wake-up rule).
type echoRole uint8

const (
	// echoPassive: not a designated initiator, or one that a message woke
	// before it started (a non-initiator).
	echoPassive echoRole = iota
	// echoDesignated: a designated initiator that may still start.
	echoDesignated
	// echoInitiator: an actual initiator, one that executed start.
	echoInitiator
)

func (r echoRole) String() string {
	switch r {
	case echoDesignated:
		return "designated"
	case echoInitiator:
		return "initiator"
	}
	return "passive"
}

// echoParent is parent_i: ⊥, VIRTUAL (the virtual tree edge of an
// initiator) or the neighbour the node's wave arrived from. A neighbour is
// stored as its 0-based process index and shown 1-based; on a simple graph
// it identifies the port.
type echoParent int

const (
	echoNoParent echoParent = -1
	echoVirtual  echoParent = -2
)

func (p echoParent) String() string {
	switch p {
	case echoNoParent:
		return "⊥"
	case echoVirtual:
		return "virtual"
	}
	return strconv.Itoa(int(p) + 1)
}

// echoSet is a set of processes, bit i for process i (0-based), shown as
// 1-based process numbers such as {2,4}: done, the neighbours that have
// answered in the current wave.
type echoSet uint64

func (s echoSet) has(i int) bool { return s&(1<<uint(i)) != 0 }

func (s echoSet) String() string {
	var parts []string
	for r := uint64(s); r != 0; r &= r - 1 {
		parts = append(parts, strconv.Itoa(bits.TrailingZeros64(r)+1))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// echoNode is the process automaton of Echo/Election with extinction on an
// arbitrary connected graph (docs/algorithms/echo-election.md; Mattern,
// Verteilte Basisalgorithmen, 1989). Every initiator starts an echo wave
// labelled with its ID; a node joins the wave with the largest label it has
// seen and swallows explorers and echoes of weaker waves, so only the largest
// initiator's wave completes, and its echo coming home over the virtual tree
// edge makes that initiator the winner.
//
// Ports are the neighbours, in ascending order (topology.Graph). done holds
// the neighbours q ≠ parent that answered the explorer the node sent them
// in its current wave, with an explorer of the same wave (non-tree edge) or
// an echo (tree edge); the spec's done[q] := false for every port becomes
// done := ∅, which also forgets the irrelevant done[parent] and keeps the
// state canonical.
type echoNode struct {
	U        int
	Role     echoRole
	Cur      int
	Parent   echoParent
	Done     echoSet
	EchoSent int
	Won      bool
	// Nbrs are the neighbours in port order.
	Nbrs []int `vacheck:"-"`
	// Broken keeps a conquered initiator's virtual tree edge: the bug of
	// echo-election-broken.
	Broken bool `vacheck:"-"`
	// Top is the best ID in the system (the largest, or the smallest with
	// --objective min): no wave can be stronger (the proof of Commutes).
	Top int `vacheck:"-"`
	// Obj is --objective: which of two wave labels is stronger. Every
	// comparison of labels below goes through it.
	Obj objective `vacheck:"-"`
	// mutant seeds a bug for the tests of the reduction (echoMutant); 0
	// in the catalog.
	mutant echoMutant `vacheck:"-"`
}

// echoMutant is a deliberate change, made only by tests (echoElectionWith),
// to check that partial-order reduction keeps the verdict of a changed
// model inside its assumptions.
type echoMutant uint8

const (
	// echoSkipLast: CHECK forgets the last port, so a node echoes (or
	// wins) before its last neighbour has answered.
	echoSkipLast echoMutant = 1 + iota
	// echoDemote: JOIN makes every conquered node passive, actual
	// initiators included, so validity compares with the wrong set.
	echoDemote
	// echoOldCommutes: the correct algorithm with the Commutes of before
	// issue 15 (an answer commutes whenever another is still missing).
	echoOldCommutes
)

type echoView = automaton.View[echoNode, echoMsg]

// Steps: start_i is enabled for a designated initiator that is still
// asleep (cur = 0: it has received nothing).
func (p *echoNode) Steps(_ *echoView, out []automaton.Step) []automaton.Step {
	if p.Role == echoDesignated && p.Cur == 0 {
		out = append(out, automaton.Do(stepStart))
	}
	return out
}

// Do performs start_i: the node becomes the root of its own wave over the
// virtual tree edge and sends an explorer on every port.
func (p *echoNode) Do(s automaton.Step, fx *automaton.Effects[echoMsg]) {
	if s.Name != stepStart {
		panic(unknownStep("echo-election", s))
	}
	p.Role = echoInitiator
	p.Cur, p.Parent, p.Done = p.U, echoVirtual, 0
	for _, q := range p.Nbrs {
		fx.Send(q, echoMsg{echoExp, p.U})
	}
	p.check(fx)
}

// Receive performs receive EXP(j) and receive ECHO(j) on the port from.
func (p *echoNode) Receive(from int, m echoMsg, fx *automaton.Effects[echoMsg]) {
	switch {
	case m.Kind == echoExp && (p.Cur == 0 || p.Obj.beats(m.J, p.Cur)):
		p.join(m.J, from, fx) // woken, or conquered by a stronger wave
	case m.J == p.Cur:
		// An explorer of the own wave (non-tree edge) or an echo (tree
		// edge) answers the explorer sent on this port.
		p.Done |= 1 << uint(from)
		p.check(fx)
	case p.Obj.beats(m.J, p.Cur):
		fx.Assert(echoLabel, false) // an ECHO of a wave the node is not in
	}
	// Otherwise m belongs to a weaker wave and is swallowed.
}

// Commutes implements automaton.Commuter, for partial-order reduction. It
// claims three kinds of receive; in each, cur ≠ 0, so start is disabled for
// good, cur never decreases, and whatever sequence σ of other transitions
// the node does, receiving m first then σ, or σ then m, gives the same node
// and the same messages:
//
//   - m of a weaker wave (j < cur): swallowed now, and after σ too (cur
//     only grows); it changes nothing.
//   - an answer of the current wave when the node has echoed it already
//     (echoSent = cur): it only adds a port to done, which CHECK no longer
//     reads in this wave. If σ joins a stronger wave, JOIN resets done,
//     and m received after σ is swallowed; otherwise σ only adds ports to
//     done too. Either way the same node, and m sends nothing.
//   - an answer of the current wave, not from the parent, while another
//     answer is still missing, when cur is the largest ID of the system
//     (Top): no stronger wave exists, so σ never joins, and its receives
//     only add ports to done. The node echoes (or wins) exactly once, when
//     done is complete: m first then σ, or σ then m, sends the same one
//     ECHO on the same channel.
//
// The third case claimed once any other answer was missing, whatever cur
// was (issue 15): a node waiting for A and B that receives A, B, then a
// stronger explorer X echoes its wave, while B, X, A never does. That
// breaks the contract of Commuter. (The reduced search still meets the
// outcome of B, X, A through A, X, B, in which B is swallowed, which is why
// no verdict and no visible valuation changed; but the argument is gone,
// and echoOldCommutes keeps it for the tests.)
func (p *echoNode) Commutes(from int, m echoMsg) bool {
	if p.Cur == 0 || p.Obj.beats(m.J, p.Cur) {
		return false // wakes the node, conquers it or fails echo-label
	}
	if p.Obj.beats(p.Cur, m.J) || p.EchoSent == p.Cur {
		return true // swallowed, or the wave is echoed already
	}
	if echoParent(from) == p.Parent || (p.Obj.beats(p.Top, p.Cur) && p.mutant != echoOldCommutes) {
		return false
	}
	for _, q := range p.Nbrs {
		if q != from && echoParent(q) != p.Parent && !p.Done.has(q) {
			return true // another answer is still missing
		}
	}
	return false
}

// echoAssumptions are the facts about states that Commutes reads into a
// node (automaton.Assumption), checked in every state a reduced search
// expands: cur is 0 or a wave label at most Top, echoSent is 0 or cur (the
// node has echoed its current wave or not), and done holds neighbours
// other than the parent only.
func echoAssumptions() []automaton.Assumption[echoNode, echoMsg] {
	each := func(f func(p *echoNode) bool) func(v *echoView) bool {
		return func(v *echoView) bool { return everyProc(v, f) }
	}
	return []automaton.Assumption[echoNode, echoMsg]{
		{Name: "wave-bounded", Doc: "cur is 0 or a label no stronger than the best ID", Of: automaton.OfPartialOrder, Holds: each(func(p *echoNode) bool {
			return p.Cur >= 0 && (p.Cur == 0 || !p.Obj.beats(p.Cur, p.Top))
		})},
		{Name: "echoed-current", Doc: "echoSent is 0 or cur", Of: automaton.OfPartialOrder, Holds: each(func(p *echoNode) bool {
			return p.EchoSent == 0 || p.EchoSent == p.Cur
		})},
		{Name: "done-ports", Doc: "done holds neighbours other than the parent", Of: automaton.OfPartialOrder, Holds: each(func(p *echoNode) bool {
			return p.Done&^echoPending(p.Nbrs, p.Parent, 0) == 0
		})},
	}
}

// echoLabel is the assertion of receive ECHO(j) in 1.11: j ≤ cur.
const echoLabel = "echo-label"

// join is JOIN(j, p): the node enters the wave j with the tree edge to
// from, and explores every other port. A woken designated initiator becomes
// a non-initiator; a conquered initiator loses its virtual edge.
func (p *echoNode) join(j, from int, fx *automaton.Effects[echoMsg]) {
	if p.Role == echoDesignated {
		p.Role = echoPassive
	}
	if !p.Broken || p.Parent != echoVirtual {
		p.Parent = echoParent(from)
	}
	if p.mutant == echoDemote {
		p.Role = echoPassive
	}
	p.Cur, p.EchoSent, p.Done = j, 0, 0
	for _, q := range p.Nbrs {
		if q != from {
			fx.Send(q, echoMsg{echoExp, j})
		}
	}
	p.check(fx)
}

// check is CHECK(): once every port but the tree edge is done, echo the
// wave to the parent, or win at the root.
func (p *echoNode) check(fx *automaton.Effects[echoMsg]) {
	if p.Cur == 0 || p.EchoSent == p.Cur {
		return
	}
	for k, q := range p.Nbrs {
		if p.mutant == echoSkipLast && k == len(p.Nbrs)-1 {
			break
		}
		if echoParent(q) != p.Parent && !p.Done.has(q) {
			return
		}
	}
	p.EchoSent = p.Cur
	if p.Parent == echoVirtual {
		p.Won = true // u = cur is the leader
	} else {
		fx.Send(int(p.Parent), echoMsg{echoEcho, p.Cur})
	}
}

// echoPending returns the neighbours other than the parent whose port is
// not done: those that CHECK still waits for.
func echoPending(nbrs []int, parent echoParent, done echoSet) echoSet {
	var s echoSet
	for _, q := range nbrs {
		if echoParent(q) != parent && !done.has(q) {
			s |= 1 << uint(q)
		}
	}
	return s
}

// echoHead begins the line of process i in an explanation of a parallel
// echo election: its number, ID and role.
func echoHead(i, u int, role echoRole) string {
	return fmt.Sprintf("process %d (ID %d, %s)", i+1, u, role)
}

// echoLine says which wave process i belongs to and what it waits for.
func echoLine(i int, p *echoNode) string {
	head := echoHead(i, p.U, p.Role)
	switch {
	case p.Cur == 0:
		return head + ": asleep"
	case p.Won:
		return fmt.Sprintf("%s: won; its wave %d came home over the virtual tree edge", head, p.Cur)
	case p.EchoSent == p.Cur:
		return fmt.Sprintf("%s: in wave %d, echoed to %v", head, p.Cur, p.Parent)
	}
	return fmt.Sprintf("%s: in wave %d, tree edge %v, waits for an answer from %v", head, p.Cur, p.Parent, echoPending(p.Nbrs, p.Parent, p.Done))
}

// echoExplain says who belongs to which wave and what each node waits for.
func echoExplain(v *echoView) []string {
	var lines []string
	for i := 0; i < v.N(); i++ {
		lines = append(lines, echoLine(i, v.Proc(i)))
	}
	return lines
}

// echoLike is the process type of Echo/Election with extinction: echoNode,
// or waitNode (waiting), which keeps echoNode's state and receive rules.
type echoLike interface{ echoNode | waitNode }

// echoConfig reads the parameters of Echo/Election (the graph, the
// initiators, the IDs, the objective, the channels) and returns its model
// for processes of type S, whose echoNode node returns; the caller adds the
// explanation (and echo-election its partial-order reduction). mutant is
// echoMutant's bug, 0 in the catalog.
func echoConfig[S echoLike](p *Params, node func(q *S) *echoNode, mutant echoMutant) (automaton.Config[S, echoMsg], error) {
	g := p.graph()
	n := g.N
	inits, idsets, obj := p.initiators(n), p.ids(n), p.objective()
	// Each wave sends at most one message per direction of an edge,
	// and there are at most N waves.
	disc, capacity := p.ChannelFlags(channel.FIFO, n)
	if err := p.Err(); err != nil {
		return automaton.Config[S, echoMsg]{}, err
	}
	broken := p.Broken()
	// Built one at a time: --ids all with --initiators subsets has
	// N!(2^N−1) of them, and a state or memory limit stops the search
	// before they are all built.
	initial := initialVectors(idsets, inits, func(ids []int, set []bool) []S {
		procs := make([]S, n)
		top := obj.best(ids...)
		for i := range procs {
			q := echoNode{U: ids[i], Parent: echoNoParent, Nbrs: g.Adj[i], Broken: broken, Top: top, Obj: obj, mutant: mutant}
			if set[i] {
				q.Role = echoDesignated
			}
			procs[i] = S(q)
		}
		return procs
	}, eachProc(func(q *S) (int, bool) { return node(q).U, node(q).Role == echoDesignated }))
	won := func(q *S) bool { return node(q).Won }
	// inWave reports whether every process has cur = the ID of process w:
	// the value form of KNOW.
	inWave := func(v *automaton.View[S, echoMsg], w int) bool {
		u := node(v.Proc(w)).U
		return everyProc(v, func(q *S) bool { return node(q).Cur == u })
	}
	// The valid end state of 1.11 and the goal of termination: all
	// channels empty, exactly one process has won, and every process
	// belongs to the winner's wave.
	end := func(v *automaton.View[S, echoMsg]) bool {
		return v.ChannelsEmpty() && properties.Count(v.N(), func(i int) bool { return won(v.Proc(i)) }) == 1 &&
			inWave(v, procWhere(v, won))
	}
	return withInitial(initial, automaton.Config[S, echoMsg]{
		StepNames:    []string{stepStart},
		MessageTypes: []string{"EXP", "ECHO"},

		Links:    automaton.Undirected(g.Adj),
		Channels: disc,
		Capacity: capacity,
		Invariants: []automaton.Invariant[S, echoMsg]{
			described(election.Uniqueness[S, echoMsg](won), "never two processes won"),
			described(election.Validity(func(q *S) (int, bool) { return node(q).U, node(q).Won }, func(v *automaton.View[S, echoMsg]) int {
				return bestID(v, obj, func(q *S) (int, bool) { return node(q).U, node(q).Role == echoInitiator })
			}), "a process that has won holds the best ID (largest, or smallest with --objective min) among the actual initiators"),
			{Name: "winner-final", Doc: "once a process has won, every process has cur = its ID and none can be conquered (the assertion of JOIN)", Holds: func(v *automaton.View[S, echoMsg]) bool {
				w := procWhere(v, won)
				return w < 0 || inWave(v, w)
			}},
		},
		Assertions: []automaton.Assertion{{Name: echoLabel,
			Doc: "a received ECHO(j) has j ≤ cur (the assertion of receive ECHO)"}},
		ValidEnd:    end,
		Termination: end,
	}), nil
}

func echoElection() Spec { return echoElectionWith(0) }

// echoElectionWith is echoElection with the processes' bug seeded by mutant
// (tests only: echoMutant).
func echoElectionWith(mutant echoMutant) Spec {
	claims := []string{properties.Uniqueness, properties.Validity, echoLabel, "winner-final", properties.DeadlockFreedom}
	s := Spec{
		Name:    "echo-election",
		Section: "1.11",
		Summary: "Echo/Election with extinction on an arbitrary connected graph: the largest initiator's echo wave wins",
		Params:  waveParams(),
		Claims:  claims,
		Broken: &Twin{
			Summary: "Echo/Election with extinction, with a bug",
			Bug:     "a conquered initiator keeps its virtual tree edge, so it never echoes to the stronger wave, which then never completes",
		},
	}
	s.Build = func(p *Params) (explorer.Model, error) {
		cfg, err := echoConfig(p, func(q *echoNode) *echoNode { return q }, mutant)
		if err != nil {
			return nil, err
		}
		cfg.Explain = echoExplain
		cfg.Assumptions = echoAssumptions()
		// The invariants read won, the roles and cur; every other
		// transition is invisible to them.
		cfg.PartialOrder = &automaton.PartialOrder[echoNode]{Visible: func(before, after *echoNode) bool {
			return before.Won != after.Won || before.Role != after.Role || before.Cur != after.Cur
		}}
		return automaton.New(cfg)
	}
	return s
}
