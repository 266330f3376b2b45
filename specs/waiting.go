package specs

import (
	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
)

// waitNode is the process automaton of the waiting method
// (docs/algorithms/waiting.md; Mattern, Verteilte Basisalgorithmen, 1989), the
// third parallel echo election after extinction (1.11) and adoption (1.12).
// Only its name is commonly given, so the spec is provisional and follows the
// section's Choice: Echo/Election with extinction (echoNode, whose state
// variables and receive rules it keeps unchanged) plus a waiting discipline on
// the initiators. An initiator with ID i waits a delay that decreases with i,
// so that strong waves start first and weak waves rarely start at all; an
// untimed checker expresses that as a restriction of the schedules,
// strengthening start_i's precondition with the global predicate "no process
// with a larger ID is a designated initiator that is still asleep" (asleep: it
// has neither started nor been woken by a message).
//
// The reachable states are therefore a subset of echo-election's, and its
// safety properties carry over; the point is the message count, whose
// maximum over runs comes closer to 2E.
type waitNode echoNode

type waitView = automaton.View[waitNode, echoMsg]

// Steps: start_i is enabled for a designated initiator that is still
// asleep (cur = 0) when no larger designated initiator is still asleep.
func (p *waitNode) Steps(v *waitView, out []automaton.Step) []automaton.Step {
	if p.Role != echoDesignated || p.Cur != 0 {
		return out
	}
	for j := 0; j < v.N(); j++ {
		if q := v.Proc(j); p.Obj.beats(q.U, p.U) && q.Role == echoDesignated && q.Cur == 0 {
			return out // a stronger initiator has not started yet: wait
		}
	}
	return append(out, automaton.Do(stepStart))
}

// Do performs start_i as in 1.11.
func (p *waitNode) Do(s automaton.Step, fx *automaton.Effects[echoMsg]) {
	(*echoNode)(p).Do(s, fx)
}

// Receive performs receive EXP(j) and receive ECHO(j) as in 1.11.
func (p *waitNode) Receive(from int, m echoMsg, fx *automaton.Effects[echoMsg]) {
	(*echoNode)(p).Receive(from, m, fx)
}

// waitExplain says who belongs to which wave, what each node waits for,
// and which designated initiators still wait to start.
func waitExplain(v *waitView) []string {
	var lines []string
	for i := 0; i < v.N(); i++ {
		p := (*echoNode)(v.Proc(i))
		if p.Cur == 0 && p.Role == echoDesignated {
			lines = append(lines, echoHead(i, p.U, p.Role)+": asleep, waiting to start")
			continue
		}
		lines = append(lines, echoLine(i, p))
	}
	return lines
}

func waiting() Spec {
	base := echoElection()
	s := Spec{
		Name:    "waiting",
		Section: "1.13",
		Summary: "Echo election by waiting: extinction, and an initiator starts only when no larger initiator is still asleep",
		Provisional: "only the method's name is sourced; the rules are a reconstruction " +
			"(echo-election plus a global start precondition standing for ID-dependent delays), to be checked against Mattern 1989",
		Params: base.Params,
		Claims: base.Claims,
		Broken: &Twin{
			Summary: "Echo election by waiting, with a bug",
			Bug:     "a conquered initiator keeps its virtual tree edge (the bug of echo-election-broken): waiting does not stop weaker initiators from starting, so the run deadlocks",
		},
	}
	// The model of echo-election, with waitNode's start rule and no
	// partial-order reduction: that start reads the other processes.
	s.Build = func(p *Params) (explorer.Model, error) {
		cfg, err := echoConfig(p, func(q *waitNode) *echoNode { return (*echoNode)(q) }, 0)
		if err != nil {
			return nil, err
		}
		cfg.Explain = waitExplain
		return automaton.New(cfg)
	}
	return s
}
