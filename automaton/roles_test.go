package automaton_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
)

// roleNode has a coordinator's field (Queue) and a client's (Granted), and
// a leader that is ⊥ while 0. Coord is constant: the role.
type roleNode struct {
	Granted bool
	Queue   []int
	Leader  int  `vacheck:",bottom"`
	Coord   bool `vacheck:"-"`
}

func (p *roleNode) Steps(_ *automaton.View[roleNode, int], out []automaton.Step) []automaton.Step {
	if p.Coord && p.Leader == 0 {
		out = append(out, automaton.Do("elect"))
	}
	return out
}
func (p *roleNode) Do(automaton.Step, *automaton.Effects[int]) { p.Leader = 7 }
func (p *roleNode) Receive(int, int, *automaton.Effects[int])  {}
func (p *roleNode) Uses(field string) bool {
	switch field {
	case "queue":
		return p.Coord
	case "granted":
		return !p.Coord
	}
	return true
}

func describeVars(t *testing.T, m explorer.Model, s []byte) []explorer.Var {
	t.Helper()
	vars, err := m.(explorer.Describer).Describe(s)
	if err != nil {
		t.Fatal(err)
	}
	return vars
}

// TestRolesAndBottom: a FieldUser process shows only the fields of its role
// (the mutant that ignores Uses shows p1.queue and p2.granted), and a
// field tagged bottom prints ⊥ while 0, with the JSON value 0, and its
// value once set.
func TestRolesAndBottom(t *testing.T) {
	sys := mustNew(t, automaton.Config[roleNode, int]{Initial: [][]roleNode{{{}, {Coord: true}}}})
	init, _ := sys.Initial()
	var got []string
	for _, v := range describeVars(t, sys, init[0]) {
		js, _ := json.Marshal(v.Value)
		got = append(got, fmt.Sprintf("%s=%v json %s", v.Name, v.Value, js))
	}
	want := []string{"p1.granted=false json false", "p1.leader=⊥ json 0", "p2.queue=[] json []", "p2.leader=⊥ json 0"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("initial state: %q; want %q", got, want)
	}
	next := successor(t, sys, init[0], 0)
	if v := describeVars(t, sys, next)[3]; v.Name != "p2.leader" || fmt.Sprint(v.Value) != "7" {
		t.Errorf("after elect: %s=%v; want p2.leader=7", v.Name, v.Value)
	}
}
