package explorer

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/vacheck/vacheck/internal/offheap"
)

// bfs searches level by level. Phase 1: the workers expand the level's
// chunks, contiguous ranges of ranks each claims in turn (chunks), and keep,
// per shard, the successors that earlier levels and their own earlier
// chunks have not produced yet. Phase 2: each worker takes the candidates
// of its own shard, chunk by chunk (so in canonical order), inserts the new
// ones in the visited set, checks them, and drops the others in place: the
// candidates it keeps are the next level. Two sets of
// candidate buckets alternate, one holding the level being expanded and
// one receiving its successors.
//
// Each level runs the steps of bfsRun in turn: begin (limits and the
// checkpoint of a level boundary), expand (phase 1), settle (the checks made
// as the level was expanded), tally (what the expansion found: failures,
// deadlocks, the depth limit, a stop), store (phase 2) and end (the merge
// into the next level, and what ends the search there). Each step reports
// whether the search ends with it.
func (s *search) bfs() {
	b := newBFS(s)
	defer b.free()
	if b.cur == nil {
		return
	}
	for ; b.cur.n > 0; b.depth++ {
		l := b.begin()
		if l == nil {
			return
		}
		b.expand(l)
		if b.settle(l) || b.tally(l) || b.store(l) || b.end(l) {
			return
		}
	}
	s.exhausted = true // no level left: also when resumed at the end
}

// bfsRun is what the levels of a breadth-first search share.
type bfsRun struct {
	s     *search
	W     int    // workers
	depth int    // of the level cur
	first int    // the depth the search starts (or resumes) at
	cur   *level // the level being expanded
	// order holds cur's order of several buckets (level.ref).
	order offheap.Array[uint64]
	l0    *bucket
	// pool holds the segments the candidate buckets do not use.
	pool *segPool
	// cands[set][w][sh]: successors found by worker w that belong to shard
	// sh; the two sets alternate between levels.
	cands [2][][]*bucket
	// chunks is how the level being expanded is cut, and where each
	// chunk's successors are in cands, until they are merged.
	chunks chunks
	// seen[w]: the fingerprints worker w has produced in this level;
	// recent[w]: its table of recent keys (expander.offerKey), 64 KiB
	// that a new one each level would make garbage of.
	seen     []*fpSet
	recent   []*recentKeys
	nprops   int
	probe    bool // look every successor up in the visited set (expander.probe)
	prevN    int  // the size of the level before
	deferred bool // checks made as states are expanded (deferChecks)
	// local: whether keyed workers drop repeated successors in a local set
	// too (expander.local), decided from the level before.
	local bool
}

// bfsLevel is what the steps of one level share.
type bfsLevel struct {
	mark    ckState     // the level boundary, for a checkpoint
	out     [][]*bucket // the candidates of the next level
	expand  bool        // within the depth limit
	shrink  float64     // the level's size over the last one's
	dead    []bfsFound  // per worker: the first deadlock
	fails   []bfsFound  // per worker (per shard in phase 2): the first failure
	failErr []error
	counts  []int64 // per worker: the transitions it explored
	// probes and hits count the successors looked up in the visited set
	// in phase 1, and those found there.
	probes, hits [64]int64
	// x1, with one worker (and no reduction, whose cycle proviso asks the
	// visited set as it was before the level), is that worker's expander,
	// which inserts the successors as they come.
	x1           *expander
	levelStart   int64 // the visited set's size before x1 inserted any
	statesBefore int64
	xs           []*expander
	want         uint64 // the properties the search wants
	// checkWant is what the level's states are checked for as they are
	// expanded: the initial states were checked as they were stored.
	checkWant uint64
	viols     [][]bfsFound // per shard and property: the first violation stored
	merge     *levelMerge  // the merge of the candidates stored, with several workers
	limited   bool         // the state limit cut the level
	short     atomic.Bool  // phase 2 stored the level only in part
}

// newBFS sets up a breadth-first search from the initial states or the
// level a checkpoint saved; cur is nil when the initial states already
// ended the search.
func newBFS(s *search) *bfsRun {
	W := len(s.workers)
	b := &bfsRun{s: s, W: W, l0: &bucket{}, nprops: len(s.props) + 1, probe: true, pool: &segPool{shared: true}}
	if s.resume != nil {
		b.l0, b.first = s.resume.level, s.resume.depth
	} else {
		// A limit or a violation met while the initial states were
		// stored ends the search before level 0 copies them: the copy
		// would take as much memory again as the states held when the
		// memory limit stopped them.
		if s.failure != nil || s.done() || s.incomplete != "" || s.stopped() {
			return b
		}
		for k, i := range s.inits {
			if s.initStop[k] {
				continue
			}
			st := s.initial[i]
			b.l0.add(st, fingerprint(st), uint32(i), 0, s.initRefs[k])
		}
	}
	b.depth = b.first
	b.cur = &level{buckets: []*bucket{b.l0}, n: b.l0.len()}
	for set := range b.cands {
		b.cands[set] = make([][]*bucket, W)
		for w := range b.cands[set] {
			b.cands[set][w] = make([]*bucket, W)
			for sh := range b.cands[set][w] {
				b.cands[set][w][sh] = newBucket(b.pool)
			}
		}
	}
	b.seen = make([]*fpSet, W)
	b.recent = make([]*recentKeys, W)
	for w := range b.seen {
		b.seen[w] = newFPSet()
	}
	b.deferred = s.deferChecks()
	return b
}

