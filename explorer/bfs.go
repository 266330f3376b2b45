package explorer

import (
	"fmt"
	"math"
	"math/bits"
	"sync/atomic"

	"github.com/vacheck/vacheck/internal/offheap"
)

// bucket holds states of one BFS level: their encodings back to back, their
// fingerprints, their canonical keys (the predecessor's rank in its level, in
// 32 bits, then the action index), and their references in the visited set (a
// candidate's predecessor's, until phase 2 inserts it). Its columns live
// outside the Go heap when they are large (package offheap): they grow without
// copying and give their memory back when the search frees them.
type bucket struct {
	arena offheap.Array[byte]
	ends  offheap.Array[int]
	fps   offheap.Array[uint64]
	ranks offheap.Array[uint32]
	acts  offheap.Array[uint32]
	refs  offheap.Array[stateRef]
	// verdicts holds what checking a state found when it was checked in
	// phase 1 (verdict), and errs the errors those checks returned.
	verdicts offheap.Array[int8]
	errs     []error
	// holes is the number of candidates phase 2 dropped in place, their
	// reference holeRef, from a level of several buckets (mergeWorkers
	// leaves them out); a level of one bucket is compacted instead.
	holes int
}

// holeRef is the reference of a candidate phase 2 dropped: a state stored
// already, or one not to be expanded.
const holeRef = ^stateRef(0)

// A verdict says what checking a state found: unchecked, every invariant
// holds, invariant p fails (verdictViolates+p), or the check failed with
// error i of the bucket's errs (verdictError-i).
const (
	unchecked       int8 = 0
	verdictHolds    int8 = 1
	verdictViolates int8 = 2
	verdictError    int8 = -1
)

// add appends a state. ref is the reference of a stored state; of a
// candidate, it is its parent's until phase 2 stores the candidate.
func (b *bucket) add(st []byte, fp uint64, rank, act uint32, ref stateRef) {
	b.arena.AppendSlice(st)
	b.ends.Append(b.arena.Len())
	b.fps.Append(fp)
	b.ranks.Append(rank)
	b.acts.Append(act)
	b.refs.Append(ref)
	b.verdicts.Append(unchecked)
}

// len returns the number of states in the bucket.
func (b *bucket) len() int { return b.fps.Len() }

func (b *bucket) start(i int) int {
	if i == 0 {
		return 0
	}
	return b.ends.Slice()[i-1]
}

func (b *bucket) state(i int) []byte { return b.arena.Slice()[b.start(i):b.ends.Slice()[i]] }

func (b *bucket) fp(i int) uint64 { return b.fps.Slice()[i] }

func (b *bucket) act(i int) uint32 { return b.acts.Slice()[i] }

func (b *bucket) ref(i int) stateRef { return b.refs.Slice()[i] }

func (b *bucket) setRef(i int, r stateRef) { b.refs.Slice()[i] = r }

func (b *bucket) reset() {
	b.truncate(0)
	b.errs = b.errs[:0]
}

// shrink empties the bucket and gives back the memory beyond frac (< 1)
// of what each column held, with some slack: levels past the widest one
// shrink, and their buckets would otherwise keep the widest level's pages.
func (b *bucket) shrink(frac float64) {
	n, bytes := b.len(), b.arena.Len()
	b.reset()
	keep := func(n int) int { return int(float64(n)*frac) + 1024 }
	b.arena.Trim(keep(bytes))
	b.ends.Trim(keep(n))
	b.fps.Trim(keep(n))
	b.ranks.Trim(keep(n))
	b.acts.Trim(keep(n))
	b.refs.Trim(keep(n))
	b.verdicts.Trim(keep(n))
}

func (b *bucket) verdict(i int) int8 { return b.verdicts.Slice()[i] }

