package explorer

import (
	"math"
	"slices"
	"time"

	"github.com/vacheck/vacheck/internal/offheap"
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
	// Fairness per step (Config.FairSteps): with fairK > 1, an edge's
	// task t is the model's task t/fairK, and when t%fairK = j+1 also the
	// task nbase+t, step j of it (edgeTasks); nbase is the number of the
	// model's tasks. weak and strong are the tasks under each fairness
	// (setFairness).
	fairK        int32
	nbase        int
	weak, strong bitset
	faults       bool // some edge is a fault (crash or recovery)
	// tracked holds the values of the metrics the model tracks
	// (graphSpec.track), per edge.
	tracked []trackCol
	// stop, when set, says that a limit ends the run: the passes over the
	// graph then return early and set halted.
	stop   func() bool
	halted bool

	// toMem, firstMem and peMem hold to, first and pe outside the Go heap.
	toMem, firstMem, peMem offheap.Array[uint32]
}

// GraphStats describes the explicit state graph built for liveness and
// metrics.
type GraphStats struct {
	States, Edges int64
	Bytes         uint64 // memory of the graph's arrays
	Elapsed       time.Duration
	// Recorded: the safety search recorded the graph as it went; otherwise
	// (DFS, a bound, a depth limit) a second search built it.
	Recorded bool
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

// edgeTasks returns the tasks of edge e: the model's task, and the task of
// its fair step or -1 (stateGraph.fairK); -1 and -1 for a fault.
func (g *stateGraph) edgeTasks(e int) (base, step int32) {
	t := g.task.at(e)
	if t < 0 || g.fairK <= 1 {
		return t, -1
	}
	if t%g.fairK == 0 {
		return t / g.fairK, -1
	}
	return t / g.fairK, int32(g.nbase) + t
}

// setFairness sets the tasks under weak and under strong fairness: the
// model's under f, each fair step's as it says.
func (g *stateGraph) setFairness(f Fairness, fair []FairStep) {
	g.weak, g.strong = newBitset(g.ntasks), newBitset(g.ntasks)
	for t := 0; t < g.nbase; t++ {
		switch f {
		case Weak:
			g.weak.set(t)
		case Strong:
			g.strong.set(t)
		}
	}
	if g.fairK <= 1 {
		return
	}
	for t := g.nbase; t < g.ntasks; t++ {
		j := (t - g.nbase) % int(g.fairK)
		switch {
		case j == 0:
		case fair[j-1].Strong:
			g.strong.set(t)
		default:
			g.weak.set(t)
		}
	}
}

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
		int(g.trackedBytes()))
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

// members groups the states by component (comp as scc returns it): the
// states of component c are order[at[c]:at[c+1]], in increasing order.
func members(comp []int32, count int) (order, at []int32) {
	at = make([]int32, count+1)
	for _, c := range comp {
		if c >= 0 {
			at[c+1]++
		}
	}
	for c := 0; c < count; c++ {
		at[c+1] += at[c]
	}
	order = make([]int32, at[count])
	fill := append([]int32(nil), at[:count]...)
	for i, c := range comp {
		if c >= 0 {
			order[fill[c]] = int32(i)
			fill[c]++
		}
	}
	return order, at
}

// trackCol is the graph's record of one tracked metric: for PathSum and
// Sample one value per edge; for PerKey the keys of edge e are
// vals[first[e]:first[e+1]], and reached maps a terminal state to the keys
// reached in it (bit set).
type trackCol struct {
	vals    []int32
	first   []uint32
	reached map[int32][]uint64
}

// trackedBytes is the memory the tracked metrics' columns hold.
func (g *stateGraph) trackedBytes() int {
	n := 0
	for _, t := range g.tracked {
		n += cap(t.vals)*4 + cap(t.first)*4
	}
	return n
}