// free gives back the memory of the search's buckets and sets.
func (b *bfsRun) free() {
	b.l0.free()
	b.order.Free()
	for set := range b.cands {
		for w := range b.cands[set] {
			for _, c := range b.cands[set][w] {
				c.free()
			}
		}
	}
	b.pool.trim(0)
	for _, x := range b.seen {
		x.free()
	}
}

// begin starts the level cur: it refuses a level too large to expand,
// saves the level boundary when a checkpoint is due, and returns what the
// level's steps share, or nil when the search ends here.
func (b *bfsRun) begin() *bfsLevel {
	s, cur, depth, W := b.s, b.cur, b.depth, b.W
	if depth > b.first {
		// The level before is expanded: its states count in explored from
		// now on, after expanded is cleared (a progress report read
		// between the two undercounts for a moment; one read the other
		// way would count the level twice).
		s.expanded.Store(0)
		s.explored.Add(int64(b.prevN))
	}
	l := &bfsLevel{shrink: 1}
	if b.prevN > 0 {
		l.shrink = float64(cur.n) / float64(b.prevN)
	}
	b.prevN = cur.n
	if uint64(cur.n) > math.MaxUint32 {
		// Candidates keep their predecessor's rank in 32 bits.
		if b.deferred && depth > b.first {
			s.checkStored(cur, depth-1)
		}
		s.cutShort(LevelLimit, fmt.Sprintf("level %d has %d states, more than the %d a level may have", depth, cur.n, uint32(math.MaxUint32)))
		return nil
	}
	// A level boundary: the point a checkpoint saves.
	l.mark = s.mark()
	l.mark.level, l.mark.depth = cur, int64(depth)
	s.expectSave(l.mark)
	if s.checkpointDue() && s.incomplete == "" {
		s.saveCheckpoint(l.mark)
	}
	l.out = b.cands[depth%2]
	b.chunks.cut(cur.n, W, s.cfg.chunkLen, s.cfg.chunkDeal)
	s.depth.Store(int64(depth))
	s.queue.Store(int64(cur.n))
	s.expanded.Store(0)
	l.expand = s.cfg.MaxDepth == 0 || depth < s.cfg.MaxDepth
	l.dead = make([]bfsFound, W)
	l.fails = make([]bfsFound, W)
	l.failErr = make([]error, W)
	l.counts = make([]int64, W)
	l.levelStart = s.shards[0].Len()
	l.statesBefore = s.states.Load()
	l.xs = make([]*expander, W)
	l.want = s.want
	l.checkWant = l.want
	if depth == 0 {
		l.checkWant = 0
	}
	// The pool keeps the segments the next level will take from it: a
	// few, when the workers give the segments of this level back as
	// they expand them (releaser), the next level's estimated size when
	// they do not. It gives the others back to the system: a search
	// whose levels narrow then holds no more than it needs, while the
	// visited set grows.
	keep := W * W
	if !b.releases(l) {
		keep += int(float64(cur.n)*l.shrink*1.1) / segLen
	}
	b.pool.trim(keep)
	return l
}

// releases reports whether the workers give back the segments of the
// level l as they expand them (releaser): not when the search may read
// the level again after expanding it (a checkpoint saves it when the
// search stops in it; the state graph, Config.OnExpand), nor at the depth
// limit.
func (b *bfsRun) releases(l *bfsLevel) bool {
	s := b.s
	return s.cfg.Checkpoint == nil && l.expand && s.rec == nil && s.cfg.OnExpand == nil
}

