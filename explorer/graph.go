package explorer

import (
	"fmt"

	"github.com/cespare/xxhash/v2"
	"github.com/dolthub/swiss"
)

// stateGraph is the explicit state graph that liveness checking and
// metrics need: states numbered in BFS order, each with its outgoing edges
// in action order, the BFS tree (for shortest prefixes), and the values of
// the liveness predicates.
type stateGraph struct {
	n      int
	first  []uint32 // edges of state i: first[i] .. first[i+1]
	to     []uint32
	task   []int32 // -1: a fault
	msgs   []int32
	parent []uint32 // BFS tree; for an initial state, itself
	pact   []uint32 // action index from the parent; for an initial state, its initial index
	init   []bool
	cut    []bool    // beyond the model's bound: not expanded
	preds  []uint64  // liveness predicate bits, stride words per state
	typed  [][]int32 // per "messages:TYPE" metric: messages of that type per edge
	stride int
	ntasks int
	// Instrumented metrics (MeasureWorker), per edge when asked for.
	time        []int32            // "time": increase of the largest depth
	sync        []int32            // "sync-delay": the delay an enter closes, or -1
	servedFirst []uint32           // "messages-per-entry": edge e's keys are servedKeys[servedFirst[e]:servedFirst[e+1]]
	servedKeys  []int32            // the entry key of each message
	entered     map[int32][]uint64 // terminal state -> the entry keys that took place in it (bit set)
}

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
	return g.preds[state*g.stride+bit/64]&(1<<uint(bit%64)) != 0
}

// edges returns the index range of state i's edges.
func (g *stateGraph) edges(i int) (int, int) { return int(g.first[i]), int(g.first[i+1]) }

// terminal reports whether state i has no enabled transition other than
// faults (and was expanded).
func (g *stateGraph) terminal(i int) bool {
	if g.cut[i] {
		return false
	}
	lo, hi := g.edges(i)
	for e := lo; e < hi; e++ {
		if g.task[e] >= 0 {
			return false
		}
	}
	return true
}

// terminalRange reports whether the edges lo..hi of one state are all
// faults (so that the state is terminal, when it is expanded).
func (g *stateGraph) terminalRange(lo, hi int) bool {
	for e := lo; e < hi; e++ {
		if g.task[e] >= 0 {
			return false
		}
	}
	return true
}

// bytes estimates the memory the graph holds.
func (g *stateGraph) bytes() uint64 {
	return uint64(cap(g.first)*4 + cap(g.to)*4 + cap(g.task)*4 + cap(g.msgs)*4 +
		cap(g.parent)*4 + cap(g.pact)*4 + cap(g.init) + cap(g.cut) + cap(g.preds)*8 +
		cap(g.time)*4 + cap(g.sync)*4 + cap(g.servedFirst)*4 + cap(g.servedKeys)*4)
}

