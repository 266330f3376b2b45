package specs

import (
	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/election"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// crStatus is the status of a Chang-Roberts process.
type crStatus uint8

const (
	crUnknown crStatus = iota
	crChosen
)

func (s crStatus) String() string {
	if s == crChosen {
		return "chosen"
	}
	return "unknown"
}

// crNode is the automaton CR_i of the formal Chang-Roberts model
// (docs/algorithms/chang-roberts.md; Chang & Roberts 1979, in Lynch's
// asynchronous formulation): a process on a unidirectional ring with its ID u,
// a FIFO send buffer initially holding u, and a status.
type crNode struct {
	U      int
	Send   []int
	Status crStatus
	// Broken makes the process forward smaller IDs instead of discarding
	// them: the bug of chang-roberts-broken.
	Broken bool `vacheck:"-"`
	// Obj is --objective: which of two IDs wins (max, or min with every
	// comparison reversed).
	Obj objective `vacheck:"-"`
}

// crSend is the step send(v)_{i,i+1}, CR_i's one output.
const crSend = "send"

// Steps: send(v)_{i,i+1} is enabled when the send buffer is non-empty and v
// is its head.
func (p *crNode) Steps(v *automaton.View[crNode, int], out []automaton.Step) []automaton.Step {
	if len(p.Send) > 0 {
		out = append(out, automaton.Out(crSend, (v.Self()+1)%v.N()))
	}
	return out
}

// Do performs send(v)_{i,i+1}: pop the buffer's head onto the channel.
func (p *crNode) Do(s automaton.Step, fx *automaton.Effects[int]) {
	switch s.Name {
	case crSend:
		v := p.Send[0]
		p.Send = p.Send[1:]
		fx.Send((fx.Self()+1)%fx.N(), v)
	default:
		panic(unknownStep("chang-roberts", s))
	}
}

// Receive performs receive(v)_{i-1,i}: forward a larger ID (one that beats
// u under --objective), become chosen on one's own ID, discard a smaller one.
func (p *crNode) Receive(_ int, v int, _ *automaton.Effects[int]) {
	switch {
	case p.Obj.beats(v, p.U):
		p.Send = append(p.Send, v)
	case v == p.U:
		p.Status = crChosen
	case p.Broken:
		p.Send = append(p.Send, v) // the bug: a smaller ID travels on
	}
}

type crView = automaton.View[crNode, int]

// crID returns u, a process's ID.
func crID(p *crNode) int { return p.U }

// crMax returns i_max, the position of the process with the largest ID
// (the smallest with --objective min).
func crMax(v *crView) int {
	best := 0
	for i := 1; i < v.N(); i++ {
		if v.Proc(i).Obj.beats(v.Proc(i).U, v.Proc(best).U) {
			best = i
		}
	}
	return best
}

// crLemma1 is Lemma 1 of the formal model: for every i other than i_max
// and every j in [i_max, i), u_i is neither in send_j nor in
// queue_{j,j+1}. An ID cannot get past i_max.
//
// It is checked in every state, so it reads each process, buffer and
// channel once instead of once per i. Number the positions by their
// distance round the ring from i_max (i_max is 0, its successor 1, ...).
// An ID u at position j, on its way to next = j+1, breaks the lemma when
// some process i holding u lies in [next, i_max) going round the ring,
// that is when next is not i_max and the farthest holder of u is at least
// as far as next. The farthest holder of each ID is kept in a table on the
// stack when every ID is in 1..maxN (always, from the command line, up to
// N = maxN); crLemma1Large does the same beyond maxN processes, and
// crLemma1Ring, which searches the ring for each ID, covers the rest.
// TestChangRobertsLemma1 compares it with the lemma as stated,
// crLemma1Literal in the tests.
func crLemma1(v *crView) bool {
	n := v.N()
	if n > maxN {
		return crLemma1Large(v)
	}
	var ids [maxN]int
	var sends [maxN][]int
	imax, table := crReadRing(v, ids[:n], sends[:n], maxN)
	if !table {
		return crLemma1Ring(v, imax)
	}
	var far [maxN + 1]int8
	return crLemma1Table(v, imax, ids[:n], sends[:n], far[:])
}

// crLemma1Large is crLemma1 for more than maxN processes: the table of
// farthest holders spans the IDs 1..maxRingN, in int16, since a distance
// reaches maxRingN-1, past an int8 (TestChangRobertsLemma1Large).
func crLemma1Large(v *crView) bool {
	n := v.N()
	ids, sends := make([]int, n), make([][]int, n)
	imax, table := crReadRing(v, ids, sends, maxRingN)
	if !table {
		return crLemma1Ring(v, imax)
	}
	var far [maxRingN + 1]int16
	return crLemma1Table(v, imax, ids, sends, far[:])
}

// crReadRing reads each process once: its ID into ids and its buffer into
// sends. It returns i_max as crMax finds it (the first best), and whether
// every ID lies in 1..limit, the span of a table of farthest holders.
func crReadRing(v *crView, ids []int, sends [][]int, limit int) (imax int, table bool) {
	table = true
	for i := range ids {
		p := v.Proc(i)
		ids[i], sends[i] = p.U, p.Send
		if i > 0 && p.Obj.beats(p.U, ids[imax]) {
			imax = i
		}
		if p.U < 1 || p.U > limit {
			table = false
		}
	}
	return imax, table
}

// crLemma1Table decides Lemma 1 with far, a table indexed by ID that spans
// every ID of ids: far[u]-1 becomes the farthest distance from i_max of a
// holder of u. T is int8 up to maxN processes and int16 beyond, so that
// the table stays small enough for the stack.
func crLemma1Table[T int8 | int16](v *crView, imax int, ids []int, sends [][]int, far []T) bool {
	n := len(ids)
	for i, u := range ids {
		d := i - imax
		if d < 0 {
			d += n
		}
		if T(d+1) > far[u] {
			far[u] = T(d + 1)
		}
	}
	ahead := func(vals []int, d int) bool {
		for _, u := range vals {
			if u >= 1 && u < len(far) && int(far[u])-1 >= d {
				return true
			}
		}
		return false
	}
	for j := 0; j < n; j++ {
		next := j + 1
		if next == n {
			next = 0
		}
		if next == imax {
			continue // [i_max, i_max) is empty
		}
		d := next - imax
		if d < 0 {
			d += n
		}
		if ahead(sends[j], d) || ahead(v.Chan(j, next), d) {
			return false
		}
	}
	return true
}

// crLemma1Ring is crLemma1 for IDs outside the table: it searches the ring
// for the holders of each ID in transit.
func crLemma1Ring(v *crView, imax int) bool {
	n := v.N()
	for j := 0; j < n; j++ {
		next := j + 1
		if next == n {
			next = 0
		}
		if crOwnedAhead(v, v.Proc(j).Send, next, imax) || crOwnedAhead(v, v.Chan(j, next), next, imax) {
			return false
		}
	}
	return true
}

// crOwnedAhead reports whether one of the IDs vals is the ID of a process
// in [from, imax) going round the ring.
func crOwnedAhead(v *crView, vals []int, from, imax int) bool {
	n := v.N()
	for _, u := range vals {
		for i := from; i != imax; {
			if v.Proc(i).U == u {
				return true
			}
			if i++; i == n {
				i = 0
			}
		}
	}
	return false
}

// crQuiet: every send buffer and channel is empty, after which nothing is
// enabled.
func crQuiet(v *crView) bool {
	if !v.ChannelsEmpty() {
		return false
	}
	for i := 0; i < v.N(); i++ {
		if len(v.Proc(i).Send) > 0 {
			return false
		}
	}
	return true
}

// crChosenCount returns how many processes are chosen.
func crChosenCount(v *crView) int {
	return properties.Count(v.N(), func(i int) bool { return v.Proc(i).Status == crChosen })
}

// crAllChosen is termination's goal: every process knows the leader (only
// a chosen process does) and nothing is left in transit. Offered, not
// claimed: non-leaders never learn the result (KNOW, 1.1).
func crAllChosen(v *crView) bool { return crQuiet(v) && crChosenCount(v) == v.N() }

// crValidEnd is a valid end state: every buffer and channel empty, exactly
// the maximum chosen (docs/properties.md).
func crValidEnd(v *crView) bool {
	return crQuiet(v) && crChosenCount(v) == 1 && v.Proc(crMax(v)).Status == crChosen
}

// crExplain says who is chosen with which ID, against the best ID.
func crExplain(v *crView) []string {
	return electionStory[crNode, int]{
		id: crID, leads: func(p *crNode) bool { return p.Status == crChosen },
		best: crMax, bestOf: "the best ID", one: "chosen", many: "chosen",
	}.explain(v)
}

// crIsChosen reports whether a process is chosen, the leader state.
func crIsChosen(p *crNode) bool { return p.Status == crChosen }

// crClaim returns the ID a process claims: its own, when it is chosen
// (tested in place, not through crIsChosen: the invariants call it for
// every process of every state).
func crClaim(p *crNode) (int, bool) { return p.U, p.Status == crChosen }

// crBest is the best ID of the ring: the winner Validity expects.
func crBest(v *crView) int { return v.Proc(crMax(v)).U }

// crUnique is the kit's uniqueness (election.Uniqueness of crIsChosen)
// written for chang-roberts's process type, on crChosenCount. The kit's
// loop is generic: Go compiles it once for the type's shape and calls
// crIsChosen through a func value for every process of every state, where
// crChosenCount inlines it. Uniqueness and validity are checked in every
// state, and the calls were 4% of the CPU of `bench/compare.sh`'s
// chang-roberts N=6 with 1 worker. TestCRInvariantsAsTheKit checks that
// both give the same verdict in every state.
func crUnique(v *crView) bool { return crChosenCount(v) <= 1 }

// crValid is the kit's validity (election.Validity of crClaim and crBest)
// written for chang-roberts's process type, as crUnique is: the best ID
// is found once, at the first process that claims.
func crValid(v *crView) bool {
	best, found := 0, false
	for i, n := 0, v.N(); i < n; i++ {
		if u, ok := crClaim(v.Proc(i)); ok {
			if !found {
				best, found = crBest(v), true
			}
			if u != best {
				return false
			}
		}
	}
	return true
}

// crInvariants are the invariants of chang-roberts, without Lemma 1 for
// the broken twin, which breaks it. Uniqueness and validity are the
// kit's, with their Holds written for the process type (crUnique).
func crInvariants(broken bool) []automaton.Invariant[crNode, int] {
	invs := []automaton.Invariant[crNode, int]{
		described(election.Uniqueness[crNode, int](crIsChosen), "never two processes chosen"),
		described(election.Validity(crClaim, crBest), "a chosen process holds the best ID (the maximum, or the minimum with --objective min)"),
	}
	invs[0].Holds, invs[1].Holds = crUnique, crValid
	if broken {
		return invs
	}
	return append(invs, automaton.Invariant[crNode, int]{
		Name: "lemma1", Doc: "Lemma 1: no ID u_i is in a send buffer or channel on the stretch [i_max, i)", Holds: crLemma1,
	})
}

// changRoberts returns chang-roberts (docs/algorithms/chang-roberts.md), which
// declares its broken twin.
func changRoberts() Spec {
	return Spec{
		Name:     "chang-roberts",
		Section:  "1.1",
		Summary:  "Chang-Roberts election on a unidirectional ring, the formal I/O-automaton model with send buffers",
		Params:   ringParams("5"),
		Claims:   []string{properties.Uniqueness, properties.Validity, "lemma1", properties.DeadlockFreedom},
		Symmetry: "rotations",
		// docs/algorithms/chang-roberts.md: the count does not depend on the
		// schedule; over arrangements drawn uniformly its mean is N·H_N.
		Formulas: []Formula{
			{Metric: "messages", Stat: "mean", Expr: "n*H(n)", Source: "Chang & Roberts 1979"},
			{Metric: "messages", Stat: "max", Expr: "n*(n+1)/2", Source: "IDs decreasing along the ring"},
			{Metric: "messages", Stat: "min", Expr: "2*n-1", Source: "IDs increasing along the ring"},
		},
		Broken: &Twin{
			Summary: "Chang-Roberts with a bug",
			Bug:     "forwards smaller IDs instead of discarding them, so every process receives its own ID back and is chosen",
			Claims:  []string{properties.Uniqueness, properties.DeadlockFreedom},
		},
		Build: func(p *Params) (explorer.Model, error) { return crBuild(p, nil) },
	}
}

// crBuild builds chang-roberts, with the invariants extra added to its
// own (for tests).
func crBuild(p *Params, extra []automaton.Invariant[crNode, int]) (explorer.Model, error) {
	r := p.ring(1, nil, func(n int) int { return n })
	return ringModel(p, r, func(_, id int, _ bool) crNode {
		return crNode{U: id, Send: []int{id}, Broken: p.Broken(), Obj: r.obj}
	}, ringID(crID), automaton.Config[crNode, int]{
		StepNames:    []string{crSend},
		MessageTypes: idTypes(r.ids),
		Invariants:   append(crInvariants(p.Broken()), extra...),
		Termination:  crAllChosen,
		Liveness:     []automaton.Liveness[crNode, int]{election.Quiescence(crQuiet)}, // QUIESCE (1.1, offered)
		ValidEnd:     crValidEnd,
		Explain:      crExplain,
		// The IDs: no transition changes them, so shards with
		// distinct arrangements explore disjoint state spaces.
		Constant: constantIDs[crNode, int](crID),
	})
}
