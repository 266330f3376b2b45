package explorer

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dolthub/swiss"
	"github.com/vacheck/vacheck/internal/input"
	"github.com/vacheck/vacheck/internal/offheap"
)

// fairStepsMet refuses a fair step (Config.FairSteps) that no edge of
// the chunks is, naming the steps they have.
func fairStepsMet(fair []FairStep, chunks []*graphChunk) error {
	hits := make([]int64, len(fair))
	steps := map[string]bool{}
	for _, c := range chunks {
		for j, h := range c.fairHits {
			hits[j] += h
		}
		for name := range c.steps {
			steps[name] = true
		}
	}
	for j, f := range fair {
		if hits[j] > 0 {
			continue
		}
		names := make([]string, 0, len(steps))
		for name := range steps {
			names = append(names, name)
		}
		sort.Strings(names)
		mean := ""
		if s := input.Suggest(f.Step, names); s != "" {
			mean = fmt.Sprintf(" (did you mean %s?)", s)
		}
		return configError("FairSteps", f.Step, "{FairSteps %s}: no transition of the state graph is a step %s%s; its steps are %s", f.Step, f.Step, mean, strings.Join(names, ", "))
	}
	return nil
}

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
	g := &stateGraph{n: n, nbits: sp.nbits, stop: s.halting, typed: make([][]int32, len(sp.types)), fairK: int32(len(sp.fair) + 1)}
	if lm, ok := s.m.(LiveModel); ok {
		g.ntasks = len(lm.Tasks())
	}
	if err := fairStepsMet(sp.fair, chunks); err != nil {
		return nil, err
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
		if len(sp.track) > 0 && g.tracked == nil {
			g.tracked = make([]trackCol, len(sp.track))
		}
		for i, m := range sp.track {
			tg, tc := &g.tracked[i], &c.tracked[i]
			tg.vals = append(tg.vals, tc.vals...)
			if m.Kind != PerKey {
				continue
			}
			if tg.first == nil {
				tg.first = []uint32{0}
				tg.reached = map[int32][]uint64{}
			}
			for _, d := range tc.count {
				tg.first = append(tg.first, tg.first[len(tg.first)-1]+d)
			}
			for j, set := range tc.reached {
				tg.reached[int32(state)+j] = set
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
				return nil, err
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
	var readFailed atomic.Bool // a spill file could not be read back
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
						readFailed.Store(true)
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
	if readFailed.Load() {
		g.free()
		return nil, fmt.Errorf("%w: reading the state graph back failed", errTempFile)
	}
	if missed.Load() {
		g.free()
		return nil, errIncomplete
	}
	if s.stopped() {
		g.free()
		return nil, errHalted
	}
	// The tasks: the model's, then one per (task, fair step) (fairK).
	g.nbase = g.ntasks
	if top := g.task.max(); top >= 0 {
		g.nbase = max(g.nbase, int(top/g.fairK)+1)
	}
	g.ntasks = g.nbase
	if g.fairK > 1 {
		g.ntasks = g.nbase + g.nbase*int(g.fairK)
	}
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

// errGraphStates is the state limit reached while the state graph for
// liveness is built again.
var errGraphStates = errors.New("state limit reached")

// halting is stopped for the passes over the state graph; it reads the
// context itself as well, so that an interruption is seen at once.
func (s *search) halting() bool {
	if s.cfg.Context != nil && s.cfg.Context.Err() != nil {
		s.stop.CompareAndSwap(running, stopContext)
	}
	return s.stopped()
}

// buildGraph explores the whole state space of m breadth first on one
// worker and records every edge, for a search that could not record the
// graph itself (DFS, a bound, a search cut short by its violations). With
// toFiles, the fingerprints go to temporary files when they can; an error
// of those files wraps errTempFile.
func (s *search) buildGraph(sp *graphSpec, toFiles bool) (g *stateGraph, err error) {
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
	if toFiles && k.spillTo() == nil {
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
			return nil, fmt.Errorf("%w (--max-states %d) while building the state graph for liveness", errGraphStates, s.cfg.MaxStates)
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
			return nil, p.err
		}
	}
	g, err = s.assemble(sp, k.chunks)
	if errors.Is(err, errIncomplete) {
		return nil, fmt.Errorf("the state graph for liveness could not be read back from its temporary files")
	}
	return g, err
}
