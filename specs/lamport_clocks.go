package specs

import (
	"slices"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/mutex"
)

// lamportAssumptions returns the assumptions (automaton.Assumption) of the
// clock normalization clocks (absolute: none) and, when por is set, of
// partial-order reduction (Silent), as state predicates the search checks.
//
// What the normalizations rest on is mostly a fact about the transitions:
// the algorithm only compares timestamps with each other and takes
// max(C, t)+1 (relative), and every exit, receive and request ticks one
// clock by exactly one (the regions of minimal). No state predicate sees
// that; these are the facts about states that the normalizations and
// Silent read into a state, and that a changed algorithm breaks first:
//
//   - relative shifts every timestamp but the myTs of an idle process,
//     which must therefore be ⊥;
//   - minimal also replaces the stamps of queued requests by their place
//     relative to the own request and sorts Q again, so Q must already be
//     sorted by (ts, ID), hold the own request exactly while trying or
//     critical, and, while idle, nothing stamped above C (the next request
//     C+1 is after all of them); and it zeroes the clock of a process that
//     sends nothing any more, with the stamps on their way to it, which is
//     exact only if an idle process keeps no late[j];
//   - Silent tells a request ahead of the own one by comparing stamps, and
//     enter reads the head of Q, so Q must be sorted.
//
// The predicates are checked before normalization, on the states the
// algorithm itself computes.
func lamportAssumptions(clocks string, por bool) []automaton.Assumption[lamportNode, lamportMsg] {
	type a = automaton.Assumption[lamportNode, lamportMsg]
	idleBottom := a{Name: "idle-myts-bottom", Doc: "an idle process has myTs = ⊥", Holds: lamportAllProcs(func(_ int, p *lamportNode) bool {
		return p.Ust != mutex.Idle || p.MyTs == 0
	})}
	sorted := a{Name: "queue-sorted", Doc: "every queue is sorted by (ts, ID)", Holds: lamportAllProcs(func(_ int, p *lamportNode) bool {
		return slices.IsSortedFunc(p.Q, lamportCmp)
	})}
	var out []a
	switch clocks {
	case "relative":
		out = append(out, idleBottom)
	case "minimal":
		out = append(out, idleBottom, sorted,
			a{Name: "own-request-queued", Doc: "a trying or critical process has its request (myTs, i) in Q, an idle one none", Holds: lamportAllProcs(func(i int, p *lamportNode) bool {
				own := slices.ContainsFunc(p.Q, func(r lamportReq) bool { return r.ID == i })
				if p.Ust == mutex.Idle {
					return !own
				}
				return slices.Contains(p.Q, p.mine(i))
			})},
			a{Name: "idle-queue-below-clock", Doc: "an idle process has no queued request stamped above its clock", Holds: lamportAllProcs(func(_ int, p *lamportNode) bool {
				return p.Ust != mutex.Idle || !slices.ContainsFunc(p.Q, func(r lamportReq) bool { return r.TS > p.C })
			})},
			a{Name: "idle-forgets-late", Doc: "an idle process keeps no late[j]", Holds: lamportAllProcs(func(_ int, p *lamportNode) bool {
				return p.Ust != mutex.Idle || !slices.Contains(p.Late, true)
			})},
		)
	}
	for k := range out {
		out[k].Of = automaton.OfNormalize
	}
	if por {
		sorted.Of = automaton.OfPartialOrder
		out = append(out, sorted)
	}
	return out
}

// lamportAllProcs lifts a predicate on process i to one on states: it holds
// for every process.
func lamportAllProcs(f func(i int, p *lamportNode) bool) func(v *lamportView) bool {
	return func(v *lamportView) bool {
		for i := 0; i < v.N(); i++ {
			if !f(i, v.Proc(i)) {
				return false
			}
		}
		return true
	}
}

// lamportShift shifts every timestamp of a state (clocks, requests, queued
// requests and messages in transit) by the same amount, so that the
// smallest is 0 (--clocks relative). It is a bisimulation: Lamport's
// algorithm compares timestamps with each other and computes max(C, t)+1,
// never compares one with a constant, so shifted states take the same
// steps to shifted successors, and GA1 and FAIR-TS read the user state and
// the order of requests only. myTs of an idle process is ⊥ (0) and is not
// shifted; while trying or critical it is read together with ust, so a
// shifted myTs of 0 is not mistaken for ⊥.
func lamportShift(procs []lamportNode, chans [][]lamportMsg) {
	shiftTimestamps(procs, chans, nil, nil)
}

