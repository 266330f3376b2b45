package simulate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/zeebo/xxh3"
)

// Shrinking a counterexample, as property-based testers do (QuickCheck,
// Hypothesis): steps are dropped, in chunks then one by one, and adjacent
// steps swapped, for as long as the run still reaches a violation of the
// same property. Steps are named by their action labels (receive(3)_{3,1}),
// not by their action indices, which change when an earlier step is
// dropped: a candidate is replayed from the initial state, taking each
// step whose label is enabled in the state reached and passing over the
// others (a step that depended on a dropped one goes with it), so every
// trace tried, and the one returned, is a run of the model.
//
// Replays are what shrinking costs, so a candidate starts from the state
// where it departs from the shortest trace so far (its states are kept),
// and each step first tries the action index the label had before (most
// steps keep theirs), asking the model for labels only when that fails.

// replayer replays runs of a model by action labels.
type replayer struct {
	s  *sim
	wk explorer.Worker
	d  explorer.Describer // nil: labels are #index
	// target is the property index sought (len(s.props) for
	// deadlock-freedom); bit its invariant bit, 0 for deadlock.
	target int
	bit    uint64
	// infos caches what replays learnt of the states they met.
	infos map[[16]byte]*stateInfo
	// replays and steps count the candidates replayed and their steps;
	// budget bounds the steps.
	replays       int
	steps, budget int64
	next          []byte // the successor step asked for
	nextAct       uint32
	nextSeen      bool
}

// stateInfo is what a replay needs of a state: its transitions (which of
// them are faults, and the labels asked for so far) and its verdicts.
type stateInfo struct {
	faults   []bool
	labels   []string // "" until asked for
	violated uint64   // the checked invariants and assertions it violates
	deadlock bool     // a terminal state that is not a valid end
}

// step is a step of a trace being shrunk: its label, and the action index
// it had when it was last taken, which a replay tries first.
type step struct {
	label string
	hint  int
}

// trail is a run found by replaying: its steps, and the state before each
// (states[len(steps)] is the last state).
type trail struct {
	steps  []step
	states [][]byte
}

func (s *sim) newReplayer(target int, budget int64) *replayer {
	r := &replayer{s: s, wk: s.m.NewWorker(), target: target, infos: map[[16]byte]*stateInfo{}, budget: budget}
	r.d, _ = s.m.(explorer.Describer)
	if target < len(s.props) {
		r.bit = 1 << uint(target)
	}
	return r
}

// info returns what the replay needs of state st.
func (r *replayer) info(st []byte) (in *stateInfo, err error) {
	h := xxh3.Hash128(st).Bytes()
	if in, ok := r.infos[h]; ok {
		return in, nil
	}
	defer recoverModel(&err)
	in = &stateInfo{}
	if in.violated, err = r.wk.Check(st, r.s.want); err != nil {
		return nil, err
	}
	// The transitions, without building the successors where the model
	// can tell them apart before (Offer).
	live := 0
	x := explorer.Expansion{
		Offer: func(t explorer.Transition, _ uint64) bool {
			in.faults = append(in.faults, t.Fault)
			if !t.Fault {
				live++
			}
			return false
		},
		Emit: func(explorer.Transition, []byte) {},
	}
	res, err := r.wk.Expand(st, &x)
	if err == nil {
		err = res.CheckErr
	}
	if err != nil {
		return nil, err
	}
	in.labels = make([]string, len(in.faults))
	if live == 0 && in.violated == 0 {
		ok, err := r.wk.ValidEnd(st)
		if err != nil {
			return nil, err
		}
		in.deadlock = !ok
	}
	r.infos[h] = in
	return in, nil
}

// label returns the label of action a in st (described by in), without
// the rank that tells it apart from an earlier one of the same label.
func (r *replayer) label(st []byte, in *stateInfo, a int) (string, error) {
	if l := in.labels[a]; l != "" {
		return l, nil
	}
	l := "#" + strconv.Itoa(a)
	if r.d != nil {
		var err error
		if l, err = r.d.Label(st, a); err != nil {
			return "", err
		}
	}
	in.labels[a] = l
	return l, nil
}

// ranked returns the label of action a in st for a trace: its label, and
// when an earlier transition has the same label (two equal messages in an
// unordered channel), its rank among them: receive(3)_{1,2} [2].
func (r *replayer) ranked(st []byte, in *stateInfo, a int) (string, error) {
	l, err := r.label(st, in, a)
	if err != nil {
		return "", err
	}
	rank := 1
	for b := 0; b < a; b++ {
		lb, err := r.label(st, in, b)
		if err != nil {
			return "", err
		}
		if lb == l {
			rank++
		}
	}
	if rank > 1 {
		l += " [" + strconv.Itoa(rank) + "]"
	}
	return l, nil
}

