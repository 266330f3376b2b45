package explorer

import (
	"container/heap"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/vacheck/vacheck/properties"
)

// Fairness is the fairness assumption under which liveness is checked.
// The zero value is invalid.
type Fairness uint8

const (
	// Weak fairness (the default, as in I/O automata): a task that is
	// enabled from some point on is taken infinitely often.
	Weak Fairness = 1 + iota
	// Strong fairness: a task enabled infinitely often is taken infinitely
	// often.
	Strong
	// NoFairness: every cycle counts, even one that ignores an enabled task
	// forever.
	NoFairness
)

func (f Fairness) String() string {
	switch f {
	case Weak:
		return "weak"
	case Strong:
		return "strong"
	case NoFairness:
		return "none"
	}
	return fmt.Sprintf("Fairness(%d)", uint8(f))
}

// ParseFairness reads the --fairness flag value.
func ParseFairness(s string) (Fairness, error) {
	switch s {
	case "weak":
		return Weak, nil
	case "strong":
		return Strong, nil
	case "none":
		return NoFairness, nil
	}
	return 0, fmt.Errorf("--fairness %q: allowed values are weak, strong and none", s)
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

// Metric is the minimum and maximum of a measure (messages, steps) over all
// complete executions: paths from an initial state to a terminal state.
type Metric struct {
	Name       string
	Min, Max   int64
	Unbounded  bool // a reachable cycle adds to the measure: Max is a lower bound
	Executions bool // false when no execution is complete (no terminal state)
	MinWitness *Trace
	MaxWitness *Trace // with a Cycle when Unbounded (unless Capped)
	// Capped: the measure reached the model's tracking cap (Cap) on the
	// MaxWitness path, so it is unbounded, or at least Cap.
	Capped bool
	Cap    int64
	// AllRuns: the measure is a sample taken at some transitions (sync-delay),
	// and Min and Max range over every reachable one, in complete
	// executions or not; Executions then says whether there is a sample.
	AllRuns bool
	// MinOf and MaxOf say which part of the witness run the figure
	// measures (messages-per-entry: which critical-section entry).
	MinOf, MaxOf string
}

// bitset is a set of tasks.
type bitset []uint64

func newBitset(n int) bitset    { return make(bitset, (n+63)/64) }
func (b bitset) set(i int)      { b[i/64] |= 1 << uint(i%64) }
func (b bitset) has(i int) bool { return b[i/64]&(1<<uint(i%64)) != 0 }
func (b bitset) fill(n int) {
	for i := 0; i < n; i++ {
		b.set(i)
	}
}
func (b bitset) and(o bitset) {
	for i := range b {
		b[i] &= o[i]
	}
}
func (b bitset) or(o bitset) {
	for i := range b {
		b[i] |= o[i]
	}
}
func (b bitset) andNot(o bitset) bool {
	any := false
	for i := range b {
		b[i] &^= o[i]
		any = any || b[i] != 0
	}
	return any
}

// enabled returns the tasks enabled in state i (faults excluded).
func (g *stateGraph) enabled(i int) bitset {
	b := newBitset(g.ntasks)
	lo, hi := g.edges(i)
	for e := lo; e < hi; e++ {
		if g.taskOf(e) >= 0 {
			b.set(int(g.taskOf(e)))
		}
	}
	return b
}

// component describes a set of states for the fairness test, strongly
// connected along the edges of tasks: a fair cycle takes no fault, since an
// execution takes finitely many (crashes and recoveries are the
// environment's; ALGORITHMS.md 1.14's BU-TERM holds "after the last
// fault"). fairCycle makes a set strongly connected along all edges into
// such components first.
type component struct {
	nodes  []int
	member func(int) bool
	// tasks says that the set is strongly connected along task edges.
	tasks bool
}

// tasksOf returns the tasks enabled in every state of c, in some state of
// c, and taken by an edge inside c; and whether c has a cycle.
func (g *stateGraph) tasksOf(c component) (all, some, taken bitset, cyclic bool) {
	all, some, taken = newBitset(g.ntasks), newBitset(g.ntasks), newBitset(g.ntasks)
	all.fill(g.ntasks)
	for _, u := range c.nodes {
		en := g.enabled(u)
		all.and(en)
		some.or(en)
		lo, hi := g.edges(u)
		for e := lo; e < hi; e++ {
			if v := int(g.to[e]); c.member(v) && g.taskOf(e) >= 0 {
				cyclic = cyclic || len(c.nodes) > 1 || v == u
				taken.set(int(g.taskOf(e)))
			}
		}
	}
	return all, some, taken, cyclic
}

// fairCycle returns the states of a fair cycle inside c (a strongly
// connected set), or nil: c itself under weak fairness or none, a
// strongly connected part of it under strong fairness (the Streett
// decomposition: drop the states where a task is enabled that c never
// takes, and look again inside what is left).
func (g *stateGraph) fairCycle(c component, f Fairness) []int {
	if !c.tasks && g.faultInside(c) {
		// Strongly connected along all edges, faults included: look in
		// each part that is strongly connected along task edges. (Without
		// a fault inside, c is such a part.)
		return g.fairCycleIn(c.nodes, c.member, f)
	}
	all, some, taken, cyclic := g.tasksOf(c)
	if !cyclic {
		return nil
	}
	switch f {
	case NoFairness:
		return c.nodes
	case Weak:
		if all.andNot(taken) {
			return nil
		}
		return c.nodes
	}
	bad := some
	if !bad.andNot(taken) {
		return c.nodes
	}
	keep := map[int]bool{}
	for _, u := range c.nodes {
		en := g.enabled(u)
		if !en.andNot(complement(bad, g.ntasks)) {
			keep[u] = true
		}
	}
	if len(keep) == 0 {
		return nil
	}
	return g.fairCycleIn(c.nodes, func(i int) bool { return keep[i] }, Strong)
}

// fairCycleIn returns a fair cycle (fairCycle) inside one of the parts of
// the states of nodes where in holds that are strongly connected along task
// edges, or nil.
func (g *stateGraph) fairCycleIn(nodes []int, in func(int) bool, f Fairness) []int {
	comp, count := g.sccOf(in, true)
	groups := make([][]int, count)
	for _, u := range nodes {
		if in(u) {
			groups[comp[u]] = append(groups[comp[u]], u)
		}
	}
	for k, part := range groups {
		k := int32(k)
		sub := component{nodes: part, member: func(i int) bool { return in(i) && comp[i] == k }, tasks: true}
		if fc := g.fairCycle(sub, f); fc != nil {
			return fc
		}
	}
	return nil
}

// complement returns the tasks not in b.
func complement(b bitset, n int) bitset {
	c := newBitset(n)
	c.fill(n)
	c.andNot(b)
	return c
}

// liveResult is the outcome of one liveness property instance.
type liveResult struct {
	violated bool
	init     int
	prefix   []uint32 // actions from the initial state
	cycle    []uint32 // actions of the cycle (nil for a finite counterexample)
	tasks    []int    // tasks the cycle takes
}

// checkLive checks instance inst of liveness property k on g.
func (g *stateGraph) checkLive(p LiveProperty, k, inst int, base []int, f Fairness) liveResult {
	goalBit, whenBit := g.predBit(k, inst, true, base), g.predBit(k, inst, false, base)
	goal := func(i int) bool { return g.pred(i, goalBit) }
	// stops(i): an execution may end in state i of in, and then misses the
	// goal: a terminal state (faults aside).
	stops := g.terminal
	if p.Kind == properties.Terminates {
		// Termination is about where an execution ends. A terminal state
		// that meets the goal ends it well, but where the environment may
		// still inject a fault, an execution may go on from it, and must
		// end well again: such a state stays in in, without stopping
		// there short of the goal (BU-TERM: after the last fault, every
		// fair run reaches a valid end).
		goal = func(i int) bool { return g.terminal(i) && g.pred(i, goalBit) && !g.hasFault(i) }
		stops = func(i int) bool { return g.terminal(i) && !g.pred(i, goalBit) }
	}
	in := func(i int) bool { return !g.isCut(i) && !goal(i) }
	// isBad(i): from state i, in in, a fair execution can avoid the goal
	// forever. fair holds the fair cycles found, by component.
	var isBad func(i int) bool
	var fair map[int32][]int
	if fb, inB, ok := g.forwardBad(in, stops); ok {
		isBad = func(i int) bool { return inB.has(i) && fb.has(i) }
	} else if !g.halted {
		isBad, fair = g.sccBad(in, stops, f)
	}
	if g.halted {
		return liveResult{}
	}
	start := -1
	for i := 0; i < g.n && start < 0; i++ {
		from := g.isInit(i)
		if p.LeadsTo {
			from = g.pred(i, whenBit)
		}
		if from && isBad(i) {
			start = i
		}
	}
	if start < 0 {
		return liveResult{}
	}
	inFair := map[int]bool{}
	for _, nodes := range fair {
		for _, u := range nodes {
			inFair[u] = true
		}
	}
	target := func(i int) bool { return (stops(i) && in(i)) || inFair[i] }
	edges, _ := g.path(start, in, target)
	init, prefix := g.prefix(start)
	for _, e := range edges {
		prefix = append(prefix, g.action(e))
	}
	end := start
	if len(edges) > 0 {
		end = int(g.to[edges[len(edges)-1]])
	}
	res := liveResult{violated: true, init: init, prefix: prefix}
	if stops(end) && !inFair[end] {
		return res
	}
	var set []int
	for _, nodes := range fair {
		for _, u := range nodes {
			if u == end {
				set = nodes
			}
		}
	}
	res.cycle, res.tasks = g.cycle(end, set, f)
	return res
}

// sccBad is checkLive's general pass: it groups the states of in into
// strongly connected components and decides, sinks first, from which
// components a fair execution can avoid the goal forever (isBad, for
// states of in), by reaching a state of in where it may stop short of the
// goal (stops: a terminal one) or a fair cycle (fair, by component). It
// returns early, with halted set, when the run stops.
func (g *stateGraph) sccBad(in, stops func(int) bool, f Fairness) (isBad func(int) bool, fair map[int32][]int) {
	comp, count := g.scc(in)
	order, at := members(comp, count)
	// bad[c]: from component c a fair execution can avoid the goal
	// forever. Components are numbered sinks first, so successors are
	// decided.
	bad := make([]bool, count)
	fair = map[int32][]int{}
	for c := 0; c < count; c++ {
		if g.halt(c) {
			return nil, nil
		}
		c32 := int32(c)
		group := order[at[c]:at[c+1]]
		for _, u := range group {
			if stops(int(u)) {
				bad[c] = true
			}
			lo, hi := g.edges(int(u))
			for e := lo; e < hi && !bad[c]; e++ {
				if d := comp[g.to[e]]; d >= 0 && d != c32 && bad[d] {
					bad[c] = true
				}
			}
		}
		if len(group) == 1 && !g.selfLoop(int(group[0])) {
			continue // no cycle
		}
		nodes := make([]int, len(group))
		for j, u := range group {
			nodes[j] = int(u)
		}
		if fc := g.fairCycle(component{nodes: nodes, member: func(i int) bool { return comp[i] == c32 }}, f); fc != nil {
			bad[c], fair[c32] = true, fc
		}
	}
	return func(i int) bool { return in(i) && bad[comp[i]] }, fair
}

// forwardBad is checkLive's pass for a graph whose numbering orders the
// states of in topologically: every edge between two of them leads to a
// higher number, as in a BFS where each step leads one level deeper. No
// cycle lies inside in then, so a state of in can avoid the goal forever
// only by reaching a state of in where an execution may stop short of the
// goal (stops: a terminal one), and one pass from the last
// state to the first decides each state from its successors, without the
// memory of the SCC pass. It returns the states of in that can (bad) and
// the states of in (inB); ok is false when an edge inside in does not lead
// forward, and the SCC pass decides, or when the run was halted.
func (g *stateGraph) forwardBad(in, stops func(int) bool) (bad, inB bitset, ok bool) {
	bad, inB = newBitset(g.n), newBitset(g.n)
	for u := g.n - 1; u >= 0; u-- {
		if g.halt(u) {
			return nil, nil, false
		}
		if !in(u) {
			continue
		}
		inB.set(u)
		b := stops(u)
		lo, hi := g.edges(u)
		for e := lo; e < hi; e++ {
			v := int(g.to[e])
			if v <= u {
				if in(v) {
					return nil, nil, false // a backward edge inside in
				}
				continue
			}
			if !b && inB.has(v) && bad.has(v) {
				b = true
			}
		}
		if b {
			bad.set(u)
		}
	}
	return bad, inB, true
}

// faultInside reports whether a fault edge joins two states of c.
func (g *stateGraph) faultInside(c component) bool {
	if !g.faults {
		return false
	}
	for _, u := range c.nodes {
		lo, hi := g.edges(u)
		for e := lo; e < hi; e++ {
			if g.taskOf(e) < 0 && c.member(int(g.to[e])) {
				return true
			}
		}
	}
	return false
}

// hasFault reports whether a fault (crash or recovery) is enabled in state
// u.
func (g *stateGraph) hasFault(u int) bool {
	lo, hi := g.edges(u)
	for e := lo; e < hi; e++ {
		if g.taskOf(e) < 0 {
			return true
		}
	}
	return false
}

// selfLoop reports whether state u has an edge to itself.
func (g *stateGraph) selfLoop(u int) bool {
	lo, hi := g.edges(u)
	for e := lo; e < hi; e++ {
		if int(g.to[e]) == u {
			return true
		}
	}
	return false
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

// cycle builds a cycle from entry through the fair set nodes that is fair:
// it takes an edge of every task taken inside the set and, under weak
// fairness, passes a state where each task it never takes is disabled.
func (g *stateGraph) cycle(entry int, nodes []int, f Fairness) ([]uint32, []int) {
	member := map[int]bool{}
	for _, u := range nodes {
		member[u] = true
	}
	in := func(i int) bool { return member[i] }
	_, some, taken, _ := g.tasksOf(component{nodes: nodes, member: in})
	var edges []int
	cur := entry
	done := newBitset(g.ntasks)     // tasks the cycle has taken so far
	disabled := newBitset(g.ntasks) // tasks disabled in a state it has visited
	visit := func(u int) {
		en := g.enabled(u)
		for t := 0; t < g.ntasks; t++ {
			if !en.has(t) {
				disabled.set(t)
			}
		}
	}
	visit(cur)
	walk := func(target func(int) bool) {
		p, _ := g.pathOf(cur, in, target, true)
		for _, e := range p {
			if g.taskOf(e) >= 0 {
				done.set(int(g.taskOf(e)))
			}
			visit(int(g.to[e]))
		}
		edges = append(edges, p...)
		if len(p) > 0 {
			cur = int(g.to[p[len(p)-1]])
		}
	}
	if f != NoFairness {
		for t := 0; t < g.ntasks; t++ {
			if done.has(t) || (!taken.has(t) && disabled.has(t)) {
				continue
			}
			if taken.has(t) {
				// Reach a state with an edge of task t inside the set, and
				// take it.
				walk(func(i int) bool {
					lo, hi := g.edges(i)
					for e := lo; e < hi; e++ {
						if int(g.taskOf(e)) == t && member[int(g.to[e])] {
							return true
						}
					}
					return false
				})
				lo, hi := g.edges(cur)
				for e := lo; e < hi; e++ {
					if int(g.taskOf(e)) == t && member[int(g.to[e])] {
						edges = append(edges, e)
						cur = int(g.to[e])
						done.set(t)
						visit(cur)
						break
					}
				}
			} else if some.has(t) && f == Weak {
				walk(func(i int) bool { return !g.enabled(i).has(t) })
			}
		}
	}
	if len(edges) == 0 {
		// Leave the entry inside the set first, so the cycle is not empty.
		lo, hi := g.edges(cur)
		for e := lo; e < hi; e++ {
			if member[int(g.to[e])] {
				edges = append(edges, e)
				cur = int(g.to[e])
				break
			}
		}
	}
	walk(func(i int) bool { return i == entry })
	acts := make([]uint32, len(edges))
	seen := map[int]bool{}
	var tasks []int
	for k, e := range edges {
		acts[k] = g.action(e)
		if t := int(g.taskOf(e)); t >= 0 && !seen[t] {
			seen[t] = true
			tasks = append(tasks, t)
		}
	}
	sort.Ints(tasks)
	return acts, tasks
}

// metricPaths holds the witnesses of a metric as edge lists.
type metricPaths struct {
	minInit, maxInit int
	minPath, maxPath []int
	cycleAt          int   // Unbounded: the state where the cycle starts
	cycle            []int // Unbounded: a cycle that adds to the measure
}

// metric computes the minimum and maximum of a measure over complete
// executions, with witnesses. weight gives each edge's contribution.
func (g *stateGraph) metric(weight func(e int) int64) (Metric, metricPaths) {
	return g.metricTo(weight, g.terminal)
}

// metricTo is metric over the executions that end in a terminal state where
// end holds.
func (g *stateGraph) metricTo(weight func(e int) int64, end func(i int) bool) (Metric, metricPaths) {
	var m Metric
	var w metricPaths
	all := func(i int) bool { return !g.isCut(i) }
	comp, count := g.scc(all)
	order, at := members(comp, count)
	// A reachable cycle that adds to the measure makes it unbounded; the
	// first such edge in state order gives the witness.
	for i := 0; i < g.n && !m.Unbounded; i++ {
		if g.halt(i) {
			return m, w
		}
		if g.isCut(i) {
			continue
		}
		lo, hi := g.edges(i)
		for e := lo; e < hi; e++ {
			v := int(g.to[e])
			if weight(e) > 0 && comp[v] == comp[i] {
				c := comp[i]
				back, _ := g.path(v, func(x int) bool { return comp[x] == c }, func(x int) bool { return x == i })
				m.Unbounded, w.cycleAt, w.cycle = true, i, append([]int{e}, back...)
				break
			}
		}
	}
	// Longest path over the condensation: components are numbered sinks
	// first.
	const none = int64(-1)
	best := make([]int64, count)
	choice := make([]int, count) // exit edge, or -1-x for ending at terminal state x
	for c := 0; c < count; c++ {
		if g.halt(c) {
			return m, w
		}
		best[c] = none
		for _, u32 := range order[at[c]:at[c+1]] {
			u := int(u32)
			if end(u) && best[c] < 0 {
				best[c], choice[c] = 0, -1-u
			}
			lo, hi := g.edges(u)
			for e := lo; e < hi; e++ {
				d := comp[g.to[e]]
				if d < 0 || int(d) == c || best[d] < 0 {
					continue
				}
				if v := weight(e) + best[d]; v > best[c] {
					best[c], choice[c] = v, e
				}
			}
		}
	}
	// Shortest path (Dijkstra) from the initial states, ties broken by the
	// lowest initial index so that the witness is deterministic.
	dist := make([]int64, g.n)
	from := make([]int, g.n) // initial index
	prev := make([]int, g.n)
	for i := range dist {
		dist[i], prev[i] = -1, -1
	}
	pq := &distHeap{}
	for i := 0; i < g.n; i++ {
		if g.isInit(i) {
			dist[i], from[i] = 0, int(g.initIdx[i])
			heap.Push(pq, distItem{0, from[i], i})
		}
	}
	for steps := 1; pq.Len() > 0; steps++ {
		if g.halt(steps) {
			return m, w
		}
		it := heap.Pop(pq).(distItem)
		u := it.node
		if it.d != dist[u] || it.init != from[u] || g.isCut(u) {
			continue
		}
		lo, hi := g.edges(u)
		for e := lo; e < hi; e++ {
			v := int(g.to[e])
			nd := it.d + weight(e)
			if dist[v] < 0 || nd < dist[v] || (nd == dist[v] && it.init < from[v]) {
				dist[v], from[v], prev[v] = nd, it.init, e
				heap.Push(pq, distItem{nd, it.init, v})
			}
		}
	}
	minEnd := -1
	for i := 0; i < g.n; i++ {
		if end(i) && dist[i] >= 0 {
			if minEnd < 0 || dist[i] < dist[minEnd] || (dist[i] == dist[minEnd] && from[i] < from[minEnd]) {
				minEnd = i
			}
		}
	}
	if minEnd < 0 {
		return m, w
	}
	m.Executions = true
	m.Min, w.minInit = dist[minEnd], from[minEnd]
	for x := minEnd; prev[x] >= 0; x = g.source(prev[x]) {
		w.minPath = append(w.minPath, prev[x])
	}
	for a, b := 0, len(w.minPath)-1; a < b; a, b = a+1, b-1 {
		w.minPath[a], w.minPath[b] = w.minPath[b], w.minPath[a]
	}
	if m.Unbounded {
		return m, w
	}
	start := -1
	for i := 0; i < g.n; i++ {
		if g.isInit(i) && comp[i] >= 0 && best[comp[i]] >= 0 && (start < 0 || best[comp[i]] > best[comp[start]]) {
			start = i
		}
	}
	m.Max, w.maxInit = best[comp[start]], int(g.initIdx[start])
	for cur := start; ; {
		c := comp[cur]
		in := func(x int) bool { return comp[x] == c }
		ch := choice[c]
		if ch < 0 {
			p, _ := g.path(cur, in, func(x int) bool { return x == -1-ch })
			w.maxPath = append(w.maxPath, p...)
			break
		}
		u := g.source(ch)
		p, _ := g.path(cur, in, func(x int) bool { return x == u })
		w.maxPath = append(append(w.maxPath, p...), ch)
		cur = int(g.to[ch])
	}
	return m, w
}

type distItem struct {
	d    int64
	init int
	node int
}

type distHeap []distItem

func (h distHeap) Len() int { return len(h) }
func (h distHeap) Less(i, j int) bool {
	if h[i].d != h[j].d {
		return h[i].d < h[j].d
	}
	if h[i].init != h[j].init {
		return h[i].init < h[j].init
	}
	return h[i].node < h[j].node
}
func (h distHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *distHeap) Push(x any)   { *h = append(*h, x.(distItem)) }
func (h *distHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// taskNames names tasks for reports.
func (s *search) taskNames(tasks []int) []string {
	var names []string
	lm, _ := s.m.(LiveModel)
	var all []string
	if lm != nil {
		all = lm.Tasks()
	}
	for _, t := range tasks {
		if t < len(all) {
			names = append(names, all[t])
		} else {
			names = append(names, fmt.Sprintf("task %d", t))
		}
	}
	return names
}

// runLiveness builds the state graph and checks the selected liveness
// properties and metrics on it.
func (s *search) runLiveness(live []LiveProperty) {
	rec := s.rec
	s.rec = nil
	var want []int
	for k, p := range live {
		if s.selected(p.Name) {
			want = append(want, k)
		}
	}
	if len(want) == 0 && len(s.cfg.Metrics) == 0 {
		return
	}
	if len(s.violations) == 0 {
		// No counterexample will be rebuilt from the safety search: let its
		// visited set go before the graph is built.
		s.freeVisited()
	}
	start := time.Now()
	s.phase.Store(int32(BuildingGraph))
	sp := newGraphSpec(live, s.selected, s.cfg.Metrics)
	g, err := s.recordedGraph(rec, sp)
	recorded := err == nil
	if errors.Is(err, errIncomplete) {
		runtime.GC()
		g, err = s.buildGraph(sp)
	}
	if err != nil {
		if reason := s.limitReason(); reason != "" || errors.Is(err, errHalted) {
			if reason == "" {
				reason = "stopped"
			}
			s.incomplete = reason + " while building the state graph for liveness"
			return
		}
		if strings.Contains(err.Error(), "limit reached") {
			s.incomplete = err.Error()
			return
		}
		s.failErr = err
		s.failure = &found{prop: -1}
		return
	}
	defer g.free()
	s.phase.Store(int32(CheckingLive))
	s.graph = &GraphStats{States: int64(g.n), Edges: int64(len(g.to)), Bytes: g.bytes(), Elapsed: time.Since(start), Recorded: recorded}
	s.liveVerdict = make([]Verdict, len(live))
	for k := range live {
		s.liveVerdict[k] = Skipped
	}
	for _, k := range want {
		s.liveVerdict[k] = Unknown
	}
	defer func() {
		if g.halted {
			s.incomplete = s.limitReason() + " while checking liveness and metrics on the state graph"
		}
	}()
	for _, k := range want {
		p := live[k]
		verdict := Holds
		for inst := 0; inst < p.Instances; inst++ {
			r := g.checkLive(p, k, inst, sp.base, s.cfg.Fairness)
			if g.halted {
				return
			}
			if !r.violated {
				continue
			}
			verdict = ViolatedVerdict
			proc := -1
			if p.Instances > 1 {
				proc = inst
			}
			v := Violation{Property: p.Name, Kind: p.Kind, Process: proc}
			v.Trace, err = s.lasso(r.init, r.prefix, r.cycle)
			if err != nil {
				s.failErr, s.failure = err, &found{prop: -1}
				return
			}
			v.Trace.CycleTasks = s.taskNames(r.tasks)
			s.liveViolations = append(s.liveViolations, v)
			break
		}
		s.liveVerdict[k] = verdict
	}
	typed := 0
	for _, name := range s.cfg.Metrics {
		if g.halt(0) {
			return
		}
		switch name {
		case MetricSyncDelay:
			s.metrics = append(s.metrics, s.sampleMetric(g, name, g.sync))
			continue
		case MetricMessagesPerEntry:
			m := s.entryMetric(g, name)
			if g.halted {
				return
			}
			s.metrics = append(s.metrics, m)
			continue
		}
		weight := func(e int) int64 { return int64(g.msgs[e]) }
		switch {
		case name == MetricTime:
			if m, ok := s.cappedMetric(g, name, g.time); ok {
				// The least time of a complete execution is still exact.
				low, w := g.metric(func(e int) int64 {
					if g.time[e] < 0 {
						return hopCap
					}
					return int64(g.time[e])
				})
				if g.halted {
					return
				}
				if low.Executions && low.Min < hopCap {
					m.Executions, m.Min = true, low.Min
					if t, err := s.lasso(w.minInit, edgeActs(g, w.minPath), nil); err == nil {
						m.MinWitness = &t
					}
				}
				s.metrics = append(s.metrics, m)
				continue
			}
			weight = func(e int) int64 { return int64(g.time[e]) }
		case name == "steps":
			weight = func(int) int64 { return 1 }
		case strings.HasPrefix(name, "messages:"):
			counts := g.typed[typed]
			typed++
			weight = func(e int) int64 { return int64(counts[e]) }
		}
		m, w := g.metric(weight)
		if g.halted {
			return
		}
		m.Name = name
		s.witnesses(g, &m, w)
		s.metrics = append(s.metrics, m)
	}
}

// halting is stopped for the passes over the state graph; it reads the
// context itself as well, so that an interruption is seen at once.
func (s *search) halting() bool {
	if s.cfg.Context != nil && s.cfg.Context.Err() != nil {
		s.stop.CompareAndSwap(running, stopContext)
	}
	return s.stopped()
}

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
	s.rec, _ = s.newGraphRecorder(newGraphSpec(live, s.selected, s.cfg.Metrics))
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

// witnesses replays the witness runs of a metric.
func (s *search) witnesses(g *stateGraph, m *Metric, w metricPaths) {
	if m.Executions {
		t, err := s.lasso(w.minInit, edgeActs(g, w.minPath), nil)
		if err == nil {
			m.MinWitness = &t
		}
		if !m.Unbounded {
			t, err := s.lasso(w.maxInit, edgeActs(g, w.maxPath), nil)
			if err == nil {
				m.MaxWitness = &t
			}
		}
	}
	if m.Unbounded {
		init, prefix := g.prefix(w.cycleAt)
		t, err := s.lasso(init, prefix, edgeActs(g, w.cycle))
		if err == nil {
			m.MaxWitness = &t
		}
	}
}

// edgeRun replays the BFS-tree path to the source of edge e, then e.
func (s *search) edgeRun(g *stateGraph, e int) *Trace {
	init, prefix := g.prefix(g.source(e))
	t, err := s.lasso(init, append(prefix, g.action(e)), nil)
	if err != nil {
		return nil
	}
	return &t
}

// capCode is what a MeasureWorker reports for an edge where a tracked value
// reached the model's cap (TimeIncrease -1, SyncDelay -2), and hopCap the
// cap of the automaton package, for reports.
const hopCap = 255

// cappedMetric reports a metric whose tracked value reached the model's cap
// on some edge (code -1): unbounded, with the shortest run to that edge.
func (s *search) cappedMetric(g *stateGraph, name string, vals []int32) (Metric, bool) {
	for e, v := range vals {
		if v == -1 {
			m := Metric{Name: name, Unbounded: true, Capped: true, Cap: hopCap}
			m.MaxWitness = s.edgeRun(g, e)
			return m, true
		}
	}
	return Metric{}, false
}

// sampleMetric is the minimum and maximum of a sample taken at some edges
// (-1: none, -2: the model's cap reached) over every reachable one, each
// with the shortest run to it.
func (s *search) sampleMetric(g *stateGraph, name string, vals []int32) Metric {
	m := Metric{Name: name, AllRuns: true}
	minE, maxE := -1, -1
	for e, v := range vals {
		if v == -2 {
			m.Unbounded, m.Capped, m.Cap = true, true, hopCap
			m.MaxWitness = s.edgeRun(g, e)
			maxE = -2
			continue
		}
		if v < 0 {
			continue
		}
		// The first edge in BFS order gives a short witness.
		if minE < 0 || v < vals[minE] {
			minE = e
		}
		if maxE == -1 || (maxE >= 0 && v > vals[maxE]) {
			maxE = e
		}
	}
	if minE < 0 {
		return m
	}
	m.Executions = true
	m.Min, m.MinWitness = int64(vals[minE]), s.edgeRun(g, minE)
	if maxE >= 0 {
		m.Max, m.MaxWitness = int64(vals[maxE]), s.edgeRun(g, maxE)
	}
	return m
}

// entryMetric is messages-per-entry: for every entry key, the minimum and
// maximum over complete executions in which the entry took place of the
// messages that serve it; then the least minimum and the largest maximum.
func (s *search) entryMetric(g *stateGraph, name string) Metric {
	mw := s.m.NewWorker().(MeasureWorker)
	out := Metric{Name: name}
	var minW, maxW metricPaths
	var minG, maxG *stateGraph
	for k := 0; k < mw.EntryKeys(); k++ {
		key := int32(k)
		weight := func(e int) int64 {
			n := int64(0)
			for _, x := range g.servedKeys[g.servedFirst[e]:g.servedFirst[e+1]] {
				if x == key {
					n++
				}
			}
			return n
		}
		end := func(i int) bool {
			set, ok := g.entered[int32(i)]
			return ok && set[k/64]&(1<<uint(k%64)) != 0
		}
		m, w := g.metricTo(weight, end)
		if g.halted {
			return out
		}
		if m.Unbounded && !out.Unbounded {
			out.Unbounded, out.MaxOf, maxW, maxG = true, mw.EntryName(k), w, g
		}
		if !m.Executions {
			continue
		}
		if !out.Executions || m.Min < out.Min {
			out.Min, out.MinOf, minW, minG = m.Min, mw.EntryName(k), w, g
		}
		if !out.Unbounded && (!out.Executions || m.Max > out.Max) {
			out.Max, out.MaxOf, maxW, maxG = m.Max, mw.EntryName(k), w, g
		}
		out.Executions = true
	}
	if minG != nil {
		t, err := s.lasso(minW.minInit, edgeActs(g, minW.minPath), nil)
		if err == nil {
			out.MinWitness = &t
		}
	}
	if maxG != nil {
		if out.Unbounded {
			init, prefix := g.prefix(maxW.cycleAt)
			if t, err := s.lasso(init, prefix, edgeActs(g, maxW.cycle)); err == nil {
				out.MaxWitness = &t
			}
		} else if t, err := s.lasso(maxW.maxInit, edgeActs(g, maxW.maxPath), nil); err == nil {
			out.MaxWitness = &t
		}
	}
	return out
}

func edgeActs(g *stateGraph, edges []int) []uint32 {
	acts := make([]uint32, len(edges))
	for i, e := range edges {
		acts[i] = g.action(e)
	}
	return acts
}

// lasso replays prefix then cycle from initial state init and splits the
// steps.
func (s *search) lasso(init int, prefix, cycle []uint32) (Trace, error) {
	t, split, err := s.replayLasso(init, prefix, cycle)
	if err != nil {
		return t, err
	}
	if len(cycle) > 0 {
		t.Cycle = t.Steps[split:]
		t.Steps = t.Steps[:split]
	}
	return t, nil
}