// shiftTimestamps is lamportShift restricted to the live timestamps: when
// live is not nil, the clocks of processes i with !live[i] and the messages
// in chans[c] with !live[to[c]] are left alone. Queued requests are shifted
// only where their stamp is not negative (erased by lamportMinimize).
func shiftTimestamps(procs []lamportNode, chans [][]lamportMsg, live []bool, to []int) {
	keep := func(i int) bool { return live == nil || live[i] }
	low := -1
	see := func(ts int) {
		if low < 0 || ts < low {
			low = ts
		}
	}
	for i := range procs {
		p := &procs[i]
		if keep(i) {
			see(p.C)
		}
		if p.Ust != mutex.Idle {
			see(p.MyTs)
		}
		for _, r := range p.Q {
			if r.TS >= 0 {
				see(r.TS)
			}
		}
	}
	for c, ms := range chans {
		if live != nil && !live[to[c]] {
			continue
		}
		for _, m := range ms {
			see(m.TS)
		}
	}
	if low <= 0 {
		return
	}
	for i := range procs {
		p := &procs[i]
		if keep(i) {
			p.C -= low
		}
		if p.Ust != mutex.Idle {
			p.MyTs -= low
		}
		for k := range p.Q {
			if p.Q[k].TS >= 0 {
				p.Q[k].TS -= low
			}
		}
	}
	for c, ms := range chans {
		if live != nil && !live[to[c]] {
			continue
		}
		for k := range ms {
			ms[k].TS -= low
		}
	}
}

// lamportMinimize returns the normalization of --clocks minimal: relative
// clocks (lamportShift), and every timestamp that no later step can read
// erased or coarsened. It is a bisimulation for the same reasons as
// lamportShift, and because of three facts about the algorithm:
//
//   - A queued request (t, j) of another process is only ever compared with
//     the process's own request (mine, the head test of enter) and removed
//     by j's RELEASE; the order between two queued requests of others never
//     matters. So its stamp is replaced by its place: before mine (stamp -1,
//     shown as "_"), or after mine (stamp myTs+1). While the process is idle
//     every queued request is before its next one, whose stamp C+1 exceeds
//     every stamp it has received.
//   - A process's clock is read only when it stamps a message. A process
//     that is idle, has no request left, and to which no REQUEST can still
//     come (none in transit, no other process with a request left) sends
//     nothing any more: its clock is dead and set to 0, and so are the
//     stamps of the messages on their way to it, which can only change
//     that clock (an idle process keeps no late[j]).
//   - Once no process will request again, the only timestamps anything is
//     compared with are the current requests, and a value's distance to
//     them matters only up to the number of clock ticks still to come
//     (lamportRegions). For N=3 with one request each this takes the
//     state space from 197,746 states to 36,481; for N=4 it is what makes
//     an exhaustive search possible.
func lamportMinimize(links []automaton.Link) func([]lamportNode, [][]lamportMsg) {
	to := make([]int, len(links))
	for c, l := range links {
		to[c] = l.To
	}
	return func(procs []lamportNode, chans [][]lamportMsg) {
		n := len(procs)
		// ahead counts the processes that will still issue a request.
		ahead := 0
		for i := range procs {
			if lamportRequestsAhead(&procs[i]) {
				ahead++
			}
		}
		// live[i]: process i may still send. A process that is not idle
		// will, and while any process will request again every process
		// may have to acknowledge it. Otherwise an idle process sends
		// only if a REQUEST is on its way to it.
		var buf [64]bool
		live := buf[:0]
		if n > len(buf) {
			live = make([]bool, 0, n)
		}
		for i := range procs {
			live = append(live, procs[i].Ust != mutex.Idle || ahead > 0)
		}
		if ahead == 0 {
			for c, ms := range chans {
				if !live[to[c]] && slices.ContainsFunc(ms, func(m lamportMsg) bool { return m.Kind == lamportRequest }) {
					live[to[c]] = true
				}
			}
		}
		for i := range procs {
			p := &procs[i]
			idle, mine := p.Ust == mutex.Idle, p.mine(i)
			for k, r := range p.Q {
				switch {
				case r.ID == i:
				case idle || r.less(mine):
					p.Q[k].TS = -1
				default:
					p.Q[k].TS = -2
				}
			}
			if !live[i] {
				p.C = 0
			}
		}
		if ahead == 0 {
			for c, ms := range chans {
				if !live[to[c]] {
					for k := range ms {
						ms[k].TS = 0
					}
				}
			}
			lamportRegions(procs, chans, live, to)
		}
		shiftTimestamps(procs, chans, live, to)
		for i := range procs {
			p := &procs[i]
			q := p.Q
			for k := range q {
				if q[k].TS == -2 {
					q[k].TS = p.MyTs + 1
				}
				// Insertion sort: a queue holds at most N requests.
				for j := k; j > 0 && q[j].less(q[j-1]); j-- {
					q[j], q[j-1] = q[j-1], q[j]
				}
			}
		}
	}
}

