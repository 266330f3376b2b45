package explorer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dolthub/swiss"

	"github.com/vacheck/vacheck/internal/offheap"
	"github.com/vacheck/vacheck/properties"
)

// stateGraph is the explicit state graph that liveness checking and
// metrics need: states numbered in BFS order (the initial states first),
// each with its outgoing edges in action order, the BFS tree (for shortest
// prefixes), and the values of the liveness predicates asked for. It is
// recorded while the safety search explores (graphRecorder), or built by
// exploring again (buildGraph) when that search could not record it.
type stateGraph struct {
	n       int
	n0      int      // states 0 .. n0-1 are the initial ones
	initIdx []uint32 // initial index of each initial state
	first   []uint32 // edges of state i: first[i] .. first[i+1]
	to      []uint32 // the target of each edge
	task    taskCol
	msgs    []int32  // per edge, only for the metric messages
	pe      []uint32 // BFS tree: the edge that first reached state i >= n0
	cut     []bool   // beyond the model's bound: not expanded; nil when none is
	preds   []uint64 // liveness predicate bits, nbits per state, packed
	nbits   int
	typed   [][]int32 // per "messages:TYPE" metric: messages of that type per edge
	ntasks  int
	faults  bool // some edge is a fault (crash or recovery)
	// Instrumented metrics (MeasureWorker), per edge when asked for.
	time        []int32            // "time": increase of the largest depth
	sync        []int32            // "sync-delay": the delay an enter closes, or -1
	servedFirst []uint32           // "messages-per-entry": edge e's keys are servedKeys[servedFirst[e]:servedFirst[e+1]]
	servedKeys  []int32            // the entry key of each message
	entered     map[int32][]uint64 // terminal state -> the entry keys that took place in it (bit set)
	// stop, when set, says that a limit ends the run: the passes over the
	// graph then return early and set halted.
	stop   func() bool
	halted bool

	// toMem, firstMem and peMem hold to, first and pe outside the Go heap.
	toMem, firstMem, peMem offheap.Array[uint32]
}

// free gives back the memory the graph keeps outside the Go heap.
func (g *stateGraph) free() {
	g.toMem.Free()
	g.firstMem.Free()
	g.peMem.Free()
	g.to, g.first, g.pe = nil, nil, nil
}

// halt reports, every 4096 calls of a pass (tick counts them), whether the
// run must stop, and remembers it.
func (g *stateGraph) halt(tick int) bool {
	if g.halted {
		return true
	}
	if tick&4095 != 0 || g.stop == nil {
		return false
	}
	g.halted = g.stop()
	return g.halted
}

// taskCol stores each edge's task as t+1 (0 for a fault) in one, two or
// four bytes, widening when a task does not fit.
type taskCol struct {
	b []uint8
	w []uint16
	d []uint32
}

func (c *taskCol) add(t int32) {
	v := uint32(t + 1)
	if t < 0 {
		v = 0
	}
	switch {
	case c.d != nil:
		c.d = append(c.d, v)
	case c.w != nil:
		if v > math.MaxUint16 {
			c.widen(4)
			c.d = append(c.d, v)
			return
		}
		c.w = append(c.w, uint16(v))
	default:
		if v > math.MaxUint8 {
			c.widen(2)
			if v > math.MaxUint16 {
				c.widen(4)
				c.d = append(c.d, v)
				return
			}
			c.w = append(c.w, uint16(v))
			return
		}
		c.b = append(c.b, uint8(v))
	}
}

// widen moves the column to size bytes a task.
func (c *taskCol) widen(size int) {
	n := c.len()
	switch size {
	case 2:
		w := make([]uint16, n, max(2*n, 16))
		for i, v := range c.b {
			w[i] = uint16(v)
		}
		c.b, c.w = nil, w
	case 4:
		d := make([]uint32, n, max(2*n, 16))
		for i := 0; i < n; i++ {
			d[i] = uint32(c.at(i) + 1)
		}
		c.b, c.w, c.d = nil, nil, d
	}
}

func (c *taskCol) size() int {
	switch {
	case c.d != nil:
		return 4
	case c.w != nil:
		return 2
	}
	return 1
}

func (c *taskCol) len() int { return len(c.b) + len(c.w) + len(c.d) }

// at returns the task of edge e, or -1 for a fault.
func (c *taskCol) at(e int) int32 {
	switch {
	case c.d != nil:
		return int32(c.d[e]) - 1
	case c.w != nil:
		return int32(c.w[e]) - 1
	}
	return int32(c.b[e]) - 1
}

