package explorer

import (
	"errors"
	"runtime"
	"strings"

	"github.com/vacheck/vacheck/properties"
)

// graphSpec says what a graph records: the predicates of the liveness
// properties asked for (base[k] is the first predicate pair of property k,
// or -1 when it is not checked), and the per-edge figures of the metrics.
type graphSpec struct {
	live  []LiveProperty
	base  []int
	nbits int
	types []string
	// track are the metrics the model tracks (TrackWorker), in the order
	// asked; each records its values per edge.
	track []TrackedMetric
	msgs  bool
	// fair are the steps fair of their own (Config.FairSteps): an edge
	// records its task t as t*(len(fair)+1) + k+1 when it is a step
	// fair[k], as t*(len(fair)+1) otherwise (see stateGraph.fairK).
	fair []FairStep
}

func newGraphSpec(live []LiveProperty, checked func(string) bool, metrics []string, track []TrackedMetric, fair []FairStep) *graphSpec {
	sp := &graphSpec{live: live, base: make([]int, len(live)), track: track, fair: fair}
	pairs := 0
	for k, p := range live {
		sp.base[k] = -1
		if checked(p.Name) {
			sp.base[k] = pairs
			pairs += p.Instances
		}
	}
	sp.nbits = 2 * pairs
	for _, m := range metrics {
		if typ, ok := strings.CutPrefix(m, "messages:"); ok {
			sp.types = append(sp.types, typ)
		}
		sp.msgs = sp.msgs || m == "messages"
	}
	return sp
}

// graphChunk is a run of consecutive states of the graph, as one worker
// recorded them in one BFS level (or buildGraph all of them): the states
// and their edges, with the edges' targets as fingerprints. The
// fingerprints of the states and of the targets are in fps and targets, or
// when the sink spills them, in its files from record fpFrom and tgtFrom on.
type graphChunk struct {
	sink            *graphSink
	fpFrom, tgtFrom int64
	n, m            int      // states and edges
	fps             []uint64 // the states, in order
	nedges          []uint32 // edges per state
	cut             []int32  // the states beyond the bound (buildGraph only)
	preds           []uint64 // nbits per state, packed
	targets         []uint64 // each edge's target: its fingerprint, or see again
	// again has bit e set when edge e leads where an earlier edge of the
	// chunk leads (edgeAgain): its entry in the targets is that edge's
	// index, and resolving it takes no lookup.
	again []uint64
	task  taskCol
	msgs  []int32
	typed [][]int32
	// tracked holds per tracked metric (graphSpec.track) its values, in
	// edge order: one per edge, or for a PerKey metric the keys, with
	// their number per edge in ncount and the keys reached per terminal
	// state (by the state's index in the chunk) in reached.
	tracked []trackChunk
	// fairHits counts the edges of each fair step (graphSpec.fair), and
	// steps holds the names of the steps met, for the error of a fair
	// step that none has.
	fairHits []int64
	steps    map[string]bool
}

// graphSink records states and edges into a chunk for one worker.
type graphSink struct {
	sp     *graphSpec
	c      *graphChunk
	lw     LiveWorker
	tw     TypedWorker
	trk    TrackWorker
	sw     StepWorker
	active bool // the current state has a transition that is not a fault
	err    error
	chunks []*graphChunk // every chunk of the worker, in level order
	// fpOut and tgtOut, when not nil, take the fingerprints of the states
	// and of the edges' targets out of memory.
	fpOut, tgtOut *spill
}

func newGraphSink(sp *graphSpec, w Worker) (*graphSink, error) {
	k := &graphSink{sp: sp}
	k.lw, _ = w.(LiveWorker)
	k.tw, _ = w.(TypedWorker)
	if len(sp.track) > 0 {
		names := make([]string, len(sp.track))
		for i, m := range sp.track {
			names[i] = m.Name
		}
		if k.trk = trackerOf(w, names); k.trk == nil {
			return nil, configError("Metrics", sp.track[0].Name, "{Metrics %s}: the model's workers do not track it", sp.track[0].Name)
		}
	}
	if len(sp.types) > 0 {
		if k.tw == nil {
			return nil, configError("Metrics", "", "the model cannot count messages by type")
		}
		k.tw.TrackTypes(true)
	}
	if sp.nbits > 0 && k.lw == nil {
		return nil, configError("Properties", "", "the model cannot evaluate its liveness predicates")
	}
	if len(sp.fair) > 0 {
		if k.sw, _ = w.(StepWorker); k.sw == nil {
			return nil, configError("FairSteps", sp.fair[0].Step, "{FairSteps %s}: the model does not name the steps of its transitions", sp.fair[0].Step)
		}
	}
	return k, nil
}

// next starts a new chunk.
func (k *graphSink) next() {
	k.c = &graphChunk{sink: k, typed: make([][]int32, len(k.sp.types))}
	if len(k.sp.track) > 0 {
		k.c.tracked = make([]trackChunk, len(k.sp.track))
	}
	if len(k.sp.fair) > 0 {
		k.c.fairHits, k.c.steps = make([]int64, len(k.sp.fair)), map[string]bool{}
	}
	if k.fpOut != nil {
		k.c.fpFrom, k.c.tgtFrom = k.fpOut.n, k.tgtOut.n
	}
	k.chunks = append(k.chunks, k.c)
}

