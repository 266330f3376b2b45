package explorer

import (
	"fmt"
	"math"
	"sync/atomic"
)

// bfs searches level by level. Phase 1: each worker expands a contiguous
// range of the level and keeps, per shard, the successors that earlier
// levels and its own range have not produced yet. Phase 2: each worker
// takes the candidates of its own shard, worker by worker (so in canonical
// order), inserts the new ones in the visited set, checks them, and compacts
// them in place: the candidates it keeps are the next level. Two sets of
// candidate buckets alternate, one holding the level being expanded and
// one receiving its successors.
func (s *search) bfs() {
	W := len(s.workers)
	l0 := &bucket{}
	first := 0
	if s.resume != nil {
		l0, first = s.resume.level, s.resume.depth
	} else {
		for k, i := range s.inits {
			if s.initStop[k] {
				continue
			}
			st := s.initial[i]
			l0.add(st, fingerprint(st), uint32(i), 0, s.initRefs[k])
		}
		if s.failure != nil || s.done() || s.incomplete != "" || s.stopped() {
			return
		}
	}
	cur := &level{buckets: []*bucket{l0}, n: l0.len()}
	// cands[set][w][sh]: successors found by worker w that belong to shard
	// sh; the two sets alternate between levels.
	var cands [2][][]*bucket
	for set := range cands {
		cands[set] = make([][]*bucket, W)
		for w := range cands[set] {
			cands[set][w] = make([]*bucket, W)
			for sh := range cands[set][w] {
				cands[set][w][sh] = &bucket{}
			}
		}
	}
	// seen[w]: the fingerprints worker w has produced in this level;
	// recent[w]: its table of recent keys (expander.offerKey), 64 KiB
	// that a new one each level would make garbage of.
	seen := make([]*fpSet, W)
	recent := make([]*recentKeys, W)
	for w := range seen {
		seen[w] = newFPSet()
	}
	defer func() {
		l0.free()
		for set := range cands {
			for w := range cands[set] {
				for _, b := range cands[set][w] {
					b.free()
				}
			}
		}
		for _, x := range seen {
			x.free()
		}
	}()
	nprops := len(s.props) + 1
	probe := true
	prevN := 0
	deferred := s.deferChecks()
	// local: whether keyed workers drop repeated successors in a local set
	// too (expander.local), decided from the level before.
	local := false
	for depth := first; cur.n > 0; depth++ {
		shrink := 1.0
		if prevN > 0 {
			shrink = float64(cur.n) / float64(prevN)
		}
		prevN = cur.n
		if uint64(cur.n) > math.MaxUint32 {
			// Candidates keep their predecessor's rank in 32 bits.
			if deferred && depth > first {
				s.checkStored(cur, depth-1)
			}
			s.incomplete = fmt.Sprintf("level %d has %d states, more than the %d a level may have", depth, cur.n, uint32(math.MaxUint32))
			return
		}
		// A level boundary: the point a checkpoint saves.
		mark := s.mark()
		mark.level, mark.depth = cur, int64(depth)
		if s.checkpointDue() && s.incomplete == "" {
			s.saveCheckpoint(mark)
		}
		out := cands[depth%2]
		s.depth.Store(int64(depth))
		s.queue.Store(int64(cur.n))
		s.expanded.Store(0)
		expand := s.cfg.MaxDepth == 0 || depth < s.cfg.MaxDepth
		dead := make([]bfsFound, W)
		fails := make([]bfsFound, W)
		failErr := make([]error, W)
		counts := make([]int64, W)
		var probes, hits [64]int64
		// With one worker (and no reduction, whose cycle proviso asks the
		// visited set as it was before the level), successors are inserted
		// as they come: x1 is that worker's expander.
		var x1 *expander
		levelStart := s.shards[0].Len()
		statesBefore := s.states.Load()
		xs := make([]*expander, W)
		want := s.want
		// What the level's states are checked for as they are expanded:
		// the initial states were checked as they were stored.
		checkWant := want
		if depth == 0 {
			checkWant = 0
		}
		s.parallel(func(w int) {
			x := &expander{s: s, out: out[w], local: seen[w], useLocal: local, expand: expand, probe: probe, shrink: shrink, rec: s.rec.level(w)}
			if deferred {
				x.deferred, x.want, x.checks = true, checkWant, newChecks(nprops)
			}
			if !s.reduce {
				// Not with a reduction, which offers the successors of its
				// subset without keys.
				x.keyed = true
				if recent[w] == nil {
					recent[w] = new(recentKeys)
				}
				x.recent = recent[w]
			}
			if W == 1 && !s.reduce {
				x.in = &inserter{s: s, want: want, deferred: deferred, found: make([]bfsFound, nprops)}
				x1 = x
			}
			x.run(w, cur, &dead[w], &fails[w], &failErr[w])
			probes[w%64] += x.probes
			hits[w%64] += x.hits
			counts[w] = x.trans
			xs[w] = x
		})
		// rollback takes the states x1 added out again, where phase 2
		// would not have run: the search then stops after this level with
		// the figures a search with more workers gives.
		rollback := func() {
			if x1 != nil {
				// Only the first from[0] successors were inserted: those
				// after them may be states of earlier levels.
				s.shards[0].rollback(uint64(levelStart), out[0][0].fps.Slice()[:x1.from[0]], x1.inserted)
				out[0][0].reset()
			}
		}
		if deferred && checkWant != 0 {
			// This level's states were checked as they were expanded. What
			// the checks found ends the search, or not, as it would have
			// when the level was stored: before any of the level counts as
			// expanded. A stop, or a step that panicked, may have left
			// states of a worker's range unexpanded, so unchecked: those are
			// checked on their own.
			c := newChecks(nprops)
			from := make([]int, W) // the first state each worker did not check
			unchecked := false
			for w, x := range xs {
				c.merge(x.checks)
				_, hi := split(cur.n, W, w)
				from[w] = x.r
				unchecked = unchecked || x.r < hi
			}
			if unchecked {
				c.merge(s.checkLevel(cur, checkWant, from))
			}
			if c.fail.ok || c.asserted == cur.n {
				// As when the level was stored: a failed check, or a level
				// that would have kept none of its states, leaves the
				// search at the depth before it.
				s.depth.Store(int64(depth - 1))
			}
			if c.fail.ok {
				rollback()
				s.fail(c.fail.fp, c.fail.ref, c.err)
				return
			}
			c.record(s)
			if s.done() {
				// Also with Continue: what this level's checks found
				// decides the last property, which would have ended the
				// search once the level was stored. The graph recorded
				// holds this level's edges to states never stored.
				rollback()
				s.rec.discard()
				return
			}
		}
		for _, x := range xs {
			s.reduced.Add(x.reduced)
			s.transitions.Add(x.trans)
			s.terminal.Add(x.terminal)
			s.rawTerminal.Add(x.rawTerminal)
		}
		for w := 0; w < W; w++ {
			if fails[w].ok {
				rollback()
				s.fail(fails[w].fp, fails[w].ref, failErr[w])
				return
			}
		}
		// Looking successors up in the visited set before phase 2 saves
		// memory when many lead back to earlier levels, and is wasted work
		// when none do (a graded state space, where every transition goes
		// one level down, as in most of the catalog). Look up every
		// successor while at least one in 50 is found, and otherwise one
		// in probeSample, to notice when that changes.
		var tp, th int64
		for w := range probes {
			tp, th = tp+probes[w], th+hits[w]
		}
		if tp >= 64 {
			probe = th*50 >= tp
		}
		var dl bfsFound
		for w := range dead {
			if dead[w].ok {
				dl.offer(dead[w].rank, 0, dead[w].fp, dead[w].ref)
			}
		}
		if dl.ok {
			s.record(s.deadlock, dl.fp, dl.ref)
		}
		if s.stopped() {
			// Phase 2 has not touched the visited set: save the boundary
			// before this level, which resuming expands again.
			rollback()
			if s.checkpointDue() && s.incomplete == "" {
				s.saveCheckpoint(mark)
			}
			return
		}
		if !expand {
			var trans int64
			for _, c := range counts {
				trans += c
			}
			if trans > 0 && s.newBeyond(cur) {
				s.incomplete = fmt.Sprintf("depth limit reached (--max-depth %d): states at depth %d have successors that were not explored", s.cfg.MaxDepth, depth)
				return
			}
			// Nothing lies beyond: the end of the search.
			s.exhausted = true
			end := s.mark()
			end.level = &level{buckets: []*bucket{{}}}
			s.saveBeforeLiveness(end)
			return
		}
		if s.done() && !s.cfg.Continue {
			rollback()
			return
		}
		viols := make([][]bfsFound, W)
		var limited bool
		var short atomic.Bool // phase 2 stored the level only in part
		if x1 != nil {
			in := x1.in
			s.states.Add(in.added)
			s.raw.Add(in.raw)
			s.cut.Add(in.cut)
			viols[0] = in.found
			fails[0], failErr[0] = in.fail, in.failErr
			limited = x1.over
		} else {
			// The state limit: insert only the first new states of the
			// level, in canonical order, up to the limit.
			var cutoff bfsKey
			cutoff, limited = s.levelCutoff(out)
			want = s.want // without what this level found, with Continue
			s.parallel(func(sh int) {
				in := &inserter{s: s, sh: sh, want: want, deferred: deferred, found: make([]bfsFound, nprops), cutoff: cutoff, limited: limited}
				in.run(out, &fails[sh], &failErr[sh])
				if in.short {
					short.Store(true)
				}
				s.states.Add(in.added)
				s.raw.Add(in.raw)
				s.cut.Add(in.cut)
				viols[sh] = in.found
			})
		}
		// The first failure in canonical order, whichever shard found it.
		if f, err := firstFailure(fails, failErr); f.ok {
			s.fail(f.fp, f.ref, err)
			return
		}
		for p := 0; p < nprops; p++ {
			var best bfsFound
			for sh := range viols {
				if f := viols[sh][p]; f.ok {
					best.offer(f.rank, f.act, f.fp, f.ref)
				}
			}
			if best.ok {
				s.record(p, best.fp, best.ref)
			}
		}
		// Keyed workers leave the successors that repeat one met longer
		// ago to the visited set: about 2% of those they build in
		// chang-roberts, but a fifth in bully-broken. Where more than one
		// in 16 repeats, a local set drops them in the next level before
		// they fill the level's buckets.
		var passed int64
		for _, x := range xs {
			passed += int64(x.seq)
		}
		repeats := passed - (s.states.Load() - statesBefore)
		local = repeats*16 > passed
		cur = mergeWorkers(out, cur.ref, s.parallel)
		if cur.n > 0 {
			s.depth.Store(int64(depth + 1))
		}
		// What a checkpoint saves if the search ends here: the search as it
		// was when it stored the level, before checking it (with checks
		// deferred), so that resuming checks it against what the search
		// wanted then.
		next := s.mark()
		next.level, next.depth = cur, int64(depth+1)
		if cur.n == 0 && !limited && !short.Load() {
			// The last level had no new successor: the end of the search,
			// at the depth it reports, whatever stops it from now on.
			s.exhausted = true
			next.depth = s.depth.Load()
			s.saveBeforeLiveness(next)
		}
		if deferred && (s.done() || s.stopped() || limited) {
			// The search ends with this level stored but not expanded.
			s.checkStored(cur, depth)
		}
		if s.done() || s.stopped() {
			if !s.done() && !limited && cur.n > 0 && s.checkpointDue() && s.incomplete == "" {
				s.saveCheckpoint(next)
			}
			return
		}
		if limited {
			s.incomplete = fmt.Sprintf("state limit reached (--max-states %d)", s.cfg.MaxStates)
			return
		}
	}
	s.exhausted = true // no level left: also when resumed at the end
}

// newBeyond reports whether a state of the level cur, the last the depth
// limit lets the search expand, has a successor that is not stored: only
// then does the limit leave states unexplored. (A level whose successors
// all lead back to stored states ends the search as if it were the last.)
// A state the search would not expand (it breaks an assertion, or lies
// outside the model's bound) is left out; a successor the model cannot
// compute, or a check that fails or panics, counts as new.
func (s *search) newBeyond(cur *level) bool {
	var found atomic.Bool
	s.parallel(func(w int) {
		defer func() {
			if p := recover(); p != nil {
				found.Store(true)
			}
		}()
		wk := s.workers[w]
		lo, hi := split(cur.n, len(s.workers), w)
		for r := lo; r < hi && !found.Load(); r++ {
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
	return found.Load()
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
// their merge.
func (s *search) levelCutoff(out [][]*bucket) (bfsKey, bool) {
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
		for w := range out {
			c := out[w][sh]
			for k, h := range c.fps.Slice() {
				if int64(len(keys[sh])) > room {
					return
				}
				if m.Has(h) || !dup.insert(h) {
					continue
				}
				keys[sh] = append(keys[sh], c.bfsKey(k))
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
