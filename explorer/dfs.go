package explorer

import (
	"fmt"
	"slices"

	"github.com/dolthub/swiss"
)

// dfsEntry is a state on the DFS stack: its encoding in the arena, its
// fingerprint and depth, and the action index that produced it (for an
// initial state, its index among the initial states).
type dfsEntry struct {
	start, end int
	fp         uint64
	depth      int
	act        uint32
}

// dfsStep is a state of the current DFS path: its fingerprint and the
// action index that produced it.
type dfsStep struct {
	fp  uint64
	act uint32
}

// pathTo returns the run along trail, the current DFS path, and then, when
// last is not nil, one more step.
func pathTo(trail []dfsStep, last *dfsStep) *path {
	if len(trail) == 0 {
		return nil // nothing popped yet: an initial state, found by its fingerprint
	}
	steps := trail[1:]
	if last != nil {
		steps = append(steps[:len(steps):len(steps)], *last)
	}
	p := &path{init: int(trail[0].act), acts: make([]uint32, len(steps)), fps: make([]uint64, len(steps))}
	for k, st := range steps {
		p.acts[k], p.fps[k] = st.act, st.fp
	}
	return p
}

// dfs searches depth first on one worker. A state is marked visited (and
// checked) when it is generated, and expanded when it is popped; successors
// are pushed so that the lowest action index is explored first.
//
// The visited set (an fpSet) keeps fingerprints only, without BFS's
// records of predecessors: the way to any state found is the current DFS
// path. When an entry of depth d is popped, its parent
// is the entry of depth d−1 popped last, since everything pushed after
// the parent's successors is popped before them; so trail[d] is set to the
// popped entry and trail[:d+1] is its path. That is the path the
// predecessors of BFS would give: the one along which DFS found the state.
func (s *search) dfs() {
	w := s.workers[0]
	seen := newFPSet()
	var arena []byte
	var stack []dfsEntry
	var trail []dfsStep
	var open *swiss.Map[uint64, struct{}] // under reduction: pushed, and not yet done with
	if s.reduce {
		open = swiss.NewMap[uint64, struct{}](1024)
	}
	push := func(st []byte, fp uint64, depth int, act uint32) {
		if open != nil {
			open.Put(fp, struct{}{})
		}
		start := len(arena)
		arena = append(arena, st...)
		stack = append(stack, dfsEntry{start: start, end: len(arena), fp: fp, depth: depth, act: act})
		if int64(depth) > s.depth.Load() {
			s.depth.Store(int64(depth))
		}
	}
	if s.resume != nil {
		arena, stack, trail, seen = s.resume.arena, s.resume.dstack, s.resume.trail, s.resume.seen
		if open != nil {
			open = openSet(stack, trail)
		}
	} else {
		inits := s.inits
		for _, i := range inits {
			if s.bits != nil {
				s.bitstateAdd(s.initial[i], fingerprint(s.initial[i]))
			} else if !seen.Add(s, fingerprint(s.initial[i])) {
				return
			}
		}
		if s.failure != nil || s.done() || s.incomplete != "" || s.stopped() {
			return
		}
		order := make([]int, len(inits))
		for k := range order {
			order[k] = k
		}
		s.shuffle(order)
		for _, k := range slices.Backward(order) {
			if s.initStop[k] {
				continue // stored (in seen too), not expanded
			}
			st := s.initial[inits[k]]
			push(st, fingerprint(st), 0, uint32(inits[k]))
		}
	}
	var cur []byte
	var succ bucket
	var fresh []int
	defer func() {
		seen.free()
		succ.free()
	}()
	var curFP uint64
	defer func() {
		if p := recover(); p != nil {
			s.failPath(curFP, pathTo(trail, nil), fmt.Errorf("the model panicked: %v", p))
		}
	}()
	var live int
	var a uint32
	expand := true
	emit := func(t Transition, next []byte) {
		if !t.Fault {
			live++
		}
		if expand {
			succ.add(next, fingerprint(next), 0, a, 0)
		}
		a++
	}
	emitAt := func(t Transition, next []byte) {
		if !t.Fault {
			live++
		}
		succ.add(next, fingerprint(next), 0, t.Action, 0)
		a++
	}
	full := s.covering(0, &Expansion{Emit: emit})
	reduced := s.covering(0, &Expansion{Reduce: true, Emit: emitAt})
	sampled := 0 // the arena's length when memory was last sampled
	for steps := 0; len(stack) > 0; steps++ {
		if steps&255 == 0 {
			s.queue.Store(int64(len(stack)))
			if s.checkpointDue() {
				// Between two expansions: a point a checkpoint saves.
				mark := s.mark()
				mark.trail, mark.stack, mark.seen = trail, stack, seen
				s.saveCheckpoint(mark)
			}
			if s.stopped() || steps&4095 == 0 && s.overMemory() {
				return
			}
		}
		if s.cfg.MaxMemory > 0 && len(arena)-sampled >= memSampleBytes {
			sampled = len(arena)
			if s.overMemory() {
				return
			}
		}
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		cur = append(cur[:0], arena[e.start:e.end]...)
		curFP = e.fp
		if open != nil {
			// The states of the path from depth e.depth on are done: so is
			// everything they led to.
			for _, st := range trail[min(e.depth, len(trail)):] {
				open.Delete(st.fp)
			}
		}
		trail = append(trail[:e.depth], dfsStep{fp: e.fp, act: e.act})
		arena = arena[:e.start]
		expand = s.cfg.MaxDepth == 0 || e.depth < s.cfg.MaxDepth
		succ.reset()
		live, a = 0, 0
		var err error
		if s.reduce && expand {
			err = s.dfsReduced(w, open, cur, &succ, &live, &a, full, reduced)
		} else {
			err = expandFully(w, cur, full)
		}
		s.transitions.Add(int64(a))
		if err != nil {
			s.failPath(e.fp, pathTo(trail, nil), err)
			return
		}
		if live == 0 {
			s.terminal.Add(1)
			if o, err := orbitOf(w, cur); err != nil {
				s.failPath(e.fp, pathTo(trail, nil), err)
				return
			} else {
				s.rawTerminal.Add(o)
			}
			if s.checkDL {
				ok, err := w.ValidEnd(cur)
				if err != nil {
					s.failPath(e.fp, pathTo(trail, nil), err)
					return
				}
				if !ok {
					s.recordPath(s.deadlock, e.fp, pathTo(trail, nil))
					if s.done() {
						return
					}
				}
			}
		}
		if !expand {
			if a > 0 && s.incomplete == "" {
				s.cutShort(DepthLimit, dfsDepthReason(s.cfg.MaxDepth))
			}
			continue
		}
		fresh = fresh[:0]
		for k := range succ.len() {
			h := succ.fp(k)
			if s.bits != nil {
				if s.bits.has(succ.state(k)) {
					continue
				}
			} else if seen.Has(h) {
				continue
			}
			if s.cfg.MaxStates > 0 && s.states.Load() >= s.cfg.MaxStates {
				// A new state beyond the limit: stop with exactly MaxStates.
				s.cutShort(StateLimit, fmt.Sprintf("state limit reached (--max-states %d)", s.cfg.MaxStates))
				return
			}
			if s.bits != nil {
				s.bitstateInsert(h)
			} else if !seen.Add(s, h) {
				return
			}
			s.states.Add(1)
			here := &dfsStep{fp: h, act: succ.act(k)}
			o, err := orbitOf(w, succ.state(k))
			if err != nil {
				s.failPath(h, pathTo(trail, here), err)
				return
			}
			s.raw.Add(o)
			if s.want != 0 {
				mask, err := w.Check(succ.state(k), s.want)
				if err != nil {
					s.failPath(h, pathTo(trail, here), err)
					return
				}
				if mask != 0 {
					path := pathTo(trail, here)
					eachBit(mask, func(p int) { s.recordPath(p, h, path) })
					if s.done() {
						return
					}
					if s.assert&mask != 0 {
						continue
					}
				}
			}
			if ok, err := inBound(w, succ.state(k)); err != nil {
				s.failPath(h, pathTo(trail, here), err)
				return
			} else if !ok {
				s.cut.Add(1)
				s.raw.Add(-o) // RawStates, like States, counts the states within the constraint
				continue
			}
			fresh = append(fresh, k)
		}
		if s.cfg.MaxMemory > 0 && len(fresh) > 0 {
			// Growing the arena allocates a larger one while the old is
			// still held: stop instead if that would pass the limit.
			need := len(arena) + succ.stateBytes()
			if need > cap(arena) && s.sampleMemory()+uint64(cap(arena)+2*need) > s.cfg.MaxMemory {
				s.stop.CompareAndSwap(running, stopMemory)
				return
			}
		}
		s.shuffle(fresh)
		for k := len(fresh) - 1; k >= 0; k-- {
			i := fresh[k]
			push(succ.state(i), succ.fp(i), e.depth+1, succ.act(i))
		}
	}
	s.exhausted = true
	mark := s.mark()
	mark.trail, mark.stack, mark.seen = trail, stack, seen
	s.saveBeforeLiveness(mark)
}

