package cluster

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/zeebo/xxh3"
)

// flushEvery is how many batches a rank publishes before it waits for the
// server to take them (nats.Conn.Flush): the bound on batches in flight.
const flushEvery = 16

// search runs the levels until the search ends, with the same decisions
// on every rank.
func (e *engine) search() error {
	cur, err := e.initial()
	if err != nil {
		return err
	}
	nprops := len(e.props)
	for L := uint32(0); ; L++ {
		mine := e.expand(L, cur)
		e.owned += int64(cur.len())
		if e.halt.Load() || e.cfg.Context.Err() != nil {
			// The expansion was cut short: a done message would pass a
			// part of the level off as the whole.
			return e.wait(fmt.Sprintf("expanding level %d", L), func() bool { return false }, time.Time{})
		}
		if err := e.sendDone(L, mine); err != nil {
			return err
		}
		early := e.cfg.mutant == mutantEarlyClose
		what := fmt.Sprintf("closing level %d", L)
		if err := e.wait(what, func() bool { c := e.cands[L]; return c != nil && c.closed(early) }, time.Time{}); err != nil {
			return err
		}
		e.mu.Lock()
		c := e.cands[L]
		e.closedBelow = L + 1
		e.mu.Unlock()
		if e.cfg.mutant == mutantEarlyClose {
			// The mistake: the last batches go after the done messages,
			// once this rank closed the level on the done messages alone.
			for _, b := range mine.late {
				e.publish(e.dataSubject(b.dest, L), b.msg)
			}
		}
		// Every rank decides from the same K parts.
		var size, trans, terminal, asserted int64
		viol := make([]found, nprops+1)
		var fail found
		failMsg := ""
		for r, p := range c.done {
			size += p.states
			trans += p.trans
			terminal += p.terminal
			asserted += p.asserted
			for k := range viol {
				if k < len(p.viol) && p.viol[k].ok {
					viol[k].offer(p.viol[k].fp)
				}
			}
			if p.fail.ok && (!fail.ok || p.fail.fp < fail.fp) {
				fail, failMsg = p.fail, fmt.Sprintf("rank %d: %s", r, p.failMsg)
			}
		}
		if size == 0 {
			e.exhausted = true
			return nil
		}
		e.states += size
		e.depth = int(L)
		if fail.ok {
			e.fail, e.failMsg = &violation{prop: -1, fp: fail.fp}, failMsg
			return nil
		}
		for k := range nprops {
			if viol[k].ok {
				e.viols = append(e.viols, violation{prop: k, fp: viol[k].fp})
			}
		}
		if len(e.viols) > 0 {
			// As the explorer: the level's transitions do not count, and
			// a level none of whose states may be expanded is not reached.
			if asserted == size && L > 0 {
				e.depth = int(L) - 1
			}
			return nil
		}
		e.trans += trans
		e.terminal += terminal
		if viol[nprops].ok {
			e.viols = append(e.viols, violation{prop: nprops, fp: viol[nprops].fp})
			return nil
		}
		cur = e.commit(L)
		e.logf("cluster: rank %d: level %d closed: %d states in all, %d in the next level's part of this rank", e.me, L, e.states, cur.len())
	}
}

// initial returns the initial states this rank owns, each stored once
// with its first index among the initial states.
func (e *engine) initial() (*states, error) {
	cur := &states{}
	i := 0
	// The other ranks may send successors of level 0 already: the
	// visited set is theirs to read too.
	e.mu.Lock()
	defer e.mu.Unlock()
	err := explorer.EachInitial(e.m, func(st []byte) bool {
		fp := xxh3.Hash(st)
		if e.owner(fp) == e.me {
			if _, ok := e.visited[fp]; !ok {
				e.visited[fp] = rec{act: uint32(i), init: true}
				cur.add(st, fp)
			}
		}
		i++
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("initial states: %w", err)
	}
	return cur, nil
}

// commit stores the candidates of level L that earlier levels do not
// hold: the rank's part of level L+1.
func (e *engine) commit(L uint32) *states {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.cands[L]
	delete(e.cands, L)
	next := &states{}
	for i, fp := range c.sts.fps {
		if _, ok := e.visited[fp]; ok {
			continue
		}
		e.visited[fp] = rec{pred: c.preds[i], act: c.acts[i]}
		next.add(c.sts.state(i), fp)
	}
	return next
}

// sendDone tells every rank that this one expanded its part of level L,
// how many batches it sent it, and its part of the level's figures.
func (e *engine) sendDone(L uint32, mine *levelPart) error {
	for d := range e.K {
		p := mine.part
		p.batches = mine.batches[d].Load()
		e.publish(e.dataSubject(d, L), p.encode(header(nil, kindDone, L, e.me)))
	}
	e.flush()
	return nil
}

// levelPart is what this rank's expansion of a level gave.
type levelPart struct {
	part
	batches []sentCount // per destination
	late    []lateBatch // mutantEarlyClose: batches held back
	mu      sync.Mutex
}

type sentCount struct{ n int64 }

func (s *sentCount) Load() int64 { return s.n }

type lateBatch struct {
	dest int
	msg  []byte
}

// expand expands the states of level L this rank owns with its workers,
// sends their successors to their owners and returns its part.
func (e *engine) expand(L uint32, cur *states) *levelPart {
	W := len(e.workers)
	nprops := len(e.props)
	lp := &levelPart{batches: make([]sentCount, e.K)}
	lp.viol = make([]found, nprops+1)
	lp.states = int64(cur.len())
	parts := make([]part, W)
	var wg sync.WaitGroup
	for w := range W {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lo, hi := cur.len()*w/W, cur.len()*(w+1)/W
			parts[w] = e.expandRange(L, cur, lo, hi, e.workers[w], lp)
		}()
	}
	wg.Wait()
	for _, p := range parts {
		lp.trans += p.trans
		lp.terminal += p.terminal
		lp.asserted += p.asserted
		for k, f := range p.viol {
			if f.ok {
				lp.viol[k].offer(f.fp)
			}
		}
		if p.fail.ok && (!lp.fail.ok || p.fail.fp < lp.fail.fp) {
			lp.fail, lp.failMsg = p.fail, p.failMsg
		}
	}
	e.expanded += lp.trans
	return lp
}