// expand is phase 1: the workers expand the chunks of the level.
func (b *bfsRun) expand(l *bfsLevel) {
	s, W := b.s, b.W
	if b.releases(l) {
		prepareRelease(b.cur)
	}
	s.parallel(func(w int) {
		x := &expander{s: s, out: l.out[w], local: b.seen[w], useLocal: b.local, expand: l.expand, probe: b.probe, shrink: l.shrink, rec: s.rec.sink(w), depth: b.depth}
		x.release = b.releases(l)
		if b.deferred {
			x.deferred, x.want, x.checks = true, l.checkWant, newChecks(b.nprops)
		}
		if !s.reduce {
			// Not with a reduction, which offers the successors of its
			// subset without keys.
			x.keyed = true
			if b.recent[w] == nil {
				b.recent[w] = new(recentKeys)
			}
			x.recent = b.recent[w]
		}
		if W == 1 && !s.reduce {
			x.in = &inserter{s: s, want: l.want, deferred: b.deferred, found: make([]bfsFound, b.nprops)}
			l.x1 = x
		}
		x.run(w, b.cur, &b.chunks, &l.dead[w], &l.fails[w], &l.failErr[w])
		l.probes[w%64] += x.probes
		l.hits[w%64] += x.hits
		l.counts[w] = x.trans
		l.xs[w] = x
	})
	s.rec.levelDone(b.chunks.graph)
}

// rollback takes the states x1 added out again, where phase 2 would not
// have run: the search then stops after this level with the figures a
// search with more workers gives.
func (b *bfsRun) rollback(l *bfsLevel) {
	if x1 := l.x1; x1 != nil {
		// Only the first from[0] successors were inserted: those after
		// them may be states of earlier levels.
		b.s.shards[0].rollback(uint64(l.levelStart), append(l.out[0][0].fpSpans(0, x1.from[0]), x1.inserted)...)
		l.out[0][0].reset()
	}
}

// settle settles the checks made as the level was expanded. What they
// found ends the search, or not, as it would have when the level was
// stored: before any of the level counts as expanded. A stop, or a step
// that panicked, may have left states of the level unexpanded, so
// unchecked: those are checked on their own.
func (b *bfsRun) settle(l *bfsLevel) bool {
	if !b.deferred || l.checkWant == 0 {
		return false
	}
	s, cur := b.s, b.cur
	c := newChecks(b.nprops)
	for _, x := range l.xs {
		c.merge(x.checks)
	}
	if left := b.chunks.unexpanded(); len(left) > 0 {
		c.merge(s.checkLevel(cur, l.checkWant, left))
	}
	if c.fail.ok || c.asserted == cur.n {
		// As when the level was stored: a failed check, or a level that
		// would have kept none of its states, leaves the search at the
		// depth before it.
		s.depth.Store(int64(b.depth - 1))
	}
	if c.fail.ok {
		b.rollback(l)
		s.fail(c.fail.fp, c.fail.ref, c.err)
		return true
	}
	c.record(s)
	if s.done() {
		// Also with Continue: what this level's checks found decides the
		// last property, which would have ended the search once the level
		// was stored. The graph recorded holds this level's edges to
		// states never stored.
		b.rollback(l)
		s.rec.discard()
		return true
	}
	return false
}

// tally adds up what the workers' expansions found: the counts, the first
// failure and deadlock, how often the visited set knew a successor; and
// ends the search at a stop, at the depth limit, or at a violation without
// Continue.
func (b *bfsRun) tally(l *bfsLevel) bool {
	s := b.s
	for _, x := range l.xs {
		s.reduced.Add(x.reduced)
		s.transitions.Add(x.trans)
		s.terminal.Add(x.terminal)
		s.rawTerminal.Add(x.rawTerminal)
	}
	for w := 0; w < b.W; w++ {
		if l.fails[w].ok {
			b.rollback(l)
			s.fail(l.fails[w].fp, l.fails[w].ref, l.failErr[w])
			return true
		}
	}
	// Looking successors up in the visited set before phase 2 saves
	// memory when many lead back to earlier levels, and is wasted work
	// when none do (a graded state space, where every transition goes
	// one level down, as in most of the catalog). Look up every
	// successor while at least one in 50 is found, and otherwise one
	// in probeSample, to notice when that changes.
	var tp, th int64
	for w := range l.probes {
		tp, th = tp+l.probes[w], th+l.hits[w]
	}
	if tp >= 64 {
		b.probe = th*50 >= tp
	}
	var dl bfsFound
	for w := range l.dead {
		if l.dead[w].ok {
			dl.offer(l.dead[w].rank, 0, l.dead[w].fp, l.dead[w].ref)
		}
	}
	if dl.ok {
		s.record(s.deadlock, dl.fp, dl.ref)
	}
	if s.stopped() {
		// Phase 2 has not touched the visited set: save the boundary
		// before this level, which resuming expands again.
		b.rollback(l)
		if s.checkpointDue() && s.incomplete == "" {
			s.saveCheckpoint(l.mark)
		}
		return true
	}
	if !l.expand {
		var trans int64
		for _, c := range l.counts {
			trans += c
		}
		if trans > 0 {
			beyond, stopped := s.newBeyond(b.cur)
			if beyond {
				s.cutShort(DepthLimit, fmt.Sprintf("depth limit reached (--max-depth %d): states at depth %d have successors that were not explored", s.cfg.MaxDepth, b.depth))
				return true
			}
			if stopped {
				return true // undecided: the stop's limit ends the search
			}
		}
		// Nothing lies beyond: the end of the search.
		s.exhausted = true
		end := s.mark()
		end.level = &level{buckets: []*bucket{{}}}
		s.saveBeforeLiveness(end)
		return true
	}
	if s.done() && !s.cfg.Continue {
		b.rollback(l)
		return true
	}
	return false
}

