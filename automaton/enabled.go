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