// expandRange expands the states lo to hi of cur with worker wk.
func (e *engine) expandRange(L uint32, cur *states, lo, hi int, wk explorer.Worker, lp *levelPart) (p part) {
	nprops := len(e.props)
	p.viol = make([]found, nprops+1)
	bufs := make([][]byte, e.K)
	for d := range bufs {
		bufs[d] = header(make([]byte, 0, e.cfg.batchBytes+1024), kindBatch, L, e.me)
	}
	send := func(d int, last bool) {
		if len(bufs[d]) == headerLen {
			return
		}
		msg := bufs[d]
		bufs[d] = header(make([]byte, 0, e.cfg.batchBytes+1024), kindBatch, L, e.me)
		e.sendBatch(L, d, msg, last, lp)
	}
	var fp uint64
	var a, live uint32
	x := explorer.Expansion{Want: e.want, Stop: e.assert, Emit: func(t explorer.Transition, next []byte) {
		if !t.Fault {
			live++
		}
		h := xxh3.Hash(next)
		d := e.owner(h)
		if e.cfg.mutant == mutantWrongRank {
			d = (d + 1) % e.K
		}
		bufs[d] = appendEntry(bufs[d], next, fp, a)
		a++
		if len(bufs[d]) >= e.cfg.batchBytes {
			send(d, false)
		}
	}}
	failed := func(err error) {
		if !p.fail.ok || fp < p.fail.fp {
			p.fail, p.failMsg = found{ok: true, fp: fp}, err.Error()
		}
	}
	defer func() {
		if r := recover(); r != nil {
			failed(fmt.Errorf("the model panicked: %v", r))
		}
		for d := range bufs {
			send(d, true)
		}
	}()
	for i := lo; i < hi; i++ {
		if i&255 == 0 && (e.halt.Load() || e.cfg.Context.Err() != nil) {
			break
		}
		st := cur.state(i)
		fp, a, live = cur.fps[i], 0, 0
		r, err := wk.Expand(st, &x)
		if r.CheckErr != nil {
			failed(r.CheckErr)
			continue
		}
		eachBit(r.Violated, func(k int) { p.viol[k].offer(fp) })
		if r.Violated&e.assert != 0 {
			p.asserted++
			continue // a broken model assumption: not expanded
		}
		p.trans += int64(a)
		if err != nil {
			failed(err)
			continue
		}
		if live == 0 {
			p.terminal++
			if e.checkDL {
				ok, err := wk.ValidEnd(st)
				switch {
				case err != nil:
					failed(err)
				case !ok:
					p.viol[nprops].offer(fp)
				}
			}
		}
	}
	return p
}

// sendBatch sends a batch to rank d, or delivers it here when d is this
// rank. last marks a worker's last batch of the level, which
// mutantEarlyClose holds back until after the done messages.
func (e *engine) sendBatch(L uint32, d int, msg []byte, last bool, lp *levelPart) {
	if d == e.me && e.cfg.mutant != mutantWrongRank {
		e.mu.Lock()
		c := e.cands[L]
		if c == nil {
			c = newCandidates(e.K)
			e.cands[L] = c
		}
		if err := e.deliverLocked(c, msg[headerLen:]); err != nil {
			e.haltLocked(&stop{reason: err.Error()})
		}
		e.mu.Unlock()
		return
	}
	lp.mu.Lock()
	lp.batches[d].n++
	if last && e.cfg.mutant == mutantEarlyClose {
		lp.late = append(lp.late, lateBatch{dest: d, msg: msg})
		lp.mu.Unlock()
		return
	}
	lp.mu.Unlock()
	e.sentBatches.Add(1)
	e.sentBytes.Add(int64(len(msg)))
	e.publish(e.dataSubject(d, L), msg)
	if e.publishing.Add(1)%flushEvery == 0 {
		e.flush()
	}
}

