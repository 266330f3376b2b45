package explorer

// checkStable checks "eventually always Goal" (properties.Stable) on g:
// every fair execution reaches a point after which Goal holds forever. A
// fair execution violates it when it stops in a terminal state where Goal
// does not hold, or repeats forever a fair cycle through a state where it
// does not. The counterexample starts at the first such state in the
// graph's (breadth-first) numbering: the shortest path to it, then, for a
// cycle, a fair cycle through it.
func (g *stateGraph) checkStable(goalBit int, f Fairness) liveResult {
	notGoal := func(i int) bool { return !g.pred(i, goalBit) }
	in := func(i int) bool { return !g.isCut(i) }
	comp, count := g.scc(in)
	order, at := members(comp, count)
	best, bestSet := -1, []int(nil)
	for c := 0; c < count; c++ {
		if g.halt(c) {
			return liveResult{}
		}
		group := order[at[c]:at[c+1]]
		for _, u := range group {
			if u := int(u); notGoal(u) && g.terminal(u) && (best < 0 || u < best) {
				best, bestSet = u, nil
			}
		}
		if len(group) == 1 && !g.selfLoop(int(group[0])) {
			continue // no cycle
		}
		nodes := make([]int, len(group))
		for j, u := range group {
			nodes[j] = int(u)
		}
		c32 := int32(c)
		set := g.fairCycle(component{nodes: nodes, member: func(i int) bool { return comp[i] == c32 }}, f, notGoal)
		for _, u := range set {
			if notGoal(u) && (best < 0 || u < best) {
				best, bestSet = u, set
			}
		}
	}
	if best < 0 {
		return liveResult{}
	}
	init, prefix := g.prefix(best)
	res := liveResult{violated: true, init: init, prefix: prefix}
	if bestSet != nil {
		res.cycle, res.tasks = g.cycle(best, bestSet, f)
	}
	return res
}
