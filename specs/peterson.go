package specs

import (
	"fmt"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/election"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// ptMode is the mode of a Peterson process: active, relay or elected.
type ptMode uint8

const (
	ptActive ptMode = iota
	ptRelay
	ptElected
)

func (m ptMode) String() string {
	switch m {
	case ptRelay:
		return "relay"
	case ptElected:
		return "elected"
	}
	return "active"
}

// ptMsg is a Peterson message: ONE(x) (a temporary ID on its first hop of
// the phase) or TWO(y) (the predecessor's value passed one active process
// further).
type ptMsg struct {
	Two bool
	V   int
}

func (m ptMsg) String() string {
	if m.Two {
		return fmt.Sprintf("TWO(%d)", m.V)
	}
	return fmt.Sprintf("ONE(%d)", m.V)
}

// ptNode is a process of Peterson's O(N log N) unidirectional election
// (docs/algorithms/peterson.md; G. L. Peterson, TOPLAS 4(4), 1982; the same
// scheme by Dolev, Klawe & Rodeh, J. Algorithms 3, 1982). The state variables
// are the section's: u, mode, tid (the temporary ID or support), first (the
// value received first in the current phase, ⊥ = 0). The optional announcement
// and leader are left out (the section's properties do not need them).
//
// Choices. The section's initial channel content C_{i,i+1} = [ONE(u_i)] is
// its own alternative, an enabled start_i that sends it; until it has, the
// process accepts no message (a receive precondition, 0.2 "Choice"), so the
// ONE(u_i) is ahead of everything i sends, exactly as if it had been in the
// channel from the start. Phase is a monitor, not part of the algorithm:
// the number of phases the process has entered (1 at the start, +1 when it
// survives), read only by the phase-survivors invariant.
// The three asserts of the pseudocode (first = ⊥ on ONE, first ≠ ⊥ on TWO,
// "assert false" for a message at the elected process) are the assertion
// phase-alignment. With --objective min every comparison is reversed.
// The section's "temporary IDs of active processes are pairwise distinct"
// is checked per phase (distinct-tids): across phases it is false, since a
// survivor adopts its predecessor's tid while that predecessor, still in
// the earlier phase, holds it too until its TWO drops it out.
type ptNode struct {
	U       int
	Started bool
	Mode    ptMode
	Tid     int
	First   int `vacheck:",bottom"`
	Phase   int // monitor

	Obj objective `vacheck:"-"`
	// Broken makes a survivor keep its own tid instead of adopting first:
	// the bug of peterson-broken.
	Broken bool `vacheck:"-"`
}

type ptView = automaton.View[ptNode, ptMsg]

// Steps: start_i sends ONE(u_i), once.
func (p *ptNode) Steps(v *ptView, out []automaton.Step) []automaton.Step {
	if !p.Started {
		out = append(out, automaton.Out(stepStart, (v.Self()+1)%v.N()))
	}
	return out
}

// Do performs start_i.
func (p *ptNode) Do(s automaton.Step, fx *automaton.Effects[ptMsg]) {
	if s.Name != stepStart {
		panic(unknownStep("peterson", s))
	}
	p.Started = true
	fx.Send((fx.Self()+1)%fx.N(), ptMsg{V: p.U})
}

// Accepts: nothing is received before start_i (the initial ONE(u_i) comes
// first on the outgoing channel).
func (p *ptNode) Accepts(_ int, _ ptMsg) bool { return p.Started }

// Receive performs receive ONE(x) and receive TWO(y) of 1.6.
func (p *ptNode) Receive(_ int, m ptMsg, fx *automaton.Effects[ptMsg]) {
	next := (fx.Self() + 1) % fx.N()
	switch p.Mode {
	case ptRelay:
		fx.Send(next, m)
	case ptElected:
		fx.Assert("phase-alignment", false)
	case ptActive:
		if !m.Two { // ONE(x)
			fx.Assert("phase-alignment", p.First == 0)
			if m.V == p.Tid {
				p.Mode = ptElected // the only active process left
			} else {
				p.First = m.V
				fx.Send(next, ptMsg{Two: true, V: m.V})
			}
			return
		}
		// TWO(y)
		fx.Assert("phase-alignment", p.First != 0)
		if p.First != 0 && p.Obj.beats(p.First, p.Tid) && p.Obj.beats(p.First, m.V) {
			if !p.Broken {
				p.Tid = p.First
			}
			p.First = 0
			p.Phase++
			fx.Send(next, ptMsg{V: p.Tid}) // next phase
		} else {
			p.Mode, p.First = ptRelay, 0
		}
	}
}

// ptSurvivors is the phase-survivors invariant: if a_k ≥ 2 processes are
// active in phase k (Phase ≥ k), at most ⌊a_k/2⌋ of them enter phase k+1,
// and once none of them is still deciding (active with Phase = k) at least
// one has.
func ptSurvivors(v *ptView) bool {
	n := v.N()
	for k := 1; ; k++ {
		a := properties.Count(n, func(i int) bool { return v.Proc(i).Phase >= k })
		if a < 2 {
			return true
		}
		s := properties.Count(n, func(i int) bool { return v.Proc(i).Phase > k })
		deciding := properties.Count(n, func(i int) bool { p := v.Proc(i); return p.Phase == k && p.Mode == ptActive })
		if s > a/2 || (s == 0 && deciding == 0) {
			return false
		}
	}
}

// ptBest returns the winning ID among all processes' own IDs.
func ptBest(v *ptView) int {
	w := v.Proc(0).U
	for i := 1; i < v.N(); i++ {
		w = v.Proc(0).Obj.best(w, v.Proc(i).U)
	}
	return w
}

func ptExplain(v *ptView) []string {
	var out []string
	for i := 0; i < v.N(); i++ {
		p := v.Proc(i)
		s := fmt.Sprintf("p%d (ID %d): %v, tid %d, phase %d", i+1, p.U, p.Mode, p.Tid, p.Phase)
		if p.First != 0 {
			s += fmt.Sprintf(", first %d", p.First)
		}
		if !p.Started {
			s = fmt.Sprintf("p%d (ID %d): not started", i+1, p.U)
		}
		out = append(out, s)
	}
	return out
}

// ptElectedIsExtremum is the name of the offered, refuted claim "the elected
// process is i_max" (1.6, "Leader identity").
const ptElectedIsExtremum = "elected-is-imax"

// peterson returns peterson (docs/algorithms/peterson.md), which declares its
// broken twin.
func peterson() Spec {
	return Spec{
		Name:    "peterson",
		Section: "1.6",
		Summary: "Peterson / Dolev-Klawe-Rodeh O(N log N) election on a unidirectional ring: phases of ONE and TWO messages",
		Params:  ringParams("5"),
		Claims: []string{properties.Uniqueness, properties.Validity, "phase-alignment", "phase-survivors", "distinct-tids",
			properties.Quiescence, properties.DeadlockFreedom},
		Symmetry: "rotations",
		// docs/algorithms/peterson.md: 2N messages per phase while two
		// or more are active, at most ⌊log₂ N⌋ such phases, N for the last.
		Formulas: []Formula{
			{Metric: "messages", Stat: "max", Expr: "2*n*floor(log2(n))+n", Source: "Peterson 1982; Dolev, Klawe and Rodeh 1982"},
			{Metric: "messages", Stat: "min", Expr: "3*n", Source: "a single survivor after the first phase (N ≥ 2)"},
		},
		Broken: &Twin{
			Summary: "Peterson's election with a bug",
			Bug:     "a survivor keeps its own temporary ID instead of adopting its predecessor's (tid := first left out), so a non-maximal value can be elected",
		},
		Build: func(p *Params) (explorer.Model, error) {
			r := p.ring(1, nil, func(n int) int { return 2 * n })
			return ringModel(p, r, func(_, id int, _ bool) ptNode {
				return ptNode{U: id, Tid: id, Phase: 1, Obj: r.obj, Broken: p.Broken()}
			}, ringID(func(p *ptNode) int { return p.U }), automaton.Config[ptNode, ptMsg]{
				StepNames:    []string{stepStart},
				MessageTypes: []string{"ONE", "TWO"},
				Invariants:   ptInvariants(r.obj),
				Assertions:   []automaton.Assertion{{Name: "phase-alignment", Doc: "ONE reaches an active process only with first = ⊥, TWO only with first ≠ ⊥, nothing reaches the elected process"}},
				ValidEnd:     ptValidEnd,
				Liveness:     []automaton.Liveness[ptNode, ptMsg]{election.Quiescence(ptQuiet)},
				Explain:      ptExplain,
			})
		},
	}
}

// ptIsElected reports whether a process is elected.
func ptIsElected(p *ptNode) bool { return p.Mode == ptElected }

// ptInvariants are the invariants of peterson, worded for the objective.
func ptInvariants(obj objective) []automaton.Invariant[ptNode, ptMsg] {
	return []automaton.Invariant[ptNode, ptMsg]{
		described(election.Uniqueness[ptNode, ptMsg](ptIsElected), "never two processes elected"),
		described(election.Validity(func(p *ptNode) (int, bool) { return p.Tid, ptIsElected(p) }, ptBest), "an elected process holds tid = the "+obj.String()+" ID (value form of VALID)"),
		{Name: "phase-survivors", Doc: "of a ≥ 2 processes active in a phase, between 1 and ⌊a/2⌋ survive it", Holds: ptSurvivors},
		{Name: "distinct-tids", Doc: "the temporary IDs of the active processes of one phase are pairwise distinct", Holds: ptDistinctTids},
		{Name: ptElectedIsExtremum, Doc: "the elected process is the one whose own ID is the " + obj.String() + " (offered; refuted for N ≥ 2)", Holds: ptElectedIsBest},
	}
}

// ptDistinctTids: the active processes of one phase have pairwise distinct
// temporary IDs.
func ptDistinctTids(v *ptView) bool {
	for i := 0; i < v.N(); i++ {
		for j := i + 1; j < v.N(); j++ {
			p, q := v.Proc(i), v.Proc(j)
			if p.Mode == ptActive && q.Mode == ptActive && p.Phase == q.Phase && p.Tid == q.Tid {
				return false
			}
		}
	}
	return true
}

// ptElectedIsBest: the elected process is the one whose own ID is the best.
func ptElectedIsBest(v *ptView) bool {
	best := ptBest(v)
	for i := 0; i < v.N(); i++ {
		if v.Proc(i).Mode == ptElected && v.Proc(i).U != best {
			return false
		}
	}
	return true
}

// ptValidEnd is a valid end state (0.8): channels empty, exactly one
// process elected; the others may be relays or undecided.
func ptValidEnd(v *ptView) bool {
	return v.ChannelsEmpty() && properties.Count(v.N(), func(i int) bool { return ptIsElected(v.Proc(i)) }) == 1
}

// ptQuiet: every process started and every channel empty, so nothing is
// enabled.
func ptQuiet(v *ptView) bool {
	return v.ChannelsEmpty() && properties.Count(v.N(), func(i int) bool { return !v.Proc(i).Started }) == 0
}
