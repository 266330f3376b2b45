package specs

import (
	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/election"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// crwStatus is st of 1.3: asleep, cand, relay, chosen or done.
type crwStatus uint8

const (
	crwAsleep crwStatus = iota
	crwCand
	crwRelay
	crwChosen
	crwDone
)

func (s crwStatus) String() string {
	return [...]string{"asleep", "cand", "relay", "chosen", "done"}[s]
}

// crwWake is WAKE of 1.3: what a sleeping process does when a message
// wakes it.
type crwWake uint8

const (
	crwJoin    crwWake = iota // becomes a candidate and sends its own ID
	crwJoinOpt                // as JOIN, but suppresses its ID if the waking ID wins
	crwRelayW                 // never becomes a candidate, only forwards
)

// crwNode is a process of Chang-Roberts with spontaneous (on-demand) start
// (docs/algorithms/chang-roberts-wakeup.md; Chang & Roberts 1979): designated
// initiators start on their own, the others take part after a first message, as
// WAKE says. Messages are those of 1.2 (craMsg): ELECT(v), and ELECTED(w) with
// the announcement. "send" appends to the channel directly (0.2: no send buffer
// in 1.3).
//
// Choices: (1) Init (designated initiator) is a state variable, not a
// constant, because --initiators subsets gives each initial state its own
// set; it never changes. (2) leader := u is set when a process is chosen,
// with or without the announcement, so that agreement reads the same in
// both. (3) No history variable records the actual initiators: validity
// for RELAY is checked against the processes in st cand or chosen, which
// are exactly the actual initiators until the announcement starts (a
// process becomes done only after a leader is chosen, and every larger
// initiator is then still a candidate).
type crwNode struct {
	U         int
	Init      bool
	St        crwStatus
	Electable bool
	Best      int
	Leader    int       `vacheck:",bottom"` // 0: ⊥
	Wake      crwWake   `vacheck:"-"`
	CmpBest   bool      `vacheck:"-"` // CMP = BEST (else OWN)
	Announce  bool      `vacheck:"-"`
	Obj       objective `vacheck:"-"`
	// Broken drops the st = asleep precondition of start: an initiator may
	// start after it has relayed (chang-roberts-wakeup-broken, RELAY only).
	Broken bool `vacheck:"-"`
}

type crwView = automaton.View[crwNode, craMsg]

// Steps: start_i, pre i is a designated initiator and st = asleep (the
// wake-up rule of 0.6; the broken twin also allows st = relay).
func (p *crwNode) Steps(_ *crwView, out []automaton.Step) []automaton.Step {
	if p.Init && (p.St == crwAsleep || (p.Broken && p.St == crwRelay)) {
		out = append(out, automaton.Do(stepStart))
	}
	return out
}

// Do performs start_i: st := cand; electable := true; send ELECT(u).
func (p *crwNode) Do(s automaton.Step, fx *automaton.Effects[craMsg]) {
	if s.Name != stepStart {
		panic(unknownStep("chang-roberts-wakeup", s))
	}
	p.St, p.Electable = crwCand, true
	p.send(fx, craMsg{V: p.U})
}

func (p *crwNode) send(fx *automaton.Effects[craMsg], m craMsg) {
	fx.Send((fx.Self()+1)%fx.N(), m)
}

// Receive performs receive ELECT(v) and receive ELECTED(w).
func (p *crwNode) Receive(_ int, m craMsg, fx *automaton.Effects[craMsg]) {
	if m.Elected { // 1.2: the announcement
		if m.V != p.U {
			p.Leader = m.V
			p.send(fx, m)
		}
		p.St = crwDone
		return
	}
	v := m.V
	switch p.St {
	case crwAsleep:
		switch p.Wake {
		case crwJoin:
			p.St, p.Electable = crwCand, true
			p.send(fx, craMsg{V: p.U})
			p.candidate(v, fx)
		case crwJoinOpt:
			p.St = crwCand
			if p.Obj.beats(p.U, v) {
				p.Electable = true
				p.send(fx, craMsg{V: p.U})
				p.candidate(v, fx)
			} else {
				p.Best = v // own ID suppressed, electable stays false
				p.send(fx, m)
			}
		case crwRelayW:
			p.St = crwRelay
			p.send(fx, m)
		}
	case crwRelay:
		p.send(fx, m)
	case crwCand:
		p.candidate(v, fx)
	default:
		// chosen/done: reachable only under unordered channels; apply the
		// discard/forward part of CANDIDATE without changing st.
		if v != p.U && p.Obj.beats(v, p.ref()) {
			p.Best = p.Obj.best(p.Best, v)
			p.send(fx, m)
		}
	}
}

// ref is what a candidate compares an arriving ID with: u (CMP = OWN) or
// the best ID seen so far (CMP = BEST).
func (p *crwNode) ref() int {
	if p.CmpBest {
		return p.Best
	}
	return p.U
}

// candidate is CANDIDATE(v): chosen on the own ID, forward a winning ID,
// discard a losing one.
func (p *crwNode) candidate(v int, fx *automaton.Effects[craMsg]) {
	switch {
	case v == p.U:
		fx.Assert(crwElectable, p.Electable)
		p.St, p.Leader = crwChosen, p.U
		if p.Announce {
			p.send(fx, craMsg{Elected: true, V: p.U})
		}
	case p.Obj.beats(v, p.ref()):
		p.Best = p.Obj.best(p.Best, v)
		p.Electable = false
		p.send(fx, craMsg{V: v})
	}
}

// crwElectable is the assertion of CANDIDATE: a returning own ID finds
// the process still electable.
const crwElectable = "electable"

// crwIsLeader: st = chosen, or done with leader = u.
func crwIsLeader(p *crwNode) bool {
	return p.St == crwChosen || (p.St == crwDone && p.Leader == p.U)
}

// crwExplain says who is a leader with which ID, against the ID that must
// win: the global winner for join and join-opt, the best actual initiator
// (a process in st cand or chosen) for relay, as crwValid reads VALID.
func crwExplain(v *crwView) []string {
	id := func(p *crwNode) int { return p.U }
	e := electionStory[crwNode, craMsg]{
		id: id, leads: crwIsLeader, knows: func(p *crwNode) int { return p.Leader },
		best:   func(v *crwView) int { return bestAmong(v, v.Proc(0).Obj, id, func(*crwNode) bool { return true }) },
		bestOf: "the global winner", one: "a leader", many: "leaders",
	}
	if v.Proc(0).Wake == crwRelayW {
		e.bestOf = "the best ID among the actual initiators"
		e.best = func(v *crwView) int {
			return bestAmong(v, v.Proc(0).Obj, id, func(p *crwNode) bool { return p.St == crwCand || p.St == crwChosen })
		}
	}
	return e.explain(v)
}

// crwValid is VALID of 1.3 for every known leader value L: L is the
// global winner for JOIN and JOIN_OPT; for RELAY no actual initiator (a
// process in st cand or chosen) beats L.
func crwValid(v *crwView) bool {
	o, n := v.Proc(0).Obj, v.N()
	ids := make([]int, n)
	for i := range ids {
		ids[i] = v.Proc(i).U
	}
	for i := 0; i < n; i++ {
		l := v.Proc(i).Leader
		if l == 0 {
			continue
		}
		if v.Proc(0).Wake != crwRelayW {
			if l != o.best(ids...) {
				return false
			}
			continue
		}
		for j := 0; j < n; j++ {
			if q := v.Proc(j); (q.St == crwCand || q.St == crwChosen) && o.beats(q.U, l) {
				return false
			}
		}
	}
	return true
}

// crwEnd is the valid end state (0.8): channels empty and exactly one
// leader; with the announcement also every process done and knowing it.
// With announce false it is also the goal of termination when every
// process must know the leader (KNOW), which then fails.
func crwEnd(know bool) func(v *crwView) bool {
	return func(v *crwView) bool {
		if !v.ChannelsEmpty() || properties.Count(v.N(), func(i int) bool { return crwIsLeader(v.Proc(i)) }) != 1 {
			return false
		}
		leader := 0
		for i := 0; i < v.N(); i++ {
			if crwIsLeader(v.Proc(i)) {
				leader = v.Proc(i).U
			}
		}
		for i := 0; i < v.N(); i++ {
			q := v.Proc(i)
			if q.Init && q.St == crwAsleep {
				return false
			}
			if know && (q.Leader != leader || (q.Announce && q.St != crwDone)) {
				return false
			}
		}
		return true
	}
}

// crwQuiet is the goal of QUIESCE: nothing in transit and no start
// enabled, so no transition is enabled.
func crwQuiet(v *crwView) bool {
	if !v.ChannelsEmpty() {
		return false
	}
	for i := 0; i < v.N(); i++ {
		if q := v.Proc(i); q.Init && q.St == crwAsleep {
			return false
		}
	}
	return true
}

// crwWakeup reads --wakeup with a sticky error (Params.Err): join,
// join-opt or relay, and relay alone for the broken twin, since with join
// or join-opt a woken process never relays.
func crwWakeup(p *Params, spec string) crwWake {
	return sticky(p, func() (crwWake, error) {
		var wake crwWake
		switch w, broken := p.String("wakeup"), p.Broken(); {
		case w == "join" && !broken:
			wake = crwJoin
		case w == "join-opt" && !broken:
			wake = crwJoinOpt
		case w == "relay":
			wake = crwRelayW
		case broken:
			return 0, Usagef("wakeup", w, "allowed for %s: relay (with join or join-opt a woken process never relays, so the missing wake-up rule changes nothing)", spec)
		default:
			return 0, Usagef("wakeup", w, "allowed: join, join-opt or relay")
		}
		p.Set("wakeup", p.String("wakeup"))
		return wake, nil
	})
}

// changRobertsWakeup returns chang-roberts-wakeup
// (docs/algorithms/chang-roberts-wakeup.md), which declares its broken twin.
func changRobertsWakeup() Spec {
	s := Spec{
		Name:    "chang-roberts-wakeup",
		Section: "1.3",
		Summary: "Chang-Roberts with spontaneous start: designated initiators start, the others join, join without a losing ID, or only relay",
		Params: ringParams("4", initiatorsParam("subsets"),
			Param{Flag: "wakeup", Default: "join", Usage: "what a woken process does: join (sends its own ID), join-opt (only if its ID wins against the waking one) or relay (never a candidate)"},
			Param{Flag: "compare", Default: "own", Usage: "a candidate compares arriving IDs with its own ID (own) or the best ID seen (best)"},
			Param{Flag: "announce", Default: "off", Usage: "leader announcement (an ELECTED round, as in chang-roberts-announce): on or off"}),
		Claims: []string{properties.Uniqueness, properties.Agreement, properties.Validity, crwElectable,
			properties.Quiescence, properties.DeadlockFreedom},
		Symmetry: "rotations",
		Broken: &Twin{
			Summary: "Chang-Roberts with spontaneous start and relaying, without the wake-up rule",
			Bug:     "start_i lacks its st = asleep precondition, so an initiator that has relayed a smaller ID may still start: two processes are chosen",
			Claims:  []string{properties.Uniqueness, properties.DeadlockFreedom},
		},
	}
	s.Broken.Params = withParams(s.Params, Param{Flag: "wakeup", Default: "relay", Usage: "relay only: the wake-up rule matters only when woken processes relay"})
	s.Build = func(p *Params) (explorer.Model, error) {
		var wake crwWake
		var cmp, ann string
		// Every process sends its own ID at most once and forwards each ID
		// at most once: at most N ELECT and one ELECTED per channel.
		r := p.ring(1, func(n int) choices[[]bool] {
			inits := p.initiators(n)
			wake = crwWakeup(p, s.Name)
			cmp = p.oneOf("compare", "allowed: own or best", "own", "best")
			ann = p.oneOf("announce", "allowed: on or off", "on", "off")
			return inits
		}, func(n int) int { return n + 1 })
		return ringModel(p, r, func(_, id int, init bool) crwNode {
			return crwNode{U: id, Init: init, Best: id, Wake: wake, CmpBest: cmp == "best",
				Announce: ann == "on", Obj: r.obj, Broken: p.Broken()}
		}, func(p *crwNode) (int, bool) { return p.U, p.Init }, automaton.Config[crwNode, craMsg]{
			StepNames:    []string{stepStart},
			MessageTypes: append([]string{"ELECT"}, when(ann == "on", "ELECTED")...),
			Invariants: []automaton.Invariant[crwNode, craMsg]{
				described(election.Uniqueness[crwNode, craMsg](crwIsLeader), "never two processes in a leader state (chosen, or done with leader = u)"),
				described(election.Agreement[crwNode, craMsg](func(p *crwNode) (int, bool) { return p.Leader, p.Leader != 0 }), "no two different non-⊥ leader values"),
				{Name: properties.Validity, Doc: "every leader value is the global winner (join, join-opt) or beaten by no actual initiator (relay)", Holds: crwValid},
			},
			Assertions:  []automaton.Assertion{{Name: crwElectable, Doc: "a returning own ID finds the candidate electable (assert electable in CANDIDATE)"}},
			Liveness:    []automaton.Liveness[crwNode, craMsg]{election.Quiescence(crwQuiet)},
			ValidEnd:    crwEnd(ann == "on"),
			Termination: crwEnd(true),
			Explain:     crwExplain,
		})
	}
	return s
}