// setVerdict records what checking state i found: the index of the first
// invariant it violates or -1, or the error of the check.
func (b *bucket) setVerdict(i int, mask uint64, err error) {
	v := verdictHolds
	switch {
	case err != nil && len(b.errs) < 120:
		b.errs = append(b.errs, err)
		v = verdictError - int8(len(b.errs)-1)
	case err != nil:
		v = unchecked // too many errors to keep: check again in phase 2
	case mask != 0:
		v = verdictViolates + int8(bits.TrailingZeros64(mask))
	}
	b.verdicts.Slice()[i] = v
}

// free gives the bucket's memory back; the bucket is then empty.
func (b *bucket) free() {
	b.arena.Free()
	b.ends.Free()
	b.fps.Free()
	b.ranks.Free()
	b.acts.Free()
	b.refs.Free()
	b.verdicts.Free()
	b.errs = nil
}

// keep moves entry k to position to (to <= k), for compaction in place.
func (b *bucket) keep(k, to int) {
	if k != to {
		from := b.state(k)
		dst := b.start(to)
		n := copy(b.arena.Slice()[dst:], from)
		b.ends.Slice()[to] = dst + n
		fps, ranks, acts, refs, vs := b.fps.Slice(), b.ranks.Slice(), b.acts.Slice(), b.refs.Slice(), b.verdicts.Slice()
		fps[to], ranks[to], acts[to], refs[to], vs[to] = fps[k], ranks[k], acts[k], refs[k], vs[k]
	}
}

// truncate keeps the first n entries, and counts no hole among them.
func (b *bucket) truncate(n int) {
	b.holes = 0
	b.arena.Truncate(b.start(n))
	b.ends.Truncate(n)
	b.fps.Truncate(n)
	b.ranks.Truncate(n)
	b.acts.Truncate(n)
	b.refs.Truncate(n)
	b.verdicts.Truncate(n)
}

func (b *bucket) key(i int) (int64, uint32) { return int64(b.ranks.Slice()[i]), b.acts.Slice()[i] }

func (b *bucket) bfsKey(i int) bfsKey { r, a := b.key(i); return bfsKey{r, a} }

// level is a BFS level in canonical order: the states of its buckets,
// merged by key.
type level struct {
	buckets []*bucket
	ref     []uint64 // bucket<<48 | index, in rank order; nil with one bucket
	n       int
}

// get returns the state of rank r, its fingerprint and its reference in
// the visited set.
func (l *level) get(r int) ([]byte, uint64, stateRef) {
	if l.ref == nil {
		b := l.buckets[0]
		return b.state(r), b.fp(r), b.ref(r)
	}
	ref := l.ref[r]
	b := l.buckets[ref>>48]
	i := int(ref & (1<<48 - 1))
	return b.state(i), b.fp(i), b.ref(i)
}