// reserve makes room for the tasks of the chunks' columns, at the width
// the widest needs, so that appending them allocates once.
func (c *taskCol) reserve(chunks []*graphChunk) {
	n, size := c.len(), c.size()
	for _, k := range chunks {
		n, size = n+k.task.len(), max(size, k.task.size())
	}
	if size > c.size() {
		c.widen(size)
	}
	switch size {
	case 4:
		c.d = slices.Grow(c.d, n-len(c.d))
	case 2:
		c.w = slices.Grow(c.w, n-len(c.w))
	default:
		c.b = slices.Grow(c.b, n-len(c.b))
	}
}

// max returns the largest task of the column, or -1 (a fault, or no edge).
func (c *taskCol) max() int32 {
	var m uint32 // t+1
	switch {
	case c.d != nil:
		for _, v := range c.d {
			m = max(m, v)
		}
	case c.w != nil:
		for _, v := range c.w {
			m = max(m, uint32(v))
		}
	default:
		for _, v := range c.b {
			m = max(m, uint32(v))
		}
	}
	return int32(m) - 1
}

// hasFault reports whether an edge of the column is a fault (task -1,
// kept as 0).
func (c *taskCol) hasFault() bool {
	switch {
	case c.d != nil:
		return slices.Contains(c.d, 0)
	case c.w != nil:
		return slices.Contains(c.w, 0)
	}
	return slices.Contains(c.b, 0)
}

// appendCol appends the tasks of o.
func (c *taskCol) appendCol(o *taskCol) {
	if o.size() > c.size() {
		c.widen(o.size())
	}
	switch {
	case c.d != nil:
		for i := 0; i < o.len(); i++ {
			c.d = append(c.d, uint32(o.at(i)+1))
		}
	case c.w != nil:
		for i := 0; i < o.len(); i++ {
			c.w = append(c.w, uint16(o.at(i)+1))
		}
	default:
		c.b = append(c.b, o.b...)
	}
}

func (c *taskCol) bytes() int { return cap(c.b) + 2*cap(c.w) + 4*cap(c.d) }

// graphMeasures says which instrumented metrics the graph records.
type graphMeasures struct{ time, sync, entry bool }

func measuresOf(metrics []string) graphMeasures {
	var gm graphMeasures
	for _, m := range metrics {
		switch m {
		case MetricTime:
			gm.time = true
		case MetricSyncDelay:
			gm.sync = true
		case MetricMessagesPerEntry:
			gm.entry = true
		}
	}
	return gm
}

// graphSpec says what a graph records: the predicates of the liveness
// properties asked for (base[k] is the first predicate pair of property k,
// or -1 when it is not checked), and the per-edge figures of the metrics.
type graphSpec struct {
	live  []LiveProperty
	base  []int
	nbits int
	types []string
	gm    graphMeasures
	msgs  bool
}

