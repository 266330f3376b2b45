package specs

import (
	"fmt"
	"strconv"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/election"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// craStatus is the status of a process of Chang-Roberts with announcement.
type craStatus uint8

const (
	craUnknown craStatus = iota
	craChosen
	craDone
)

func (s craStatus) String() string {
	return [...]string{"unknown", "chosen", "done"}[s]
}

// craMsg is ELECT(v) or ELECTED(v).
type craMsg struct {
	Elected bool
	V       int
}

func (m craMsg) String() string {
	if m.Elected {
		return fmt.Sprintf("ELECTED(%d)", m.V)
	}
	return fmt.Sprintf("ELECT(%d)", m.V)
}

// Fields implements automaton.Fielder: expressions read a message as
// type (ELECT or ELECTED) and id, the ID it carries.
func (m craMsg) Fields() map[string]any {
	typ := "ELECT"
	if m.Elected {
		typ = "ELECTED"
	}
	return map[string]any{"type": typ, "id": m.V}
}

// craNode is a process of Chang-Roberts with leader announcement
// (docs/algorithms/chang-roberts-announce.md): the formal model of 1.1 with
// tagged messages, a leader variable and a third status, done. The leader sends
// ELECTED(u) around the ring; every other process records it and passes it on.
type craNode struct {
	U      int
	Send   []craMsg
	Status craStatus
	Leader int `vacheck:",bottom"` // 0: ⊥
	// Silent is the bug of chang-roberts-announce-broken: ELECTED is not
	// passed on.
	Silent bool `vacheck:"-"`
	// Obj is --objective: which of two IDs wins.
	Obj objective `vacheck:"-"`
}

type craView = automaton.View[craNode, craMsg]

// Steps: send(m)_{i,i+1} while the send buffer is not empty.
func (p *craNode) Steps(v *craView, out []automaton.Step) []automaton.Step {
	if len(p.Send) > 0 {
		out = append(out, automaton.Out(crSend, (v.Self()+1)%v.N()))
	}
	return out
}

// Do moves the head of the send buffer onto the channel.
func (p *craNode) Do(s automaton.Step, fx *automaton.Effects[craMsg]) {
	if s.Name != crSend {
		panic(unknownStep("chang-roberts-announce", s))
	}
	m := p.Send[0]
	p.Send = p.Send[1:]
	fx.Send((fx.Self()+1)%fx.N(), m)
}

// Receive applies 1.2: ELECT as in 1.1 except that the returning own ID
// makes the process chosen and starts the announcement; ELECTED(w) makes a
// process done, and the others pass it on.
func (p *craNode) Receive(_ int, m craMsg, _ *automaton.Effects[craMsg]) {
	if !m.Elected {
		switch {
		case p.Obj.beats(m.V, p.U):
			p.Send = append(p.Send, m)
		case m.V == p.U && p.Status == craUnknown:
			p.Status, p.Leader = craChosen, p.U
			p.Send = append(p.Send, craMsg{Elected: true, V: p.U})
		}
		return // v < u: discarded (a done process applies the same rule)
	}
	if m.V == p.U {
		p.Status = craDone
		return
	}
	p.Leader, p.Status = m.V, craDone
	if !p.Silent {
		p.Send = append(p.Send, m)
	}
}

// craKnown returns the leader process p knows, if any.
func craKnown(p *craNode) (int, bool) { return p.Leader, p.Leader != 0 }

// craIsLeader reports whether process i is in a leader state.
func craIsLeader(p *craNode) bool {
	return p.Status == craChosen || (p.Status == craDone && p.Leader == p.U)
}

// changRobertsAnnounce returns chang-roberts-announce
// (docs/algorithms/chang-roberts-announce.md), which declares its broken twin.
func changRobertsAnnounce() Spec {
	return Spec{
		Name:    "chang-roberts-announce",
		Section: "1.2",
		Summary: "Chang-Roberts with leader announcement: the leader's ELECTED message tells every process, so the election terminates",
		Params:  ringParams("4", Param{Flag: "crashes", Default: "0", Usage: "crash-stop faults the environment may inject, 0 to N-1 (with one, termination fails)"}),
		Claims: []string{properties.Uniqueness, properties.Agreement, properties.Validity, "no-elect-after-done",
			properties.DeadlockFreedom, properties.Termination},
		Symmetry: "rotations",
		Broken: &Twin{
			Summary: "Chang-Roberts with announcement, with a bug",
			Bug:     "a process that learns the leader from ELECTED does not pass it on, so the others never learn it",
		},
		Build: func(p *Params) (explorer.Model, error) {
			// With a crash the ring is broken and the algorithm has no
			// failure handling: termination fails (1.2).
			var crashes int
			r := p.ring(1, func(n int) choices[[]bool] {
				crashes = p.IntFlag("crashes", 0, n-1)
				return noFlags(n)
			}, func(n int) int { return n + 1 })
			if crashes > 0 && r.n > maxN && p.Err() == nil {
				// automaton keeps the crashed processes in a 64-bit mask.
				return nil, Usagef("crashes", strconv.Itoa(crashes), "crashes are modelled for at most %d processes and --n is %d; allowed: 0, or --n up to %d", maxN, r.n, maxN)
			}
			// The goal of 1.2: nothing in transit, every process done with
			// leader = the best ID.
			everyoneKnows := election.EveryoneKnows(craKnown, craBestID, craSettled)
			return ringModel(p, r, func(_, id int, _ bool) craNode {
				return craNode{U: id, Send: []craMsg{{V: id}}, Silent: p.Broken(), Obj: r.obj}
			}, ringID(func(p *craNode) int { return p.U }), automaton.Config[craNode, craMsg]{
				StepNames:    []string{crSend},
				MessageTypes: []string{"ELECT", "ELECTED"},
				Crashes:      crashes,
				Invariants:   craInvariants(),
				ValidEnd:     everyoneKnows,
				Termination:  everyoneKnows,
				Explain:      craExplain,
			})
		},
	}
}

// craBestID is the best ID: the maximum, or the minimum with --objective
// min.
func craBestID(v *craView) int {
	m := v.Proc(0).U
	for i := 1; i < v.N(); i++ {
		m = v.Proc(0).Obj.best(m, v.Proc(i).U)
	}
	return m
}

// craSettled: the process has nothing to send and is done.
func craSettled(p *craNode) bool { return len(p.Send) == 0 && p.Status == craDone }

// craInvariants are the invariants of chang-roberts-announce.
func craInvariants() []automaton.Invariant[craNode, craMsg] {
	return []automaton.Invariant[craNode, craMsg]{
		described(election.Uniqueness[craNode, craMsg](craIsLeader), "never two processes in a leader state"),
		described(election.Agreement[craNode, craMsg](craKnown), "no two different known leaders"),
		described(election.Validity(craKnown, craBestID), "every known leader is the best ID (the maximum, or the minimum with --objective min)"),
		{Name: "no-elect-after-done", Doc: "no ELECT is on its way to a done process (it would be received after done; FIFO only)", Holds: craNoElectAfterDone},
	}
}

// craNoElectAfterDone: no ELECT is in the channel into a done process.
func craNoElectAfterDone(v *craView) bool {
	for i := 0; i < v.N(); i++ {
		if v.Proc(i).Status != craDone {
			continue
		}
		for _, m := range v.Chan((i+v.N()-1)%v.N(), i) {
			if !m.Elected {
				return false
			}
		}
	}
	return true
}

// craExplain says who leads and who knows which leader, against the best
// ID.
func craExplain(v *craView) []string {
	id := func(p *craNode) int { return p.U }
	return electionStory[craNode, craMsg]{
		id: id, leads: craIsLeader, knows: func(p *craNode) int { return p.Leader },
		best:   func(v *craView) int { return bestAmong(v, v.Proc(0).Obj, id, func(*craNode) bool { return true }) },
		bestOf: "the best ID", one: "a leader", many: "leaders",
	}.explain(v)
}