// mergeWorkers orders the candidates of a BFS level canonically, by key,
// into a level: out[w][sh] holds worker w's candidates for shard sh, in key
// order, and the level's buckets are out[0][0], out[1][0], ..., out[0][1],
// ... (a shard's, worker after worker). Each key is one transition, so the
// order is one; and the workers expand consecutive ranges of the level, so
// every candidate of worker w has a key below those of worker w+1. Each
// worker's buckets therefore merge on their own, into their own stretch of
// the order, all at once: par runs fn(w) for every worker and returns when
// they are done. The order is written into buf's memory, the order of a
// level no longer needed. The candidates phase 2 dropped in place (holes)
// are left out.
func mergeWorkers(out [][]*bucket, buf []uint64, par func(fn func(w int))) *level {
	W := len(out)
	l := &level{}
	ends := make([]int, W+1) // worker w's stretch is ref[ends[w]:ends[w+1]]
	for sh := 0; sh < W; sh++ {
		for w := 0; w < W; w++ {
			b := out[w][sh]
			l.buckets = append(l.buckets, b)
			l.n += b.len() - b.holes
			ends[w+1] += b.len() - b.holes
		}
	}
	if len(l.buckets) == 1 {
		return l
	}
	for w := 0; w < W; w++ {
		ends[w+1] += ends[w]
	}
	if cap(buf) < l.n {
		// Levels widen a little at a time: room for half as much again
		// saves reallocating at every level.
		buf = make([]uint64, 0, l.n+l.n/2)
	}
	l.ref = buf[:l.n]
	par(func(w int) {
		type head struct {
			ranks, acts []uint32   // the bucket's keys
			refs        []stateRef // and references, holeRef for a hole
			holes       bool
			key         uint64 // entry i's key: rank<<32 | act
			id, i       int    // the bucket's index in l.buckets; the next entry
		}
		// skip moves h past the holes from its entry i on, and reports
		// whether an entry is left.
		skip := func(h *head) bool {
			for h.holes && h.i < len(h.refs) && h.refs[h.i] == holeRef {
				h.i++
			}
			if h.i == len(h.ranks) {
				return false
			}
			h.key = uint64(h.ranks[h.i])<<32 | uint64(h.acts[h.i])
			return true
		}
		heads := make([]head, 0, W)
		for sh := 0; sh < W; sh++ {
			b := out[w][sh]
			h := head{ranks: b.ranks.Slice(), acts: b.acts.Slice(), refs: b.refs.Slice(), holes: b.holes > 0, id: sh*W + w}
			if skip(&h) {
				heads = append(heads, h)
			}
		}
		ref := l.ref[ends[w]:ends[w+1]]
		for k := range ref {
			best := 0
			for j := 1; j < len(heads); j++ {
				if heads[j].key < heads[best].key {
					best = j
				}
			}
			h := &heads[best]
			ref[k] = uint64(h.id)<<48 | uint64(h.i)
			if h.i++; !skip(h) {
				heads = append(heads[:best], heads[best+1:]...)
			}
		}
	})
	return l
}

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

// expander is one worker's phase 1 of a BFS level. Its counters are
// written on every transition, so each worker has its own, on cache lines
// of its own.
type expander struct {
	_             [64]byte
	s             *search
	out           []*bucket // per shard
	local         *fpSet
	useLocal      bool // with keys: drop repeated successors in local too
	expand        bool
	shrink        float64 // the level's size over the last one's
	probe         bool    // look every successor up in the visited set
	seq           int     // successors offered
	probes, hits  int64
	reduced       int64  // states expanded with a proper subset
	ample         bucket // successors of the reduced subset
	emitFn        func(Transition, []byte)
	emitReducedFn func(Transition, []byte)
	// xp is what the worker is asked to do with each state (Expand).
	xp              Expansion
	r               int
	ref             stateRef // the reference of the state of rank r
	a               uint32
	live            int
	trans, terminal int64
	// pending counts the bytes of successors kept since memory was last
	// sampled: with large states, a few thousand of them can take the
	// level's buckets far past MaxMemory.
	pending     int
	rawTerminal int64      // under symmetry: the orbit sizes of the terminal states
	rec         *graphSink // records the state graph, when liveness needs it
	// from[sh] is where the successors in out[sh] not yet looked up in
	// local begin; fresh counts them (see dedupe).
	from  []int
	fresh int
	// in, with one worker, inserts and checks the successors as they come
	// (insertFresh) instead of in a phase 2; inserted holds the
	// fingerprints of those it added but does not keep, over that a new
	// state was left out at the state limit.
	in       *inserter
	wk       Worker
	inserted []uint64
	over     bool
	// deferred: the search defers checks (deferChecks), so each state is
	// checked as it is expanded, against want, and checks holds what the
	// checks found in the worker's range.
	deferred bool
	// keyed: the worker is asked to offer each successor by its key
	// before it builds it (Expansion.Offer), and the expander drops those
	// that repeat a recent one, kept in recent; ka is the action index of
	// the last one offered. Not under partial-order reduction.
	keyed       bool
	recent      *recentKeys
	slot        uint64 // offerKey: the slot of the last key offered
	key         uint64 // offerKey: the last key offered
	ka          uint32
	offerKeyFn  func(Transition, uint64) bool
	emitKeyedFn func(Transition, []byte)
	want        uint64
	checks      *levelChecks
	_           [64]byte
}

