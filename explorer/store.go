package explorer

import (
	"fmt"
)

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
	// short: the memory limit or a stop ended it before it had looked at
	// every candidate of its shard.
	short bool
	// merge, with several workers, merges the chunks the inserters have
	// stored (levelMerge); trunc, after a cut, is where each worker's
	// bucket of the shard is to end (cutAfter, truncate).
	merge *levelMerge
	trunc []int
	// sym and bound are the worker as a symmetry worker and as a Bounder,
	// or nil, once hooked is set: insert asks both about every new state,
	// with the type assertions made once (orbitOf and inBound each made
	// one per state, 1.2% of a 2-worker search's time in chang-roberts).
	sym    *symWorker
	bound  Bounder
	hooked bool
	_      [64]byte
}

// run inserts and checks the candidates of shard in.sh, chunk after chunk
// (so in canonical order), from the stretches ch.span(c, in.sh) of the
// buckets out.
func (in *inserter) run(out [][]*bucket, ch *chunks, fail *bfsFound, failErr *error) {
	s := in.s
	defer func() {
		if p := recover(); p != nil {
			fail.offer(in.rank, in.act, in.fp, in.ref)
			*failErr = fmt.Errorf("the model panicked while checking a state: %v", p)
		}
	}()
	m := s.shards[in.sh]
	wk := s.workers[in.sh]
	// With one bucket, the level is the bucket itself (mergeChunks), its
	// one chunk the whole of it: the candidates kept are moved together.
	// With several, the candidates dropped are left in place as holes,
	// which the merge skips: moving the others would write the level's
	// states once more, from the core that stores this shard, and the
	// core that expands them next would have to fetch them back from it.
	compact := len(out) == 1
	// A stop ends the store within 256 candidates, leaving the level
	// stored in part, as the memory limit does; not with a checkpoint,
	// which saves the level boundary after it and needs the level whole.
	stoppable := s.cfg.Checkpoint == nil
	for c := range ch.count() {
		sp := ch.span(c, in.sh)
		b := out[sp.w][in.sh]
		// kept counts the candidates kept (compact), holes those dropped
		// (not compact), and the stretch ends at end; stop ends the
		// shard's candidates there.
		kept, holes, end, stop := sp.lo, 0, sp.hi, false
		for k := sp.lo; k < sp.hi; k++ {
			if stoppable && (k-sp.lo)&255 == 0 && s.stopped() {
				end, stop = k, true
				in.short = true
				break
			}
			h := b.fp(k)
			if (k-sp.lo)%touchBatch == 0 {
				m.fps.touch(b.fpSpan(k, min(touchBatch, sp.hi-k)))
			}
			if in.limited && in.cutoff.less(b.bfsKey(k)) {
				// Beyond the state limit, and so is every later candidate
				// of this shard (the chunks are in key order).
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
			switch _, keep := in.insert(m, wk, b, k, h, fail, failErr); {
			case keep && compact:
				b.keep(k, kept)
				kept++
			case !keep && !compact:
				b.setRef(k, holeRef)
				b.segs[k>>segShift].holes++
				holes++
			}
		}
		if compact {
			b.truncate(kept)
			sp.hi = kept
		} else {
			sp.hi, sp.holes = end, holes
		}
		if stop {
			in.cutAfter(out, ch, c)
			break
		}
		if in.merge != nil {
			in.merge.stored(in.sh, c+1)
		}
	}
	// Every stretch of the shard is final (not after a panic, which
	// ends the search).
	if in.merge != nil {
		in.merge.stored(in.sh, ch.count())
	}
}

// cutAfter leaves out the candidates of shard in.sh beyond the end of
// chunk c's stretch, where the store stopped: the stretches of the later
// chunks are emptied, and each worker's bucket is to give back what lies
// past its last stretch kept (truncate), once no one merges the level's
// chunks.
func (in *inserter) cutAfter(out [][]*bucket, ch *chunks, c int) {
	sh := in.sh
	cut := make([]int, len(out)) // per worker: where its bucket ends
	for w := range out {
		cut[w] = out[w][sh].len()
	}
	sp := ch.span(c, sh)
	cut[sp.w] = sp.hi
	for c2 := c + 1; c2 < ch.count(); c2++ {
		sp := ch.span(c2, sh)
		if sp.lo < sp.hi {
			// A worker's stretches follow each other in chunk order: its
			// first later one starts what is left out of its bucket.
			cut[sp.w] = min(cut[sp.w], sp.lo)
		}
		sp.hi, sp.holes = sp.lo, 0
	}
	in.trunc = cut
}

// truncate gives back what the buckets of the inserter's shard hold past
// its cut (cutAfter). It runs after phase 2, while no one merges: a
// bucket's segments are read by the merge of the chunks stored before the
// cut.
func (in *inserter) truncate(out [][]*bucket) {
	for w, n := range in.trunc {
		out[w][in.sh].truncate(n)
	}
	in.trunc = nil
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
		in.raw -= o // RawStates, like States, counts the states within the constraint
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