func newGraphSpec(live []LiveProperty, checked func(string) bool, metrics []string) *graphSpec {
	sp := &graphSpec{live: live, base: make([]int, len(live)), gm: measuresOf(metrics)}
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

// predBit is the bit of the When (goal=false) or Goal predicate of
// instance inst of liveness property k.
func (g *stateGraph) predBit(k, inst int, goal bool, base []int) int {
	b := 2 * (base[k] + inst)
	if goal {
		b++
	}
	return b
}

func (g *stateGraph) pred(state, bit int) bool {
	b := state*g.nbits + bit
	return g.preds[b/64]&(1<<uint(b%64)) != 0
}

// isInit reports whether state i is an initial state.
func (g *stateGraph) isInit(i int) bool { return i < g.n0 }

// isCut reports whether state i lies beyond the model's bound.
func (g *stateGraph) isCut(i int) bool { return g.cut != nil && g.cut[i] }

// taskOf returns the task of edge e, or -1 for a fault.
func (g *stateGraph) taskOf(e int) int32 { return g.task.at(e) }

// edges returns the index range of state i's edges.
func (g *stateGraph) edges(i int) (int, int) { return int(g.first[i]), int(g.first[i+1]) }

// terminal reports whether state i has no enabled transition other than
// faults (and was expanded).
func (g *stateGraph) terminal(i int) bool {
	if g.isCut(i) {
		return false
	}
	lo, hi := g.edges(i)
	for e := lo; e < hi; e++ {
		if g.task.at(e) >= 0 {
			return false
		}
	}
	return true
}

// bytes estimates the memory the graph holds.
func (g *stateGraph) bytes() uint64 {
	return uint64(cap(g.first)*4 + cap(g.to)*4 + g.task.bytes() + cap(g.msgs)*4 +
		cap(g.pe)*4 + cap(g.initIdx)*4 + cap(g.cut) + cap(g.preds)*8 +
		cap(g.time)*4 + cap(g.sync)*4 + cap(g.servedFirst)*4 + cap(g.servedKeys)*4)
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
	again      []uint64
	task       taskCol
	msgs       []int32
	typed      [][]int32
	time, sync []int32
	served     []uint32 // per edge, the number of its entry keys
	servedKeys []int32
	entered    map[int32][]uint64 // by the state's index in the chunk
}

// graphSink records states and edges into a chunk for one worker.
type graphSink struct {
	sp     *graphSpec
	c      *graphChunk
	lw     LiveWorker
	tw     TypedWorker
	mw     MeasureWorker
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
	k.mw, _ = w.(MeasureWorker)
	if (sp.gm.time || sp.gm.sync || sp.gm.entry) && k.mw == nil {
		return nil, fmt.Errorf("%w: the model cannot measure time, sync-delay or messages-per-entry", ErrConfig)
	}
	if len(sp.types) > 0 {
		if k.tw == nil {
			return nil, fmt.Errorf("%w: the model cannot count messages by type", ErrConfig)
		}
		k.tw.TrackTypes(true)
	}
	if sp.nbits > 0 && k.lw == nil {
		return nil, fmt.Errorf("%w: the model cannot evaluate its liveness predicates", ErrConfig)
	}
	return k, nil
}

// next starts a new chunk.
func (k *graphSink) next() {
	k.c = &graphChunk{sink: k, typed: make([][]int32, len(k.sp.types))}
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
	}
	c.task.add(task)
	if sp.msgs {
		c.msgs = append(c.msgs, t.Messages)
	}
	for j, typ := range sp.types {
		c.typed[j] = append(c.typed[j], int32(k.tw.SentOfType(typ)))
	}
	if sp.gm.time {
		c.time = append(c.time, k.mw.TimeIncrease())
	}
	if sp.gm.sync {
		c.sync = append(c.sync, k.mw.SyncDelay())
	}
	if sp.gm.entry {
		n := len(c.servedKeys)
		c.servedKeys = k.mw.Served(c.servedKeys)
		c.served = append(c.served, uint32(len(c.servedKeys)-n))
	}
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
	if !k.sp.gm.entry {
		return
	}
	keys := k.mw.EntryKeys()
	set := make([]uint64, (keys+63)/64)
	for key := 0; key < keys; key++ {
		ok, err := k.mw.Entered(st, key)
		if err != nil {
			k.fail(err)
			return
		}
		if ok {
			set[key/64] |= 1 << uint(key%64)
		}
	}
	if k.c.entered == nil {
		k.c.entered = map[int32][]uint64{}
	}
	k.c.entered[int32(k.c.n-1)] = set
}

