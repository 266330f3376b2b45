package explorer

import (
	"bytes"
	"fmt"
)

// concrete maps a run of the quotient q (initial state init, then the
// action indices acts between representatives) to a run of the model from
// its own initial state init: at each step, the first transition (in
// action order) of the real state whose successor has the representative
// the quotient's run reached. It returns the action indices of the real
// run.
func (q *symModel) concrete(init int, acts []uint32) ([]uint32, error) {
	if init < 0 {
		return nil, fmt.Errorf("explorer: no initial state %d", init)
	}
	cur, err := nthInitial(q.Model, init)
	if err != nil {
		return nil, err
	}
	w := q.Model.NewWorker()
	c := q.sym.NewCanonicalizer()
	r0, _, err := c.Canonical(cur)
	if err != nil {
		return nil, err
	}
	rep := append([]byte(nil), r0...)
	out := make([]uint32, 0, len(acts))
	for _, a := range acts {
		// The quotient's step: action a of the representative.
		next, err := successor(w, rep, a)
		if err != nil {
			return nil, err
		}
		r, _, err := c.Canonical(next)
		if err != nil {
			return nil, err
		}
		rep = append(rep[:0], r...)
		// The real step: the first transition of cur to the same orbit.
		var succs [][]byte
		if _, err := Successors(w, cur, func(_ Transition, succ []byte) {
			succs = append(succs, append([]byte(nil), succ...))
		}); err != nil {
			return nil, err
		}
		b := -1
		for k, st := range succs {
			r, _, err := c.Canonical(st)
			if err != nil {
				return nil, err
			}
			if bytes.Equal(r, rep) {
				b = k
				break
			}
		}
		if b < 0 {
			return nil, fmt.Errorf("explorer: --symmetry: no transition of the real run reaches the orbit the reduced run reached; the model is not symmetric under %s", q.group)
		}
		out = append(out, uint32(b))
		cur = succs[b]
	}
	return out, nil
}

// replay rebuilds the trace of the run from initial state init through the
// action indices acts (with the fingerprints fps of its states when not
// nil) of the model searched; under symmetry, the reduced run is first
// replayed on the quotient, then mapped to a real run of the model, which
// the trace shows.
func (s *search) replay(init int, acts []uint32, fps []uint64, final *uint64) (Trace, error) {
	q, ok := s.m.(*symModel)
	if !ok {
		return replayShard(s.m, s.cfg.Shard, init, acts, fps, final)
	}
	if fps != nil || final != nil {
		if _, err := replay(q, init, acts, fps, final); err != nil {
			return Trace{}, err
		}
	}
	real, err := q.concrete(init, acts)
	if err != nil {
		return Trace{}, err
	}
	return Replay(q.Model, init, real, nil)
}

// replayLasso is replay for a lasso: prefix, then a cycle. Under symmetry
// the cycle of the quotient leads the real run from a state to a
// permutation of it, so the real cycle repeats it until the real run is
// back where the cycle began: at most as many times as the group has
// elements (GroupOrderer; 64 for a model that does not say). The real run
// of k rounds begins with that of fewer (concrete maps the run one step
// at a time), so it maps 1, 2, 4, ... rounds and looks for the first
// round that closes among them: time in proportion to the rounds needed.
// It returns the action indices of the real prefix and cycle.
func (s *search) replayLasso(init int, prefix, cycle []uint32) (Trace, int, error) {
	q, ok := s.m.(*symModel)
	if !ok || len(cycle) == 0 {
		t, err := s.replay(init, append(append([]uint32(nil), prefix...), cycle...), nil, nil)
		return t, len(prefix), err
	}
	most := 64
	if g, ok := q.sym.(GroupOrderer); ok {
		most = max(most, g.GroupOrder())
	}
	start := len(prefix)
	for rounds := 1; ; rounds = min(2*rounds, most) {
		run := append([]uint32(nil), prefix...)
		for range rounds {
			run = append(run, cycle...)
		}
		real, err := q.concrete(init, run)
		if err != nil {
			return Trace{}, 0, err
		}
		if k, err := closingRound(q.Model, init, real, start, len(cycle), rounds); err != nil {
			return Trace{}, 0, err
		} else if k > 0 {
			t, err := Replay(q.Model, init, real[:start+k*len(cycle)], nil)
			return t, start, err
		}
		if rounds == most {
			return Trace{}, 0, fmt.Errorf("explorer: --symmetry: the real run of a cycle does not close within %d rounds", most)
		}
	}
}

// closingRound follows the real run real of m from initial state init and
// returns the first of its rounds 1..rounds (each of length n, after the
// prefix of length start) that ends where the prefix ended, or 0.
func closingRound(m Model, init int, real []uint32, start, n, rounds int) (int, error) {
	cur, err := nthInitial(m, init)
	if err != nil {
		return 0, err
	}
	w := m.NewWorker()
	var begin []byte
	for i, a := range real[:start+rounds*n] {
		if i == start {
			begin = append([]byte(nil), cur...)
		}
		if cur, err = successor(w, cur, a); err != nil {
			return 0, err
		}
		if i+1 > start && (i+1-start)%n == 0 && bytes.Equal(cur, begin) {
			return (i + 1 - start) / n, nil
		}
	}
	return 0, nil
}
