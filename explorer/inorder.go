package explorer

import (
	"errors"
	"fmt"
	"time"

	"github.com/vacheck/vacheck/properties"
)

// InOrderer is an optional interface of a Model whose channels may deliver
// a message ahead of one sent before it on the same channel (unordered
// channels). InOrder returns the model whose channels deliver every
// message in the order it was sent: the same initial states in the same
// order, and runs that are, label for label (Describer.Label), the runs of
// the model that overtake no message. ok is false when every channel is
// ordered already.
//
// A breadth-first search uses it to prefer, among the shortest
// counterexamples, one in which no message overtakes another: an overtake
// the bug does not need teaches the wrong lesson.
type InOrderer interface {
	InOrder() (m Model, ok bool)
}

// errNoLabel reports that a step of a trace has no transition of its label
// in the model it is followed in.
var errNoLabel = errors.New("explorer: no transition has the label")

// preferInOrder returns, for t, the counterexample to the property f.prop
// that a breadth-first search found, one of the same length in which no
// message overtakes another, when t has an overtake and one exists;
// otherwise t. The choice is deterministic: the in-order counterexample is
// the one a breadth-first search of the in-order model finds first
// (shortest, then lowest action indices), whatever the number of workers.
//
// It costs nothing when there is no violation, and, when there is one, a
// breadth-first search of the in-order model to the counterexample's
// depth, within the run's limits, only when t overtakes: t is first
// followed in the in-order model, and kept when every step of it is there.
func (s *search) preferInOrder(f found, t Trace) Trace {
	if s.cfg.Strategy != BFS || s.cfg.Bitstate > 0 || s.cfg.Symmetry || s.cfg.Reduction == PartialOrder ||
		!s.cfg.Shard.Whole() || s.cfg.OnExpand != nil || len(t.Steps) == 0 || len(t.Cycle) > 0 ||
		f.prop < 0 || f.prop > len(s.props) || s.isReach(f.prop) {
		return t
	}
	io, ok := s.m.(InOrderer)
	if !ok {
		return t
	}
	ord, ok := io.InOrder()
	if !ok {
		return t
	}
	labels := make([]string, len(t.Steps))
	for k, st := range t.Steps {
		labels[k] = st.Action
	}
	if _, _, err := followLabels(ord, t.Initial, labels); err == nil {
		return t // t overtakes nothing
	}
	name := properties.DeadlockFreedom
	if f.prop < len(s.props) {
		name = s.props[f.prop].Name
	}
	var stored int64
	for _, v := range s.shards {
		if v != nil {
			stored += v.Len()
		}
	}
	cfg := Config{
		Workers:    s.cfg.Workers,
		MaxDepth:   len(t.Steps),
		Properties: []string{name},
		Context:    s.cfg.Context,
		MaxMemory:  s.cfg.MaxMemory,
		// The in-order model has fewer states to the same depth in
		// practice (ricart-agrawala-broken --n 4: 1.31 M to depth 16,
		// against the 1.95 M the search stored); past twice as many the
		// counterexample stays as it is.
		MaxStates: 2*stored + 1024,
	}
	if s.cfg.Timeout > 0 {
		if cfg.Timeout = s.cfg.Timeout - time.Since(s.start); cfg.Timeout <= 0 {
			return t
		}
	}
	if s.cfg.Progress != nil {
		// The search goes on in the in-order model: its progress is
		// reported as this search's, in a phase of its own, with the time
		// since this search began.
		outer := Progress{Strategy: s.cfg.Strategy, Phase: FindingInOrder, States: s.states.Load() - s.cut.Load(),
			Transitions: s.transitions.Load(), Depth: int(s.depth.Load()), MaxDepth: s.cfg.MaxDepth}
		began := s.prior + time.Since(s.start)
		cfg.ProgressEvery = s.cfg.ProgressEvery
		cfg.Progress = func(p Progress) {
			o := outer
			p.MaxDepth = cfg.MaxDepth
			o.InOrder, o.Elapsed, o.Memory = &p, began+p.Elapsed, p.Memory
			s.cfg.Progress(o)
		}
	}
	r, err := Check(ord, cfg)
	if err != nil {
		return t
	}
	s.peak.Store(max(s.peak.Load(), r.PeakMemory))
	for _, v := range r.Violations {
		if v.Property != name || v.Unreached || len(v.Trace.Steps) != len(t.Steps) || len(v.Trace.Cycle) > 0 {
			continue
		}
		labels = labels[:0]
		for _, st := range v.Trace.Steps {
			labels = append(labels, st.Action)
		}
		acts, last, err := followLabels(s.m, v.Trace.Initial, labels)
		if err != nil || !s.violates(f.prop, last) {
			return t
		}
		u, err := s.replay(v.Trace.Initial, acts, nil, nil)
		if err != nil {
			return t
		}
		return u
	}
	return t
}

// violates reports whether st violates property prop of the search (an
// invariant or assertion, or deadlock-freedom).
func (s *search) violates(prop int, st []byte) bool {
	w := s.m.NewWorker()
	if prop < len(s.props) {
		mask, err := w.Check(st, 1<<uint(prop))
		return err == nil && mask&(1<<uint(prop)) != 0
	}
	live := 0
	if _, err := Successors(w, st, func(t Transition, _ []byte) {
		if !t.Fault {
			live++
		}
	}); err != nil || live > 0 {
		return false
	}
	ok, err := w.ValidEnd(st)
	return err == nil && !ok
}

// followLabels follows, in m, from its initial state init, the transitions
// of the given labels in turn, and returns their action indices and the
// state it reaches; errNoLabel when a step has no transition of its label.
func followLabels(m Model, init int, labels []string) ([]uint32, []byte, error) {
	d, ok := m.(Describer)
	if !ok {
		return nil, nil, fmt.Errorf("explorer: the model does not describe its transitions")
	}
	var cur []byte
	k := 0
	if err := eachInitial(m, func(st []byte) bool {
		if k == init {
			cur = append([]byte(nil), st...)
			return false
		}
		k++
		return true
	}); err != nil {
		return nil, nil, err
	}
	if cur == nil {
		return nil, nil, fmt.Errorf("explorer: no initial state %d", init)
	}
	w := m.NewWorker()
	acts := make([]uint32, 0, len(labels))
	var succ [][]byte
	for _, want := range labels {
		succ = succ[:0]
		if _, err := Successors(w, cur, func(_ Transition, next []byte) {
			succ = append(succ, append([]byte(nil), next...))
		}); err != nil {
			return nil, nil, err
		}
		next := -1
		for a := range succ {
			l, err := d.Label(cur, a)
			if err != nil {
				return nil, nil, err
			}
			if l == want {
				next = a
				break
			}
		}
		if next < 0 {
			return nil, nil, fmt.Errorf("%w %s", errNoLabel, want)
		}
		acts = append(acts, uint32(next))
		cur = succ[next]
	}
	return acts, cur, nil
}