// graphRecorder records the state graph while the BFS safety search
// explores, so that liveness and metrics need not explore again: every
// worker records the states it expands in each level, in order, so that
// the chunks taken level by level, worker by worker, list the states in
// BFS order, the order buildGraph numbers them in.
type graphRecorder struct {
	sp    *graphSpec
	sinks []*graphSink
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

// level returns worker w's sink for a new BFS level, or nil when nothing is
// recorded.
func (r *graphRecorder) level(w int) *graphSink {
	if r == nil {
		return nil
	}
	r.sinks[w].next()
	return r.sinks[w]
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
	var out []*graphChunk
	for _, k := range r.sinks {
		if k.err != nil {
			return nil, k.err
		}
		for _, p := range []*spill{k.fpOut, k.tgtOut} {
			if p != nil && p.flush() != nil {
				return nil, errIncomplete // the files failed: explore again
			}
		}
	}
	for l := range r.sinks[0].chunks {
		for _, k := range r.sinks {
			if l < len(k.chunks) {
				out = append(out, k.chunks[l])
			}
		}
	}
	return out, nil
}

// errIncomplete says that a recording does not hold the whole graph.
var errIncomplete = errors.New("explorer: the recorded graph is not complete")

// assemble numbers the states of the chunks in order and turns the edges'
// fingerprints into state numbers. It frees the chunks as it goes.
// errIncomplete says that an edge leads to a state no chunk holds.
func (s *search) assemble(sp *graphSpec, chunks []*graphChunk) (*stateGraph, error) {
	var n, m int
	for _, c := range chunks {
		n += c.n
		m += c.m
	}
	if uint64(n) >= math.MaxUint32 || uint64(m) >= math.MaxUint32 {
		return nil, fmt.Errorf("the state graph for liveness is too large (%d states, %d edges; at most %d each)", n, m, uint64(math.MaxUint32-1))
	}
	g := &stateGraph{n: n, nbits: sp.nbits, stop: s.halting, typed: make([][]int32, len(sp.types))}
	if lm, ok := s.m.(LiveModel); ok {
		g.ntasks = len(lm.Tasks())
	}
	// The columns of states and edges first, so that the chunks' own
	// columns are garbage, and given back, before the fingerprints and
	// their index take memory.
	g.task.reserve(chunks)
	g.firstMem.Resize(n + 1)
	first := g.firstMem.Slice()
	first[0] = 0
	if sp.nbits > 0 {
		g.preds = make([]uint64, (n*sp.nbits+63)/64)
	}
	state := 0
	for _, c := range chunks {
		cnt := len(c.nedges)
		for i, d := range c.nedges {
			first[state+i+1] = first[state+i] + d
		}
		if len(c.cut) > 0 && g.cut == nil {
			g.cut = make([]bool, n)
		}
		for _, i := range c.cut {
			g.cut[state+int(i)] = true
		}
		// The chunk's predicate bits, after those of the states before: a
		// word at a time, shifted into place (the chunk's bits past its
		// states are 0).
		if bits := cnt * sp.nbits; bits > 0 {
			at := state * sp.nbits
			base, sh := at/64, uint(at%64)
			for k, w := range c.preds[:(bits+63)/64] {
				g.preds[base+k] |= w << sh
				if sh > 0 && w>>(64-sh) != 0 {
					g.preds[base+k+1] |= w >> (64 - sh)
				}
			}
		}
		g.task.appendCol(&c.task)
		g.msgs = append(g.msgs, c.msgs...)
		for j := range c.typed {
			g.typed[j] = append(g.typed[j], c.typed[j]...)
		}
		g.time = append(g.time, c.time...)
		g.sync = append(g.sync, c.sync...)
		if sp.gm.entry {
			if g.servedFirst == nil {
				g.servedFirst = []uint32{0}
				g.entered = map[int32][]uint64{}
			}
			for _, d := range c.served {
				g.servedFirst = append(g.servedFirst, g.servedFirst[len(g.servedFirst)-1]+d)
			}
			g.servedKeys = append(g.servedKeys, c.servedKeys...)
			for i, set := range c.entered {
				g.entered[int32(state)+i] = set
			}
		}
		state += cnt
		// Keep only what resolving the edges needs.
		*c = graphChunk{sink: c.sink, fpFrom: c.fpFrom, tgtFrom: c.tgtFrom, n: c.n, m: c.m, fps: c.fps, targets: c.targets, again: c.again}
	}
	debug.FreeOSMemory()
	// The initial states come first, in order, without duplicates. The
	// fingerprints and their index are needed until the edges are
	// resolved, and kept outside the Go heap to be freed at once then.
	var fpsMem offheap.Array[uint64]
	defer fpsMem.Free()
	fpsMem.Grow(n)
	for _, c := range chunks {
		if c.sink != nil && c.sink.fpOut != nil {
			if err := c.sink.fpOut.read(c.fpFrom, int64(c.n), func(fp uint64) bool {
				fpsMem.Append(fp)
				return true
			}); err != nil {
				g.free()
				return nil, errIncomplete
			}
		}
		fpsMem.AppendSlice(c.fps)
		c.fps = nil
	}
	fps := fpsMem.Slice()
	seen := map[uint64]bool{}
	for i, st := range s.initial {
		fp := fingerprint(st)
		if seen[fp] {
			continue
		}
		seen[fp] = true
		if len(g.initIdx) >= n || fps[len(g.initIdx)] != fp {
			g.free()
			return nil, errIncomplete
		}
		g.initIdx = append(g.initIdx, uint32(i))
	}
	g.n0 = len(g.initIdx)
	idx, err := newFPIndex(fps, g.halt, min(len(s.workers), runtime.GOMAXPROCS(0)))
	if err != nil {
		g.free()
		return nil, err
	}
	defer idx.free()
	if !idx.verify {
		// The index alone resolves the edges: the fingerprints go now.
		idx.fps = nil
		fpsMem.Free()
	}
	// Edges: targets by state number, in parallel over the chunks.
	g.toMem = offheap.Make[uint32](m)
	g.to = g.toMem.Slice()
	offs := make([]int, len(chunks)+1)
	for k, c := range chunks {
		offs[k+1] = offs[k] + c.m
	}
	var missed atomic.Bool
	var wg sync.WaitGroup
	workers := min(len(s.workers), runtime.GOMAXPROCS(0))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sink uint64
			for k := w; k < len(chunks); k += workers {
				out := g.to[offs[k]:offs[k+1]]
				c := chunks[k]
				// The targets are looked up a batch at a time
				// (fpIndex.getAll); an edge to where an earlier one leads
				// holds that edge's index until the second pass.
				var batch [indexBatch]uint64
				var at [indexBatch]int
				var found [indexBatch]uint32
				n, e := 0, 0
				flush := func() bool {
					ok := idx.getAll(batch[:n], found[:n], &sink)
					for i, j := range at[:n] {
						out[j] = found[i]
					}
					n = 0
					if !ok {
						missed.Store(true)
					}
					return ok
				}
				resolve := func(v uint64) bool {
					if e/64 < len(c.again) && c.again[e/64]&(1<<uint(e%64)) != 0 {
						out[e] = uint32(v)
						e++
						return true
					}
					batch[n], at[n] = v, e
					e++
					if n++; n == len(batch) {
						return flush()
					}
					return true
				}
				if c.sink != nil && c.sink.tgtOut != nil {
					if err := c.sink.tgtOut.read(c.tgtFrom, int64(c.m), resolve); err != nil {
						missed.Store(true)
					}
				}
				for _, fp := range c.targets {
					if !resolve(fp) {
						break
					}
				}
				if n > 0 && !missed.Load() {
					flush()
				}
				for w, word := range c.again {
					for ; word != 0; word &= word - 1 {
						e := w*64 + bits.TrailingZeros64(word)
						out[e] = out[out[e]] // out[e] < e: resolved already
					}
				}
				c.targets, c.again = nil, nil
				if missed.Load() {
					return
				}
				if s.stopped() {
					return
				}
			}
		}()
	}
	wg.Wait()
	idx.free()
	fpsMem.Free()
	for _, c := range chunks {
		*c = graphChunk{}
	}
	if missed.Load() {
		g.free()
		return nil, errIncomplete
	}
	if s.stopped() {
		g.free()
		return nil, errHalted
	}
	g.ntasks = max(g.ntasks, int(g.task.max())+1)
	g.faults = g.task.hasFault()
	// The BFS tree: the first edge into each state that is not initial.
	g.first = g.firstMem.Slice()
	g.peMem = offheap.Make[uint32](n)
	g.pe = g.peMem.Slice()
	for i := range g.pe {
		g.pe[i] = math.MaxUint32
	}
	for e, v := range g.to {
		if int(v) >= g.n0 && g.pe[v] == math.MaxUint32 {
			g.pe[v] = uint32(e)
		}
	}
	return g, nil
}