func (x *expander) emit(t Transition, next []byte) {
	if !t.Fault {
		x.live++
	}
	if x.expand {
		h := fingerprint(next)
		if x.rec != nil {
			x.rec.edge(t, h)
		}
		x.offer(next, h, x.a)
	}
	x.a++
}

// offerKey counts a transition offered by its key and reports whether its
// successor, with key key, is new to the worker in this level.
func (x *expander) offerKey(t Transition, key uint64) bool {
	if !t.Fault {
		x.live++
	}
	x.ka = x.a
	x.a++
	if !x.expand {
		return false
	}
	// Most successors met before were met a moment ago (the two orders of
	// two independent steps meet among the successors of neighbouring
	// states): a small direct-mapped table of recent keys, in the
	// processor's nearest cache, answers for them without a trip into the
	// local set. The empty slot is 0, which no key of 0 may then match.
	x.slot = key % uint64(len(x.recent.keys))
	if x.recent.keys[x.slot] == key && key != 0 {
		if x.rec != nil {
			x.rec.edgeAgain(t, x.recent.edges[x.slot])
		}
		return false
	}
	x.key = key
	return true
}

// emitKeyed offers a successor that offerKey found new, which its worker
// builds right after offerKey: the slot offerKey found holds its key and
// its edge of the state graph from now on.
func (x *expander) emitKeyed(t Transition, next []byte) {
	h := fingerprint(next)
	x.recent.keys[x.slot] = x.key
	if x.rec != nil {
		x.rec.edge(t, h)
		x.recent.edges[x.slot] = x.rec.lastEdge()
	}
	x.offer(next, h, x.ka)
}

// offer keeps the successor next, with fingerprint h, reached by action a,
// unless it is known already.
func (x *expander) offer(next []byte, h uint64, a uint32) {
	sh := x.s.shard(h)
	if x.seq++; x.in == nil && (x.probe || x.seq%probeSample == 0) {
		x.probes++
		if x.s.shards[sh].Has(h) {
			x.hits++
			return
		}
	}
	x.out[sh].add(next, h, uint32(x.r), a, x.ref)
	x.pending += len(next) + 32 // the state, and its entries in the bucket and the local set
	x.fresh++
}

// insertFresh is dedupe with one worker: it inserts the successors kept since
// the last call into the visited set and checks the new ones at once (unless
// checks are deferred to expansion), as phase 2 would, in the same (canonical)
// order, so that the level needs no phase 2. Without keys (and with keys where
// many repeat, useLocal), the local set drops most repeated successors first:
// it is smaller, and misses the caches less often. The visited set then holds
// part of the next level while this one is expanded; bfs takes those states out
// again (visitedSet.rollback) where phase 2 would not have run.
func (x *expander) insertFresh() {
	s, in := x.s, x.in
	m := s.shards[0]
	b := x.out[0]
	fps := b.fps.Slice()
	kept := x.from[0]
	defer func() {
		b.truncate(kept)
		x.from[0], x.fresh = kept, 0
		if p := recover(); p != nil {
			in.fail.offer(in.rank, in.act, in.fp, in.ref)
			in.failErr = fmt.Errorf("the model panicked while checking a state: %v", p)
		}
	}()
	m.fps.touch(fps[kept:])
	for k := kept; k < len(fps); k++ {
		h := fps[k]
		if max := s.cfg.MaxStates; max > 0 && s.states.Load()+in.added >= max {
			// The first new states in canonical order fill the room left.
			x.over = x.over || !m.Has(h)
			continue
		}
		if g := m.growth(h); g > 0 && !roomFor(s, g) {
			continue // the search stops, and bfs rolls this level back
		}
		added, keep := in.insert(m, x.wk, b, k, h, &in.fail, &in.failErr)
		switch {
		case keep:
			b.keep(k, kept)
			kept++
		case added:
			x.inserted = append(x.inserted, h)
		}
	}
}

