package explorer

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/vacheck/vacheck/properties"
)

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
	if p.Kind == properties.Stable {
		return g.checkStable(goalBit, f)
	}
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
		if fc := g.fairCycle(component{nodes: nodes, member: func(i int) bool { return comp[i] == c32 }}, f, nil); fc != nil {
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
	sp := newGraphSpec(live, s.selected, s.cfg.Metrics, s.tracked, s.cfg.FairSteps)
	g, err := s.recordedGraph(rec, sp)
	recorded := err == nil
	// The graph is built again when the search did not record all of it;
	// in memory when temporary files failed (a full disk: they would
	// again), under the memory limit.
	toFiles := !errors.Is(err, errTempFile)
	if errors.Is(err, errIncomplete) || !toFiles {
		runtime.GC()
		g, err = s.buildGraph(sp, toFiles)
		if toFiles && errors.Is(err, errTempFile) {
			runtime.GC()
			g, err = s.buildGraph(sp, false)
		}
	}
	if err != nil {
		if limit, reason := s.limitReason(); reason != "" || errors.Is(err, errHalted) {
			if reason == "" {
				limit, reason = Interrupted, "stopped"
			}
			s.cutShort(limit, reason+" while building the state graph for liveness")
			return
		}
		if errors.Is(err, errGraphStates) {
			s.cutShort(StateLimit, err.Error())
			return
		}
		s.failErr = err
		s.failure = &found{prop: -1}
		return
	}
	defer g.free()
	g.setFairness(s.cfg.Fairness, s.cfg.FairSteps)
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
			limit, reason := s.limitReason()
			s.cutShort(limit, reason+" while checking liveness and metrics on the state graph")
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
			v.Trace.CycleTasks = s.taskNames(g, r.tasks)
			s.liveViolations = append(s.liveViolations, v)
			break
		}
		s.liveVerdict[k] = verdict
	}
	typed, tracked := 0, 0
	for _, name := range s.cfg.Metrics {
		if g.halt(0) {
			return
		}
		weight := func(e int) int64 { return int64(g.msgs[e]) }
		switch {
		case !builtinMetric(name):
			tm, col := s.tracked[tracked], &g.tracked[tracked]
			tracked++
			switch tm.Kind {
			case Sample:
				s.metrics = append(s.metrics, s.sampleMetric(g, tm, col.vals))
				continue
			case PerKey:
				m := s.keyMetric(g, tm, col)
				if g.halted {
					return
				}
				s.metrics = append(s.metrics, m)
				continue
			}
			if m, ok := s.cappedMetric(g, tm, col.vals); ok {
				// The least sum over a complete execution is still exact.
				low, w := g.metric(func(e int) int64 {
					if col.vals[e] < 0 {
						return tm.Cap
					}
					return int64(col.vals[e])
				})
				if g.halted {
					return
				}
				if low.Executions && low.Min < tm.Cap {
					m.Executions, m.Min = true, low.Min
					if t, err := s.lasso(w.minInit, edgeActs(g, w.minPath), nil); err == nil {
						m.MinWitness = &t
					}
				}
				s.metrics = append(s.metrics, m)
				continue
			}
			weight = func(e int) int64 { return int64(col.vals[e]) }
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

// taskNames names tasks of g for reports: the model's, and the fair
// steps' as "send of p1".
func (s *search) taskNames(g *stateGraph, tasks []int) []string {
	var names []string
	lm, _ := s.m.(LiveModel)
	var all []string
	if lm != nil {
		all = lm.Tasks()
	}
	name := func(t int) string {
		if t < len(all) {
			return all[t]
		}
		return fmt.Sprintf("task %d", t)
	}
	for _, t := range tasks {
		if t >= g.nbase && g.fairK > 1 {
			r := t - g.nbase
			if j := r % int(g.fairK); j > 0 {
				names = append(names, s.cfg.FairSteps[j-1].Step+" of "+name(r/int(g.fairK)))
				continue
			}
		}
		names = append(names, name(t))
	}
	return names
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