// spillTo makes the sink write the fingerprints to two unlinked temporary
// files: they are read once, when the graph is assembled, so they need
// not take memory while the search runs.
func (k *graphSink) spillTo() error {
	var err error
	if k.fpOut, err = newSpill(); err != nil {
		return err
	}
	if k.tgtOut, err = newSpill(); err != nil {
		k.fpOut.close()
		k.fpOut = nil
		return err
	}
	return nil
}

func (k *graphSink) close() {
	if k.fpOut != nil {
		k.fpOut.close()
		k.tgtOut.close()
	}
}

func (k *graphSink) fail(err error) {
	if k.err == nil {
		k.err = err
	}
}

// begin records state st, with fingerprint fp, and its predicates.
func (k *graphSink) begin(st []byte, fp uint64) {
	c, sp := k.c, k.sp
	i := c.n
	c.n++
	if k.fpOut != nil {
		k.fpOut.put(fp)
	} else {
		c.fps = append(c.fps, fp)
	}
	c.nedges = append(c.nedges, 0)
	k.active = false
	if sp.nbits == 0 {
		return
	}
	for words := (i+1)*sp.nbits/64 + 1; len(c.preds) < words; {
		c.preds = append(c.preds, 0)
	}
	k.preds(st, false)
}

// atEnd reports whether the predicates of property p matter only in
// terminal states: the goal of termination.
func atEnd(p LiveProperty) bool { return p.Kind == properties.Terminates && !p.LeadsTo }

// preds evaluates the predicates of the properties checked in the state
// begun last: those that matter only in terminal states (end true), or
// the others.
func (k *graphSink) preds(st []byte, end bool) {
	c, sp := k.c, k.sp
	i := c.n - 1
	for p, prop := range sp.live {
		if sp.base[p] < 0 || atEnd(prop) != end {
			continue
		}
		for inst := 0; inst < prop.Instances; inst++ {
			when, goal, err := k.lw.Live(st, p, inst)
			if err != nil {
				k.fail(err)
				return
			}
			b := i*sp.nbits + 2*(sp.base[p]+inst)
			if when {
				c.preds[b/64] |= 1 << uint(b%64)
			}
			if goal {
				b++
				c.preds[b/64] |= 1 << uint(b%64)
			}
		}
	}
}

// markCut records that the state begun last is beyond the bound.
func (k *graphSink) markCut() { k.c.cut = append(k.c.cut, int32(k.c.n-1)) }

// edge records a transition of the state begun last to the state with
// fingerprint fp. It is called from inside the Emit or Offer callback of
// Expand, where the worker describes the transition.
func (k *graphSink) edge(t Transition, fp uint64) { k.record(t, fp) }

// edgeAgain records a transition of the state begun last to the target of
// edge j of the chunk (lastEdge, in this level), which the search knows to
// be the same state: three in four transitions of a keyed search lead to
// a state its worker met a moment before (offerKey), and their targets
// are then resolved by copying instead of a lookup in the index.
func (k *graphSink) edgeAgain(t Transition, j uint32) {
	c := k.c
	if w := c.m / 64; w >= len(c.again) {
		c.again = append(c.again, make([]uint64, w+1-len(c.again))...)
	}
	c.again[c.m/64] |= 1 << uint(c.m%64)
	k.record(t, uint64(j))
}

// lastEdge returns the index in the chunk of the edge recorded last.
func (k *graphSink) lastEdge() uint32 { return uint32(k.c.m - 1) }

// record records an edge whose entry in the targets is v.
func (k *graphSink) record(t Transition, v uint64) {
	c, sp := k.c, k.sp
	c.m++
	if k.tgtOut != nil {
		k.tgtOut.put(v)
	} else {
		c.targets = append(c.targets, v)
	}
	c.nedges[len(c.nedges)-1]++
	task := t.Task
	if t.Fault {
		task = -1
	} else {
		k.active = true
		if k.sw != nil {
			task = k.fairTask(task)
		}
	}
	c.task.add(task)
	if sp.msgs {
		c.msgs = append(c.msgs, t.Messages)
	}
	for j, typ := range sp.types {
		c.typed[j] = append(c.typed[j], int32(k.tw.SentOfType(typ)))
	}
	for i, m := range sp.track {
		tc := &c.tracked[i]
		n := len(tc.vals)
		tc.vals = k.trk.Track(i, tc.vals)
		if m.Kind == PerKey {
			tc.count = append(tc.count, uint32(len(tc.vals)-n))
		}
	}
}

// fairTask returns task refined by the fair step the transition being
// recorded is, if any (graphSpec.fair).
func (k *graphSink) fairTask(task int32) int32 {
	fair := k.sp.fair
	task *= int32(len(fair) + 1)
	name := k.sw.StepName()
	if name == "" {
		return task
	}
	k.c.steps[name] = true
	for j, f := range fair {
		if f.Step == name {
			k.c.fairHits[j]++
			return task + int32(j) + 1
		}
	}
	return task
}

