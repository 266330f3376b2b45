package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/zeebo/xxh3"
)

// Outcome is what one rank's run gives.
type Outcome struct {
	// Result holds the whole search's figures and verdicts: every rank
	// has them. The counterexamples' traces are rebuilt on rank 0 only.
	Result *explorer.Result
	// Share is this rank's part of the work.
	Share Share
}

// Share is one rank's part of a run.
type Share struct {
	Rank        int   `json:"rank"`
	Ranks       int   `json:"ranks"`
	States      int64 `json:"states"`      // the states it owns
	Transitions int64 `json:"transitions"` // of the states it expanded
	// Batches and Bytes count the batches it sent to the other ranks
	// and their size, headers included; Received the batches it got.
	Batches  int64         `json:"batches_sent"`
	Bytes    int64         `json:"bytes_sent"`
	Received int64         `json:"batches_received"`
	Elapsed  time.Duration `json:"elapsed_ns"`
}

// String is the one line a rank other than 0 prints.
func (s Share) String() string {
	per := 0.0
	if s.States > 0 {
		per = float64(s.Bytes) / float64(s.States)
	}
	return fmt.Sprintf("rank %d of %d: %d states owned, %d transitions expanded, %d batches (%d bytes, %.1f bytes per state owned) sent, %d received, %.1fs",
		s.Rank, s.Ranks, s.States, s.Transitions, s.Batches, s.Bytes, per, s.Received, s.Elapsed.Seconds())
}

// stop ends a run before the search did: a usage error (ranks that
// disagree) or an incomplete run (a rank or the server lost).
type stop struct {
	usage  bool
	reason string
	remote bool // another rank stopped the run, and told every rank
}

func (s *stop) Error() string { return s.reason }

// Run runs rank cfg.Rank of a distributed breadth-first search of m and
// returns when the search ended, on every rank. An error is a usage error
// (errors.Is ErrUsage), or the model's or an internal one; an incomplete
// run is an Outcome whose Result is Incomplete.
func Run(m explorer.Model, cfg Config) (*Outcome, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	e := &engine{cfg: cfg, m: m, K: cfg.Ranks, me: cfg.Rank, start: time.Now(), notify: make(chan struct{}, 1),
		visited: map[uint64]rec{}, cands: map[uint32]*candidates{}, joined: map[int]join{},
		lastSeen: make([]atomic.Int64, cfg.Ranks)}
	if err := e.setup(); err != nil {
		return nil, err
	}
	if cfg.Embedded != 0 {
		srv, err := startEmbedded(cfg.Embedded, cfg.Timeout)
		if err != nil {
			return nil, err
		}
		defer srv.Shutdown()
	}
	nc, err := connect(cfg.Server, fmt.Sprintf("vacheck %s rank %d", cfg.Run, cfg.Rank), cfg.Timeout, e.lost, e.found)
	if err != nil {
		// A server that never came is a rank that could not join.
		return e.incomplete(err.Error()), nil
	}
	defer nc.Close()
	e.nc = nc
	e.prefix = "vacheck." + cfg.Run
	if err := e.subscribe(); err != nil {
		return e.incomplete(err.Error()), nil
	}
	hb := make(chan struct{})
	var hbWG sync.WaitGroup
	hbWG.Add(1)
	go func() { defer hbWG.Done(); e.heartbeat(hb) }()
	defer func() { close(hb); hbWG.Wait() }()

	if err := e.join(); err != nil {
		return e.ended(err)
	}
	if err := e.search(); err != nil {
		return e.ended(err)
	}
	res := e.result()
	if e.me == 0 {
		e.traces(res)
	}
	e.finish()
	return &Outcome{Result: res, Share: e.share()}, nil
}