// dfsDepthReason says why a depth-first search with MaxDepth max is
// incomplete once the limit cut a state.
func dfsDepthReason(max int) string {
	return fmt.Sprintf("depth limit reached (--max-depth %d): states at that depth have successors that were not explored", max)
}

// dfsReduced expands cur with the reducer's subset of its transitions into
// succ, or with all of them when the subset is all or one of its successors
// is open: waiting on the stack, or on the current path (cur included).
// That is the cycle proviso: every cycle of the reduced graph has a fully
// expanded state, so no transition is ignored forever. Proof: suppose no
// edge of a cycle leads to an open state, and let u be the state of the
// cycle expanded first. An edge from a state expanded within u's subtree
// leads to a new state, which becomes a descendant of u, or to a done one,
// expanded after u and before the edge's source, so within u's subtree
// too. So the whole cycle is expanded within u's subtree, and the edge
// that returns to u leaves a descendant of u, which has u on its path:
// open after all.
// The expansions full and reduced count the transitions explored in *a.
func (s *search) dfsReduced(w Worker, open *swiss.Map[uint64, struct{}], cur []byte, succ *bucket, live *int, a *uint32,
	full, reduced *Expansion) error {
	r, err := w.Expand(cur, reduced)
	if err == nil {
		err = r.CheckErr
	}
	if err != nil || r.All {
		return err
	}
	for k := range succ.len() {
		if open.Has(succ.fp(k)) {
			succ.reset()
			*live, *a = 0, 0
			return expandFully(w, cur, full)
		}
	}
	s.reduced.Add(1)
	return nil
}

// expandFully is Successors with the expansion x, which checks nothing, made
// once by its caller: an error of the model while loading s is returned as
// the error.
func expandFully(w Worker, s []byte, x *Expansion) error {
	r, err := w.Expand(s, x)
	if err == nil {
		err = r.CheckErr
	}
	return err
}
