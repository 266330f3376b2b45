package explorer

import (
	"fmt"
	"sync/atomic"
)

// deferChecks reports whether the breadth-first search checks each state
// when it expands it, reading it once for the check and the expansion,
// rather than when it stores it: when the workers are not Bounders (the
// model declares no bound (whose states outside it are never expanded)
// and without partial-order reduction (which expands states otherwise).
// The results are the same: a level's checks are settled before any of it
// counts as expanded, and a level that is stored but never expanded is
// checked on its own (checkStored). A state graph recorded meanwhile holds
// the edges of every level expanded: a state its check keeps from
// expansion, or a level whose checks end the search (whose edges lead to
// states never stored), makes the recording incomplete, and the graph is
// built again (errIncomplete).
func (s *search) deferChecks() bool {
	if s.reduce {
		return false
	}
	for _, w := range s.workers {
		if _, ok := w.(Bounder); ok {
			return false
		}
	}
	return true
}

// levelChecks is what checking states of a level found: per property the
// first state in canonical order that violates it, the first state whose
// check failed and the error, and how many states break a model
// assumption (an assertion), which are not expanded.
type levelChecks struct {
	found    []bfsFound
	fail     bfsFound
	err      error
	asserted int
}

func newChecks(nprops int) *levelChecks { return &levelChecks{found: make([]bfsFound, nprops)} }

// add notes what checking the state of rank r gave, the properties it
// violates (a mask, see violated) or the error, and reports whether the
// state is to be expanded.
func (c *levelChecks) add(s *search, r int64, fp uint64, ref stateRef, mask uint64, err error) bool {
	if err != nil {
		if !c.fail.ok || r < c.fail.rank {
			c.fail.offer(r, 0, fp, ref)
			c.err = err
		}
		return false
	}
	eachBit(mask, func(p int) { c.found[p].offer(r, 0, fp, ref) })
	if s.assert&mask != 0 {
		c.asserted++
		return false
	}
	return true
}

// merge adds what o found.
func (c *levelChecks) merge(o *levelChecks) {
	for p, f := range o.found {
		if f.ok {
			c.found[p].offer(f.rank, f.act, f.fp, f.ref)
		}
	}
	if f := o.fail; f.ok && (!c.fail.ok || f.rank < c.fail.rank) {
		c.fail, c.err = f, o.err
	}
	c.asserted += o.asserted
}

// record records the violations found.
func (c *levelChecks) record(s *search) {
	for p, f := range c.found {
		if f.ok {
			s.record(p, f.fp, f.ref)
		}
	}
}

// checkLevel checks the states of cur against want, in parallel: the
// ranges of ranks given, or all of the level when ranges is nil. The
// workers take the ranges in order, each the first left, and a worker
// whose check failed takes no more: later states cannot come first. A
// stop (a time or memory limit, an interrupt) ends each range within 256
// states: the states it leaves are counted in search.unchecked, so that
// the result claims nothing of them.
func (s *search) checkLevel(cur *level, want uint64, ranges [][2]int) *levelChecks {
	W := len(s.workers)
	nprops := len(s.props) + 1
	if ranges == nil {
		for w := range W {
			lo, hi := split(cur.n, W, w)
			ranges = append(ranges, [2]int{lo, hi})
		}
	}
	cs := make([]*levelChecks, W)
	var next atomic.Int64
	s.parallel(func(w int) {
		c := newChecks(nprops)
		cs[w] = c
		for {
			i := int(next.Add(1) - 1)
			if i >= len(ranges) || !s.checkRange(w, cur, want, ranges[i][0], ranges[i][1], c) {
				return
			}
		}
	})
	all := newChecks(nprops)
	for _, c := range cs {
		all.merge(c)
	}
	return all
}

// checkRange checks the states of cur of ranks lo to hi against want with
// worker w into c, and reports whether the worker goes on: not after a
// failed check.
func (s *search) checkRange(w int, cur *level, want uint64, lo, hi int, c *levelChecks) (more bool) {
	r := lo
	defer func() {
		if p := recover(); p != nil {
			_, fp, ref := cur.get(r)
			c.add(s, int64(r), fp, ref, 0, fmt.Errorf("the model panicked while checking a state: %v", p))
			more = false
		}
	}()
	for ; r < hi; r++ {
		if (r-lo)&255 == 0 && s.stopped() {
			// A stop ends the check here: the states left are
			// stored and not checked, and the result says how many.
			s.unchecked.Add(int64(hi - r))
			return true
		}
		st, fp, ref := cur.get(r)
		mask, err := s.workers[w].Check(st, want)
		c.add(s, int64(r), fp, ref, mask, err)
		if err != nil {
			return false
		}
	}
	return true
}

// checkStored checks the level cur, which the search stored while it
// expanded the level at depth and ends without expanding, as storing it
// would have checked it.
func (s *search) checkStored(cur *level, depth int) {
	if s.want == 0 || cur.n == 0 || s.failure != nil {
		return
	}
	c := s.checkLevel(cur, s.want, nil)
	if c.fail.ok || c.asserted == cur.n {
		// Storing the level would have failed, or kept none of it.
		s.depth.Store(int64(depth))
	}
	if c.fail.ok {
		s.fail(c.fail.fp, c.fail.ref, c.err)
		return
	}
	c.record(s)
}