// engine is one rank.
type engine struct {
	cfg             Config
	m               explorer.Model
	K, me           int
	start           time.Time
	props           []properties.Info
	live            []properties.Info // liveness properties, not selected
	want, assert    uint64
	checkDL         bool
	workers         []explorer.Worker
	nc              *nats.Conn
	prefix          string
	nonce           uint64
	sentBatches     atomic.Int64
	sentBytes       atomic.Int64
	received        atomic.Int64
	publishing      atomic.Int64 // batches since the last flush
	halt            atomic.Bool  // the workers stop expanding
	owned, expanded int64        // this rank's share
	// lastSeen[r] is when rank r was last heard from (UnixNano), 0
	// before the run started; atomic, so that a heartbeat is taken in
	// while the rank holds mu for a long commit.
	lastSeen []atomic.Int64

	mu      sync.Mutex
	notify  chan struct{}
	visited map[uint64]rec
	cands   map[uint32]*candidates
	joined  map[int]join // rank 0: the ranks that joined
	started bool
	stopped *stop // the first reason to stop
	// closedBelow: the levels below it are closed.
	closedBelow uint32
	down        time.Time
	byes        int
	finished    bool

	// The figures of the levels closed so far.
	states, trans, terminal int64
	depth                   int
	exhausted               bool
	viols                   []violation
	fail                    *violation
	failMsg                 string
}

// violation is a property (or deadlock, the last index) violated at the
// state with fingerprint fp.
type violation struct {
	prop int
	fp   uint64
}

// setup reads the model's properties and makes the workers.
func (e *engine) setup() error {
	e.props = e.m.Properties()
	if len(e.props) > 63 {
		return usagef("the model has %d properties; a distributed run takes at most 63", len(e.props))
	}
	for k, p := range e.props {
		sel := e.selected(p.Name)
		if sel && p.Kind == properties.Reachable {
			return usagef("--cluster: %s is a reachability property, which a distributed run does not check; run it without --cluster, or leave it out with --property", p.Name)
		}
		if sel || p.Kind == properties.Assertion {
			e.want |= 1 << uint(k)
		}
		if p.Kind == properties.Assertion {
			e.assert |= 1 << uint(k)
		}
	}
	e.checkDL = e.selected(properties.DeadlockFreedom)
	if lm, ok := e.m.(explorer.LiveModel); ok {
		for _, p := range lm.Liveness() {
			if e.selected(p.Name) {
				return usagef("--cluster: %s is a liveness property, which a distributed run does not check (it needs the whole state graph in one place); run it without --cluster, or select safety properties with --property", p.Name)
			}
			e.live = append(e.live, p.Info)
		}
	}
	for range e.cfg.Workers {
		w := e.m.NewWorker()
		if _, ok := w.(explorer.Bounder); ok {
			return usagef("--cluster: the model declares a state constraint (a bound), which a distributed run does not support; run it without --cluster")
		}
		e.workers = append(e.workers, w)
	}
	e.nonce = rand.Uint64()
	return nil
}

func (e *engine) selected(name string) bool {
	return e.cfg.Properties == nil || slices.Contains(e.cfg.Properties, name)
}

func (e *engine) dataSubject(rank int, level uint32) string {
	return fmt.Sprintf("%s.data.r%d.l%d", e.prefix, rank, level)
}

func (e *engine) predSubject(rank int) string { return fmt.Sprintf("%s.pred.r%d", e.prefix, rank) }

func (e *engine) ctlSubject() string { return e.prefix + ".ctl" }

// owner is the rank that owns the state with fingerprint fp.
func (e *engine) owner(fp uint64) int { return int(fp % uint64(e.K)) }

// poke wakes the goroutine waiting in wait.
func (e *engine) poke() {
	select {
	case e.notify <- struct{}{}:
	default:
	}
}

// halt stops the run for reason s, once; the caller holds mu.
func (e *engine) haltLocked(s *stop) {
	if e.stopped == nil {
		e.stopped = s
	}
	e.halt.Store(true)
	e.poke()
}

func (e *engine) haltWith(s *stop) {
	e.mu.Lock()
	e.haltLocked(s)
	e.mu.Unlock()
}

func (e *engine) lost(err error) {
	e.mu.Lock()
	if e.down.IsZero() {
		e.down = time.Now()
	}
	e.mu.Unlock()
	e.poke()
}

func (e *engine) found() {
	e.mu.Lock()
	e.down = time.Time{}
	e.mu.Unlock()
	e.poke()
}

// subscribe listens on the rank's data and predecessor subjects and on
// the run's control subject.
func (e *engine) subscribe() error {
	subs := []struct {
		subject string
		fn      nats.MsgHandler
	}{
		{fmt.Sprintf("%s.data.r%d.*", e.prefix, e.me), e.onData},
		{e.ctlSubject(), e.onControl},
		{e.predSubject(e.me), e.onPred},
	}
	for _, s := range subs {
		sub, err := e.nc.Subscribe(s.subject, s.fn)
		if err != nil {
			return fmt.Errorf("subscribing to %s: %w", s.subject, err)
		}
		// The rank reads everything sent to it: a limit would drop
		// batches, which the counts would catch, but as a lost run.
		if err := sub.SetPendingLimits(-1, -1); err != nil {
			return fmt.Errorf("subscribing to %s: %w", s.subject, err)
		}
	}
	if err := e.nc.FlushTimeout(e.cfg.Timeout); err != nil {
		return fmt.Errorf("subscribing on the NATS server: %w", err)
	}
	return nil
}