// find returns the action of st whose label is l, trying hint first, or
// -1 when none has it. A ranked label asks for the transition of that rank
// among those with the label; a label without a rank takes any of them,
// the hint first, then the first.
func (r *replayer) find(st []byte, in *stateInfo, l string, hint int) (int, error) {
	base, rank := unranked(l)
	if rank == 1 && hint >= 0 && hint < len(in.labels) {
		if lh, err := r.label(st, in, hint); err != nil || lh == l {
			return hint, err
		}
	}
	seen := 0
	for a := range in.labels {
		la, err := r.label(st, in, a)
		if err != nil {
			return -1, err
		}
		if la == base {
			if seen++; seen == rank {
				return a, nil
			}
		}
	}
	return -1, nil
}

// unranked returns label without the rank that tells it apart from an
// earlier transition with the same label, and the rank (1 without one).
func unranked(label string) (string, int) {
	i := strings.LastIndex(label, " [")
	if i < 0 || !strings.HasSuffix(label, "]") {
		return label, 1
	}
	k, err := strconv.Atoi(label[i+2 : len(label)-1])
	if err != nil || k < 2 {
		return label, 1
	}
	return label[:i], k
}

// successor returns the successor of st by action a.
func (r *replayer) successor(st []byte, a int) (_ []byte, err error) {
	defer recoverModel(&err)
	r.nextAct, r.nextSeen = uint32(a), false
	x := explorer.Expansion{
		Offer: func(t explorer.Transition, _ uint64) bool { return t.Action == r.nextAct },
		Emit: func(t explorer.Transition, next []byte) {
			r.next = append(r.next[:0], next...)
			r.nextSeen = true
		},
	}
	res, err := r.wk.Expand(st, &x)
	if err == nil {
		err = res.CheckErr
	}
	if err != nil {
		return nil, err
	}
	if !r.nextSeen {
		return nil, fmt.Errorf("action %d is not enabled", a)
	}
	return append([]byte(nil), r.next...), nil
}

// recoverModel turns a panic of the model into the error *err; it is
// deferred.
func recoverModel(err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("the model panicked: %v", p)
	}
}

// hit reports whether the state described by in violates the target
// property, and blocked whether it violates an assertion other than it, so
// that no run goes on from it.
func (r *replayer) hit(in *stateInfo) (hit, blocked bool) {
	if r.bit != 0 {
		hit = in.violated&r.bit != 0
	} else {
		hit = in.deadlock
	}
	return hit, !hit && in.violated&r.s.stop != 0
}

// try replays cand leniently, up to the first state that violates the
// target, and reports whether it reached one. Its first from steps are
// those of best, whose states it takes over.
func (r *replayer) try(best *trail, cand []step, from int) (*trail, bool, error) {
	r.replays++
	took := &trail{steps: slices.Clone(cand[:from]), states: slices.Clone(best.states[:from+1])}
	cur := best.states[from]
	for i := from; ; i++ {
		in, err := r.info(cur)
		if err != nil {
			return nil, false, err
		}
		hit, blocked := r.hit(in)
		if hit {
			return took, true, nil
		}
		if blocked {
			return nil, false, nil
		}
		// The next step enabled here, passing over those that are not.
		a := -1
		for ; i < len(cand); i++ {
			if a, err = r.find(cur, in, cand[i].label, cand[i].hint); err != nil || a >= 0 {
				break
			}
		}
		if err != nil || a < 0 {
			return nil, false, err
		}
		r.steps++
		if cur, err = r.successor(cur, a); err != nil {
			return nil, false, err
		}
		took.steps = append(took.steps, step{cand[i].label, a})
		took.states = append(took.states, cur)
	}
}

// shrink shrinks the run f to a violation of property p (deadlock-freedom
// when p is len(s.props)) and describes it.
func (s *sim) shrink(p int, info properties.Info, f *found) (Violation, error) {
	v := Violation{Violation: explorer.Violation{Property: info.Name, Kind: info.Kind, Process: -1}, Initial: f.init, Run: f.run, Found: len(f.acts)}
	r := s.newReplayer(p, s.cfg.ShrinkSteps)
	// The run's own steps, by their labels; it reaches the violation at
	// its end.
	run := &trail{states: [][]byte{f.init}}
	cur := f.init
	for _, a := range f.acts {
		in, err := r.info(cur)
		if err != nil {
			return v, err
		}
		if int(a) >= len(in.labels) {
			return v, fmt.Errorf("replaying the run: action %d is not enabled", a)
		}
		l, err := r.ranked(cur, in, int(a))
		if err != nil {
			return v, err
		}
		if cur, err = r.successor(cur, int(a)); err != nil {
			return v, err
		}
		run.steps = append(run.steps, step{l, int(a)})
		run.states = append(run.states, cur)
	}
	best, ok, err := r.try(run, run.steps, 0)
	if err != nil {
		return v, err
	}
	if !ok {
		return v, fmt.Errorf("replaying the run by its labels did not reach the violation again: a transition of the model is not pure")
	}
	if s.cfg.ShrinkSteps > 0 {
		r.replays, r.steps = 0, 0 // what shrinking costs
		best, v.Exhausted = r.minimize(best)
		v.Shrunk = true
	}
	v.Replays, v.ReplayedSteps = r.replays, r.steps
	v.Trace, err = s.describe(r, best)
	return v, err
}