// errHalted says that a limit stopped the graph's construction.
var errHalted = errors.New("explorer: stopped")

// fpIndex finds a state's number by its fingerprint: an open-addressing
// table, at most 3/4 full, each of whose slots holds a state's number
// plus one (0 is empty) in its low 32 bits and the low 32 bits of the
// state's fingerprint, its tag, in the high ones. A fingerprint's first
// slot is its high bits scaled to the table's size (home), so that the
// table need not be a power of two in size.
//
// A lookup takes the first slot on its path with its tag, without reading
// the fingerprints: one cache miss, not two. It would take the wrong state
// only where a slot before a state's own on its path held another state
// with the same tag; placing the state walked past that slot then and
// met the tag, and the index compares whole fingerprints ever after
// (verify): placing a state passes one and a half other slots on
// average, so this happens about once in three thousand indexes of a
// million states.
type fpIndex struct {
	fps    []uint64
	slots  []uint64 // in mem
	mem    offheap.Array[uint64]
	verify bool
}

// free gives the index's memory back.
func (x *fpIndex) free() {
	x.mem.Free()
	x.slots = nil
}

// indexBatch is how many fingerprints fpIndex reads ahead of the one it
// places or finds, so that their cache misses overlap.
const indexBatch = 64

// newFPIndex indexes fps (fingerprints of states 0 .. len(fps)-1) on up to
// workers goroutines, each placing a range of them: a slot is claimed by
// compare-and-swap, so that a state met in a slot was placed there before,
// by whichever goroutine. The layout then depends on the order of the
// claims, not what get finds. errIncomplete says that a fingerprint
// appears twice (two copies meet on their common probe path, whoever
// places second); halt is asked by the first goroutine only. fps must
// stay unchanged while the index is used, unless verify is false.
func newFPIndex(fps []uint64, halt func(int) bool, workers int) (fpIndex, error) {
	size := max(16, len(fps)/3*4+4)
	x := fpIndex{fps: fps, mem: offheap.Make[uint64](size)}
	x.slots = x.mem.Slice()
	workers = max(1, min(workers, len(fps)/indexBatch))
	// The slots are written before they are read, each goroutine a part:
	// see fpTable.grow.
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lo, hi := split(len(x.slots), workers, w)
			clear(x.slots[lo:hi])
		}()
	}
	wg.Wait()
	var twice, halted, verify atomic.Bool
	for w := 0; w < workers; w++ {
		lo, hi := split(len(fps), workers, w)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sink uint64
			for i := lo; i < hi; i++ {
				if (i-lo)%indexBatch == 0 {
					if w == 0 && halt(i) {
						halted.Store(true)
					}
					if halted.Load() || twice.Load() {
						return
					}
					for _, f := range fps[i:min(i+indexBatch, hi)] {
						sink += atomic.LoadUint64(&x.slots[x.home(f)])
					}
				}
				switch x.place(i) {
				case placeTwice:
					twice.Store(true)
					return
				case placeTagMet:
					verify.Store(true)
				}
			}
			runtime.KeepAlive(sink) // the reads ahead are not dead code
		}()
	}
	wg.Wait()
	switch {
	case halted.Load():
		x.free()
		return fpIndex{}, errHalted
	case twice.Load():
		x.free()
		return fpIndex{}, errIncomplete
	}
	x.verify = verify.Load()
	return x, nil
}