// store is phase 2: each worker inserts the candidates of its shard into
// the visited set (with one worker, x1 did as it expanded), up to the
// state limit, and the first failure and violations in canonical order
// are recorded.
func (b *bfsRun) store(l *bfsLevel) bool {
	s, W := b.s, b.W
	l.viols = make([][]bfsFound, W)
	if x1 := l.x1; x1 != nil {
		in := x1.in
		s.states.Add(in.added)
		s.raw.Add(in.raw)
		s.cut.Add(in.cut)
		l.viols[0] = in.found
		l.fails[0], l.failErr[0] = in.fail, in.failErr
		l.limited = x1.over
	} else {
		// The state limit: insert only the first new states of the
		// level, in canonical order, up to the limit.
		var cutoff bfsKey
		cutoff, l.limited = s.levelCutoff(l.out, &b.chunks)
		want := s.want // without what this level found, with Continue
		// The worker that stores its shard first merges the chunks
		// stored meanwhile (levelMerge), instead of waiting.
		l.merge = newLevelMerge(l.out, &b.chunks, &b.order)
		ins := make([]*inserter, W)
		s.parallel(func(sh int) {
			in := &inserter{s: s, sh: sh, want: want, deferred: b.deferred, found: make([]bfsFound, b.nprops), cutoff: cutoff, limited: l.limited, merge: l.merge}
			ins[sh] = in
			in.run(l.out, &b.chunks, &l.fails[sh], &l.failErr[sh])
			if in.short {
				l.short.Store(true)
			}
			s.states.Add(in.added)
			s.raw.Add(in.raw)
			s.cut.Add(in.cut)
			l.viols[sh] = in.found
			l.merge.help()
		})
		for _, in := range ins {
			in.truncate(l.out)
		}
	}
	// The first failure in canonical order, whichever shard found it.
	if f, err := firstFailure(l.fails, l.failErr); f.ok {
		s.fail(f.fp, f.ref, err)
		return true
	}
	for p := 0; p < b.nprops; p++ {
		var best bfsFound
		for sh := range l.viols {
			if f := l.viols[sh][p]; f.ok {
				best.offer(f.rank, f.act, f.fp, f.ref)
			}
		}
		if best.ok {
			s.record(p, best.fp, best.ref)
		}
	}
	return false
}

// end merges the workers' new states into the next level, and ends the
// search where the level had none, where the checks or a stop end it, or
// at the state limit.
func (b *bfsRun) end(l *bfsLevel) bool {
	s, depth := b.s, b.depth
	// Keyed workers leave the successors that repeat one met longer
	// ago to the visited set: about 2% of those they build in
	// chang-roberts, but a fifth in bully-broken. Where more than one
	// in 16 repeats, a local set drops them in the next level before
	// they fill the level's buckets.
	var passed int64
	for _, x := range l.xs {
		passed += int64(x.seq)
	}
	repeats := passed - (s.states.Load() - l.statesBefore)
	b.local = repeats*16 > passed
	var cur *level
	if l.merge != nil {
		cur = l.merge.finish(s.parallel)
	} else {
		cur = mergeChunks(l.out, &b.chunks, &b.order, s.parallel)
	}
	b.cur = cur
	if cur.n > 0 {
		s.depth.Store(int64(depth + 1))
	}
	// What a checkpoint saves if the search ends here: the search as it
	// was when it stored the level, before checking it (with checks
	// deferred), so that resuming checks it against what the search
	// wanted then.
	next := s.mark()
	next.level, next.depth = cur, int64(depth+1)
	s.expectSave(next)
	if cur.n == 0 && !l.limited && !l.short.Load() {
		// The last level had no new successor: the end of the search,
		// at the depth it reports, whatever stops it from now on.
		s.exhausted = true
		next.depth = s.depth.Load()
		s.saveBeforeLiveness(next)
	}
	if b.deferred && (s.done() || s.stopped() || l.limited) {
		// The search ends with this level stored but not expanded.
		s.checkStored(cur, depth)
	}
	if s.done() || s.stopped() {
		if !s.done() && !l.limited && cur.n > 0 && s.checkpointDue() && s.incomplete == "" {
			s.saveCheckpoint(next)
		}
		return true
	}
	if l.limited {
		s.cutShort(StateLimit, fmt.Sprintf("state limit reached (--max-states %d)", s.cfg.MaxStates))
		return true
	}
	return false
}
