package automaton

// StepName implements explorer.StepWorker: the name of the step of the
// transition being emitted, or "" for a delivery or a fault.
func (w *worker[S, M, P]) StepName() string {
	if w.cur >= len(w.acts) {
		return ""
	}
	if a := &w.acts[w.cur]; a.kind == Output || a.kind == Internal {
		return w.stepOf(a).Name
	}
	return ""
}

// TryStep performs step st on process i (0-based) of the first initial
// state, whether or not the process's Steps offers it, and returns the
// error of a Do that panics, or nil: the check that a Do fails loudly on a
// step it has no case for (a misspelt name) rather than doing nothing.
// The successor is thrown away; the System is unchanged.
func (sys *System[S, M, P]) TryStep(i int, st Step) (err error) {
	defer catch(&err)
	w := sys.newWorker()
	w.load(&w.v, sys.initial[0])
	w.decodeWork(i)
	w.fx.self = i
	P(&w.work).Do(st, &w.fx)
	return nil
}
