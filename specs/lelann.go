package specs

import (
	"fmt"
	"slices"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/election"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// llStatus is st of LeLann: asleep, cand, relay, lost, leader or done.
type llStatus uint8

const (
	llAsleep llStatus = iota
	llCand
	llRelay
	llLost
	llLeader
	llDone
)

func (s llStatus) String() string {
	return [...]string{"asleep", "cand", "relay", "lost", "leader", "done"}[s]
}

// llMsg is CAND(v), a candidate's token, or LEADER(w), the announcement.
type llMsg struct {
	Leader bool
	V      int
}

func (m llMsg) String() string {
	if m.Leader {
		return fmt.Sprintf("LEADER(%d)", m.V)
	}
	return fmt.Sprintf("CAND(%d)", m.V)
}

// llNode is a process of LeLann's ring election (docs/algorithms/lelann.md; Le
// Lann 1977): every actual initiator sends its token CAND(u) once round a
// unidirectional FIFO ring; every candidate records the IDs of the tokens that
// pass it in seen, and when its own token comes back it is the leader if its ID
// is the best of seen, and announces itself with LEADER. FIFO is required: an
// initiator's own token stays ahead of every token it forwards, so seen is
// complete when the own token returns.
//
// Seen is kept sorted, so that equal sets are equal states. Init (a
// designated initiator) is a state variable because --initiators subsets
// gives each initial state its own set; it never changes. The assert false
// branch of receive CAND is the assertion no-cand-after-leader, and the
// message is then discarded: the literal reading, under which a leader
// never forwards a late CAND, so uniqueness holds even without FIFO.
type llNode struct {
	U      int
	Init   bool
	St     llStatus
	Seen   []int
	Leader int       `vacheck:",bottom"` // 0: ⊥
	Obj    objective `vacheck:"-"`
	// Broken drops the st = asleep precondition of start (lelann-broken):
	// an initiator may start after it has relayed another token, so its
	// own token runs behind that one.
	Broken bool `vacheck:"-"`
}

type llView = automaton.View[llNode, llMsg]

// llStart is the step start_i, a process's one local step.
const llStart = "start"

// Steps: start_i, pre designated initiator ∧ st = asleep (the broken twin
// also allows st = relay).
func (p *llNode) Steps(_ *llView, out []automaton.Step) []automaton.Step {
	if p.Init && (p.St == llAsleep || (p.Broken && p.St == llRelay)) {
		out = append(out, automaton.Do(llStart))
	}
	return out
}

// Do performs start_i: st := cand; seen := {u}; send CAND(u).
func (p *llNode) Do(s automaton.Step, fx *automaton.Effects[llMsg]) {
	switch s.Name {
	case llStart:
		p.St, p.Seen = llCand, []int{p.U}
		fx.Send((fx.Self()+1)%fx.N(), llMsg{V: p.U})
	default:
		panic(unknownStep("lelann", s))
	}
}

// Receive performs receive CAND(v) and receive LEADER(w).
func (p *llNode) Receive(_ int, m llMsg, fx *automaton.Effects[llMsg]) {
	next := (fx.Self() + 1) % fx.N()
	if m.Leader {
		if m.V != p.U {
			p.Leader = m.V
			fx.Send(next, m)
		}
		p.St = llDone
		return
	}
	v := m.V
	switch p.St {
	case llAsleep: // woken: a non-initiator
		p.St = llRelay
		fx.Send(next, m)
	case llRelay, llLost:
		fx.Send(next, m)
	case llCand:
		switch {
		case v != p.U:
			if i, found := slices.BinarySearch(p.Seen, v); !found {
				p.Seen = slices.Insert(p.Seen, i, v)
			}
			fx.Send(next, m)
		case p.Obj.best(p.Seen...) == p.U: // own token back, and the best
			p.St, p.Leader = llLeader, p.U
			fx.Send(next, llMsg{Leader: true, V: p.U})
		default:
			p.St = llLost
		}
	default:
		fx.Assert(llNoLateCand, false) // leader/done: unreachable under FIFO
	}
}

// llNoLateCand is the assert false branch of receive CAND.
const llNoLateCand = "no-cand-after-leader"

// llIsLeader: st = leader, or done with leader = u.
func llIsLeader(p *llNode) bool {
	return p.St == llLeader || (p.St == llDone && p.Leader == p.U)
}

// llExplain says who is a leader with which ID, against the best ID among
// the actual initiators (processes in st cand, lost or leader), as llValid
// reads VALID.
func llExplain(v *llView) []string {
	id := func(p *llNode) int { return p.U }
	return electionStory[llNode, llMsg]{
		id: id, leads: llIsLeader, knows: func(p *llNode) int { return p.Leader },
		best: func(v *llView) int {
			return bestAmong(v, v.Proc(0).Obj, id, func(p *llNode) bool { return p.St == llCand || p.St == llLost || p.St == llLeader })
		},
		bestOf: "the best ID among the actual initiators", one: "a leader", many: "leaders",
	}.explain(v)
}

// llValid is VALID of 1.5: no actual initiator beats a leader value. The
// actual initiators are the processes in st cand, lost or leader until the
// first leader exists (only a leader's announcement makes a process done),
// so checking them in every state is exact.
func llValid(v *llView) bool {
	o := v.Proc(0).Obj
	for i := 0; i < v.N(); i++ {
		l := v.Proc(i).Leader
		if l == 0 {
			continue
		}
		for j := 0; j < v.N(); j++ {
			if q := v.Proc(j); (q.St == llCand || q.St == llLost || q.St == llLeader) && o.beats(q.U, l) {
				return false
			}
		}
	}
	return true
}

// llEnd is the valid end state and the goal of termination: channels
// empty, every process done and knowing the one leader (KNOW).
func llEnd(v *llView) bool {
	if !v.ChannelsEmpty() {
		return false
	}
	leader := 0
	for i := 0; i < v.N(); i++ {
		if q := v.Proc(i); llIsLeader(q) {
			leader = q.U
		}
	}
	for i := 0; i < v.N(); i++ {
		if q := v.Proc(i); q.St != llDone || q.Leader != leader || leader == 0 {
			return false
		}
	}
	return true
}

// lelann returns lelann (docs/algorithms/lelann.md), which declares its broken
// twin.
func lelann() Spec {
	return Spec{
		Name:    "lelann",
		Section: "1.5",
		Summary: "LeLann's ring election: every initiator's token goes round the FIFO ring; the best ID seen wins and announces itself",
		Params:  ringParams("4", initiatorsParam("subsets")),
		Claims: []string{properties.Uniqueness, properties.Agreement, properties.Validity, llNoLateCand,
			properties.DeadlockFreedom, properties.Termination},
		Symmetry: "rotations",
		Broken: &Twin{
			Summary: "LeLann without the wake-up rule",
			Bug:     "start_i lacks its st = asleep precondition, so an initiator may start after relaying a token, which then returns home before the new token has passed: a smaller candidate wins",
			Claims:  []string{properties.Uniqueness, properties.Validity, properties.DeadlockFreedom},
		},
		Build: func(p *Params) (explorer.Model, error) {
			r := p.ring(1, p.initiators, func(n int) int { return n + 1 }) // at most N tokens and one LEADER cross a channel
			return ringModel(p, r, func(_, id int, init bool) llNode {
				return llNode{U: id, Init: init, Obj: r.obj, Broken: p.Broken()}
			}, func(p *llNode) (int, bool) { return p.U, p.Init }, automaton.Config[llNode, llMsg]{
				StepNames:    []string{llStart},
				MessageTypes: []string{"CAND", "LEADER"},
				Invariants:   llInvariants(),
				Assertions:   []automaton.Assertion{{Name: llNoLateCand, Doc: "no CAND reaches a process in st leader or done (the algorithm's assert false branch; FIFO only)"}},
				ValidEnd:     llEnd,
				Termination:  llEnd,
				Explain:      llExplain,
			})
		},
	}
}

// llInvariants are the invariants of lelann and its twin.
func llInvariants() []automaton.Invariant[llNode, llMsg] {
	return []automaton.Invariant[llNode, llMsg]{
		described(election.Uniqueness[llNode, llMsg](llIsLeader), "never two processes in a leader state (leader, or done with leader = u)"),
		described(election.Agreement[llNode, llMsg](func(p *llNode) (int, bool) { return p.Leader, p.Leader != 0 }), "no two different non-⊥ leader values"),
		{Name: properties.Validity, Doc: "every leader value is the best ID among the actual initiators", Holds: llValid},
	}
}