// minimize drops and swaps steps of best while the run still violates the
// target, until neither shortens it or the budget runs out (then
// exhausted).
func (r *replayer) minimize(best *trail) (_ *trail, exhausted bool) {
	// accept replays cand, which departs from best at step from, and
	// keeps it when it is shorter, or as long and taken as it was asked.
	accept := func(cand []step, from int) bool {
		// A candidate on which the model fails is not a run to the
		// violation: it is passed over.
		took, ok, err := r.try(best, cand, from)
		if err != nil || !ok || len(took.steps) > len(best.steps) {
			return false
		}
		if len(took.steps) == len(best.steps) && !sameLabels(took.steps, cand) {
			return false
		}
		best = took
		return true
	}
	for {
		before := len(best.steps)
		// Drop chunks: halves, quarters, ... single steps.
		for k := max(len(best.steps)/2, 1); k >= 1; k /= 2 {
			for i := 0; i+k <= len(best.steps); {
				if r.steps >= r.budget {
					return best, true
				}
				cand := append(slices.Clone(best.steps[:i]), best.steps[i+k:]...)
				if !accept(cand, i) {
					i += k
				}
			}
		}
		// Name each step by its label alone where the violation persists:
		// the first of several transitions with one label rather than
		// the k-th ("receive(3)_{1,2} [2]").
		changed := false
		for i, st := range best.steps {
			base, rank := unranked(st.label)
			if rank == 1 {
				continue
			}
			if r.steps >= r.budget {
				return best, true
			}
			cand := slices.Clone(best.steps)
			cand[i] = step{base, -1}
			changed = accept(cand, i) || changed
		}
		// Swap adjacent steps into label order, where the violation
		// persists: independent steps end up in a canonical order, and
		// the dropping is tried again.
		for i := 0; i+1 < len(best.steps); i++ {
			if best.steps[i+1].label >= best.steps[i].label {
				continue
			}
			if r.steps >= r.budget {
				return best, true
			}
			cand := slices.Clone(best.steps)
			cand[i], cand[i+1] = cand[i+1], cand[i]
			changed = accept(cand, i) || changed
		}
		if len(best.steps) == before && !changed {
			return best, false
		}
	}
}

// sameLabels reports whether two traces have the same labels.
func sameLabels(a, b []step) bool {
	return slices.EqualFunc(a, b, func(x, y step) bool { return x.label == y.label })
}

// describe returns the trace of t with every state described, as
// explorer.Check's counterexamples are.
func (s *sim) describe(r *replayer, t *trail) (explorer.Trace, error) {
	out := explorer.Trace{Initial: -1}
	var err error
	if out.InitialParams, err = explorer.NameInitial(s.m, t.states[0]); err != nil {
		return out, err
	}
	if r.d != nil {
		if out.InitialState, err = r.d.Describe(t.states[0]); err != nil {
			return out, err
		}
	}
	for k, st := range t.steps {
		step := explorer.Step{Action: st.label, ActionIndex: st.hint}
		if r.d != nil {
			if step.State, err = r.d.Describe(t.states[k+1]); err != nil {
				return out, err
			}
		}
		out.Steps = append(out.Steps, step)
	}
	if e, ok := s.m.(explorer.Explainer); ok {
		// Best effort: the last state of a failed run may not explain.
		if lines, err := e.Explain(t.states[len(t.steps)]); err == nil {
			out.Explanation = lines
		}
	}
	return out, nil
}

// replay rebuilds the run from init through the action indices acts, with
// every state described.
func (s *sim) replay(init []byte, acts []uint32) (explorer.Trace, error) {
	r := s.newReplayer(len(s.props), 0)
	t := &trail{states: [][]byte{init}}
	cur := init
	for _, a := range acts {
		in, err := r.info(cur)
		if err != nil {
			return explorer.Trace{}, err
		}
		if int(a) >= len(in.labels) {
			return explorer.Trace{}, fmt.Errorf("replaying the run: action %d is not enabled", a)
		}
		l, err := r.ranked(cur, in, int(a))
		if err != nil {
			return explorer.Trace{}, err
		}
		if cur, err = r.successor(cur, int(a)); err != nil {
			return explorer.Trace{}, err
		}
		t.steps = append(t.steps, step{l, int(a)})
		t.states = append(t.states, cur)
	}
	return s.describe(r, t)
}