// publish sends msg on subject; a failure stops the run as incomplete.
func (e *engine) publish(subject string, msg []byte) {
	if err := e.nc.Publish(subject, msg); err != nil {
		e.haltWith(&stop{reason: fmt.Sprintf("rank %d could not send to the NATS server: %v", e.me, err)})
	}
}

func (e *engine) onData(msg *nats.Msg) {
	kind, level, from, body, err := parseHeader(msg.Data)
	if err != nil || from >= e.K {
		e.haltWith(&stop{reason: fmt.Sprintf("rank %d received a malformed message on %s", e.me, msg.Subject)})
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if level < e.closedBelow {
		// Every batch of a closed level was counted in: this one was not.
		e.haltLocked(&stop{reason: fmt.Sprintf("internal error: rank %d received a message of level %d from rank %d after it closed the level", e.me, level, from)})
		return
	}
	c := e.cands[level]
	if c == nil {
		c = newCandidates(e.K)
		e.cands[level] = c
	}
	switch kind {
	case kindBatch:
		e.received.Add(1)
		c.got[from]++
		if err := e.deliverLocked(c, body); err != nil {
			e.haltLocked(&stop{reason: err.Error()})
		}
	case kindDone:
		p, err := decodePart(body)
		if err != nil {
			e.haltLocked(&stop{reason: fmt.Sprintf("rank %d received a malformed done message from rank %d", e.me, from)})
			return
		}
		if c.done[from] == nil {
			c.ndone++
		}
		c.done[from] = &p
	}
	e.poke()
}

// deliverLocked adds the successors of a batch to the candidates c of its
// level; the caller holds mu.
func (e *engine) deliverLocked(c *candidates, body []byte) error {
	var wrong error
	err := eachEntry(body, func(st []byte, pred uint64, act uint32) {
		fp := xxh3.Hash(st)
		if o := e.owner(fp); o != e.me {
			if wrong == nil {
				wrong = fmt.Errorf("internal error: rank %d received state %016x, which rank %d owns", e.me, fp, o)
			}
			return
		}
		if _, ok := e.visited[fp]; ok {
			return
		}
		c.offer(st, fp, pred, act)
	})
	if err != nil {
		return fmt.Errorf("rank %d received a malformed batch: %w", e.me, err)
	}
	return wrong
}

func (e *engine) onControl(msg *nats.Msg) {
	kind, _, from, body, err := parseHeader(msg.Data)
	if err != nil || from >= e.K {
		return // not ours to judge: another program on the subject
	}
	if t := &e.lastSeen[from]; t.Load() != 0 {
		t.Store(time.Now().UnixNano())
	}
	if kind == kindHeartbeat {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	switch kind {
	case kindJoin:
		j, err := decodeJoin(body)
		if err != nil || e.me != 0 {
			break
		}
		if prev, ok := e.joined[from]; ok && prev.nonce != j.nonce || from == 0 && j.nonce != e.nonce {
			e.sendAbortLocked(&stop{usage: true, reason: fmt.Sprintf("--rank %d: two processes claim rank %d of run %s; give each rank its own --rank, and each run its own --cluster-run", from, from, e.cfg.Run)})
			break
		}
		if j.digest != e.cfg.Digest {
			e.sendAbortLocked(&stop{usage: true, reason: fmt.Sprintf("rank %d runs a different model, parameters or engine flags than rank 0 (digest %.12s, rank 0's %.12s): every rank must be given the same command but for --rank", from, j.digest, e.cfg.Digest)})
			break
		}
		e.joined[from] = j
		if e.started {
			e.publishLocked(e.ctlSubject(), header(nil, kindStart, 0, e.me)) // it missed the start
		}
	case kindStart:
		e.started = true
	case kindAbort:
		a, err := decodeAbort(body)
		if err == nil && from != e.me {
			e.haltLocked(&stop{usage: a.usage, reason: a.reason, remote: true})
		}
	case kindFinish:
		if from == 0 {
			e.finished = true
		} else {
			e.byes++
		}
	}
	e.poke()
}

// publishLocked is publish for a caller that holds mu.
func (e *engine) publishLocked(subject string, msg []byte) {
	if err := e.nc.Publish(subject, msg); err != nil {
		e.haltLocked(&stop{reason: fmt.Sprintf("rank %d could not send to the NATS server: %v", e.me, err)})
	}
}

// sendAbortLocked stops the run for every rank.
func (e *engine) sendAbortLocked(s *stop) {
	s.remote = true
	e.publishLocked(e.ctlSubject(), abort{usage: s.usage, reason: s.reason}.encode(header(nil, kindAbort, 0, e.me)))
	e.haltLocked(s)
}

// onPred answers rank 0's question about the predecessor of a state.
func (e *engine) onPred(msg *nats.Msg) {
	var r predReply
	if len(msg.Data) == 8 {
		r = e.predOf(binary.LittleEndian.Uint64(msg.Data))
	}
	_ = msg.Respond(r.encode()) // a lost reply times out at rank 0
}

func (e *engine) predOf(fp uint64) predReply {
	e.mu.Lock()
	defer e.mu.Unlock()
	r, ok := e.visited[fp]
	return predReply{known: ok, init: r.init, pred: r.pred, act: r.act}
}

// heartbeat tells the other ranks, every tenth of the timeout, that this
// one is alive, until done is closed.
func (e *engine) heartbeat(done chan struct{}) {
	every := max(e.cfg.Timeout/10, 20*time.Millisecond)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			_ = e.nc.Publish(e.ctlSubject(), header(nil, kindHeartbeat, 0, e.me))
		}
	}
}

