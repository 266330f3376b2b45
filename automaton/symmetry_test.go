package automaton_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
)

// symNode is a process of a small election on a unidirectional ring
// (Chang-Roberts without send buffers' subtleties): it sends its ID on,
// forwards larger IDs, and is chosen when its own comes back. From records
// the neighbour the last forwarded ID came from, a Proc value that a
// permutation must map.
type symNode struct {
	U      int
	Send   []int
	Chosen bool
	From   automaton.Proc
	// Mutant makes process 1 discard every ID it receives: a process
	// whose behaviour depends on its index.
	Mutant bool `vacheck:"-"`
}

func (p *symNode) Steps(v *automaton.View[symNode, int], out []automaton.Step) []automaton.Step {
	if len(p.Send) > 0 {
		out = append(out, automaton.Out("send", (v.Self()+1)%v.N()))
	}
	return out
}

func (p *symNode) Do(_ automaton.Step, fx *automaton.Effects[int]) {
	v := p.Send[0]
	p.Send = p.Send[1:]
	fx.Send((fx.Self()+1)%fx.N(), v)
}

func (p *symNode) Receive(from int, v int, fx *automaton.Effects[int]) {
	if p.Mutant && fx.Self() == 0 {
		return
	}
	switch {
	case v > p.U:
		p.Send = append(p.Send, v)
		p.From = automaton.Proc(from)
	case v == p.U:
		p.Chosen = true
	}
}

type symOpts struct {
	arrangements [][]int // default: every arrangement of 1..n
	links        []automaton.Link
	mutant       bool
	property1    bool // an invariant about process 1
	differ       bool // process 2's constant differs
	symmetry     automaton.Symmetry
}

func symSystem(t *testing.T, n int, o symOpts) (*automaton.System[symNode, int, *symNode], error) {
	t.Helper()
	if o.arrangements == nil {
		o.arrangements = arrangements(n)
	}
	if o.links == nil {
		o.links = automaton.Ring(n)
	}
	if o.symmetry == 0 {
		o.symmetry = automaton.Rotations
	}
	var initial [][]symNode
	for _, ids := range o.arrangements {
		procs := make([]symNode, n)
		for i, id := range ids {
			procs[i] = symNode{U: id, Send: []int{id}, From: automaton.NoProc, Mutant: o.mutant || (o.differ && i == 1)}
		}
		initial = append(initial, procs)
	}
	invs := []automaton.Invariant[symNode, int]{{Name: "uniqueness", Holds: func(v *automaton.View[symNode, int]) bool {
		k := 0
		for i := 0; i < v.N(); i++ {
			if v.Proc(i).Chosen {
				k++
			}
		}
		return k <= 1
	}}}
	if o.property1 {
		// Process 1 never learns an ID from its neighbour: true of some
		// arrangements only, and not invariant under rotations.
		invs = append(invs, automaton.Invariant[symNode, int]{Name: "p1-quiet", Holds: func(v *automaton.View[symNode, int]) bool {
			return v.Proc(0).From == automaton.NoProc || v.Proc(0).U > 1
		}})
	}
	return automaton.New(automaton.Config[symNode, int]{Name: "sym-ring", Initial: initial, Links: o.links, Invariants: invs, Symmetry: o.symmetry})
}

func arrangements(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, rest := range arrangements(n - 1) {
		for k := 0; k <= len(rest); k++ {
			a := append(append(append([]int(nil), rest[:k]...), n), rest[k:]...)
			out = append(out, a)
		}
	}
	return out
}

