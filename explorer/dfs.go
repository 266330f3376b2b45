package explorer

import (
	"fmt"
	"unsafe"

	"github.com/cespare/xxhash/v2"
	"github.com/dolthub/swiss"
)

type dfsEntry struct {
	start, end int
	fp         uint64
	depth      int
}

// dfs searches depth first on one worker. A state is marked visited (and
// checked) when it is generated, and expanded when it is popped; successors
// are pushed so that the lowest action index is explored first.
func (s *search) dfs() {
	m, w := s.shards[0], s.workers[0]
	var arena []byte
	var stack []dfsEntry
	push := func(st []byte, fp uint64, depth int) {
		start := len(arena)
		arena = append(arena, st...)
		stack = append(stack, dfsEntry{start: start, end: len(arena), fp: fp, depth: depth})
		if int64(depth) > s.depth.Load() {
			s.depth.Store(int64(depth))
		}
	}
	inits := s.addInitial(w)
	if s.failure != nil || s.done() {
		return
	}
	for k := len(inits) - 1; k >= 0; k-- {
		st := s.initial[inits[k]]
		push(st, xxhash.Sum64(st), 0)
	}
	var cur []byte
	var succ bucket
	var fresh []int
	var curFP uint64
	defer func() {
		if p := recover(); p != nil {
			s.fail(curFP, fmt.Errorf("the model panicked: %v", p))
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
			succ.add(next, xxhash.Sum64(next), 0, a)
		}
		a++
	}
	var reducer Reducer
	if s.reducers != nil {
		reducer = s.reducers[0]
	}
	emitAt := func(act uint32, t Transition, next []byte) {
		if !t.Fault {
			live++
		}
		succ.add(next, xxhash.Sum64(next), 0, act)
		a++
	}
	for steps := 0; len(stack) > 0; steps++ {
		if steps&255 == 0 && s.stopped() {
			return
		}
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		cur = append(cur[:0], arena[e.start:e.end]...)
		curFP = e.fp
		arena = arena[:e.start]
		expand = s.cfg.MaxDepth == 0 || e.depth < s.cfg.MaxDepth
		succ.reset()
		live, a = 0, 0
		var err error
		if reducer != nil && expand {
			err = s.dfsReduced(reducer, w, m, cur, &succ, &live, &a, emit, emitAt)
		} else {
			_, err = w.Successors(cur, emit)
		}
		s.transitions.Add(int64(a))
		if err != nil {
			s.fail(e.fp, err)
			return
		}
		if live == 0 {
			s.terminal.Add(1)
			if s.checkDL {
				ok, err := w.ValidEnd(cur)
				if err != nil {
					s.fail(e.fp, err)
					return
				}
				if !ok {
					s.record(s.deadlock, e.fp)
					if s.done() {
						return
					}
				}
			}
		}
		if !expand {
			if a > 0 && s.incomplete == "" {
				s.incomplete = fmt.Sprintf("depth limit reached (--max-depth %d): states at that depth have successors that were not explored", s.cfg.MaxDepth)
			}
			continue
		}
		fresh = fresh[:0]
		for k, h := range succ.fps {
			if m.Has(h) {
				continue
			}
			if !roomToGrow(s, m, unsafe.Sizeof(node{})+8) {
				return
			}
			m.Put(h, node{parent: e.fp, act: succ.acts[k]})
			s.states.Add(1)
			if s.want != 0 {
				p, err := w.Check(succ.state(k), s.want)
				if err != nil {
					s.fail(h, err)
					return
				}
				if p >= 0 {
					s.record(p, h)
					if s.done() {
						return
					}
					if s.assert&(1<<uint(p)) != 0 {
						continue
					}
				}
			}
			if ok, err := inBound(w, succ.state(k)); err != nil {
				s.fail(h, err)
				return
			} else if !ok {
				s.cut.Add(1)
				continue
			}
			fresh = append(fresh, k)
			if s.cfg.MaxStates > 0 && s.states.Load() >= s.cfg.MaxStates {
				s.incomplete = fmt.Sprintf("state limit reached (--max-states %d)", s.cfg.MaxStates)
				return
			}
		}
		for k := len(fresh) - 1; k >= 0; k-- {
			i := fresh[k]
			push(succ.state(i), succ.fps[i], e.depth+1)
		}
	}
}

// dfsReduced expands cur with the reducer's subset of its transitions into
// succ, or with all of them when the subset is all or one of its successors
// was visited before (the cycle proviso: every cycle of the reduced graph
// then has a fully expanded state, so no transition is ignored forever).
// emit and emitAt count the transitions explored in *a.
func (s *search) dfsReduced(r Reducer, w Worker, m *swiss.Map[uint64, node], cur []byte, succ *bucket, live *int, a *uint32,
	emit func(Transition, []byte), emitAt func(uint32, Transition, []byte)) error {
	_, all, err := r.Reduced(cur, emitAt)
	if err != nil || all {
		return err
	}
	for _, h := range succ.fps {
		if m.Has(h) {
			succ.reset()
			*live, *a = 0, 0
			_, err := w.Successors(cur, emit)
			return err
		}
	}
	s.reduced.Add(1)
	return nil
}
