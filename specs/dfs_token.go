package specs

import (
	"fmt"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/election"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// dtMsg is TOKEN(t, V) of 1.10: the starter's ID t and, for the path
// method, the set V of visited processes (0 for edge colouring).
type dtMsg struct {
	T int
	V echoSet
}

func (m dtMsg) String() string {
	if m.V == 0 {
		return fmt.Sprintf("TOKEN(%d)", m.T)
	}
	return fmt.Sprintf("TOKEN(%d,%v)", m.T, m.V)
}

// dtStatus is st of 1.10.
type dtStatus uint8

const (
	dtAsleep dtStatus = iota
	dtActive
	dtWon
)

func (s dtStatus) String() string { return [...]string{"asleep", "active", "won"}[s] }

// dtNode is the process automaton of election by a sequential depth-first
// traversal with several starters (docs/algorithms/dfs-token.md; Mattern,
// Verteilte Basisalgorithmen, 1989; Tel, Introduction to Distributed
// Algorithms, 6.4 and 7.1). A starter sends a token carrying its ID through the
// graph depth first; a process that has seen a better token swallows a worse
// one, so only the best starter's token comes home over the virtual edge.
//
// --method path: the token carries the set V of visited processes (a
// process knows its neighbours, so V holds process indices, shown 1-based).
// --method coloring: the token carries only t; explored marks the ports
// used by the current token, so every edge is used once in each direction.
//
// "choose such w" is a nondeterministic choice (0.6, NONDET). An effect is
// deterministic, so when there are two or more candidates the process
// holds the token (Holding, with its V) and a separate output forward(w)
// per candidate sends it; while it holds a token it accepts no message
// (a receive precondition, the Choice of 0.2). With one candidate the
// token is sent within the effect, as in the pseudocode.
type dtNode struct {
	U        int
	Role     echoRole
	MaxT     int // 0: none
	Parent   echoParent
	St       dtStatus
	Explored echoSet // coloring only
	Holding  bool
	HoldV    echoSet
	Nbrs     []int     `vacheck:"-"`
	Path     bool      `vacheck:"-"`
	Obj      objective `vacheck:"-"`
	// Broken drops the wake-up rule: a designated initiator may start
	// after a token woke it (the bug of dfs-token-broken).
	Broken bool `vacheck:"-"`
}

type dtView = automaton.View[dtNode, dtMsg]

// dtForward is the step forward_i: pass the held token to a neighbour.
const dtForward = "forward"

// Steps: start_i (a designated initiator still asleep) and forward(w)_{i,w}
// for each candidate of a held token.
func (p *dtNode) Steps(_ *dtView, out []automaton.Step) []automaton.Step {
	if p.Role == echoDesignated && !p.Holding && (p.St == dtAsleep || (p.Broken && p.St == dtActive)) {
		out = append(out, automaton.Do(stepStart))
	}
	if p.Holding {
		for _, w := range p.Nbrs {
			if p.candidate(w, p.HoldV) {
				out = append(out, automaton.Out(dtForward, w))
			}
		}
	}
	return out
}

// Do performs start_i or forward(w)_{i,w}.
func (p *dtNode) Do(s automaton.Step, fx *automaton.Effects[dtMsg]) {
	if s.Name == dtForward {
		p.Holding = false
		p.sendTo(s.To, p.HoldV, fx)
		p.HoldV = 0
		return
	}
	if s.Name != stepStart {
		panic(unknownStep("dfs-token", s))
	}
	p.Role, p.St, p.MaxT, p.Parent, p.Explored = echoInitiator, dtActive, p.U, echoVirtual, 0
	p.next(1<<uint(fx.Self()), fx) // the token arrives over the virtual edge
}

// Accepts: a process holding a token receives nothing until it has sent it.
func (p *dtNode) Accepts(int, dtMsg) bool { return !p.Holding }

// Receive performs receive TOKEN(t, V) (path) or TOKEN(t) (coloring) on
// the port from.
func (p *dtNode) Receive(from int, m dtMsg, fx *automaton.Effects[dtMsg]) {
	if p.St == dtAsleep {
		p.St = dtActive
		if p.Role == echoDesignated && !p.Broken {
			p.Role = echoPassive // woken: a non-starter
		}
	}
	stronger := p.MaxT == 0 || p.Obj.beats(m.T, p.MaxT)
	switch {
	case !stronger && m.T != p.MaxT: // swallowed
	case p.Path:
		if stronger {
			p.MaxT, p.Parent = m.T, echoParent(from)
		}
		p.next(m.V|1<<uint(fx.Self()), fx)
	case stronger: // joins the better traversal
		p.MaxT, p.Parent, p.Explored = m.T, echoParent(from), 0
		p.next(0, fx)
	case p.Explored.has(from): // return from a child, or a bounce
		p.next(0, fx)
	default: // arrived over an unused non-tree edge: bounce it back
		fx.Assert(dtBounce, echoParent(from) != p.Parent)
		p.Explored |= 1 << uint(from)
		fx.Send(from, dtMsg{T: m.T})
	}
}

// candidate reports whether w may get the token next: a neighbour outside
// V (path) or a port outside explored ∪ {parent} (coloring).
func (p *dtNode) candidate(w int, v echoSet) bool {
	if p.Path {
		return !v.has(w)
	}
	return !p.Explored.has(w) && echoParent(w) != p.Parent
}

// next is NEXT_PATH(maxT, V) or NEXT_COLOUR(maxT).
func (p *dtNode) next(v echoSet, fx *automaton.Effects[dtMsg]) {
	var cands []int
	for _, w := range p.Nbrs {
		if p.candidate(w, v) {
			cands = append(cands, w)
		}
	}
	switch {
	case len(cands) > 1:
		p.Holding, p.HoldV = true, v // forward(w) chooses
	case len(cands) == 1:
		p.sendTo(cands[0], v, fx)
	case p.Parent == echoVirtual:
		p.St = dtWon // the token is home
	default:
		fx.Send(int(p.Parent), dtMsg{p.MaxT, v})
	}
}

// sendTo sends the token to the chosen w; coloring marks the port.
func (p *dtNode) sendTo(w int, v echoSet, fx *automaton.Effects[dtMsg]) {
	if !p.Path {
		p.Explored |= 1 << uint(w)
	}
	fx.Send(w, dtMsg{p.MaxT, v})
}

// dtBounce is the assertion of 1.10 (coloring): a token of the current
// traversal arriving over an unexplored port does not come from the parent.
const dtBounce = "bounce-not-parent"

func dtWinners(v *dtView) int {
	return properties.Count(v.N(), func(i int) bool { return v.Proc(i).St == dtWon })
}

// dtEnd is the valid end state (0.8, 1.10): channels empty, no token
// held, exactly one process has won.
func dtEnd(v *dtView) bool {
	return everyProc(v, func(p *dtNode) bool { return !p.Holding }) && v.ChannelsEmpty() && dtWinners(v) == 1
}

func dtExplain(v *dtView) []string {
	var lines []string
	for i := 0; i < v.N(); i++ {
		p := v.Proc(i)
		line := fmt.Sprintf("process %d (ID %d, %s): %v", i+1, p.U, p.Role, p.St)
		if p.MaxT != 0 {
			line += fmt.Sprintf(", in the traversal of token %d, parent %v", p.MaxT, p.Parent)
		}
		if p.Holding {
			line += ", holds the token and chooses where to send it"
		}
		lines = append(lines, line)
	}
	return lines
}

func dfsToken() Spec {
	ids := idsParam
	ids.Default = "increasing"
	s := Spec{
		Name:    "dfs-token",
		Section: "1.10",
		Summary: "election by depth-first token traversal with several starters: the best starter's token comes home",
		Params: []Param{
			graphNParam,
			graphTopologyParam("ring"),
			initiatorsParam("all"),
			ids,
			{Flag: "method", Default: "path", Usage: "path (the token carries the visited set) or coloring (ports are marked; the token carries only its ID)"},
			objectiveParam,
		},
		Claims: []string{properties.Uniqueness, properties.Validity, dtBounce, properties.DeadlockFreedom},
		Broken: &Twin{
			Summary: "DFS token election with a bug",
			Bug:     "the wake-up rule is dropped: a process woken by a token may still start, after the election, and its token wins a second one",
		},
	}
	s.Build = func(p *Params) (explorer.Model, error) {
		g := p.graph()
		n := g.N
		path := p.either("method", "path", "coloring")
		obj, inits, idsets := p.objective(), p.initiators(n), p.ids(n)
		// Each starter's token is at most once in flight.
		disc, capacity := p.ChannelFlags(channel.FIFO, n)
		if err := p.Err(); err != nil {
			return nil, err
		}
		broken := p.Broken()
		initial := initialStates(idsets, inits, func(i, id int, init bool) dtNode {
			q := dtNode{U: id, Parent: echoNoParent, Nbrs: g.Adj[i], Path: path, Obj: obj, Broken: broken}
			if init {
				q.Role = echoDesignated
			}
			return q
		}, func(p *dtNode) (int, bool) { return p.U, p.Role == echoDesignated })
		return automaton.New(withInitial(initial, automaton.Config[dtNode, dtMsg]{
			StepNames:    []string{stepStart, dtForward},
			MessageTypes: []string{"TOKEN"},

			Links:    automaton.Undirected(g.Adj),
			Channels: disc,
			Capacity: capacity,
			Invariants: []automaton.Invariant[dtNode, dtMsg]{
				described(election.Uniqueness[dtNode, dtMsg](func(p *dtNode) bool { return p.St == dtWon }), "never two processes won"),
				described(election.Validity(func(p *dtNode) (int, bool) { return p.U, p.St == dtWon }, func(v *dtView) int {
					return bestID(v, obj, func(p *dtNode) (int, bool) { return p.U, p.Role == echoInitiator })
				}), "a process that won holds the best ID among the actual starters"),
			},
			Assertions: []automaton.Assertion{{Name: dtBounce,
				Doc: "a token of the current traversal arriving over an unexplored port does not come from the parent (the coloring method's assertion)"}},
			ValidEnd: dtEnd,
			// KNOW: every process knows the leader; without the
			// announcement only the winner does.
			Termination: func(v *dtView) bool {
				return dtEnd(v) && dtWinners(v) == v.N()
			},
			Explain: dtExplain,
		}))
	}
	return s
}