// TestSymmetrySlowPath: a process type with a Proc field is permuted by
// decoding it; the orbits under rotations hold exactly the states of the
// search without symmetry, with the same terminal states.
func TestSymmetrySlowPath(t *testing.T) {
	for n := 2; n <= 5; n++ {
		sys, err := symSystem(t, n, symOpts{})
		if err != nil {
			t.Fatal(err)
		}
		plain, err := explorer.Check(sys, explorer.Config{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}, {Strategy: explorer.DFS}} {
			cfg.Symmetry = true
			r, err := explorer.Check(sys, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != explorer.OK || r.RawStates != plain.States || r.RawTerminal != plain.Terminal || r.States*int64(n) != plain.States {
				t.Errorf("N=%d %s/%d: %s (%s), %d orbits holding %d states and %d terminal; without symmetry %d and %d", n, r.Strategy, r.Workers, r.Status, r.Reason, r.States, r.RawStates, r.RawTerminal, plain.States, plain.Terminal)
			}
		}
	}
}

// TestSymmetryCanonical: every state of an orbit has the same
// representative, and a state whose processes are all alike is its whole
// orbit.
func TestSymmetryCanonical(t *testing.T) {
	sys, err := symSystem(t, 4, symOpts{})
	if err != nil {
		t.Fatal(err)
	}
	initial, _ := sys.Initial()
	c := sys.NewCanonicalizer()
	reps := map[string]int{}
	for _, st := range initial {
		rep, orbit, err := c.Canonical(st)
		if err != nil {
			t.Fatal(err)
		}
		if orbit != 4 {
			t.Errorf("orbit of an arrangement of distinct IDs: %d states, want 4", orbit)
		}
		reps[string(rep)]++
	}
	if len(reps) != 6 {
		t.Errorf("24 arrangements fall into %d orbits, want 24/4 = 6", len(reps))
	}
	for _, k := range reps {
		if k != 4 {
			t.Errorf("an orbit holds %d initial states, want 4", k)
		}
	}
	same, err := symSystem(t, 4, symOpts{arrangements: [][]int{{7, 7, 7, 7}}})
	if err != nil {
		t.Fatal(err)
	}
	initial, _ = same.Initial()
	if _, orbit, err := same.NewCanonicalizer().Canonical(initial[0]); err != nil || orbit != 1 {
		t.Errorf("four identical processes: orbit %d (%v), want 1", orbit, err)
	}
}

// TestSymmetryMutants: a model inside the declared symmetry's assumptions
// in form but not in substance is caught, never merged silently: a process
// whose behaviour depends on its index, and an invariant about process 1.
func TestSymmetryMutants(t *testing.T) {
	for _, o := range []symOpts{{mutant: true}, {property1: true}} {
		sys, err := symSystem(t, 4, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, cfg := range []explorer.Config{{Workers: 2}, {Strategy: explorer.DFS}} {
			cfg.Symmetry = true
			r, err := explorer.Check(sys, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != explorer.Failed || !strings.Contains(r.Reason, "not symmetric") || r.Failure == nil {
				t.Errorf("%+v with %s: %s (%s), want a model failure with a trace", o, r.Strategy, r.Status, r.Reason)
			}
		}
	}
}

// TestSymmetryRefused: declarations a permutation cannot honour are
// refused when the system is built or when the search starts.
func TestSymmetryRefused(t *testing.T) {
	if _, err := symSystem(t, 4, symOpts{links: []automaton.Link{{0, 1}, {1, 2}, {2, 3}}}); !errors.Is(err, automaton.ErrConfig) || !strings.Contains(err.Error(), "not a link") {
		t.Errorf("rotations of a line: %v", err)
	}
	if _, err := symSystem(t, 4, symOpts{symmetry: automaton.Dihedral}); !errors.Is(err, automaton.ErrConfig) {
		t.Errorf("reflections of a unidirectional ring: %v", err)
	}
	for name, o := range map[string]symOpts{
		"one arrangement":  {arrangements: [][]int{{1, 2, 3, 4}}},
		"constants differ": {differ: true},
	} {
		sys, err := symSystem(t, 4, o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := explorer.Check(sys, explorer.Config{Symmetry: true}); !errors.Is(err, explorer.ErrConfig) {
			t.Errorf("%s: %v, want a configuration error", name, err)
		}
	}
}