// recentKeys is an expander's table of recent keys (offerKey), with the
// edge of the state graph that recorded each (graphSink.lastEdge), which
// records the transitions to states dropped by their keys too. The keys
// take 32 KiB, the size of a processor's first-level data cache; the edges
// are read only for the state graph.
type recentKeys struct {
	keys  [4096]uint64
	edges [4096]uint32
}

// probeSample is how rarely the expander looks a successor up in the
// visited set when it does not look every one up.
const probeSample = 256

// dedupeBatch is how many successors the expander keeps before it looks
// them up in its local set all at once.
const dedupeBatch = 64

// dedupe drops the successors kept since the last call that the worker has
// produced before in this level (or earlier in the batch), keeping the
// first of each in order. The lookups are done in a batch, after touching
// their slots, so that their cache misses overlap (fpSet.touch). A keyed
// worker has dropped most of them by their keys already: unless useLocal,
// dedupe leaves the rest to the visited set.
func (x *expander) dedupe() {
	if x.fresh == 0 {
		return
	}
	if x.keyed && !x.useLocal {
		// Nearly every successor that passes the keys of the recent ones
		// is new (98% at chang-roberts N=6), so the local set would cost
		// more than it saves: the visited set drops the others, as
		// insertFresh inserts them (with one worker) or in phase 2.
		x.fresh = 0
		if x.in != nil {
			x.insertFresh()
			return
		}
		for sh, b := range x.out {
			x.check(b, x.from[sh])
			x.from[sh] = b.len()
		}
		return
	}
	for sh, b := range x.out {
		x.local.touch(b.fps.Slice()[x.from[sh]:])
	}
	for sh, b := range x.out {
		fps := b.fps.Slice()
		kept := x.from[sh]
		for k := kept; k < len(fps); k++ {
			if x.local.insert(fps[k]) {
				b.keep(k, kept)
				kept++
			}
		}
		b.truncate(kept)
		if x.in == nil {
			x.check(b, x.from[sh])
			x.from[sh] = kept
		}
	}
	x.fresh = 0
	if x.in != nil {
		x.insertFresh()
	}
}

// check checks the states of b from k on, which are new to this worker in
// this level, and records the verdicts for phase 2. Checking them here, in
// the order they were found, finds consecutive states alike (siblings, that
// differ from each other in a process or two), which the model's decoding
// caches; phase 2 takes a shard's states, spread over the level by their
// fingerprints. The few states that turn out to be known already are
// checked for nothing. With one worker insertFresh checks at once; when
// the search defers checks to expansion (deferChecks), neither does.
func (x *expander) check(b *bucket, k int) {
	want := x.s.want
	if want == 0 || x.deferred {
		return // nothing to check, or checked when expanded
	}
	defer func() {
		if p := recover(); p != nil {
			// Phase 2 checks this state again and reports the panic.
			b.verdicts.Slice()[k] = unchecked
			x.check(b, k+1)
		}
	}()
	for ; k < b.len(); k++ {
		mask, err := x.wk.Check(b.state(k), want)
		b.setVerdict(k, mask, err)
	}
}

// emitReduced collects a successor of the reduced subset in x.ample.
func (x *expander) emitReduced(t Transition, next []byte) {
	if !t.Fault {
		x.live++
	}
	x.ample.add(next, fingerprint(next), 0, t.Action, 0)
	x.a++
}