// end completes the state begun last, once all its edges are recorded:
// a terminal state records the goal of termination, and the entries that
// took place in it.
func (k *graphSink) end(st []byte) {
	if k.active {
		return
	}
	if k.sp.nbits > 0 {
		k.preds(st, true)
	}
	for i, m := range k.sp.track {
		if m.Kind != PerKey {
			continue
		}
		set := make([]uint64, (m.Keys+63)/64)
		for key := 0; key < m.Keys; key++ {
			ok, err := k.trk.Reached(i, st, key)
			if err != nil {
				k.fail(err)
				return
			}
			if ok {
				set[key/64] |= 1 << uint(key%64)
			}
		}
		tc := &k.c.tracked[i]
		if tc.reached == nil {
			tc.reached = map[int32][]uint64{}
		}
		tc.reached[int32(k.c.n-1)] = set
	}
}

// trackChunk is what a chunk records of one tracked metric.
type trackChunk struct {
	vals    []int32
	count   []uint32           // PerKey: per edge, the number of its keys
	reached map[int32][]uint64 // PerKey: terminal state -> the keys reached (bit set)
}

// graphRecorder records the state graph while the BFS safety search
// explores, so that liveness and metrics need not explore again: a worker
// records the states of each chunk of a level it expands (chunks) in a
// graph chunk of its own, in order, so that the graph chunks taken level
// by level, chunk by chunk (order), list the states in BFS order, the
// order buildGraph numbers them in.
type graphRecorder struct {
	sp    *graphSpec
	sinks []*graphSink
	order []*graphChunk
}

// newGraphRecorder returns a recorder for the search's workers.
func (s *search) newGraphRecorder(sp *graphSpec) (*graphRecorder, error) {
	r := &graphRecorder{sp: sp}
	for _, w := range s.workers {
		k, err := newGraphSink(sp, w)
		if err == nil {
			err = k.spillTo()
		}
		if err != nil {
			r.close()
			return nil, err
		}
		r.sinks = append(r.sinks, k)
	}
	return r, nil
}

// close releases the recorder's files.
func (r *graphRecorder) close() {
	if r == nil {
		return
	}
	for _, k := range r.sinks {
		k.close()
	}
}

// sink returns worker w's sink, or nil when nothing is recorded. The
// worker starts a graph chunk (graphSink.next) for each chunk of a level
// it expands.
func (r *graphRecorder) sink(w int) *graphSink {
	if r == nil {
		return nil
	}
	return r.sinks[w]
}

// levelDone appends the graph chunks of a level's chunks, in chunk order,
// to the graph's; those of chunks nobody expanded (a stop) are nil.
func (r *graphRecorder) levelDone(cs []*graphChunk) {
	if r == nil {
		return
	}
	for _, c := range cs {
		if c != nil {
			r.order = append(r.order, c)
		}
	}
}

// discard makes the recording incomplete: the graph is built again.
func (r *graphRecorder) discard() {
	if r != nil && len(r.sinks) > 0 {
		r.sinks[0].fail(errIncomplete)
	}
}

// chunks returns the recorded chunks in BFS order, and the first error a
// sink met.
func (r *graphRecorder) chunks() ([]*graphChunk, error) {
	for _, k := range r.sinks {
		if k.err != nil {
			return nil, k.err
		}
		for _, p := range []*spill{k.fpOut, k.tgtOut} {
			if p != nil && p.flush() != nil {
				return nil, p.err // the files failed: explore again, in memory
			}
		}
	}
	return r.order, nil
}

// errIncomplete says that a recording does not hold the whole graph.
var errIncomplete = errors.New("explorer: the recorded graph is not complete")

// recordGraph sets the BFS safety search to record the state graph, when
// liveness or metrics will need it and the search expands every state it
// stores the same way the graph does (no depth limit, no reduction).
func (s *search) recordGraph(live []LiveProperty) {
	checked := false
	for _, p := range live {
		checked = checked || s.selected(p.Name)
	}
	if !checked && len(s.cfg.Metrics) == 0 || s.cfg.MaxDepth > 0 || s.cfg.Reduction != NoReduction {
		return
	}
	// A model that cannot record what is asked fails as buildGraph says.
	s.rec, _ = s.newGraphRecorder(newGraphSpec(live, s.selected, s.cfg.Metrics, s.tracked, s.cfg.FairSteps))
}

// recordedGraph assembles the graph the safety search recorded.
// errIncomplete says that it did not record the whole graph: the search
// was not a BFS that expanded every state it stored.
func (s *search) recordedGraph(rec *graphRecorder, sp *graphSpec) (*stateGraph, error) {
	if rec == nil {
		return nil, errIncomplete
	}
	chunks, err := rec.chunks()
	if err != nil {
		return nil, err
	}
	n := int64(0)
	for _, c := range chunks {
		n += int64(c.n)
	}
	if n != s.states.Load() {
		return nil, errIncomplete
	}
	// The visited set may be garbage now: collect it before the graph's
	// arrays are allocated.
	runtime.GC()
	return s.assemble(sp, chunks)
}
