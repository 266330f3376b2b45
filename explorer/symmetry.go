package explorer

import (
	"cmp"
	"fmt"
	"math/bits"
)

// Symmetric is an optional interface of a Model that declares symmetries of
// its states: a group G of permutations of the processes that maps the
// transition system onto itself and leaves every property unchanged. With
// Config.Symmetry the search stores one representative per orbit.
type Symmetric interface {
	// Symmetry describes the group for reports ("rotations of the ring, 5
	// elements"), or says why the model cannot be reduced by it (it
	// declares none). The initial states must be a union of whole orbits;
	// Symmetry need not check it: the search does, as it builds them one
	// at a time, under its limits, and refuses (ErrConfig) a model whose
	// initial states are not.
	Symmetry() (string, error)
	// NewCanonicalizer returns a Canonicalizer with scratch memory of its
	// own, for one goroutine.
	NewCanonicalizer() Canonicalizer
}

// Canonicalizer maps a state to the representative of its orbit.
type Canonicalizer interface {
	// Canonical returns the representative of the orbit of s, the same for
	// every state of the orbit, and the orbit's size |G|/|Stab(s)|. rep is
	// valid until the next call (it may be s itself).
	Canonical(s []byte) (rep []byte, orbit int, err error)
}

// GroupOrderer is an optional interface of a Symmetric model: GroupOrder
// returns the number of elements of its group. The real run of a cycle of
// the quotient repeats it until it is back where it began, at most as many
// times as the order of a permutation of the group, which divides the
// group's order: the search tries that many rounds, and 64 without it.
type GroupOrderer interface {
	GroupOrder() int
}

// Permuting is an optional interface of a Canonicalizer that can say which
// permutation of the group maps a state to its representative, and apply
// a permutation to another state. The search then checks the symmetry in
// a state s with representative g(s) by comparing the successors of g(s)
// with the images under g of the successors of s, state by state, instead
// of comparing the orbits of both, which costs a representative for every
// successor on both sides.
type Permuting interface {
	// CanonicalPerm is Canonical, with the index g of a permutation of
	// the group that maps s to rep (0 for the identity).
	CanonicalPerm(s []byte) (rep []byte, orbit, g int, err error)
	// Permute returns the image of s under permutation g, valid until the
	// next call.
	Permute(s []byte, g int) ([]byte, error)
}

// symModel is the quotient of a Symmetric model: its states are the
// representatives, and each transition of a representative leads to the
// representative of its successor. Its workers check, on every
// representative they reach for the first time (give or take a bounded
// cache), that the state the transition really reached and its
// representative agree on the invariants, on their transitions (how many,
// how many live, how many messages they send) and on being a valid end
// state: the assumptions under which the quotient has the verdicts and
// metrics of the model. A disagreement fails the search.
type symModel struct {
	Model
	sym     Symmetric
	group   string
	want    uint64 // the invariants whose verdicts must agree
	checkDL bool
}

// symmetric returns the quotient of m by the group it declares.
func symmetric(m Model) (*symModel, error) {
	sm, ok := m.(Symmetric)
	if !ok {
		return nil, configError("Symmetry", "", "{Symmetry}: this model declares no symmetry")
	}
	group, err := sm.Symmetry()
	if err != nil {
		e := configError("Symmetry", "", "{Symmetry}: ")
		e.cause = err
		return nil, e
	}
	return &symModel{Model: m, sym: sm, group: group, want: ^uint64(0), checkDL: true}, nil
}

