package specs

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// modelStates returns the encoding of every state reachable in m, walking
// its successor function.
func modelStates(t *testing.T, m explorer.Model) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	walk := modelRef(t, m)
	walk.messages = false
	walk.visit = func(s []byte, _ int, _ [][]byte) { seen[string(s)] = true }
	refWalk(t, walk)
	return seen
}

// TestWaitingSubsetOfExtinction checks the section's argument for
// inheriting the safety properties of 1.11: waiting only strengthens
// start_i's precondition, so every reachable state is a reachable state of
// echo-election (the two process types have the same fields, hence the
// same encoding), and there are strictly fewer.
func TestWaitingSubsetOfExtinction(t *testing.T) {
	t.Parallel()
	for _, flags := range []map[string]string{
		{"n": "3", "topology": "line", "initiators": "subsets", "ids": "all"},
		{"n": "4", "topology": "star", "initiators": "subsets", "ids": "all"},
		{"n": "4", "initiators": "subsets"},
	} {
		wait := modelStates(t, buildSpec(t, waiting(), flags))
		echo := modelStates(t, buildSpec(t, echoElection(), flags))
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
	t.Parallel()
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
			if tt.large {
				skipUnlessLong(t) // about 240,000 states per spec
			}
			flags := map[string]string{"n": fmt.Sprint(tt.n), "topology": tt.topology, "initiators": "subsets", "ids": "all"}
			lo, hi := messageRange(t, buildSpec(t, waiting(), flags))
			elo, ehi := messageRange(t, buildSpec(t, echoElection(), flags))
			if lo != 2*tt.edges || hi != tt.hi || elo != lo || ehi != hi {
				t.Errorf("waiting %d…%d, extinction %d…%d; want both %d…%d", lo, hi, elo, ehi, 2*tt.edges, tt.hi)
			}
		})
	}
	// A single designated initiator: exactly 2E, as in 1.11.
	for _, topo := range []string{"ring", "complete", "star", "grid"} {
		m := buildSpec(t, waiting(), map[string]string{"n": "4", "topology": topo, "initiators": "2"})
		if lo, hi := messageRange(t, m); lo != hi || (topo == "ring" && lo != 8) || (topo == "complete" && lo != 12) {
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
	t.Parallel()
	v := counterexample(t, "waiting-broken", nil, nil, properties.DeadlockFreedom)
	if actions := explorer.Actions(v.Trace.Steps); len(actions) != 9 || actions[0] != "start_{4}" {
		t.Errorf("counterexample %v, want 9 steps starting with start_{4}", actions)
	}
}

func TestWaitingProvisionalAndUsage(t *testing.T) {
	t.Parallel()
	for _, s := range withTwin(waiting()) {
		if !strings.Contains(s.Provisional, "reconstruction") {
			t.Errorf("%s: Provisional %q does not say why", s.Name, s.Provisional)
		}
	}
	for _, flags := range []map[string]string{
		{"topology": "hypercube"}, {"initiators": "0"}, {"ids": "1,2"}, {"channels": "lossy"},
	} {
		s := waiting()
		err := buildErr(s, flags)
		if !errors.Is(err, ErrUsage) {
			t.Errorf("%v: %v, want an ErrUsage error", flags, err)
		}
	}
}