// expandReduced expands st with the reducer's subset of its transitions, or
// with all of them when the subset is all or one of its successors is in
// the visited set, which holds every level up to the one being expanded
// (the cycle proviso: a cycle of the reduced graph then has a fully
// expanded state, its state of the highest level, so no transition is
// ignored forever). The visited set is read-only in phase 1, so the choice
// does not depend on the number of workers.
func (x *expander) expandReduced(wk Worker, st []byte) error {
	x.ample.reset()
	x.xp = Expansion{Reduce: true, Emit: x.emitReducedFn}
	r, err := wk.Expand(st, &x.xp)
	if err == nil {
		err = r.CheckErr
	}
	if err != nil {
		return err
	}
	if all := r.All; !all {
		for _, h := range x.ample.fps.Slice() {
			if x.s.shards[x.s.shard(h)].Has(h) {
				all = true
				break
			}
		}
		if all {
			x.a, x.live = 0, 0
			x.xp = Expansion{Emit: x.emitFn}
			return expandFully(wk, st, &x.xp)
		}
		x.reduced++
	}
	for k, h := range x.ample.fps.Slice() {
		x.offer(x.ample.state(k), h, x.ample.act(k))
	}
	return nil
}

// run expands worker w's range of the level cur.
func (x *expander) run(w int, cur *level, dead, fail *bfsFound, failErr *error) {
	s := x.s
	for _, b := range x.out {
		// b held the last level's states; expect the next level to be as
		// much smaller as this one is.
		if x.shrink < 1 {
			b.shrink(x.shrink * 1.1)
		} else {
			b.reset()
		}
	}
	x.local.Clear()
	if x.keyed {
		clear(x.recent.keys[:]) // the fingerprints are read only under a key
	}
	x.from = make([]int, len(x.out))
	x.fresh = 0
	wk := s.workers[w]
	x.wk = wk
	lo, hi := split(cur.n, len(s.workers), w)
	defer func() {
		// A Model that panics instead of returning an error fails the
		// search like one that returns it.
		if p := recover(); p != nil {
			_, fp, ref := cur.get(x.r)
			fail.offer(int64(x.r), 0, fp, ref)
			*failErr = fmt.Errorf("the model panicked: %v", p)
		}
	}()
	x.emitFn, x.emitReducedFn = x.emit, x.emitReduced
	x.offerKeyFn, x.emitKeyedFn = x.offerKey, x.emitKeyed
	reduce := s.reduce && x.expand
	x.xp = Expansion{Want: x.want, Stop: s.assert, Emit: x.emitFn}
	if x.keyed {
		x.xp.Offer, x.xp.Emit = x.offerKeyFn, x.emitKeyedFn
	}
	for x.r = lo; x.r < hi; x.r++ {
		if x.fresh >= dedupeBatch {
			x.dedupe()
		}
		if x.r&255 == 0 {
			if x.r > lo {
				s.expanded.Add(256) // about: ranges need not start at a multiple
			}
			if s.stopped() || x.r&4095 == 0 && s.overMemory() {
				break
			}
		}
		if x.pending >= memSampleBytes && s.cfg.MaxMemory > 0 {
			x.pending = 0
			if s.overMemory() {
				break
			}
		}
		st, fp, ref := cur.get(x.r)
		x.ref = ref
		x.a, x.live = 0, 0
		if x.rec != nil {
			x.rec.begin(st, fp)
		}
		var err error
		if reduce {
			err = x.expandReduced(wk, st)
		} else {
			var r Expanded
			r, err = wk.Expand(st, &x.xp)
			if x.keyed && r.Expanded && err == nil && int(x.a) != r.Enabled {
				// Its transitions would count as none (offerKey counts them).
				err = fmt.Errorf("explorer: the model's worker offered %d of the %d transitions it reports enabled: with Offer set, Expand offers every one", x.a, r.Enabled)
			}
			switch {
			case x.want != 0:
				if !x.checks.add(s, int64(x.r), fp, ref, r.Violated, r.CheckErr) {
					if x.rec != nil {
						// Recorded, but not expanded: the graph lacks its edges.
						x.rec.fail(errIncomplete)
					}
					continue // its check failed, or it broke a model assumption: not expanded
				}
			case r.CheckErr != nil && err == nil:
				err = r.CheckErr // a check asked for nothing failed: s was not expanded
			}
		}
		x.trans += int64(x.a)
		if err != nil {
			fail.offer(int64(x.r), 0, fp, ref)
			if *failErr == nil {
				*failErr = err
			}
			continue
		}
		if x.rec != nil {
			x.rec.end(st)
		}
		if x.live == 0 {
			x.terminal++
			if o, err := orbitOf(wk, st); err != nil {
				fail.offer(int64(x.r), 0, fp, ref)
				if *failErr == nil {
					*failErr = err
				}
			} else {
				x.rawTerminal += o
			}
			if s.checkDL {
				ok, err := wk.ValidEnd(st)
				if err != nil {
					fail.offer(int64(x.r), 0, fp, ref)
					if *failErr == nil {
						*failErr = err
					}
				} else if !ok {
					dead.offer(int64(x.r), 0, fp, ref)
				}
			}
		}
	}
	x.dedupe()
}

