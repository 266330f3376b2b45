package automaton_test

import (
	"slices"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
)

// gotBoth is burst with process 1 sending msgs in one step over an
// unordered channel, and the invariant that process 2 never holds two
// messages: its counterexamples are the three steps burst, receive,
// receive, in either order of the receives.
func gotBoth(tb testing.TB, inv func(got []int) bool, msgs ...int) explorer.Model {
	return mustNew(tb, automaton.Config[burst, int]{
		Initial:  [][]burst{{{Msgs: msgs}, {}}},
		Links:    []automaton.Link{{From: 0, To: 1}},
		Channels: channel.Unordered,
		Invariants: []automaton.Invariant[burst, int]{{
			Name: "inv", Doc: "the test's invariant",
			Holds: func(v *automaton.View[burst, int]) bool { return inv(v.Proc(1).Got) },
		}},
	})
}

func labels(tr explorer.Trace) []string {
	var out []string
	for _, s := range tr.Steps {
		out = append(out, s.Action)
	}
	return out
}

// TestPreferInOrder: among the shortest counterexamples, the explorer
// prefers one in which no message overtakes another. Process 1 sends 2
// then 1; the bag keeps them sorted, {1,2}, so receive(1) has the lower
// action index and the canonical shortest counterexample to "never both"
// received 1 first, overtaking 2, which the bug does not need: the
// mutant without the preference (today's main before it) shows
// burst(2), receive(1), receive(2). The in-order one receives 2 first. When
// the violation needs the overtake ("never 1 before 2"), the trace keeps
// it. Same with 1 and 2 workers.
func TestPreferInOrder(t *testing.T) {
	both := func(got []int) bool { return len(got) < 2 }
	oneFirst := func(got []int) bool { return !slices.Equal(got, []int{1, 2}) }
	tests := []struct {
		name string
		inv  func([]int) bool
		want []string
	}{
		{"not needed", both, []string{"burst(2)_{1,2}", "receive(2)_{1,2}", "receive(1)_{1,2}"}},
		{"needed", oneFirst, []string{"burst(2)_{1,2}", "receive(1)_{1,2}", "receive(2)_{1,2}"}},
	}
	for _, tc := range tests {
		for _, workers := range []int{1, 2} {
			r, err := explorer.Check(gotBoth(t, tc.inv, 2, 1), explorer.Config{Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != explorer.Violated || len(r.Violations) != 1 {
				t.Fatalf("%s, %d workers: %v, %d violations; want one", tc.name, workers, r.Status, len(r.Violations))
			}
			if got := labels(r.Violations[0].Trace); !slices.Equal(got, tc.want) {
				t.Errorf("%s, %d workers: trace %q; want %q", tc.name, workers, got, tc.want)
			}
			// The figures are those of the search, not of the in-order one.
			if r.States != 6 {
				t.Errorf("%s, %d workers: %d states; want 6 (s0, burst, two after one receive, two after both: the search stores a level before checking it)", tc.name, workers, r.States)
			}
		}
	}
}

// TestInOrder: the in-order model of an unordered System has FIFO
// channels; a FIFO System has none to give.
func TestInOrder(t *testing.T) {
	m := gotBoth(t, func([]int) bool { return true }, 2, 1)
	ord, ok := m.(explorer.InOrderer).InOrder()
	if !ok {
		t.Fatal("an unordered System gives no in-order model")
	}
	r, err := explorer.Check(ord, explorer.Config{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	// s0 -burst-> [2 1];[] -r2-> [1];[2] -r1-> [];[2 1]: 4 states, 3 transitions.
	if r.States != 4 || r.Transitions != 3 {
		t.Errorf("in-order model: %d states, %d transitions; want 4, 3", r.States, r.Transitions)
	}
	if _, ok := burstSystem(t, channel.FIFO, 1, 2).(explorer.InOrderer).InOrder(); ok {
		t.Error("a FIFO System gives an in-order model")
	}
}