// What placing a state met on its way.
const (
	placeFree   = iota // only other tags
	placeTagMet        // another fingerprint with the state's tag
	placeTwice         // the state's fingerprint: it is there twice
)

// tag returns the tag of fingerprint fp, in a slot's high bits.
func tag(fp uint64) uint64 { return fp << 32 }

// place puts state i in its fingerprint's first free slot, and says what
// it met on the way.
func (x fpIndex) place(i int) int {
	fp := x.fps[i]
	met := placeFree
	for h := x.home(fp); ; h = x.next(h) {
		v := atomic.LoadUint64(&x.slots[h])
		if v == 0 {
			if atomic.CompareAndSwapUint64(&x.slots[h], 0, tag(fp)|uint64(i+1)) {
				return met
			}
			v = atomic.LoadUint64(&x.slots[h])
		}
		if v>>32<<32 == tag(fp) {
			if x.fps[uint32(v)-1] == fp {
				return placeTwice
			}
			met = placeTagMet
		}
	}
}

// home returns the first slot of fingerprint fp.
func (x fpIndex) home(fp uint64) int {
	hi, _ := bits.Mul64(fp, uint64(len(x.slots)))
	return int(hi)
}

// next returns the slot after h.
func (x fpIndex) next(h int) int {
	if h++; h == len(x.slots) {
		return 0
	}
	return h
}

// get returns the number of the state with fingerprint fp. A fingerprint
// of no state is reported missing unless, without verify, a state with
// its tag lies on its path.
func (x fpIndex) get(fp uint64) (uint32, bool) { return x.getFrom(fp, x.home(fp)) }

// getFrom is get with fp's home slot h.
func (x fpIndex) getFrom(fp uint64, h int) (uint32, bool) {
	for ; ; h = x.next(h) {
		v := x.slots[h]
		if v == 0 {
			return 0, false
		}
		if v>>32<<32 == tag(fp) && (!x.verify || x.fps[uint32(v)-1] == fp) {
			return uint32(v) - 1, true
		}
	}
}

// getAll puts the number of the state of each fingerprint of fps (at most
// indexBatch) in out and reports whether it found them all. It first
// reads the home slots of all of them, so that the cache misses of a
// batch overlap instead of following one another; sink keeps those reads.
func (x fpIndex) getAll(fps []uint64, out []uint32, sink *uint64) bool {
	var homes [indexBatch]int
	var s uint64
	for i, fp := range fps {
		homes[i] = x.home(fp)
		s += x.slots[homes[i]]
	}
	*sink += s
	for i, fp := range fps {
		j, ok := x.getFrom(fp, homes[i])
		if !ok {
			return false
		}
		out[i] = j
	}
	return true
}

