package automaton

// ViewOf returns a read-only view of the state s (an encoded state of the
// System, such as Initial returns or a search reaches), for a caller that
// inspects states outside a search: a test, a tool. Each call makes a
// view of its own.
func (sys *System[S, M, P]) ViewOf(s []byte) *View[S, M] {
	v := newView[S, M](sys)
	v.load(s, sys.decodeGlobals)
	return &v
}

// EnabledSteps appends to out the locally controlled steps process i
// (0-based) has enabled in the viewed state, as its Steps reports them
// (none for a crashed process), and returns out. The deliveries to i are
// not steps of i's and are not listed. It may be called from an invariant,
// a predicate or Explain, not from inside Steps.
func (v *View[S, M]) EnabledSteps(i int, out []Step) []Step {
	if i < 0 || i >= v.N() || !v.Up(i) {
		return out
	}
	self := v.self
	v.self = i
	out = v.sys.steps(v, i, out)
	v.self = self
	return out
}

// steps implements viewSys: process i's Steps in the state of v.
func (sys *System[S, M, P]) steps(v *View[S, M], i int, out []Step) []Step {
	return P(v.Proc(i)).Steps(v, out)
}
