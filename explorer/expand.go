package explorer

import (
	"fmt"
)

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
	// xp is what the worker is asked to do with each state (Expand);
	// under reduction, full is the full expansion of a state whose
	// reduced successors include a visited one.
	xp, full        Expansion
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
	// checks found in the chunks it expanded.
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
	depth       int // the level's, for Config.OnExpand
	// release: give back the memory of the states expanded (releaser).
	release bool
	_       [64]byte
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
	kept := x.from[0]
	defer func() {
		b.truncate(kept)
		x.from[0], x.fresh = kept, 0
		if p := recover(); p != nil {
			in.fail.offer(in.rank, in.act, in.fp, in.ref)
			in.failErr = fmt.Errorf("the model panicked while checking a state: %v", p)
		}
	}()
	for k, n := kept, b.len(); k < n; {
		fps := b.fpSpan(k, n-k)
		m.fps.touch(fps)
		k += len(fps)
	}
	for k, n := kept, b.len(); k < n; k++ {
		h := b.fp(k)
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
		for k, n := x.from[sh], b.len(); k < n; {
			fps := b.fpSpan(k, n-k)
			x.local.touch(fps)
			k += len(fps)
		}
	}
	for sh, b := range x.out {
		kept := x.from[sh]
		for k, n := kept, b.len(); k < n; k++ {
			if x.local.insert(b.fp(k)) {
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
			b.clearVerdict(k)
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
	r, err := wk.Expand(st, &x.xp)
	if err == nil {
		err = r.CheckErr
	}
	if err != nil {
		return err
	}
	if !r.All {
		for k := range x.ample.len() {
			if h := x.ample.fp(k); x.s.shards[x.s.shard(h)].Has(h) {
				x.a, x.live = 0, 0
				return expandFully(wk, st, &x.full)
			}
		}
		x.reduced++
	}
	for k := range x.ample.len() {
		x.offer(x.ample.state(k), x.ample.fp(k), x.ample.act(k))
	}
	return nil
}

// run expands, for worker w, the chunks of the level cur it claims (see
// chunks), one after the other, until none is left or the search stops.
func (x *expander) run(w int, cur *level, ch *chunks, dead, fail *bfsFound, failErr *error) {
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
	x.wk = s.workers[w]
	x.emitFn, x.emitReducedFn = x.emit, x.emitReduced
	x.offerKeyFn, x.emitKeyedFn = x.offerKey, x.emitKeyed
	switch {
	case s.reduce && x.expand:
		x.xp = Expansion{Reduce: true, Emit: x.emitReducedFn}
		x.full = Expansion{Emit: x.emitFn}
	case x.keyed:
		x.xp = Expansion{Want: x.want, Stop: s.assert, Offer: x.offerKeyFn, Emit: x.emitKeyedFn}
	default:
		x.xp = Expansion{Want: x.want, Stop: s.assert, Emit: x.emitFn}
	}
	s.covering(w, &x.xp)
	var rel *releaser
	if x.release {
		rel = newReleaser(cur)
	}
	for i := 0; ; i++ {
		c, ok := ch.claim(w, i)
		if !ok || s.stopped() {
			return
		}
		// The candidates kept so far are deduplicated (and checked), so
		// the chunk's stretch of each bucket starts at its end.
		for sh, b := range x.out {
			*ch.span(c, sh) = span{w: w, lo: b.len(), hi: b.len()}
		}
		if x.rec != nil {
			// A graph chunk of its own, whose edges of repeated states
			// point into it (edgeAgain).
			x.rec.next()
			ch.graph[c] = x.rec.c
			if x.keyed {
				clear(x.recent.keys[:])
			}
		}
		lo, hi := ch.bounds[c], ch.bounds[c+1]
		more := x.chunk(w, cur, lo, hi, rel, dead, fail, failErr)
		for sh, b := range x.out {
			ch.span(c, sh).hi = b.len()
		}
		ch.ends[c] = x.r
		if !more {
			return
		}
	}
}

// chunk expands the ranks lo to hi of the level cur, and reports whether
// the worker goes on to another chunk: not after a stop, the memory limit
// or a panic of the model.
func (x *expander) chunk(w int, cur *level, lo, hi int, rel *releaser, dead, fail *bfsFound, failErr *error) (more bool) {
	s, wk := x.s, x.wk
	defer func() {
		// A Model that panics instead of returning an error fails the
		// search like one that returns it.
		if p := recover(); p != nil {
			_, fp, ref := cur.get(x.r)
			fail.offer(int64(x.r), 0, fp, ref)
			*failErr = fmt.Errorf("the model panicked: %v", p)
			more = false
		}
	}()
	reduce := s.reduce && x.expand
	released := lo
	for x.r = lo; x.r < hi; x.r++ {
		if x.fresh >= dedupeBatch {
			x.dedupe()
		}
		if rel != nil && x.r-released >= releaseEvery {
			rel.expanded(released, x.r)
			released = x.r
		}
		if x.r&255 == 0 {
			if x.r > lo {
				s.expanded.Add(256) // about: chunks need not start at a multiple
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
		if hook := s.cfg.OnExpand; hook != nil {
			info := ExpandInfo{Worker: w, State: st, Fingerprint: fp, Depth: x.depth, Transitions: int(x.a), Terminal: x.live == 0}
			if err := hook(info); err != nil {
				fail.offer(int64(x.r), 0, fp, ref)
				if *failErr == nil {
					*failErr = err
				}
				continue
			}
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
	more = x.r == hi
	// What is pending is deduplicated (and checked) before the chunk's
	// stretches end; the states expanded give their memory back.
	x.dedupe()
	if rel != nil {
		rel.expanded(released, x.r)
	}
	return more
}