// eachBit calls fn with the index of every bit set in mask, lowest first.
func eachBit(mask uint64, fn func(int)) {
	for k := 0; mask != 0; k, mask = k+1, mask>>1 {
		if mask&1 != 0 {
			fn(k)
		}
	}
}

// result builds the search's Result from the levels closed.
func (e *engine) result() *explorer.Result {
	r := &explorer.Result{Strategy: explorer.BFS, Workers: e.K * len(e.workers),
		States: e.states, Transitions: e.trans, Depth: e.depth, Terminal: e.terminal,
		Elapsed: time.Since(e.start), PeakMemory: peakMemory()}
	safety := e.exhausted && e.fail == nil
	r.Exhaustive = safety
	all := append(append([]properties.Info(nil), e.props...), properties.DeadlockInfo)
	for k, p := range all {
		pr := explorer.PropertyResult{Info: p, Verdict: explorer.Unknown}
		met := slices.ContainsFunc(e.viols, func(v violation) bool { return v.prop == k })
		switch {
		case !e.selected(p.Name) && p.Kind != properties.Assertion:
			pr.Verdict = explorer.Skipped
		case met:
			pr.Verdict = explorer.ViolatedVerdict
		case safety:
			pr.Verdict = explorer.Holds
		}
		r.Properties = append(r.Properties, pr)
	}
	for _, p := range e.live {
		r.Properties = append(r.Properties, explorer.PropertyResult{Info: p, Verdict: explorer.Skipped})
	}
	for _, v := range e.viols {
		r.Violations = append(r.Violations, explorer.Violation{Property: all[v.prop].Name, Kind: all[v.prop].Kind, Process: -1})
	}
	switch {
	case e.fail != nil:
		r.Status, r.Reason = explorer.Failed, e.failMsg
		r.Err = fmt.Errorf("%s", e.failMsg)
	case len(r.Violations) > 0:
		r.Status = explorer.Violated
	case !safety:
		r.Status = explorer.Incomplete
	default:
		r.Status = explorer.OK
	}
	return r
}

// traces rebuilds, on rank 0, the path to each violation (and to the
// failure) by asking the owners of the states back along the chain of
// predecessors, and replays it.
func (e *engine) traces(res *explorer.Result) {
	for i, v := range e.viols {
		t, err := e.trace(v.fp)
		if err != nil {
			if res.Err == nil {
				res.Err = err
			}
			continue
		}
		res.Violations[i].Trace = t
	}
	if e.fail != nil {
		if t, err := e.trace(e.fail.fp); err == nil {
			res.Failure = &t
		}
	}
}

// trace rebuilds the path to the state with fingerprint fp.
func (e *engine) trace(fp uint64) (explorer.Trace, error) {
	var acts []uint32
	var fps []uint64
	for cur := fp; ; {
		r, err := e.askPred(cur)
		if err != nil {
			return explorer.Trace{}, err
		}
		if !r.known {
			return explorer.Trace{}, fmt.Errorf("cluster: rank %d does not hold state %016x of a counterexample", e.owner(cur), cur)
		}
		if r.init {
			slices.Reverse(acts)
			slices.Reverse(fps)
			return explorer.Replay(e.m, int(r.act), acts, fps)
		}
		if len(acts) > e.depth+1 {
			return explorer.Trace{}, fmt.Errorf("cluster: the chain of predecessors of state %016x is longer than the search's depth %d", fp, e.depth)
		}
		acts, fps = append(acts, r.act), append(fps, cur)
		cur = r.pred
	}
}

// askPred asks the owner of the state fp for its predecessor.
func (e *engine) askPred(fp uint64) (predReply, error) {
	o := e.owner(fp)
	if o == e.me {
		return e.predOf(fp), nil
	}
	msg, err := e.nc.Request(e.predSubject(o), binary.LittleEndian.AppendUint64(nil, fp), e.cfg.Timeout)
	if err != nil {
		return predReply{}, fmt.Errorf("cluster: asking rank %d for the predecessor of state %016x: %w", o, fp, err)
	}
	return decodePredReply(msg.Data)
}

// flush waits until the server has what this rank sent; a server that
// does not answer within the timeout stops the run.
func (e *engine) flush() {
	if err := e.nc.FlushTimeout(e.cfg.Timeout); err != nil {
		how := "did not answer"
		if !e.nc.IsConnected() {
			how = "was unreachable"
		}
		e.haltWith(&stop{reason: fmt.Sprintf("the NATS server %s %s for %v (rank %d: %v)", e.cfg.Server, how, e.cfg.Timeout, e.me, err)})
	}
}
