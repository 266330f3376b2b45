package explorer

import "sync/atomic"

// newBeyond reports whether a state of the level cur, the last the depth
// limit lets the search expand, has a successor that is not stored: only
// then does the limit leave states unexplored. (A level whose successors
// all lead back to stored states ends the search as if it were the last.)
// A state the search would not expand (it breaks an assertion, or lies
// outside the model's bound) is left out; a successor the model cannot
// compute, or a check that fails or panics, counts as new. A stop ends the
// look within 256 states of each worker: stopped then says that it did
// not look at every state, and a false found decides nothing.
func (s *search) newBeyond(cur *level) (beyond, stopped bool) {
	var found, halted atomic.Bool
	s.parallel(func(w int) {
		defer func() {
			if p := recover(); p != nil {
				found.Store(true)
			}
		}()
		wk := s.workers[w]
		lo, hi := split(cur.n, len(s.workers), w)
		for r := lo; r < hi && !found.Load(); r++ {
			if r&255 == 0 && s.stopped() {
				halted.Store(true)
				return
			}
			st, _, _ := cur.get(r)
			if a := s.want & s.assert; a != 0 {
				if mask, err := wk.Check(st, a); err != nil || mask != 0 {
					if err != nil {
						found.Store(true)
					}
					continue
				}
			}
			if ok, err := inBound(wk, st); err != nil || !ok {
				if err != nil {
					found.Store(true)
				}
				continue
			}
			_, err := Successors(wk, st, func(_ Transition, next []byte) {
				if h := fingerprint(next); !s.shards[s.shard(h)].Has(h) {
					found.Store(true)
				}
			})
			if err != nil {
				found.Store(true)
			}
		}
	})
	return found.Load(), halted.Load()
}

// bfsKey is the canonical key of a successor in its level: its
// predecessor's rank, then the action index.
type bfsKey struct {
	rank int64
	act  uint32
}

func (k bfsKey) less(o bfsKey) bool { return k.rank < o.rank || (k.rank == o.rank && k.act < o.act) }

// bfsFound is the best counterexample of one kind found in a level.
type bfsFound struct {
	rank int64
	act  uint32
	fp   uint64
	ref  stateRef
	ok   bool
}

func (f *bfsFound) offer(rank int64, act uint32, fp uint64, ref stateRef) {
	if !f.ok || rank < f.rank || (rank == f.rank && act < f.act) {
		*f = bfsFound{rank: rank, act: act, fp: fp, ref: ref, ok: true}
	}
}

// levelCutoff decides, before the candidates of a level are inserted,
// whether they would take the visited set past MaxStates; if so it returns
// the key of the last new state that fits, so that the search stores
// exactly MaxStates states: those of the earlier levels and the first new
// ones of this level in canonical order. The new states of a level and
// their keys do not depend on the number of workers, so neither does the
// cut. Each shard finds its first new candidates (at most the room left:
// the others cannot be among the first), and the cut is the room-th key of
// their merge; a shard's candidates are in chunk order, so in key order.
func (s *search) levelCutoff(out [][]*bucket, ch *chunks) (bfsKey, bool) {
	if s.cfg.MaxStates == 0 {
		return bfsKey{}, false
	}
	room := s.cfg.MaxStates - s.states.Load()
	var total int64
	for w := range out {
		for _, c := range out[w] {
			total += int64(c.len())
		}
	}
	if total <= room {
		return bfsKey{}, false
	}
	keys := make([][]bfsKey, len(s.shards))
	s.parallel(func(sh int) {
		m := s.shards[sh]
		dup := newFPSet()
		defer dup.free()
		for c := range ch.count() {
			sp := ch.span(c, sh)
			b := out[sp.w][sh]
			for k := sp.lo; k < sp.hi; k++ {
				h := b.fp(k)
				if int64(len(keys[sh])) > room {
					return
				}
				if m.Has(h) || !dup.insert(h) {
					continue
				}
				keys[sh] = append(keys[sh], b.bfsKey(k))
			}
		}
	})
	heads := make([]int, len(keys))
	last := bfsKey{rank: -1} // no room: before every key
	for n := int64(0); n < room; n++ {
		best := -1
		for sh, i := range heads {
			if i < len(keys[sh]) && (best < 0 || keys[sh][i].less(keys[best][heads[best]])) {
				best = sh
			}
		}
		if best < 0 {
			return bfsKey{}, false // fewer new states than the room left
		}
		last = keys[best][heads[best]]
		heads[best]++
	}
	for sh, i := range heads {
		if i < len(keys[sh]) {
			return last, true // a new state beyond the limit
		}
	}
	return bfsKey{}, false
}