// inserter is one worker's phase 2 of a BFS level: it inserts the new
// states of its shard and checks them. Like expander, it keeps the
// variables it writes for every state on cache lines of its own.
type inserter struct {
	_          [64]byte
	s          *search
	sh         int
	want       uint64
	found      []bfsFound // per property
	added, cut int64
	raw        int64  // under symmetry: the orbit sizes of the added states
	fp         uint64 // the state being inserted, for a panic
	ref        stateRef
	rank       int64
	act        uint32
	// cutoff, when limited, is the key of the last state the state limit
	// lets in (levelCutoff).
	cutoff  bfsKey
	limited bool
	// fail and failErr: the first failure, with one worker (insertFresh).
	fail    bfsFound
	failErr error
	// deferred: a state is checked when it is expanded (deferChecks).
	deferred bool
	// short: the memory limit stopped it before it had looked at every
	// candidate of its shard.
	short bool
	// sym and bound are the worker as a symmetry worker and as a Bounder,
	// or nil, once hooked is set: insert asks both about every new state,
	// with the type assertions made once (orbitOf and inBound each made
	// one per state, 1.2% of a 2-worker search's time in chang-roberts).
	sym    *symWorker
	bound  Bounder
	hooked bool
	_      [64]byte
}

func (in *inserter) run(out [][]*bucket, fail *bfsFound, failErr *error) {
	s := in.s
	defer func() {
		if p := recover(); p != nil {
			fail.offer(in.rank, in.act, in.fp, in.ref)
			*failErr = fmt.Errorf("the model panicked while checking a state: %v", p)
		}
	}()
	m := s.shards[in.sh]
	wk := s.workers[in.sh]
	// With one bucket, the level is the bucket itself (mergeWorkers): the
	// candidates kept are moved together. With several, the candidates
	// dropped are left in place as holes, which the merge skips: moving
	// the others would write the level's states once more, from the core
	// that stores this shard, and the core that expands them next would
	// have to fetch them back from it.
	compact := len(out) == 1
	for w := range out {
		c := out[w][in.sh]
		// kept counts the candidates kept (compact), holes those dropped
		// (not compact), and the bucket ends at end; stop ends the
		// shard's candidates there.
		kept, holes, end, stop := 0, 0, c.len(), false
		fps := c.fps.Slice()
		for k, h := range fps {
			if k%touchBatch == 0 {
				m.fps.touch(fps[k:min(k+touchBatch, len(fps))])
			}
			if in.limited && in.cutoff.less(c.bfsKey(k)) {
				// Beyond the state limit, and so is every later candidate
				// of this shard (the workers' buckets are in key order).
				end, stop = k, true
				break
			}
			if g := m.growth(h); g > 0 && !roomFor(s, g) {
				// The memory limit: this candidate and every later one of
				// the shard are left out, the level stored only in part.
				end, stop = k, true
				in.short = true
				break
			}
			switch _, keep := in.insert(m, wk, c, k, h, fail, failErr); {
			case keep && compact:
				c.keep(k, kept)
				kept++
			case !keep && !compact:
				c.setRef(k, holeRef)
				holes++
			}
		}
		if compact {
			c.truncate(kept)
		} else {
			c.truncate(end)
			c.holes = holes
		}
		if stop {
			for _, b := range out[w+1:] {
				b[in.sh].truncate(0)
			}
			return
		}
	}
}

