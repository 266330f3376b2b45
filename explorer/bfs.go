package explorer

import (
	"fmt"

	"github.com/cespare/xxhash/v2"
)

// bucket holds states of one BFS level: their encodings back to back, their
// fingerprints, and (until the level is merged) their canonical keys.
type bucket struct {
	arena []byte
	ends  []int
	fps   []uint64
	ranks []int64  // rank of the predecessor in its level
	acts  []uint32 // action index from the predecessor
}

func (b *bucket) add(st []byte, fp uint64, rank int64, act uint32) {
	b.arena = append(b.arena, st...)
	b.ends = append(b.ends, len(b.arena))
	b.fps = append(b.fps, fp)
	b.ranks = append(b.ranks, rank)
	b.acts = append(b.acts, act)
}

func (b *bucket) state(i int) []byte {
	start := 0
	if i > 0 {
		start = b.ends[i-1]
	}
	return b.arena[start:b.ends[i]]
}

func (b *bucket) reset() {
	b.arena, b.ends, b.fps, b.ranks, b.acts = b.arena[:0], b.ends[:0], b.fps[:0], b.ranks[:0], b.acts[:0]
}

// less orders states of one level canonically: by their predecessor's rank,
// then by action index.
func (b *bucket) key(i int) (int64, uint32) { return b.ranks[i], b.acts[i] }

// level is a BFS level in canonical order: the buckets of the shards merged
// by key.
type level struct {
	buckets []*bucket
	ref     []uint64 // bucket<<56 | index, in rank order; nil with one bucket
	n       int
}

func (l *level) get(r int) ([]byte, uint64) {
	if l.ref == nil {
		b := l.buckets[0]
		return b.state(r), b.fps[r]
	}
	ref := l.ref[r]
	b := l.buckets[ref>>56]
	i := int(ref & (1<<56 - 1))
	return b.state(i), b.fps[i]
}

// merge orders the buckets' states canonically. Each bucket is already in
// key order, because shards are filled in rank order.
func merge(buckets []*bucket) *level {
	l := &level{buckets: buckets}
	for _, b := range buckets {
		l.n += len(b.fps)
	}
	if len(buckets) == 1 {
		return l
	}
	l.ref = make([]uint64, 0, l.n)
	pos := make([]int, len(buckets))
	for len(l.ref) < l.n {
		best := -1
		var br int64
		var ba uint32
		for k, b := range buckets {
			if pos[k] == len(b.fps) {
				continue
			}
			r, a := b.key(pos[k])
			if best < 0 || r < br || (r == br && a < ba) {
				best, br, ba = k, r, a
			}
		}
		l.ref = append(l.ref, uint64(best)<<56|uint64(pos[best]))
		pos[best]++
	}
	return l
}

// bfsFound is the best counterexample of one kind found in a level.
type bfsFound struct {
	rank int64
	act  uint32
	fp   uint64
	ok   bool
}

func (f *bfsFound) offer(rank int64, act uint32, fp uint64) {
	if !f.ok || rank < f.rank || (rank == f.rank && act < f.act) {
		*f = bfsFound{rank: rank, act: act, fp: fp, ok: true}
	}
}

