package explorer_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/internal/offheap"
)

// star is 0 with n successors 1..n, all terminal: every state a bitstate
// search omits is a leaf, so that the omissions are all direct ones, and
// n+1 minus the states stored counts them exactly.
func star(n int) *graph {
	leaves := make([]int, n)
	for k := range leaves {
		leaves[k] = k + 1
	}
	return &graph{init: []int{0}, next: func(s int) []int {
		if s == 0 {
			return leaves
		}
		return nil
	}}
}

// TestBitstateSearchCountsEveryStateOfASmallModel: with a table large
// enough (hash factor in the thousands), a bitstate search of the torus
// (27,000 states, pinned by the exact search) stores every state, in any
// order of successors, and still reports incomplete: a bitstate search
// never proves a property.
func TestBitstateSearchCountsEveryStateOfASmallModel(t *testing.T) {
	exact := check(t, torus(false), explorer.Config{Strategy: explorer.DFS})
	if exact.Status != explorer.OK || exact.States != 27000 {
		t.Fatalf("exact search: %v, %d states", exact.Status, exact.States)
	}
	for _, seed := range []uint64{0, 1, 2} {
		before := offheap.Mapped()
		r := check(t, torus(false), explorer.Config{Bitstate: 4 << 20, OrderSeed: seed, BitstateSeed: seed})
		if offheap.Mapped() != before {
			t.Errorf("the bitstate table was not given back: %d bytes mapped before, %d after", before, offheap.Mapped())
		}
		if r.States != exact.States || r.Transitions != exact.Transitions || r.Terminal != exact.Terminal {
			t.Errorf("order seed %d: %d states, %d transitions, %d terminal; exact %d, %d, %d", seed, r.States, r.Transitions, r.Terminal, exact.States, exact.Transitions, exact.Terminal)
		}
		if r.Status != explorer.Incomplete || r.Limit != explorer.BitstateLimit || r.Exhaustive || !strings.Contains(r.Reason, "bitstate") {
			t.Errorf("order seed %d: %v (limit %v, exhaustive %v) %q, want incomplete by the bitstate table", seed, r.Status, r.Limit, r.Exhaustive, r.Reason)
		}
		for _, p := range r.Properties {
			if p.Verdict == explorer.Holds {
				t.Errorf("order seed %d: %s holds after a bitstate search", seed, p.Name)
			}
		}
		bs := r.Bitstate
		if bs == nil || bs.States != 27000 || bs.Bytes != 4<<20 || bs.Hashes != explorer.DefaultBitstateHashes ||
			bs.HashFactor < 1000 || bs.ExpectedOmitted > 1e-3 || bs.Fill > 0.003 {
			t.Errorf("order seed %d: table figures %+v", seed, bs)
		}
	}
}

// TestBitstateOmissionsInASearch: end to end, a search of the star with a
// table too small omits thousands of leaves, and its estimate agrees with
// the omissions measured within 4 standard deviations.
func TestBitstateOmissionsInASearch(t *testing.T) {
	const n = 60_000
	r := check(t, star(n), explorer.Config{Bitstate: 16 << 10, BitstateHashes: 2})
	omitted := n + 1 - r.States
	est := r.Bitstate.ExpectedOmitted
	if omitted < 1000 || math.Abs(float64(omitted)-est) > 4*math.Sqrt(est)+5 {
		t.Errorf("%d leaves omitted, %.1f expected (table %.0f%% full)", omitted, est, 100*r.Bitstate.Fill)
	}
	if r.Status != explorer.Incomplete || r.Bitstate.OmissionProbability < 0.999 {
		t.Errorf("%v, omission probability %v", r.Status, r.Bitstate.OmissionProbability)
	}
}

// TestBitstateFindsViolations: a bitstate search reports the violations it
// finds with real traces, as the exact depth-first search does.
func TestBitstateFindsViolations(t *testing.T) {
	r := check(t, torus(true), explorer.Config{Bitstate: 1 << 20})
	if r.Status != explorer.Violated || len(r.Violations) != 1 || r.Violations[0].Property != "good" || r.Limit != explorer.NoLimit {
		t.Fatalf("%v %q %+v", r.Status, r.Reason, r.Violations)
	}
	// The trace replays from an initial state to the bad state.
	steps := r.Violations[0].Trace.Steps
	if last := steps[len(steps)-1].State[0].Value; last != 20+25*30+17*900 {
		t.Errorf("the trace ends in %v", last)
	}
	// With Continue, a search that runs to its end is still not a proof
	// for the properties it did not violate.
	r = check(t, torus(true), explorer.Config{Bitstate: 1 << 20, Continue: true})
	if r.Status != explorer.Violated || r.Limit != explorer.BitstateLimit {
		t.Errorf("with Continue: %v, limit %v", r.Status, r.Limit)
	}
	for _, p := range r.Properties {
		if p.Name == "deadlock-freedom" && p.Verdict != explorer.ViolatedVerdict && p.Verdict != explorer.Unknown {
			t.Errorf("deadlock-freedom: %v", p.Verdict)
		}
	}
}

// TestOrderSeed: an order seed changes the order of the search, not what
// it finds in the end; the same seed gives the same search.
func TestOrderSeed(t *testing.T) {
	paths := map[string]bool{}
	for _, seed := range []uint64{0, 1, 2, 3, 1} {
		r := check(t, torus(true), explorer.Config{Strategy: explorer.DFS, OrderSeed: seed})
		if r.Status != explorer.Violated {
			t.Fatalf("seed %d: %v", seed, r.Status)
		}
		paths[fmt.Sprint(explorer.Actions(r.Violations[0].Trace.Steps), r.States)] = true
		again := check(t, torus(true), explorer.Config{Strategy: explorer.DFS, OrderSeed: seed})
		if fmt.Sprint(again.Violations) != fmt.Sprint(r.Violations) || again.States != r.States {
			t.Errorf("seed %d: two searches differ", seed)
		}
	}
	if len(paths) != 4 {
		t.Errorf("4 seeds gave %d different searches", len(paths))
	}
}

// TestBitstateRefusals: what a bitstate search cannot do is refused as a
// configuration error naming the field.
func TestBitstateRefusals(t *testing.T) {
	for _, c := range []struct {
		cfg   explorer.Config
		field string
	}{
		{explorer.Config{Strategy: explorer.BFS, Bitstate: 1 << 20}, "Bitstate"},
		{explorer.Config{Bitstate: 4}, "Bitstate"},
		{explorer.Config{Bitstate: 1 << 41}, "Bitstate"},
		{explorer.Config{Bitstate: 1 << 20, MaxMemory: 1 << 20}, "Bitstate"},
		{explorer.Config{BitstateHashes: 2}, "BitstateHashes"},
		{explorer.Config{Bitstate: 1 << 20, BitstateHashes: 33}, "BitstateHashes"},
		{explorer.Config{Bitstate: 1 << 20, Checkpoint: &explorer.Checkpoint{File: t.TempDir() + "/ck"}}, "Bitstate"},
		{explorer.Config{Bitstate: 1 << 20, Metrics: []string{"steps"}}, "Bitstate"},
	} {
		_, err := explorer.Check(torus(false), c.cfg)
		var ce *explorer.ConfigError
		if !errors.As(err, &ce) || ce.Field != c.field {
			t.Errorf("%+v: %v, want a ConfigError on %s", c.cfg, err, c.field)
		}
	}
}