// lamportRequestsAhead reports whether p will still issue a request.
func lamportRequestsAhead(p *lamportNode) bool {
	if p.Ust == mutex.Idle {
		return p.Done < p.Requests
	}
	return p.Done+1 < p.Requests
}

// lamportRegions is the last rule of --clocks minimal, for a state in
// which no process will request again: it keeps of each live timestamp
// only what a later step can still tell apart, as the regions of timed
// automata do for clocks.
//
// Thresholds are the current requests: myTs of every process that is not
// idle and the stamp of every REQUEST in transit. With no request to come
// they are all the thresholds there will be, and every comparison a later
// step makes is of a value against a threshold: a received stamp against
// the receiver's myTs (late[j], and a REQUEST's place in Q), or two
// requests with each other (Q, FAIR-TS). A later value is max(...)+1 of
// earlier ones, so it is the maximum of terms x+a, where x is a value of
// today and a the number of clock ticks on a chain of events from x to it;
// a is at most E, the ticks still to come (every exit, receive and request
// ticks exactly one clock by one). Whether x+a > θ for every a in 0..E
// depends only on θ-x when that lies in 0..E-1, and is the same for every
// θ-x ≥ E and for every θ-x < 0. The rule therefore maps
//
//   - the thresholds to values in the same order, with the same gaps where
//     a gap is at most E and a gap of E+1 where it is larger;
//   - a value x at or below a threshold θ, the smallest such, to θ' minus
//     min(θ-x, E), which stays above the image of the threshold below θ;
//   - a value above every threshold to one above the highest image.
//
// Every comparison of a term with a threshold, ties included (ties between
// requests are broken by ID), comes out the same before and after, so the
// rule is a bisimulation, like the others of lamportMinimize. No value
// compares with a threshold that is gone: a threshold only goes (an exit,
// a REQUEST received), so later states are mapped with fewer thresholds
// and a smaller E, never needing what was erased.
// TestLamportMinimalIsBisimulation checks the whole normalization against
// the literal model, N=3 included (with -long).
func lamportRegions(procs []lamportNode, chans [][]lamportMsg, live []bool, to []int) {
	n := len(procs)
	var thBuf, mapBuf [32]int
	th := thBuf[:0] // thresholds, sorted and distinct
	e := 0          // E: the clock ticks still to come
	for i := range procs {
		if procs[i].Ust != mutex.Idle {
			th = append(th, procs[i].MyTs)
			e += n // its exit and the N-1 receives of its RELEASE
		}
	}
	for c, ms := range chans {
		e += len(ms)
		for _, m := range ms {
			if m.Kind == lamportRequest && live[to[c]] {
				th = append(th, m.TS)
				e++ // the receive of its ACK
			}
		}
	}
	if len(th) == 0 {
		return
	}
	slices.Sort(th)
	th = slices.Compact(th)
	img := mapBuf[:0] // img[k] is the new value of th[k]
	if len(th) > len(mapBuf) {
		img = make([]int, 0, len(th))
	}
	img = append(img, e+1) // room for values down to E below
	for k := 1; k < len(th); k++ {
		img = append(img, img[k-1]+min(th[k]-th[k-1], e+1))
	}
	mapTo := func(x int) int {
		k, _ := slices.BinarySearch(th, x)
		if k == len(th) {
			return img[k-1] + 1
		}
		return img[k] - min(th[k]-x, e)
	}
	for i := range procs {
		p := &procs[i]
		if live[i] {
			p.C = mapTo(p.C)
		}
		if p.Ust == mutex.Idle {
			continue
		}
		my := p.MyTs
		p.MyTs = mapTo(my)
		for k, r := range p.Q {
			if r.ID == i && r.TS == my {
				p.Q[k].TS = p.MyTs
			}
		}
	}
	for c, ms := range chans {
		if live[to[c]] {
			for k := range ms {
				ms[k].TS = mapTo(ms[k].TS)
			}
		}
	}
}