func (s *search) bfs() {
	W := len(s.workers)
	l0 := &bucket{}
	for _, i := range s.addInitial(s.workers[0]) {
		st := s.initial[i]
		l0.add(st, xxhash.Sum64(st), int64(i), 0)
	}
	if s.failure != nil || s.done() {
		return
	}
	cur := merge([]*bucket{l0})
	// cands[w][sh]: successors found by worker w that belong to shard sh.
	cands := make([][]*bucket, W)
	for w := range cands {
		cands[w] = make([]*bucket, W)
		for sh := range cands[w] {
			cands[w][sh] = &bucket{}
		}
	}
	nprops := len(s.props) + 1
	for depth := 0; cur.n > 0; depth++ {
		s.depth.Store(int64(depth))
		expand := s.cfg.MaxDepth == 0 || depth < s.cfg.MaxDepth
		// Phase 1: expand contiguous ranges of the level; keep successors
		// not seen in earlier levels.
		dead := make([]bfsFound, W)
		fails := make([]bfsFound, W)
		failErr := make([]error, W)
		counts := make([]int64, W)
		s.parallel(func(w int) {
			for _, b := range cands[w] {
				b.reset()
			}
			wk := s.workers[w]
			lo, hi := split(cur.n, W, w)
			var trans, terminal int64
			r := lo
			defer func() {
				// A Model that panics instead of returning an error fails
				// the search like one that returns it.
				if p := recover(); p != nil {
					_, fp := cur.get(r)
					fails[w].offer(int64(r), 0, fp)
					failErr[w] = fmt.Errorf("the model panicked: %v", p)
				}
			}()
			// One emit function for the whole range: a closure per state
			// would be an allocation per state.
			var a uint32
			var live int
			emit := func(t Transition, next []byte) {
				if !t.Fault {
					live++
				}
				if expand {
					h := xxhash.Sum64(next)
					sh := s.shard(h)
					if !s.shards[sh].Has(h) {
						cands[w][sh].add(next, h, int64(r), a)
					}
				}
				a++
			}
			for ; r < hi; r++ {
				if r&255 == 0 && s.stopped() {
					break
				}
				st, fp := cur.get(r)
				a, live = 0, 0
				_, err := wk.Successors(st, emit)
				trans += int64(a)
				if err != nil {
					fails[w].offer(int64(r), 0, fp)
					if failErr[w] == nil {
						failErr[w] = err
					}
					continue
				}
				if live == 0 {
					terminal++
					if s.checkDL {
						ok, err := wk.ValidEnd(st)
						if err != nil {
							fails[w].offer(int64(r), 0, fp)
							if failErr[w] == nil {
								failErr[w] = err
							}
						} else if !ok {
							dead[w].offer(int64(r), 0, fp)
						}
					}
				}
			}
			counts[w] = trans
			s.transitions.Add(trans)
			s.terminal.Add(terminal)
		})
		for w := 0; w < W; w++ {
			if fails[w].ok {
				s.fail(fails[w].fp, failErr[w])
				return
			}
		}
		var dl bfsFound
		for w := range dead {
			if dead[w].ok {
				dl.offer(dead[w].rank, 0, dead[w].fp)
			}
		}
		if dl.ok {
			s.record(s.deadlock, dl.fp)
		}
		if s.stopped() {
			return
		}
		if !expand {
			var trans int64
			for _, c := range counts {
				trans += c
			}
			if trans > 0 {
				s.incomplete = fmt.Sprintf("depth limit reached (--max-depth %d): states at depth %d have successors that were not explored", s.cfg.MaxDepth, depth)
			}
			return
		}
		if s.done() && !s.cfg.Continue {
			return
		}
		// Phase 2: each worker inserts the candidates of its own shard in
		// canonical order and checks the new states.
		next := make([]*bucket, W)
		viols := make([][]bfsFound, W)
		want := s.want
		s.parallel(func(sh int) {
			var curFP uint64
			var curRank int64
			var curAct uint32
			defer func() {
				if p := recover(); p != nil {
					fails[sh].offer(curRank, curAct, curFP)
					failErr[sh] = fmt.Errorf("the model panicked while checking a state: %v", p)
				}
			}()
			m := s.shards[sh]
			wk := s.workers[sh]
			// Size the new level's bucket for every candidate, so that it
			// never grows by copying.
			var nstates, nbytes int
			for w := 0; w < W; w++ {
				nstates += len(cands[w][sh].fps)
				nbytes += len(cands[w][sh].arena)
			}
			nb := &bucket{
				arena: make([]byte, 0, nbytes), ends: make([]int, 0, nstates), fps: make([]uint64, 0, nstates),
				ranks: make([]int64, 0, nstates), acts: make([]uint32, 0, nstates),
			}
			found := make([]bfsFound, nprops)
			var added, cut int64
			for w := 0; w < W; w++ {
				c := cands[w][sh]
				for k, h := range c.fps {
					if m.Has(h) {
						continue
					}
					rank, act := c.key(k)
					_, pfp := cur.get(int(rank))
					m.Put(h, node{parent: pfp, act: act})
					added++
					st := c.state(k)
					curFP, curRank, curAct = h, rank, act
					if want != 0 {
						p, err := wk.Check(st, want)
						if err != nil {
							fails[sh].offer(rank, act, h)
							if failErr[sh] == nil {
								failErr[sh] = err
							}
							continue
						}
						if p >= 0 {
							found[p].offer(rank, act, h)
							if s.assert&(1<<uint(p)) != 0 {
								continue // a broken model assumption: do not go on from here
							}
						}
					}
					if ok, err := inBound(wk, st); err != nil || !ok {
						if err != nil {
							fails[sh].offer(rank, act, h)
							if failErr[sh] == nil {
								failErr[sh] = err
							}
						}
						cut++
						continue
					}
					nb.add(st, h, rank, act)
				}
			}
			s.states.Add(added)
			s.cut.Add(cut)
			next[sh] = nb
			viols[sh] = found
		})
		for w := 0; w < W; w++ {
			if fails[w].ok {
				s.fail(fails[w].fp, failErr[w])
				return
			}
		}
		for p := 0; p < nprops; p++ {
			var best bfsFound
			for sh := range viols {
				if f := viols[sh][p]; f.ok {
					best.offer(f.rank, f.act, f.fp)
				}
			}
			if best.ok {
				s.record(p, best.fp)
			}
		}
		cur = merge(next)
		for _, b := range next {
			b.ranks, b.acts = nil, nil
		}
		if cur.n > 0 {
			s.depth.Store(int64(depth + 1))
		}
		if s.done() || s.stopped() {
			return
		}
		if s.cfg.MaxStates > 0 && s.states.Load() >= s.cfg.MaxStates && cur.n > 0 {
			s.incomplete = fmt.Sprintf("state limit reached (--max-states %d)", s.cfg.MaxStates)
			return
		}
	}
}
