package specs

import (
	"fmt"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/election"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
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
		p := v.Proc(i)
		head := fmt.Sprintf("process %d (ID %d, %s)", i+1, p.U, p.Role)
		var waiting echoSet
		for _, q := range p.Nbrs {
			if echoParent(q) != p.Parent && !p.Done.has(q) {
				waiting |= 1 << uint(q)
			}
		}
		switch {
		case p.Cur == 0 && p.Role == echoDesignated:
			lines = append(lines, head+": asleep, waiting to start")
		case p.Cur == 0:
			lines = append(lines, head+": asleep")
		case p.Won:
			lines = append(lines, fmt.Sprintf("%s: won; its wave %d came home over the virtual tree edge", head, p.Cur))
		case p.EchoSent == p.Cur:
			lines = append(lines, fmt.Sprintf("%s: in wave %d, echoed to %v", head, p.Cur, p.Parent))
		default:
			lines = append(lines, fmt.Sprintf("%s: in wave %d, tree edge %v, waits for an answer from %v", head, p.Cur, p.Parent, waiting))
		}
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
	s.Build = func(p *Params) (explorer.Model, error) {
		broken := p.Broken()
		g, err := parseGraphTopology(p)
		if err != nil {
			return nil, err
		}
		n := g.N
		inits, err := parseInitiators(p, n)
		if err != nil {
			return nil, err
		}
		idsets, err := parseIDs(p, n)
		if err != nil {
			return nil, err
		}
		obj, err := parseObjective(p)
		if err != nil {
			return nil, err
		}
		disc, capacity, err := p.Channels(channel.FIFO, n)
		if err != nil {
			return nil, err
		}
		initial := initialVectors(idsets, inits, func(ids []int, set []bool) []waitNode {
			procs := make([]waitNode, n)
			top := obj.best(ids...)
			for i := range procs {
				procs[i] = waitNode{U: ids[i], Parent: echoNoParent, Nbrs: g.Adj[i], Broken: broken, Top: top, Obj: obj}
				if set[i] {
					procs[i].Role = echoDesignated
				}
			}
			return procs
		}, eachProc[waitNode](func(p *waitNode) (int, bool) { return p.U, p.Role == echoDesignated }))
		won := func(v *waitView) int {
			for i := 0; i < v.N(); i++ {
				if v.Proc(i).Won {
					return i
				}
			}
			return -1
		}
		allCur := func(v *waitView, u int) bool {
			for i := 0; i < v.N(); i++ {
				if v.Proc(i).Cur != u {
					return false
				}
			}
			return true
		}
		// The valid end state and goal of 1.11: channels empty, exactly one
		// process won, and every process in its wave.
		end := func(v *waitView) bool {
			return v.ChannelsEmpty() && properties.Count(v.N(), func(i int) bool { return v.Proc(i).Won }) == 1 &&
				allCur(v, v.Proc(won(v)).U)
		}
		invariants := []automaton.Invariant[waitNode, echoMsg]{
			described(election.Uniqueness[waitNode, echoMsg](func(p *waitNode) bool { return p.Won }), "never two processes won"),
			described(election.Validity(func(p *waitNode) (int, bool) { return p.U, p.Won }, func(v *waitView) int {
				best := 0
				for i := 0; i < v.N(); i++ {
					if q := v.Proc(i); q.Role == echoInitiator && (best == 0 || obj.beats(q.U, best)) {
						best = q.U
					}
				}
				return best
			}), "a process that has won holds the best ID (largest, or smallest with --objective min) among the actual initiators"),
			{Name: "winner-final", Doc: "once a process has won, every process has cur = its ID and none can be conquered (the assertion of JOIN)", Holds: func(v *waitView) bool {
				w := won(v)
				return w < 0 || allCur(v, v.Proc(w).U)
			}},
		}
		return automaton.New(automaton.Config[waitNode, echoMsg]{
			StepNames:    []string{stepStart},
			MessageTypes: []string{"EXP", "ECHO"},

			InitialSeq:    initial.each,
			InitialSample: initial.sample,
			InitialAt:     initial.indexed(),
			InitialParams: initial.params,
			Links:         automaton.Undirected(g.Adj),
			Channels:      disc,
			Capacity:      capacity,
			Invariants:    invariants,
			Assertions: []automaton.Assertion{{Name: echoLabel,
				Doc: "a received ECHO(j) has j ≤ cur (the assertion of receive ECHO)"}},
			ValidEnd:    end,
			Termination: end,
			Explain:     waitExplain,
		})
	}
	return s
}