// wait waits until cond (called with mu held) holds, the run stops, or
// what it waits for is lost: a rank not heard from, the server gone, or
// the deadline passed (when not zero).
func (e *engine) wait(what string, cond func() bool, deadline time.Time) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		e.mu.Lock()
		s := e.checkLocked(what, deadline)
		ok := s == nil && cond()
		e.mu.Unlock()
		if s != nil {
			return s
		}
		if ok {
			return nil
		}
		select {
		case <-e.notify:
		case <-tick.C:
		case <-e.cfg.Context.Done():
		}
	}
}

// checkLocked returns why the run stops, if it does.
func (e *engine) checkLocked(what string, deadline time.Time) *stop {
	if e.stopped != nil {
		return e.stopped
	}
	now := time.Now()
	to := e.cfg.Timeout
	var s *stop
	switch {
	case e.cfg.Context.Err() != nil:
		s = &stop{reason: fmt.Sprintf("rank %d was interrupted while %s", e.me, what)}
	case !e.down.IsZero() && now.Sub(e.down) > to:
		s = &stop{reason: fmt.Sprintf("rank %d lost its connection to the NATS server %s for more than %v while %s", e.me, e.cfg.Server, to, what)}
	case !deadline.IsZero() && now.After(deadline):
		s = &stop{reason: fmt.Sprintf("rank %d gave up after %v %s", e.me, to, what)}
	}
	if s == nil {
		for r := range e.lastSeen {
			if t := e.lastSeen[r].Load(); r != e.me && t != 0 && now.Sub(time.Unix(0, t)) > to {
				s = &stop{reason: fmt.Sprintf("rank %d has not been heard from for %v (it died, or lost its connection) while %s", r, to, what)}
				break
			}
		}
	}
	if s != nil {
		e.sendAbortLocked(s)
	}
	return s
}

// heard starts the watch on every rank: each is heard from now.
func (e *engine) heard() {
	for r := range e.lastSeen {
		e.lastSeen[r].Store(time.Now().UnixNano())
	}
}