// insert adds candidate k of c, with fingerprint h, to the visited set m
// unless it is there already, and checks it if it is new. It reports
// whether it added the state and whether the state is to be expanded: not
// when it broke an assertion, lies outside the state bound or could not be
// checked.
func (in *inserter) insert(m *visitedSet, wk Worker, c *bucket, k int, h uint64, fail *bfsFound, failErr *error) (added, keep bool) {
	if !m.insertFP(h) {
		return false, false
	}
	rank, act := c.key(k)
	ref := m.addRecord(c.ref(k), act) // the candidate's parent's reference
	c.setRef(k, ref)
	in.added++
	st := c.state(k)
	in.fp, in.ref, in.rank, in.act = h, ref, rank, act
	if !in.hooked {
		in.sym = symOf(wk)
		in.bound, _ = wk.(Bounder)
		in.hooked = true
	}
	o, err := in.sym.orbit(st)
	if err != nil {
		fail.offer(rank, act, h, ref)
		if *failErr == nil {
			*failErr = err
		}
		return true, false
	}
	in.raw += o
	if in.want != 0 && !in.deferred {
		var mask uint64
		var err error
		switch v := c.verdict(k); {
		case v == unchecked:
			mask, err = wk.Check(st, in.want)
		case v == verdictHolds:
		case v >= verdictViolates:
			// Checked in phase 1, which notes the first property violated
			// (whether or not this level's search still wants it): ask
			// again for all of them, which only violating states cost.
			mask, err = wk.Check(st, in.want|1<<uint(v-verdictViolates))
		default:
			err = c.errs[verdictError-v]
		}
		if err != nil {
			fail.offer(rank, act, h, ref)
			if *failErr == nil {
				*failErr = err
			}
			return true, false
		}
		eachBit(mask, func(p int) { in.found[p].offer(rank, act, h, ref) })
		if in.s.assert&mask != 0 {
			return true, false // a broken model assumption: do not go on from here
		}
	}
	if ok, err := inBoundOf(in.bound, st); err != nil || !ok {
		if err != nil {
			fail.offer(rank, act, h, ref)
			if *failErr == nil {
				*failErr = err
			}
		}
		in.cut++
		return true, false
	}
	return true, true
}

// firstFailure returns the failure of fails with the smallest key, and
// its error.
func firstFailure(fails []bfsFound, errs []error) (bfsFound, error) {
	var first bfsFound
	var err error
	for i, f := range fails {
		if f.ok && (!first.ok || bfsKey{f.rank, f.act}.less(bfsKey{first.rank, first.act})) {
			first, err = f, errs[i]
		}
	}
	return first, err
}

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

// checkLevel checks the states of cur against want, in parallel: each
// worker's range of the level (split) from from[w] on, or all of it when
// from is nil.
func (s *search) checkLevel(cur *level, want uint64, from []int) *levelChecks {
	W := len(s.workers)
	nprops := len(s.props) + 1
	cs := make([]*levelChecks, W)
	s.parallel(func(w int) {
		c := newChecks(nprops)
		cs[w] = c
		lo, hi := split(cur.n, W, w)
		if from != nil {
			lo = from[w]
		}
		r := lo
		defer func() {
			if p := recover(); p != nil {
				_, fp, ref := cur.get(r)
				c.add(s, int64(r), fp, ref, 0, fmt.Errorf("the model panicked while checking a state: %v", p))
			}
		}()
		for ; r < hi; r++ {
			st, fp, ref := cur.get(r)
			mask, err := s.workers[w].Check(st, want)
			c.add(s, int64(r), fp, ref, mask, err)
			if err != nil {
				return // later states cannot come first
			}
		}
	})
	all := newChecks(nprops)
	for _, c := range cs {
		all.merge(c)
	}
	return all
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