// InitialStates implements InitialStreamer: it yields the representatives
// of the model's initial states one at a time, in the order of theirs
// (initial state k of the quotient stands for initial state k of the
// model), built as the search asks for them, so that the limits hold
// while they are built, as without symmetry.
//
// Once it has yielded them all, it checks that they are a union of whole
// orbits, without which the quotient's counts would not be the model's:
// the orbits of their representatives must hold as many states as there
// are distinct initial states. It keeps a fingerprint of each, not the
// states.
func (q *symModel) InitialStates(yield func(st []byte) bool) error {
	c := q.sym.NewCanonicalizer()
	k := 0
	var failed error
	seen := map[uint64]struct{}{}
	orbits := map[uint64]int{} // of each representative
	complete := true
	err := eachInitial(q.Model, func(st []byte) bool {
		k++
		fp := fingerprint(st)
		rep, orbit, err := c.Canonical(st)
		if err != nil {
			failed = fmt.Errorf("initial state %d: %w", k, err)
			return false
		}
		seen[fp] = struct{}{}
		orbits[fingerprint(rep)] = orbit
		if !yield(append([]byte(nil), rep...)) {
			complete = false
			return false
		}
		return true
	})
	if err = cmp.Or(err, failed); err != nil || !complete {
		return err
	}
	total := 0
	for _, o := range orbits {
		total += o
	}
	if total != len(seen) {
		return configError("Symmetry", "", "{Symmetry}: the initial states are not closed under the %s: %s, whose orbits hold %d", q.group, distinctInitial(len(seen)), total)
	}
	return nil
}

// Initial returns the representatives of the model's initial states, in
// the order of theirs. The search streams them (InitialStates) instead.
func (q *symModel) Initial() ([][]byte, error) {
	var all [][]byte
	err := q.InitialStates(func(st []byte) bool {
		all = append(all, st)
		return true
	})
	return all, err
}