// join announces this rank; rank 0 waits until every rank has, then
// starts the run.
func (e *engine) join() error {
	deadline := time.Now().Add(e.cfg.Timeout)
	msg := join{nonce: e.nonce, digest: e.cfg.Digest}.encode(header(nil, kindJoin, 0, e.me))
	if e.me == 0 {
		e.mu.Lock()
		e.joined[0] = join{nonce: e.nonce, digest: e.cfg.Digest}
		e.mu.Unlock()
		err := e.wait("waiting for every rank to join", func() bool { return len(e.joined) == e.K }, deadline)
		if s, ok := err.(*stop); ok && !s.usage && e.stopped == s {
			e.mu.Lock()
			var missing []string
			for r := range e.K {
				if _, ok := e.joined[r]; !ok {
					missing = append(missing, fmt.Sprint(r))
				}
			}
			s.reason = fmt.Sprintf("rank(s) %s of %d did not join run %s on %s within %v", strings.Join(missing, ", "), e.K, e.cfg.Run, e.cfg.Server, e.cfg.Timeout)
			e.mu.Unlock()
		}
		if err != nil {
			return err
		}
		e.mu.Lock()
		e.started = true
		e.heard()
		e.publishLocked(e.ctlSubject(), header(nil, kindStart, 0, e.me))
		e.mu.Unlock()
		return nil
	}
	// The others announce themselves until rank 0 starts the run: rank 0
	// may come after them.
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	e.publish(e.ctlSubject(), msg)
	for {
		e.mu.Lock()
		started := e.started
		s := e.checkLocked("waiting for rank 0 to start the run", deadline)
		if started && s == nil {
			e.heard()
		}
		e.mu.Unlock()
		if s != nil {
			return s
		}
		if started {
			return nil
		}
		select {
		case <-t.C:
			e.publish(e.ctlSubject(), msg)
		case <-e.notify:
		case <-e.cfg.Context.Done():
		}
	}
}

// ended is the outcome of a run that stopped before the search ended.
func (e *engine) ended(err error) (*Outcome, error) {
	var s *stop
	if !errors.As(err, &s) {
		return nil, err
	}
	if !s.remote {
		// Tell the others at once, rather than let them time out.
		e.mu.Lock()
		s.remote = true
		e.publishLocked(e.ctlSubject(), abort{usage: s.usage, reason: s.reason}.encode(header(nil, kindAbort, 0, e.me)))
		e.mu.Unlock()
		_ = e.nc.FlushTimeout(time.Second)
	}
	// A rank that hosts the server stays a moment, so that the others
	// hear why the run stopped.
	if e.cfg.Embedded != 0 {
		time.Sleep(200 * time.Millisecond)
	}
	if s.usage {
		return nil, &usageErr{s.reason}
	}
	if strings.HasPrefix(s.reason, "internal error") {
		return nil, errors.New(s.reason)
	}
	return e.incomplete(s.reason), nil
}

// incomplete is the outcome of a run stopped for reason: the figures of
// the levels closed so far, no verdict but the violations found.
func (e *engine) incomplete(reason string) *Outcome {
	res := e.result()
	res.Exhaustive = false
	if res.Status != explorer.Violated && res.Status != explorer.Failed {
		res.Status = explorer.Incomplete
	}
	for i := range res.Properties {
		if res.Properties[i].Verdict == explorer.Holds {
			res.Properties[i].Verdict = explorer.Unknown
		}
	}
	res.Reason = "distributed run stopped: " + reason
	return &Outcome{Result: res, Share: e.share()}
}

func (e *engine) share() Share {
	return Share{Rank: e.me, Ranks: e.K, States: e.owned, Transitions: e.expanded,
		Batches: e.sentBatches.Load(), Bytes: e.sentBytes.Load(), Received: e.received.Load(), Elapsed: time.Since(e.start)}
}

// finish ends the run: rank 0 tells the others it needs no more
// predecessors and waits for their goodbye (it may host the server);
// the others wait for that and say goodbye.
func (e *engine) finish() {
	deadline := time.Now().Add(e.cfg.Timeout)
	if e.me == 0 {
		e.publish(e.ctlSubject(), header(nil, kindFinish, 0, e.me))
		_ = e.nc.FlushTimeout(e.cfg.Timeout)
		_ = e.wait("waiting for the other ranks to leave", func() bool { return e.byes >= e.K-1 }, deadline)
		return
	}
	_ = e.wait("waiting for rank 0 to finish", func() bool { return e.finished }, deadline)
	e.publish(e.ctlSubject(), header(nil, kindFinish, 0, e.me))
	_ = e.nc.FlushTimeout(e.cfg.Timeout)
}

// logf writes a progress line, if the run has a log.
func (e *engine) logf(format string, args ...any) {
	if e.cfg.Log != nil {
		fmt.Fprintf(e.cfg.Log, format+"\n", args...)
	}
}

// peakMemory is the memory the Go runtime holds.
func peakMemory() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Sys
}
