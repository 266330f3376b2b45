package explorer

import (
	"errors"
	"fmt"
	"slices"
)

// found is a counterexample found by the search: the property (an index
// into the model's properties, or deadlock) and the fingerprint of the
// violating state.
type found struct {
	prop int
	fp   uint64
	// ref is the state in the visited set, when hasRef.
	ref    stateRef
	hasRef bool
	// path, when not nil, is the way to the state from an initial one, so
	// that it need not be rebuilt from the visited set (DFS keeps no
	// predecessors).
	path *path
}

// path is a run from initial state init through the action indices acts;
// fps[k] is the fingerprint of the state after acts[k].
type path struct {
	init int
	acts []uint32
	fps  []uint64
}

// record notes a counterexample to property prop at the state r, with
// fingerprint fp, the first for it.
func (s *search) record(prop int, fp uint64, r stateRef) {
	s.recordFound(found{prop: prop, fp: fp, ref: r, hasRef: true})
}

// recordPath is record with the path to the state, for a search that keeps
// no predecessors.
func (s *search) recordPath(prop int, fp uint64, p *path) {
	s.recordFound(found{prop: prop, fp: fp, path: p})
}

func (s *search) recordFound(f found) {
	prop := f.prop
	for _, g := range s.violations {
		if g.prop == prop {
			return
		}
	}
	s.violations = append(s.violations, f)
	if prop < len(s.props) && s.assert&(1<<uint(prop)) == 0 {
		s.want &^= 1 << uint(prop)
	}
	if prop == s.deadlock {
		s.checkDL = false
	}
}

// fail ends the search as failed at the state r, with fingerprint fp.
func (s *search) fail(fp uint64, r stateRef, err error) {
	if s.failure == nil {
		s.failure = &found{prop: -1, fp: fp, ref: r, hasRef: true}
		s.failErr = err
	}
}

// failPath is fail with the path to the state, for a search that keeps no
// predecessors.
func (s *search) failPath(fp uint64, p *path, err error) {
	if s.failure == nil {
		s.failure = &found{prop: -1, fp: fp, path: p}
		s.failErr = err
	}
}

// traceOf rebuilds the trace to the state of f.
func (s *search) traceOf(f found) (Trace, error) {
	if f.path != nil {
		return s.replay(f.path.init, f.path.acts, f.path.fps, nil)
	}
	if !f.hasRef {
		return Trace{}, fmt.Errorf("explorer: state %016x is not in the visited set", f.fp)
	}
	return s.trace(f.ref, f.fp)
}

// errReplay is returned when a counterexample cannot be replayed: the model
// is not deterministic (a transition is not pure).
var errReplay = errors.New("explorer: replaying the counterexample reached a different state; a transition of the model is not pure")

// trace rebuilds the path to the state r, with fingerprint fp, by following
// predecessors back to an initial state and replaying it forwards.
func (s *search) trace(r stateRef, fp uint64) (Trace, error) {
	var acts []uint32
	// A path visits each stored state once at most: a longer one goes
	// round a loop of records, which only a forged checkpoint can make.
	var stored int64
	for _, v := range s.shards {
		if v != nil {
			stored += v.Len()
		}
	}
	for cur := r; ; {
		var parent stateRef
		var act uint32
		ok := cur.shard() < len(s.shards) && s.shards[cur.shard()] != nil
		if ok {
			parent, act, ok = s.shards[cur.shard()].Parent(cur)
		}
		if !ok || int64(len(acts)) >= stored {
			return Trace{}, fmt.Errorf("explorer: state %016x is not in the visited set", fp)
		}
		acts = append(acts, act)
		if parent == noRef {
			break
		}
		cur = parent
	}
	init := int(acts[len(acts)-1])
	acts = acts[:len(acts)-1]
	slices.Reverse(acts)
	return s.replay(init, acts, nil, &fp)
}

// Replay rebuilds the trace from initial state init through the given
// action indices, describing every state when the model is a Describer.
// When fps is not nil, each state's fingerprint must match it.
func Replay(m Model, init int, acts []uint32, fps []uint64) (Trace, error) {
	return replay(m, init, acts, fps, nil)
}

// replay is Replay; when final is not nil, the fingerprint of the last
// state must be *final.
func replay(m Model, init int, acts []uint32, fps []uint64, final *uint64) (Trace, error) {
	return replayShard(m, Shard{}, init, acts, fps, final)
}

// replayShard is replay from the init-th initial state that sh selects;
// the trace gives the initial state's index in the whole enumeration.
func replayShard(m Model, sh Shard, init int, acts []uint32, fps []uint64, final *uint64) (Trace, error) {
	var cur []byte
	k := 0
	err := eachShardInitial(m, sh, func(st []byte) bool {
		if k == init {
			cur = append([]byte(nil), st...)
			return false
		}
		k++
		return true
	})
	if err != nil {
		return Trace{}, err
	}
	if cur == nil {
		return Trace{}, fmt.Errorf("explorer: no initial state %d", init)
	}
	d, _ := m.(Describer)
	t := Trace{Initial: sh.Global(init)}
	if d != nil {
		if t.InitialState, err = d.Describe(cur); err != nil {
			return t, err
		}
	}
	if t.InitialParams, err = NameInitial(m, cur); err != nil {
		return t, err
	}
	w := m.NewWorker()
	for i, a := range acts {
		next, err := successor(w, cur, a)
		if err != nil {
			return t, err
		}
		if fps != nil && fingerprint(next) != fps[i] {
			return t, errReplay
		}
		step := Step{Action: fmt.Sprintf("#%d", a), ActionIndex: int(a)}
		if d != nil {
			if step.Action, err = d.Label(cur, int(a)); err != nil {
				return t, err
			}
			if step.State, err = d.Describe(next); err != nil {
				return t, err
			}
		}
		t.Steps = append(t.Steps, step)
		cur = next
	}
	if final != nil && fingerprint(cur) != *final {
		return t, errReplay
	}
	if e, ok := m.(Explainer); ok {
		if t.Explanation, err = e.Explain(cur); err != nil {
			return t, err
		}
	}
	return t, nil
}

// successor returns the successor of st by action index a, or errReplay
// when st has no such transition.
func successor(w Worker, st []byte, a uint32) ([]byte, error) {
	var next []byte
	idx := uint32(0)
	if _, err := Successors(w, st, func(_ Transition, succ []byte) {
		if idx == a {
			next = append([]byte(nil), succ...)
		}
		idx++
	}); err != nil {
		return nil, err
	}
	if next == nil {
		return nil, errReplay
	}
	return next, nil
}

// NameInitial returns the parameter values that select exactly the initial
// state st of m (InitialNamer), or nil when m cannot name it.
func NameInitial(m Model, st []byte) (map[string]string, error) {
	n, ok := m.(InitialNamer)
	if !ok {
		return nil, nil
	}
	params, err := n.InitialParams(st)
	if err != nil {
		return nil, fmt.Errorf("naming the initial state: %w", err)
	}
	return params, nil
}
