package explorer

import "strings"

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
	// AllRuns: the measure is a sample taken at some transitions (Sample),
	// and Min and Max range over every reachable one, in complete
	// executions or not; Executions then says whether there is a sample.
	AllRuns bool
	// MinOf and MaxOf say which part of the witness run the figure
	// measures (messages-per-entry: which critical-section entry).
	MinOf, MaxOf string
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
	return newMetricSolver(g).solve(weight, end)
}

// metricSolver computes metrics over one graph: it finds the graph's
// strongly connected components once, and keeps its scratch arrays, for
// all the measures it is asked (a PerKey metric asks one per key).
type metricSolver struct {
	g         *stateGraph
	comp      []int32 // the component of every state not cut, or -1
	count     int
	order, at []int32 // the states of component c are order[at[c]:at[c+1]]
	// Scratch of solve, sized once.
	best       []int64
	choice     []int
	dist       []int64
	from, prev []int
	pq         distHeap
}

func newMetricSolver(g *stateGraph) *metricSolver {
	ms := &metricSolver{g: g}
	ms.comp, ms.count = g.scc(func(i int) bool { return !g.isCut(i) })
	ms.order, ms.at = members(ms.comp, ms.count)
	return ms
}

// solve is metricTo over the solver's graph.
func (ms *metricSolver) solve(weight func(e int) int64, end func(i int) bool) (Metric, metricPaths) {
	g, comp, count := ms.g, ms.comp, ms.count
	var m Metric
	var w metricPaths
	order, at := ms.order, ms.at
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
	if ms.best == nil {
		ms.best, ms.choice = make([]int64, count), make([]int, count)
	}
	best := ms.best
	choice := ms.choice // exit edge, or -1-x for ending at terminal state x
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
	if ms.dist == nil {
		ms.dist, ms.from, ms.prev = make([]int64, g.n), make([]int, g.n), make([]int, g.n)
	}
	dist, from, prev := ms.dist, ms.from, ms.prev // from: initial index
	for i := range dist {
		dist[i], from[i], prev[i] = -1, 0, -1
	}
	pq := &ms.pq
	*pq = (*pq)[:0]
	for i := 0; i < g.n; i++ {
		if g.isInit(i) {
			dist[i], from[i] = 0, int(g.initIdx[i])
			pq.push(distItem{0, from[i], i})
		}
	}
	for steps := 1; len(*pq) > 0; steps++ {
		if g.halt(steps) {
			return m, w
		}
		it := pq.pop()
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
				pq.push(distItem{nd, it.init, v})
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

// distHeap is a binary min-heap of distItems ordered by less. It holds
// them by value: container/heap would box every item it pops.
type distHeap []distItem

func (a distItem) less(b distItem) bool {
	if a.d != b.d {
		return a.d < b.d
	}
	if a.init != b.init {
		return a.init < b.init
	}
	return a.node < b.node
}

func (h *distHeap) push(x distItem) {
	*h = append(*h, x)
	q := *h
	for j := len(q) - 1; j > 0; {
		i := (j - 1) / 2
		if !q[j].less(q[i]) {
			break
		}
		q[i], q[j] = q[j], q[i]
		j = i
	}
}

func (h *distHeap) pop() distItem {
	q := *h
	n := len(q) - 1
	top := q[0]
	q[0] = q[n]
	q = q[:n]
	for i := 0; ; {
		j := 2*i + 1
		if j >= n {
			break
		}
		if r := j + 1; r < n && q[r].less(q[j]) {
			j = r
		}
		if !q[j].less(q[i]) {
			break
		}
		q[i], q[j] = q[j], q[i]
		i = j
	}
	*h = q
	return top
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

// cappedMetric reports a PathSum metric whose tracked value reached the
// model's cap on some edge (value -1): unbounded, with the shortest run to
// that edge.
func (s *search) cappedMetric(g *stateGraph, tm TrackedMetric, vals []int32) (Metric, bool) {
	for e, v := range vals {
		if v == -1 {
			m := Metric{Name: tm.Name, Unbounded: true, Capped: true, Cap: tm.Cap}
			m.MaxWitness = s.edgeRun(g, e)
			return m, true
		}
	}
	return Metric{}, false
}

// sampleMetric is the minimum and maximum of a Sample metric, taken at
// some edges (-1: none, -2: the model's cap reached), over every reachable
// one, each with the shortest run to it.
func (s *search) sampleMetric(g *stateGraph, tm TrackedMetric, vals []int32) Metric {
	m := Metric{Name: tm.Name, AllRuns: true}
	minE, maxE := -1, -1
	for e, v := range vals {
		if v == -2 {
			m.Unbounded, m.Capped, m.Cap = true, true, tm.Cap
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

// keyMetric is a PerKey metric (messages-per-entry): for every key, the
// minimum and maximum over complete executions that end where the key is
// reached of the units that count for it; then the least minimum and the
// largest maximum.
func (s *search) keyMetric(g *stateGraph, tm TrackedMetric, col *trackCol) Metric {
	out := Metric{Name: tm.Name}
	var minW, maxW metricPaths
	var minG, maxG *stateGraph
	var ms *metricSolver
	// reached[i] is the set of keys reached in terminal state i, looked up
	// once rather than once per key and state.
	var reached [][]uint64
	if tm.Keys > 0 {
		ms = newMetricSolver(g)
		reached = make([][]uint64, g.n)
		for i, set := range col.reached {
			if int(i) < g.n {
				reached[i] = set
			}
		}
	}
	for k := 0; k < tm.Keys; k++ {
		key := int32(k)
		weight := func(e int) int64 {
			n := int64(0)
			for _, x := range col.vals[col.first[e]:col.first[e+1]] {
				if x == key {
					n++
				}
			}
			return n
		}
		end := func(i int) bool {
			set := reached[i]
			return set != nil && set[k/64]&(1<<uint(k%64)) != 0
		}
		m, w := ms.solve(weight, end)
		if g.halted {
			return out
		}
		if m.Unbounded && !out.Unbounded {
			out.Unbounded, out.MaxOf, maxW, maxG = true, tm.KeyName(k), w, g
		}
		if !m.Executions {
			continue
		}
		if !out.Executions || m.Min < out.Min {
			out.Min, out.MinOf, minW, minG = m.Min, tm.KeyName(k), w, g
		}
		if !out.Unbounded && (!out.Executions || m.Max > out.Max) {
			out.Max, out.MaxOf, maxW, maxG = m.Max, tm.KeyName(k), w, g
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

// instrument returns the model that computes the metrics asked for, with
// the descriptions of those it tracks: m itself when every metric is built
// in (messages, messages:TYPE, steps), or the model m's Instrumenter
// returns for the others, whose workers are TrackWorkers.
func instrument(m Model, metrics []string) (Model, []TrackedMetric, string, error) {
	want := trackedNames(metrics)
	if len(want) == 0 {
		return m, nil, "", nil
	}
	in, ok := m.(Instrumenter)
	if !ok {
		return nil, nil, "", configError("Metrics", want[0], "{Metrics %s}: this model cannot compute it; allowed: messages, messages:TYPE (e.g. messages:REQUEST), steps", want[0])
	}
	im, err := in.Instrument(want)
	if err != nil {
		return nil, nil, "", &ConfigError{Field: "Metrics", Value: strings.Join(want, ","), cause: err}
	}
	tw := trackerOf(im.NewWorker(), want)
	if tw == nil {
		return nil, nil, "", configError("Metrics", want[0], "{Metrics %s}: the instrumented model's workers do not measure", want[0])
	}
	tracked := tw.TrackedMetrics()
	if len(tracked) != len(want) {
		return nil, nil, "", configError("Metrics", strings.Join(want, ","), "{Metrics %s}: the instrumented model tracks %d metrics, not %d", strings.Join(want, ","), len(tracked), len(want))
	}
	for i, tm := range tracked {
		switch {
		case tm.Name != want[i]:
			return nil, nil, "", configError("Metrics", want[i], "{Metrics %s}: the instrumented model tracks %q in its place", want[i], tm.Name)
		case tm.Kind < PathSum || tm.Kind > PerKey:
			return nil, nil, "", configError("Metrics", want[i], "{Metrics %s}: the instrumented model gives it no kind of aggregation (MetricKind %d)", want[i], tm.Kind)
		case tm.Kind == PerKey && (tm.Keys < 0 || (tm.Keys > 0 && tm.KeyName == nil)):
			return nil, nil, "", configError("Metrics", want[i], "{Metrics %s}: a PerKey metric needs Keys ≥ 0 and KeyName", want[i])
		}
	}
	return im, tracked, tw.Tracks(), nil
}

// TypeLister is an optional interface of a TypedWorker that lists the
// types of the messages the transition being emitted sent to other
// processes (one entry per message, in sending order), for a caller that
// counts messages per type without knowing the types beforehand (the
// interactive explorer). It is asked from inside the Emit or Offer callback
// of Expand, after TrackTypes(true).
type TypeLister interface {
	SentTypes(out []string) []string
}