// nthInitial returns initial state k (from 0) of m, building the ones
// before it only.
func nthInitial(m Model, k int) ([]byte, error) {
	var out []byte
	i := 0
	err := eachInitial(m, func(st []byte) bool {
		if i == k {
			out = append([]byte(nil), st...)
			return false
		}
		i++
		return true
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, fmt.Errorf("explorer: no initial state %d", k)
	}
	return out, nil
}

// NewWorker returns a worker of the quotient.
func (q *symModel) NewWorker() Worker {
	w := &symWorker{q: q, w: q.Model.NewWorker(), probe: q.Model.NewWorker(), canon: q.sym.NewCanonicalizer(), pcanon: q.sym.NewCanonicalizer(), checked: make([]uint64, 1<<17)}
	w.emitFn = w.emitRep
	w.perm, _ = w.canon.(Permuting)
	w.pperm, _ = w.pcanon.(Permuting)
	w.countX.Emit = func(t Transition, next []byte) {
		w.count.all++
		w.count.messages += int64(t.Messages)
		if !t.Fault {
			w.count.live++
		}
		// Each successor as it stands, its image under g, or its
		// representative (see transitions).
		img := next
		var err error
		switch {
		case w.g > 0:
			img, err = w.pperm.Permute(next, w.g)
		case w.g < 0:
			img, _, err = w.pcanon.Canonical(next)
		}
		if err != nil {
			w.countErr = err
			return
		}
		h := fingerprint(img)
		w.count.sum += h
		w.count.xor ^= h * 0x9e3779b97f4a7c15
	}
	if _, ok := w.w.(Bounder); ok {
		return boundedSymWorker{w}
	}
	return w
}

// boundedSymWorker is a worker of the quotient of a model that declares a
// state bound: only it is a Bounder, so that the search defers checks
// under symmetry as it does without (deferChecks).
type boundedSymWorker struct{ *symWorker }

// InBound implements Bounder.
func (w boundedSymWorker) InBound(s []byte) (bool, error) { return inBound(w.w, s) }

// symOf returns w as a worker of a quotient, or nil.
func symOf(w Worker) *symWorker {
	switch w := w.(type) {
	case *symWorker:
		return w
	case boundedSymWorker:
		return w.symWorker
	}
	return nil
}

// symWorker is a worker of the quotient.
type symWorker struct {
	_        [64]byte // written on every transition: cache lines of its own
	q        *symModel
	w, probe Worker // probe checks the assumptions while w is expanding
	canon    Canonicalizer
	// checked is a direct-mapped cache of the fingerprints of the
	// representatives whose assumptions were checked.
	checked []uint64
	emit    func(Transition, []byte)
	emitFn  func(Transition, []byte)
	// inner is the expansion the model's worker is asked for: the
	// search's, with emitFn for its Emit.
	inner Expansion
	// countX sums up the transitions of a state (transitions).
	countX Expansion
	// pcanon canonicalizes the successors probe computes.
	pcanon Canonicalizer
	// perm and pperm are canon and pcanon as Permutings, or nil.
	perm, pperm Permuting
	// g is what transitions sums up of each successor: its representative
	// (-1), the successor itself (0), or its image under permutation g.
	g        int
	count    summary
	countErr error
	err      error
	_        [64]byte
}

// Expand implements Worker: the model's worker expands s as x asks, and
// each successor it builds is emitted as its representative. A key offered
// is the key of the model's successor: two successors with the same key
// are the same state, so have the same representative.
func (w *symWorker) Expand(s []byte, x *Expansion) (Expanded, error) {
	w.inner = *x
	w.inner.Emit = w.emitFn
	w.emit, w.err = x.Emit, nil
	r, err := w.w.Expand(s, &w.inner)
	w.emit = nil
	if err == nil {
		err = w.err
	}
	return r, err
}

func (w *symWorker) emitRep(t Transition, next []byte) {
	if w.err != nil {
		w.emit(t, next)
		return
	}
	var rep []byte
	g := -1 // no permutation known: compare orbits
	var err error
	if w.perm != nil {
		rep, _, g, err = w.perm.CanonicalPerm(next)
	} else {
		rep, _, err = w.canon.Canonical(next)
	}
	if err != nil {
		w.err = err
		w.emit(t, next)
		return
	}
	if len(rep) > 0 && len(next) > 0 && &rep[0] != &next[0] && g != 0 {
		// (g = 0: the identity maps next to rep, a copy of it.)
		h := fingerprint(rep)
		if slot := &w.checked[h&uint64(len(w.checked)-1)]; *slot != h {
			if w.err = w.agree(next, rep, g); w.err != nil {
				w.emit(t, next)
				return
			}
			*slot = h
		}
	}
	w.emit(t, rep)
}

// agree checks that state s and its representative rep agree on what the
// reduction relies on: the verdicts of the invariants, the number of
// transitions (live ones, messages sent) and where they lead, being a valid
// end state, and the state bound. Where they lead is compared as a
// multiset, by two order-independent hashes: when the permutation g that
// maps s to rep is known (g >= 0), the successors of rep must be the images
// under g of the successors of s; otherwise both must lead to the same
// orbits.
func (w *symWorker) agree(s, rep []byte, g int) error {
	q := w.q
	props := q.Model.Properties()
	if q.want != 0 {
		// Every property's verdict, not only the first one broken.
		var masks [2]uint64
		for i, st := range [][]byte{s, rep} {
			var err error
			if masks[i], err = w.probe.Check(st, q.want); err != nil {
				return err
			}
		}
		if d := masks[0] ^ masks[1]; d != 0 {
			return w.broken(fmt.Sprintf("the property %s has a different verdict in a successor and in its representative", props[bits.TrailingZeros64(d)].Name))
		}
	}
	from, to := g, 0 // the images of s's successors, rep's as they are
	if g < 0 {
		to = -1 // the representatives on both sides
	}
	sa, err := w.transitions(s, from)
	if err != nil {
		return err
	}
	sb, err := w.transitions(rep, to)
	if err != nil {
		return err
	}
	if sa.all != sb.all || sa.live != sb.live || sa.messages != sb.messages {
		return w.broken(fmt.Sprintf("a successor has %d transitions (%d live, sending %d messages) and its representative %d (%d live, sending %d)", sa.all, sa.live, sa.messages, sb.all, sb.live, sb.messages))
	}
	if sa != sb {
		if g >= 0 {
			return w.broken("the transitions of a successor and of its representative lead to states that the permutation between them does not map onto each other")
		}
		return w.broken("the transitions of a successor and of its representative lead to different orbits")
	}
	if sa.live == 0 && q.checkDL {
		a, err := w.probe.ValidEnd(s)
		if err != nil {
			return err
		}
		b, err := w.probe.ValidEnd(rep)
		if err != nil {
			return err
		}
		if a != b {
			return w.broken("a terminal successor and its representative differ on being a valid end state")
		}
	}
	a, err := inBound(w.probe, s)
	if err != nil {
		return err
	}
	b, err := inBound(w.probe, rep)
	if err != nil {
		return err
	}
	if a != b {
		return w.broken("a successor and its representative differ on the state bound")
	}
	return nil
}

// summary sums up the transitions of a state: how many, how many live,
// the messages they send, and two order-independent hashes of the
// representatives of their successors.
type summary struct {
	all, live, messages int64
	sum, xor            uint64
}

// transitions sums up the transitions of s, with each successor as g says
// (w.g).
func (w *symWorker) transitions(s []byte, g int) (c summary, err error) {
	w.count, w.countErr, w.g = c, nil, g
	err = expandFully(w.probe, s, &w.countX)
	if err == nil {
		err = w.countErr
	}
	return w.count, err
}

func (w *symWorker) broken(what string) error {
	return fmt.Errorf("--symmetry: the model is not symmetric under the group it declares (%s): %s; one of its transitions or properties depends on which process is which", w.q.group, what)
}

// Check implements Worker.
func (w *symWorker) Check(s []byte, want uint64) (uint64, error) { return w.w.Check(s, want) }

// ValidEnd implements Worker.
func (w *symWorker) ValidEnd(s []byte) (bool, error) { return w.w.ValidEnd(s) }

// TrackTypes implements TypedWorker when the model's worker does.
func (w *symWorker) TrackTypes(on bool) {
	if tw, ok := w.w.(TypedWorker); ok {
		tw.TrackTypes(on)
	}
}

// SentOfType implements TypedWorker when the model's worker does.
func (w *symWorker) SentOfType(typ string) int {
	if tw, ok := w.w.(TypedWorker); ok {
		return tw.SentOfType(typ)
	}
	return 0
}

// TrackCoverage implements CoverWorker when the model's worker does.
func (w *symWorker) TrackCoverage(on bool) {
	if cw, ok := w.w.(CoverWorker); ok {
		cw.TrackCoverage(on)
	}
}

// Fired implements CoverWorker when the model's worker does.
func (w *symWorker) Fired(t Transition) Fired {
	if cw, ok := w.w.(CoverWorker); ok {
		return cw.Fired(t)
	}
	return Fired{}
}

// orbitOf returns the number of states of the model that the stored state
// st stands for: the size of its orbit under symmetry, else 1.
func orbitOf(w Worker, st []byte) (int64, error) {
	return symOf(w).orbit(st)
}

// orbit is orbitOf for a worker that is sw, or none when sw is nil.
func (sw *symWorker) orbit(st []byte) (int64, error) {
	if sw == nil {
		return 1, nil
	}
	_, o, err := sw.canon.Canonical(st)
	return int64(o), err
}

// checkSymmetry refuses what symmetry reduction does not preserve or
// cannot be combined with, and with every property selected (Properties
// nil) selects the safety properties only.
func (s *search) checkSymmetry(live []LiveProperty) error {
	if s.cfg.Reduction != NoReduction {
		return configError("Symmetry", "", "{Symmetry} cannot be combined with {Reduction %s}", s.cfg.Reduction)
	}
	for _, m := range s.cfg.Metrics {
		if !builtinMetric(m) {
			return configError("Symmetry", "", "{Symmetry} cannot compute {Metrics %s}; use messages, messages:TYPE or steps, or drop {Symmetry}", m)
		}
	}
	if s.cfg.Properties == nil {
		if len(live) > 0 {
			s.cfg.Properties = s.safetyNames()
		}
		return nil
	}
	for _, p := range live {
		if s.selected(p.Name) {
			return configError("Symmetry", "", "{Symmetry} checks invariants, assertions, deadlocks and metrics, not the liveness property %s; drop {Symmetry}, or select safety properties with {Properties}", p.Name)
		}
	}
	return nil
}

// Live implements LiveWorker when the model's worker does. The search
// evaluates the predicates of liveness properties it does not check while
// it builds the graph for metrics; under symmetry it checks none.
func (w *symWorker) Live(s []byte, k, i int) (when, goal bool, err error) {
	lw, ok := w.w.(LiveWorker)
	if !ok {
		return false, false, fmt.Errorf("explorer: the model's worker does not evaluate liveness predicates")
	}
	return lw.Live(s, k, i)
}

// distinctInitial says n distinct initial states.
func distinctInitial(n int) string {
	if n == 1 {
		return "1 distinct initial state"
	}
	return fmt.Sprintf("%d distinct initial states", n)
}
