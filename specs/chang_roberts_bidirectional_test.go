package specs

import (
	"errors"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// TestChangRobertsBidirectionalSafety: FIFO is not needed for safety, and
// --objective min elects the minimum with the mirror-image state space.
func TestChangRobertsBidirectionalSafety(t *testing.T) {
	t.Parallel()
	for _, f := range []map[string]string{{"n": "3", "channels": "unordered"}, {"n": "3", "objective": "min"}} {
		r, err := explorer.Check(build(t, "chang-roberts-bidirectional", f), explorer.Config{Properties: changRobertsBidirectional().Claims})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != explorer.OK {
			t.Errorf("%v: %v %+v", f, r.Status, r.Violations)
		}
		if f["objective"] == "min" && r.States != 2694 {
			t.Errorf("objective min: %d states, want max's 2694", r.States)
		}
	}
}

// TestChangRobertsBidirectionalBroken: an ID forwarded back on the port it
// arrived on returns to its origin at once, which is chosen: at N=3 IDs 2
// and 3 both bounce off process 1 (6 steps).
func TestChangRobertsBidirectionalBroken(t *testing.T) {
	t.Parallel()
	r, err := explorer.Check(build(t, "chang-roberts-bidirectional-broken", map[string]string{"n": "3"}),
		explorer.Config{Properties: twinOf(changRobertsBidirectional()).Claims})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Violated || r.Violations[0].Property != properties.Uniqueness || len(r.Violations[0].Trace.Steps) != 6 {
		t.Fatalf("%v %+v, want uniqueness violated in 6 steps", r.Status, r.Violations)
	}
}

// TestChangRobertsBidirectionalUsage: bad flags are usage errors; N = 1
// is (a ring of one process has no neighbour), N = 2 no longer is
// (TestChangRobertsBidirectionalTwo).
func TestChangRobertsBidirectionalUsage(t *testing.T) {
	t.Parallel()
	for _, flags := range []map[string]string{{"n": "1"}, {"n": "x"}, {"objective": "any"}, {"ids": "1,2"}} {
		s, _ := Lookup("chang-roberts-bidirectional")
		err := buildErr(s, flags)
		if !errors.Is(err, ErrUsage) {
			t.Errorf("%v: error %v, want ErrUsage", flags, err)
		}
	}
}

// TestChangRobertsBidirectionalTwo: with N = 2 both ports of a process
// lead to the other one, and each ordered pair has two channels, cw and
// ccw. By hand, for IDs with the larger at process A: A's start puts its
// ID on A→B (port dir_A); B forwards it on B→A (the same port), then A is
// chosen; B's own ID goes on B→A (port dir_B) and is discarded by A.
// When dir_A ≠ dir_B the two messages to A travel on different channels:
// the states are the prefixes of the chain start_A < fwd_B < recv_A (4)
// times those of start_B < recv_A (3), 12 states and 3·3 + 4·2 = 17
// transitions. When dir_A = dir_B they share B→A's channel, FIFO: with
// both in it their order is a state of its own, and the smaller is
// received first only if it was sent first: 13 states and (counted edge
// by edge) 17 transitions. Over 2 arrangements and 4 direction vectors
// (2 with equal directions): 2·(2·12 + 2·13) = 100 states, 2·4·17 = 136
// transitions, 8 terminal states (N!·2^N). Messages: 3 in every run
// (2N−1 = N(N+1)/2 = 3). The port shows in the labels, and with the
// rotation the orbits hold the 100 states.
func TestChangRobertsBidirectionalTwo(t *testing.T) {
	m := build(t, "chang-roberts-bidirectional", map[string]string{"n": "2", "ids": "all"})
	r, err := explorer.Check(m, explorer.Config{Workers: 1, Metrics: []string{"messages"}, Properties: changRobertsBidirectional().Claims})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.OK || r.States != 100 || r.Transitions != 136 || r.Terminal != 8 {
		t.Fatalf("%v %+v: %d states, %d transitions, %d terminal; want ok, 100, 136, 8", r.Status, r.Violations, r.States, r.Transitions, r.Terminal)
	}
	if mm := r.Metrics[0]; mm.Min != 3 || mm.Max != 3 {
		t.Errorf("messages %d..%d; want 3..3", mm.Min, mm.Max)
	}
	sym, err := explorer.Check(m, explorer.Config{Symmetry: true, Properties: []string{properties.Uniqueness}})
	if err != nil {
		t.Fatal(err)
	}
	if sym.Status != explorer.OK || sym.States != 50 || sym.RawStates != 100 {
		t.Errorf("symmetry: %v, %d orbits holding %d states; want ok, 50 holding 100", sym.Status, sym.States, sym.RawStates)
	}
	d := m.(explorer.Describer)
	init, err := m.Initial()
	if err != nil {
		t.Fatal(err)
	}
	// Initial state 1: IDs 1, 2, both clockwise; start_1 sends 1 on cw.
	if l, err := d.Label(init[0], 0); err != nil || l != "start(1)_{1,2:cw}" {
		t.Errorf("label %q, %v; want start(1)_{1,2:cw}", l, err)
	}
}