// buildGraph explores the whole state space of m breadth first on one
// worker and keeps every edge. live describes the liveness properties whose
// predicates are evaluated in every state.
func (s *search) buildGraph(live []LiveProperty, types []string, gm graphMeasures) (*stateGraph, []int, error) {
	w := s.m.NewWorker()
	lw, _ := w.(LiveWorker)
	tw, _ := w.(TypedWorker)
	mw, _ := w.(MeasureWorker)
	if (gm.time || gm.sync || gm.entry) && mw == nil {
		return nil, nil, fmt.Errorf("%w: the model cannot measure time, sync-delay or messages-per-entry", ErrConfig)
	}
	if len(types) > 0 {
		if tw == nil {
			return nil, nil, fmt.Errorf("%w: the model cannot count messages by type", ErrConfig)
		}
		tw.TrackTypes(true)
		defer tw.TrackTypes(false)
	}
	base := make([]int, len(live))
	bits := 0
	for k, p := range live {
		base[k] = bits / 2
		bits += 2 * p.Instances
	}
	g := &stateGraph{stride: (bits + 63) / 64, first: []uint32{0}, typed: make([][]int32, len(types))}
	if gm.entry {
		g.servedFirst = []uint32{0}
		g.entered = map[int32][]uint64{}
	}
	if g.stride == 0 {
		g.stride = 1
	}
	if lm, ok := s.m.(LiveModel); ok {
		g.ntasks = len(lm.Tasks())
	}
	index := swiss.NewMap[uint64, uint32](1024)
	// The states waiting to be expanded, back to back; ends[i] is where
	// state i ends, counted from the start of the search, and shift is how
	// many bytes of expanded states have been dropped from the front.
	var arena []byte
	var ends []int
	shift := 0
	add := func(st []byte, fp uint64, parent, act uint32, init bool) uint32 {
		i := uint32(len(ends))
		index.Put(fp, i)
		arena = append(arena, st...)
		ends = append(ends, shift+len(arena))
		if init {
			parent = i
		}
		g.parent = append(g.parent, parent)
		g.pact = append(g.pact, act)
		g.init = append(g.init, init)
		return i
	}
	for i, st := range s.initial {
		fp := xxhash.Sum64(st)
		if !index.Has(fp) {
			add(st, fp, 0, uint32(i), true)
		}
	}
	var cur []byte
	for i := 0; i < len(ends); i++ {
		if i&255 == 0 && s.stopped() {
			return nil, nil, fmt.Errorf("%s while building the state graph for liveness", s.limitReason())
		}
		if s.cfg.MaxStates > 0 && int64(len(ends)) > s.cfg.MaxStates {
			return nil, nil, fmt.Errorf("state limit reached (--max-states %d) while building the state graph for liveness", s.cfg.MaxStates)
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
		// Predicates.
		words := make([]uint64, g.stride)
		for k, p := range live {
			for inst := 0; inst < p.Instances; inst++ {
				when, goal, err := lw.Live(cur, k, inst)
				if err != nil {
					return nil, nil, err
				}
				if when {
					b := g.predBit(k, inst, false, base)
					words[b/64] |= 1 << uint(b%64)
				}
				if goal {
					b := g.predBit(k, inst, true, base)
					words[b/64] |= 1 << uint(b%64)
				}
			}
		}
		g.preds = append(g.preds, words...)
		ok, err := inBound(w, cur)
		if err != nil {
			return nil, nil, err
		}
		g.cut = append(g.cut, !ok)
		if ok {
			a := uint32(0)
			full := false
			_, err = w.Successors(cur, func(t Transition, next []byte) {
				fp := xxhash.Sum64(next)
				j, seen := index.Get(fp)
				if full || (!seen && !roomToGrow(s, index, 4+8)) {
					full = true
					return
				}
				if !seen {
					j = add(next, fp, uint32(i), a, false)
				}
				g.to = append(g.to, j)
				task := t.Task
				if t.Fault {
					task = -1
				}
				g.task = append(g.task, task)
				g.msgs = append(g.msgs, t.Messages)
				for k, typ := range types {
					g.typed[k] = append(g.typed[k], int32(tw.SentOfType(typ)))
				}
				if gm.time {
					g.time = append(g.time, mw.TimeIncrease())
				}
				if gm.sync {
					g.sync = append(g.sync, mw.SyncDelay())
				}
				if gm.entry {
					g.servedKeys = mw.Served(g.servedKeys)
					g.servedFirst = append(g.servedFirst, uint32(len(g.servedKeys)))
				}
				a++
			})
			if err != nil {
				return nil, nil, err
			}
			if gm.entry && !full && g.terminalRange(int(g.first[len(g.first)-1]), len(g.to)) {
				keys := mw.EntryKeys()
				set := make([]uint64, (keys+63)/64)
				for k := 0; k < keys; k++ {
					ok, err := mw.Entered(cur, k)
					if err != nil {
						return nil, nil, err
					}
					if ok {
						set[k/64] |= 1 << uint(k%64)
					}
				}
				g.entered[int32(i)] = set
			}
			if full {
				return nil, nil, fmt.Errorf("%s while building the state graph for liveness", s.limitReason())
			}
		}
		g.first = append(g.first, uint32(len(g.to)))
	}
	g.n = len(ends)
	for _, t := range g.task {
		g.ntasks = max(g.ntasks, int(t)+1)
	}
	return g, base, nil
}

// prefix returns the initial index and the action indices of the BFS-tree
// path to state i.
func (g *stateGraph) prefix(i int) (int, []uint32) {
	var acts []uint32
	for !g.init[i] {
		acts = append(acts, g.pact[i])
		i = int(g.parent[i])
	}
	for a, b := 0, len(acts)-1; a < b; a, b = a+1, b-1 {
		acts[a], acts[b] = acts[b], acts[a]
	}
	return int(g.pact[i]), acts
}

// path returns the edges of a shortest path from state from to a state
// where target holds, moving only through states where in holds (from and
// the target included), or nil if there is none. The path may be empty
// when from is a target.
func (g *stateGraph) path(from int, in, target func(int) bool) ([]int, bool) {
	if target(from) {
		return nil, true
	}
	prevEdge := map[int]int{from: -1}
	queue := []int{from}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		lo, hi := g.edges(u)
		for e := lo; e < hi; e++ {
			v := int(g.to[e])
			if _, seen := prevEdge[v]; seen || !in(v) {
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
func (g *stateGraph) scc(in func(int) bool) (comp []int32, count int) {
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
		if index[root] >= 0 || !in(root) {
			continue
		}
		calls = append(calls, frame{int32(root), int(g.first[root])})
		index[root], low[root] = next, next
		next++
		stack = append(stack, int32(root))
		onStack[root] = true
		for len(calls) > 0 {
			f := &calls[len(calls)-1]
			v := f.v
			if f.edge < int(g.first[v+1]) {
				w := int32(g.to[f.edge])
				f.edge++
				if !in(int(w)) {
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
