package specs

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// waitCheck checks m with the claims of waiting under cfg.
func waitCheck(t *testing.T, m explorer.Model, cfg explorer.Config) *explorer.Result {
	t.Helper()
	cfg.Properties = waiting(false).Claims
	r, err := explorer.Check(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// waitReachable returns every state reachable in m, by walking its
// successor function.
func waitReachable(t *testing.T, m explorer.Model) map[string]bool {
	t.Helper()
	w := m.NewWorker()
	seen := map[string]bool{}
	stack, err := m.Initial()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stack {
		seen[string(s)] = true
	}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if _, err := explorer.Successors(w, s, func(_ explorer.Transition, next []byte) {
			if !seen[string(next)] {
				seen[string(next)] = true
				stack = append(stack, slices.Clone(next))
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	return seen
}

// TestWaitingCounts pins the state space of the provisional waiting spec
// (docs/algorithms/waiting.md, the section's reconstruction) and checks the
// claims of 1.11, with BFS on 1 and 2 workers and DFS. The section asks not to
// pin tests on it before the rules are checked against the source: these pin
// the reconstruction, so that a change to it is noticed.
//
// N=2 by hand (one edge, IDs 1 and 2, both designated): process 1 waits
// while 2 is asleep, so the run begins with start_2 (state B1). Then either
// process 1 is woken by EXP(2), joins and echoes (B2) and 2 wins (B3), or 1
// starts after all (C), and as in echo-election p2 swallows EXP(1) and p1
// joins wave 2 and echoes in either order (Ca, Cb), then D, then 2 wins
// (E): 9 states, 9 transitions, terminal B3 and E.
//
// The larger figures are regression values, cross-checked by
// TestWaitingSubsetOfExtinction: every state is one of echo-election's.
func TestWaitingCounts(t *testing.T) {
	for _, tt := range []struct {
		flags                         map[string]string
		states, transitions, terminal int64
	}{
		{map[string]string{"n": "2"}, 9, 9, 2},
		{map[string]string{"n": "4", "initiators": "subsets"}, 5815, 17216, 60},
		{map[string]string{"n": "3", "topology": "line", "initiators": "subsets", "ids": "all"}, 668, 1098, 42},
		{map[string]string{"n": "4", "topology": "star", "initiators": "subsets", "ids": "all"}, 35286, 93978, 360},
		{map[string]string{"n": "5", "initiators": "subsets"}, 53586, 198681, 155},
	} {
		t.Run(fmt.Sprint(tt.flags), func(t *testing.T) {
			m := buildSpec(t, waiting(false), tt.flags)
			for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}, {Strategy: explorer.DFS}} {
				r := waitCheck(t, m, cfg)
				if r.Status != explorer.OK {
					t.Fatalf("%v/%d: status %v (%s) %+v", cfg.Strategy, cfg.Workers, r.Status, r.Reason, r.Violations)
				}
				if r.States != tt.states || r.Transitions != tt.transitions || r.Terminal != tt.terminal {
					t.Errorf("%v/%d: %d states, %d transitions, %d terminal; want %d, %d, %d",
						cfg.Strategy, cfg.Workers, r.States, r.Transitions, r.Terminal, tt.states, tt.transitions, tt.terminal)
				}
			}
		})
	}
}

// TestWaitingSubsetOfExtinction checks the section's argument for
// inheriting the safety properties of 1.11: waiting only strengthens
// start_i's precondition, so every reachable state is a reachable state of
// echo-election (the two process types have the same fields, hence the
// same encoding), and there are strictly fewer.
func TestWaitingSubsetOfExtinction(t *testing.T) {
	for _, flags := range []map[string]string{
		{"n": "3", "topology": "line", "initiators": "subsets", "ids": "all"},
		{"n": "4", "topology": "star", "initiators": "subsets", "ids": "all"},
		{"n": "4", "initiators": "subsets"},
	} {
		wait := waitReachable(t, buildSpec(t, waiting(false), flags))
		echo := waitReachable(t, buildSpec(t, echoElection(false), flags))
		missing := 0
		for s := range wait {
			if !echo[s] {
				missing++
			}
		}
		if missing != 0 || len(wait) >= len(echo) {
			t.Errorf("%v: %d waiting states, %d echo-election states, %d waiting states not in echo-election", flags, len(wait), len(echo), missing)
		}
	}
}

// TestWaitingVersusExtinction compares the messages of waiting and
// extinction (1.11) on the reference graphs of 1.11, all ID arrangements,
// and all non-empty initiator sets, FIFO. The section expects the maximum
// to come closer to 2E; with the reconstruction it does not: the maximum
// is exactly extinction's on every graph. Waiting only orders the starts:
// once the strongest initiator has started, a weaker one that is still
// asleep may start at once, and its wave may run ahead of the stronger
// one as far as in extinction's worst case (no bound on message delays).
// Only the single-initiator figure 2E is unchanged, as the minimum.
//
//	graph                  E  waiting  extinction
//	path of 3              2  4…8      4…8
//	triangle               3  6…11     6…11
//	4-cycle                4  8…17     8…17
//	star with 3 leaves     3  6…16     6…16
//	triangle with pendant  4  8…21     8…21
func TestWaitingVersusExtinction(t *testing.T) {
	pendant := echoWriteGraph(t, "triangle-pendant.txt", "# triangle with one pendant node\n1 2\n2 3\n3 1\n3 4\n")
	for _, tt := range []struct {
		name, topology string
		n, edges, hi   int
		large          bool
	}{
		{"path3", "line", 3, 2, 8, false},
		{"triangle", "ring", 3, 3, 11, false},
		{"cycle4", "ring", 4, 4, 17, false},
		{"star3", "star", 4, 3, 16, false},
		{"pendant", pendant, 4, 4, 21, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.large && testing.Short() {
				t.Skip("about 240,000 states per spec; run without -short")
			}
			flags := map[string]string{"n": fmt.Sprint(tt.n), "topology": tt.topology, "initiators": "subsets", "ids": "all"}
			lo, hi := echoMessageRange(t, buildSpec(t, waiting(false), flags))
			elo, ehi := echoMessageRange(t, buildSpec(t, echoElection(false), flags))
			if lo != 2*tt.edges || hi != tt.hi || elo != lo || ehi != hi {
				t.Errorf("waiting %d…%d, extinction %d…%d; want both %d…%d", lo, hi, elo, ehi, 2*tt.edges, tt.hi)
			}
		})
	}
	// A single designated initiator: exactly 2E, as in 1.11.
	for _, topo := range []string{"ring", "complete", "star", "grid"} {
		m := buildSpec(t, waiting(false), map[string]string{"n": "4", "topology": topo, "initiators": "2"})
		if lo, hi := echoMessageRange(t, m); lo != hi || (topo == "ring" && lo != 8) || (topo == "complete" && lo != 12) {
			t.Errorf("%s, initiator 2: messages %d…%d, want exactly 2E", topo, lo, hi)
		}
	}
}

// TestWaitingBroken checks waiting-broken: with the bug of
// echo-election-broken (a conquered initiator keeps its virtual edge) the
// waiting discipline still lets a weaker initiator start after the
// strongest, and the run deadlocks. The shortest counterexample on a ring
// of 4 with every process an initiator starts with process 4.
func TestWaitingBroken(t *testing.T) {
	m := buildSpec(t, waiting(true), map[string]string{})
	var first []string
	for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}} {
		r := waitCheck(t, m, cfg)
		if r.Status != explorer.Violated || len(r.Violations) != 1 || r.Violations[0].Property != properties.DeadlockFreedom {
			t.Fatalf("workers %d: %v %+v, want deadlock-freedom violated", cfg.Workers, r.Status, r.Violations)
		}
		var actions []string
		for _, st := range r.Violations[0].Trace.Steps {
			actions = append(actions, st.Action)
		}
		if len(actions) != 9 || actions[0] != "start_{4}" {
			t.Errorf("workers %d: counterexample %v, want 9 steps starting with start_{4}", cfg.Workers, actions)
		}
		if first != nil && !slices.Equal(first, actions) {
			t.Errorf("workers %d: counterexample differs from %v", cfg.Workers, first)
		}
		first = actions
	}
}

func TestWaitingProvisionalAndUsage(t *testing.T) {
	for _, s := range waitingSpecs() {
		if !strings.Contains(s.Provisional, "reconstruction") {
			t.Errorf("%s: Provisional %q does not say why", s.Name, s.Provisional)
		}
	}
	for _, flags := range []map[string]string{
		{"topology": "hypercube"}, {"initiators": "0"}, {"ids": "1,2"}, {"channels": "lossy"},
	} {
		s := waiting(false)
		p, err := NewParams(s, flags)
		if err == nil {
			_, err = s.Build(p)
		}
		if !errors.Is(err, ErrUsage) {
			t.Errorf("%v: %v, want an ErrUsage error", flags, err)
		}
	}
}