// buildGraph explores the whole state space of m breadth first on one
// worker and records every edge, for a search that could not record the
// graph itself (DFS, a bound, a search cut short by its violations).
func (s *search) buildGraph(sp *graphSpec) (g *stateGraph, err error) {
	defer func() {
		// A model that panics fails the run as in the search: here, on a
		// state the search stored but did not expand (one that broke an
		// assertion).
		if p := recover(); p != nil {
			g, err = nil, fmt.Errorf("the model panicked while the state graph for liveness was built: %v", p)
		}
	}()
	w := s.m.NewWorker()
	k, err := newGraphSink(sp, w)
	if err != nil {
		return nil, err
	}
	if k.tw != nil && len(sp.types) > 0 {
		defer k.tw.TrackTypes(false)
	}
	// The fingerprints go to files when it can, to memory otherwise.
	if k.spillTo() == nil {
		defer k.close()
	}
	k.next()
	index := swiss.NewMap[uint64, struct{}](1024)
	// The states waiting to be expanded, back to back; ends[i] is where
	// state i ends, counted from the start of the search, and shift is how
	// many bytes of expanded states have been dropped from the front.
	var arena []byte
	var ends []int
	shift := 0
	add := func(st []byte, fp uint64) {
		index.Put(fp, struct{}{})
		arena = append(arena, st...)
		ends = append(ends, shift+len(arena))
	}
	for _, st := range s.initial {
		fp := fingerprint(st)
		if !index.Has(fp) {
			add(st, fp)
		}
	}
	var cur []byte
	full := false // the memory limit stopped the graph
	xp := &Expansion{Emit: func(t Transition, next []byte) {
		fp := fingerprint(next)
		seen := index.Has(fp)
		if full || (!seen && !roomToGrow(s, index, 8)) {
			full = true
			return
		}
		if !seen {
			add(next, fp)
		}
		k.edge(t, fp)
	}}
	for i := 0; i < len(ends); i++ {
		if i&255 == 0 && s.halting() {
			return nil, errHalted
		}
		if s.cfg.MaxStates > 0 && int64(len(ends)) > s.cfg.MaxStates {
			return nil, fmt.Errorf("state limit reached (--max-states %d) while building the state graph for liveness", s.cfg.MaxStates)
		}
		start := 0
		if i > 0 {
			start = ends[i-1]
		}
		cur = append(cur[:0], arena[start-shift:ends[i]-shift]...)
		if done := ends[i] - shift; done > 1<<20 && done > len(arena)/2 {
			// Drop the expanded states: only the frontier is kept.
			arena = append(arena[:0:0], arena[done:]...)
			shift = ends[i]
		}
		k.begin(cur, fingerprint(cur))
		if k.err != nil {
			return nil, k.err
		}
		ok, err := inBound(w, cur)
		if err != nil {
			return nil, err
		}
		if !ok {
			k.markCut()
			continue
		}
		full = false
		if err = expandFully(w, cur, xp); err != nil {
			return nil, err
		}
		if full {
			return nil, errHalted
		}
		k.end(cur)
		if k.err != nil {
			return nil, k.err
		}
	}
	index, arena = nil, nil
	for _, p := range []*spill{k.fpOut, k.tgtOut} {
		if p != nil && p.flush() != nil {
			return nil, fmt.Errorf("writing the state graph to a temporary file: %w", p.err)
		}
	}
	g, err = s.assemble(sp, k.chunks)
	if errors.Is(err, errIncomplete) {
		return nil, fmt.Errorf("the state graph for liveness could not be read back from its temporary files")
	}
	return g, err
}

// prefix returns the initial index and the action indices of the BFS-tree
// path to state i.
func (g *stateGraph) prefix(i int) (int, []uint32) {
	var acts []uint32
	for !g.isInit(i) {
		e := int(g.pe[i])
		acts = append(acts, g.action(e))
		i = g.source(e)
	}
	for a, b := 0, len(acts)-1; a < b; a, b = a+1, b-1 {
		acts[a], acts[b] = acts[b], acts[a]
	}
	return int(g.initIdx[i]), acts
}

// path returns the edges of a shortest path from state from to a state
// where target holds, moving only through states where in holds (from and
// the target included), or nil if there is none. The path may be empty
// when from is a target.
func (g *stateGraph) path(from int, in, target func(int) bool) ([]int, bool) {
	return g.pathOf(from, in, target, false)
}

// pathOf is path, along the edges of tasks only (no fault) when tasksOnly.
func (g *stateGraph) pathOf(from int, in, target func(int) bool, tasksOnly bool) ([]int, bool) {
	if target(from) {
		return nil, true
	}
	prevEdge := map[int]int{from: -1}
	queue := []int{from}
	for steps := 1; len(queue) > 0; steps++ {
		if g.halt(steps) {
			return nil, false
		}
		u := queue[0]
		queue = queue[1:]
		lo, hi := g.edges(u)
		for e := lo; e < hi; e++ {
			v := int(g.to[e])
			if _, seen := prevEdge[v]; seen || !in(v) || tasksOnly && g.taskOf(e) < 0 {
				continue
			}
			prevEdge[v] = e
			if target(v) {
				var edges []int
				for x := v; x != from; {
					pe := prevEdge[x]
					edges = append(edges, pe)
					x = g.source(pe)
				}
				for a, b := 0, len(edges)-1; a < b; a, b = a+1, b-1 {
					edges[a], edges[b] = edges[b], edges[a]
				}
				return edges, true
			}
			queue = append(queue, v)
		}
	}
	return nil, false
}

