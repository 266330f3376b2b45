package explorer

import (
	"fmt"
	"slices"
	"sort"
	"strings"
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

// FairStep is fairness for a named step (Config.FairSteps).
type FairStep struct {
	Step   string
	Strong bool // strong fairness; weak otherwise
}

// ParseFairStep reads a --fair value: STEP, STEP:weak or STEP:strong.
func ParseFairStep(s string) (FairStep, error) {
	name, kind, _ := strings.Cut(s, ":")
	f := FairStep{Step: strings.TrimSpace(name)}
	switch kind {
	case "", "weak":
	case "strong":
		f.Strong = true
	default:
		return f, fmt.Errorf("--fair %q: allowed: STEP, STEP:weak or STEP:strong", s)
	}
	if f.Step == "" {
		return f, fmt.Errorf("--fair %q: no step name; allowed: STEP, STEP:weak or STEP:strong", s)
	}
	return f, nil
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
		g.setTasks(b, e)
	}
	return b
}

// fairnessOf sets the tasks under weak and strong fairness to the model's
// under f, unless setFairness set them (with the fair steps).
func (g *stateGraph) fairnessOf(f Fairness) {
	if g.weak == nil {
		g.setFairness(f, nil)
	}
}

// setTasks adds to b the tasks of edge e (edgeTasks).
func (g *stateGraph) setTasks(b bitset, e int) {
	base, step := g.edgeTasks(e)
	if base >= 0 {
		b.set(int(base))
	}
	if step >= 0 {
		b.set(int(step))
	}
}

// hasTask reports whether edge e is of task t.
func (g *stateGraph) hasTask(e, t int) bool {
	base, step := g.edgeTasks(e)
	return int(base) == t || int(step) == t
}

// component describes a set of states for the fairness test, strongly
// connected along the edges of tasks: a fair cycle takes no fault, since an
// execution takes finitely many (crashes and recoveries are the
// environment's; docs/algorithms/bully.md's BU-TERM holds "after the last
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
				g.setTasks(taken, e)
			}
		}
	}
	return all, some, taken, cyclic
}

// fairCycle returns the states of a fair cycle inside c (a strongly
// connected set), or nil: c itself under weak fairness or none, a
// strongly connected part of it under strong fairness (the Streett
// decomposition: drop the states where a task is enabled that c never
// takes, and look again inside what is left). With need set, only a fair
// set with a state where need holds will do.
func (g *stateGraph) fairCycle(c component, f Fairness, need func(int) bool) []int {
	g.fairnessOf(f)
	if !c.tasks && g.faultInside(c) {
		// Strongly connected along all edges, faults included: look in
		// each part that is strongly connected along task edges. (Without
		// a fault inside, c is such a part.)
		return g.fairCycleIn(c.nodes, c.member, f, need)
	}
	all, some, taken, cyclic := g.tasksOf(c)
	if !cyclic {
		return nil
	}
	whole := c.nodes
	if need != nil && !slices.ContainsFunc(c.nodes, need) {
		whole = nil // no part of c will do either
	}
	// A weakly fair task enabled in every state of c and taken by no edge
	// inside it is enabled for ever and never taken on any cycle of c.
	all.and(g.weak)
	if all.andNot(taken) {
		return nil
	}
	// The strongly fair tasks enabled somewhere in c and never taken in
	// it: a fair cycle avoids the states where they are enabled.
	bad := some
	bad.and(g.strong)
	if !bad.andNot(taken) {
		return whole
	}
	if whole == nil {
		return nil
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
	return g.fairCycleIn(c.nodes, func(i int) bool { return keep[i] }, Strong, need)
}

// fairCycleIn returns a fair cycle (fairCycle) inside one of the parts of
// the states of nodes where in holds that are strongly connected along task
// edges, or nil.
func (g *stateGraph) fairCycleIn(nodes []int, in func(int) bool, f Fairness, need func(int) bool) []int {
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
		if fc := g.fairCycle(sub, f, need); fc != nil {
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

// cycle builds a cycle from entry through the fair set nodes that is fair:
// it takes an edge of every task taken inside the set and, under weak
// fairness, passes a state where each task it never takes is disabled.
func (g *stateGraph) cycle(entry int, nodes []int, f Fairness) ([]uint32, []int) {
	g.fairnessOf(f)
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
			g.setTasks(done, e)
			visit(int(g.to[e]))
		}
		edges = append(edges, p...)
		if len(p) > 0 {
			cur = int(g.to[p[len(p)-1]])
		}
	}
	fair := newBitset(g.ntasks)
	fair.or(g.weak)
	fair.or(g.strong)
	{
		for t := 0; t < g.ntasks; t++ {
			if !fair.has(t) || done.has(t) || (!taken.has(t) && disabled.has(t)) {
				continue
			}
			if taken.has(t) {
				// Reach a state with an edge of task t inside the set, and
				// take it.
				walk(func(i int) bool {
					lo, hi := g.edges(i)
					for e := lo; e < hi; e++ {
						if g.hasTask(e, t) && member[int(g.to[e])] {
							return true
						}
					}
					return false
				})
				lo, hi := g.edges(cur)
				for e := lo; e < hi; e++ {
					if g.hasTask(e, t) && member[int(g.to[e])] {
						edges = append(edges, e)
						cur = int(g.to[e])
						g.setTasks(done, e)
						visit(cur)
						break
					}
				}
			} else if some.has(t) && g.weak.has(t) {
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
		base, step := g.edgeTasks(e)
		for _, t := range []int{int(base), int(step)} {
			if t >= 0 && !seen[t] {
				seen[t] = true
				tasks = append(tasks, t)
			}
		}
	}
	sort.Ints(tasks)
	return acts, tasks
}