// source returns the state an edge leaves, by binary search in first.
func (g *stateGraph) source(e int) int {
	lo, hi := 0, g.n
	for lo < hi {
		mid := (lo + hi) / 2
		if int(g.first[mid+1]) <= e {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// action returns the action index of edge e.
func (g *stateGraph) action(e int) uint32 { return uint32(e - int(g.first[g.source(e)])) }

// scc computes the strongly connected components of the subgraph of states
// where in holds (iteratively, Tarjan's algorithm). comp[i] is the
// component of state i, or -1; components are numbered in reverse
// topological order: every edge between components goes from a higher
// number to a lower one.
func (g *stateGraph) scc(in func(int) bool) (comp []int32, count int) { return g.sccOf(in, false) }

// sccOf is scc, along the edges of tasks only (no fault) when tasksOnly.
func (g *stateGraph) sccOf(in func(int) bool, tasksOnly bool) (comp []int32, count int) {
	comp = make([]int32, g.n)
	index := make([]int32, g.n)
	low := make([]int32, g.n)
	for i := range comp {
		comp[i], index[i] = -1, -1
	}
	onStack := make([]bool, g.n)
	var stack []int32
	type frame struct {
		v    int32
		edge int
	}
	var calls []frame
	next := int32(0)
	for root := 0; root < g.n; root++ {
		if index[root] >= 0 || !in(root) || g.halt(root) {
			continue
		}
		calls = append(calls, frame{int32(root), int(g.first[root])})
		index[root], low[root] = next, next
		next++
		stack = append(stack, int32(root))
		onStack[root] = true
		for steps := 1; len(calls) > 0; steps++ {
			if g.halt(steps) {
				return comp, count
			}
			f := &calls[len(calls)-1]
			v := f.v
			if f.edge < int(g.first[v+1]) {
				w := int32(g.to[f.edge])
				f.edge++
				if !in(int(w)) || tasksOnly && g.taskOf(f.edge-1) < 0 {
					continue
				}
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					calls = append(calls, frame{w, int(g.first[w])})
				} else if onStack[w] && index[w] < low[v] {
					low[v] = index[w]
				}
				continue
			}
			if low[v] == index[v] {
				for {
					x := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[x] = false
					comp[x] = int32(count)
					if x == v {
						break
					}
				}
				count++
			}
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				p := calls[len(calls)-1].v
				if low[v] < low[p] {
					low[p] = low[v]
				}
			}
		}
	}
	return comp, count
}

// spill is an unlinked temporary file that keeps a stream of fingerprints
// out of memory: written through a buffer, read back once.
type spill struct {
	f   *os.File
	buf []byte
	n   int64 // records written
	err error
}

func newSpill() (*spill, error) {
	f, err := os.CreateTemp("", "vacheck-graph-*")
	if err != nil {
		return nil, err
	}
	// The file goes when it is closed, or when the process ends.
	_ = os.Remove(f.Name())
	return &spill{f: f, buf: make([]byte, 0, 1<<18)}, nil
}

func (p *spill) put(fp uint64) {
	p.buf = binary.LittleEndian.AppendUint64(p.buf, fp)
	p.n++
	if len(p.buf) == cap(p.buf) {
		p.flush()
	}
}

// flush writes the buffer out and returns the first error met.
func (p *spill) flush() error {
	if p.err == nil && len(p.buf) > 0 {
		_, p.err = p.f.Write(p.buf)
	}
	p.buf = p.buf[:0]
	return p.err
}

// read calls fn with records from .. from+count-1, in order, until fn
// returns false. It may run concurrently with other reads.
func (p *spill) read(from, count int64, fn func(fp uint64) bool) error {
	buf := make([]byte, 1<<16)
	for off := 8 * from; count > 0; {
		k := min(count, int64(len(buf)/8))
		b := buf[:8*k]
		if _, err := p.f.ReadAt(b, off); err != nil {
			return fmt.Errorf("reading the state graph back: %w", err)
		}
		for i := 0; i < len(b); i += 8 {
			if !fn(binary.LittleEndian.Uint64(b[i:])) {
				return nil
			}
		}
		off, count = off+8*k, count-k
	}
	return nil
}

func (p *spill) close() {
	p.f.Close()
	p.buf = nil
}
