package specs

import (
	"errors"
	"fmt"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// TestChangRobertsBidirectional pins the state spaces over every ID
// arrangement and every direction vector (regression values, cross-checked
// by the terminal states: exactly one per initial state, N!·2^N, because
// every ID ends where it is discarded whatever the schedule, and by the
// message figures); BFS, BFS with 2 workers and DFS agree and every claim
// holds. Messages, min and max over all runs, equal chang-roberts's for
// the same N, as 1.4 says: 2N−1 and N(N+1)/2 (5, 6 at N=3; 7, 10 at N=4).
func TestChangRobertsBidirectional(t *testing.T) {
	counts := map[int][2]int64{3: {2694, 5550}, 4: {100240, 275984}}
	for n := 3; n <= 4; n++ {
		m := build(t, "chang-roberts-bidirectional", map[string]string{"n": fmt.Sprint(n)})
		cfgs := []explorer.Config{{Workers: 1, Metrics: []string{"messages"}}, {Workers: 2}, {Strategy: explorer.DFS}}
		if testing.Short() && n == 4 {
			cfgs = cfgs[:1]
		}
		for _, cfg := range cfgs {
			cfg.Properties = changRobertsBidirectional(false).Claims
			r, err := explorer.Check(m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != explorer.OK {
				t.Fatalf("n=%d: %v %+v", n, r.Status, r.Violations)
			}
			if got := [2]int64{r.States, r.Transitions}; got != counts[n] {
				t.Errorf("n=%d %v/%d: states and transitions %v, want %v", n, cfg.Strategy, cfg.Workers, got, counts[n])
			}
			if want := int64(len(permutations(n)) << n); r.Terminal != want {
				t.Errorf("n=%d: %d terminal states, want %d", n, r.Terminal, want)
			}
			if len(cfg.Metrics) == 0 {
				continue
			}
			rc, err := explorer.Check(build(t, "chang-roberts", map[string]string{"n": fmt.Sprint(n)}), explorer.Config{Metrics: []string{"messages"}, Properties: []string{}})
			if err != nil {
				t.Fatal(err)
			}
			bi, uni := r.Metrics[0], rc.Metrics[0]
			if bi.Min != int64(2*n-1) || bi.Max != int64(n*(n+1)/2) || bi.Min != uni.Min || bi.Max != uni.Max {
				t.Errorf("n=%d: messages %d..%d, chang-roberts %d..%d; want both %d..%d", n, bi.Min, bi.Max, uni.Min, uni.Max, 2*n-1, n*(n+1)/2)
			}
		}
	}
}

// TestChangRobertsBidirectionalSafety: FIFO is not needed for safety, and
// --objective min elects the minimum with the mirror-image state space.
func TestChangRobertsBidirectionalSafety(t *testing.T) {
	for _, f := range []map[string]string{{"n": "3", "channels": "unordered"}, {"n": "3", "objective": "min"}} {
		r, err := explorer.Check(build(t, "chang-roberts-bidirectional", f), explorer.Config{Properties: changRobertsBidirectional(false).Claims})
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
	r, err := explorer.Check(build(t, "chang-roberts-bidirectional-broken", map[string]string{"n": "3"}),
		explorer.Config{Properties: changRobertsBidirectional(true).Claims})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Violated || r.Violations[0].Property != properties.Uniqueness || len(r.Violations[0].Trace.Steps) != 6 {
		t.Fatalf("%v %+v, want uniqueness violated in 6 steps", r.Status, r.Violations)
	}
}

func TestChangRobertsBidirectionalUsage(t *testing.T) {
	for _, flags := range []map[string]string{{"n": "2"}, {"n": "x"}, {"objective": "any"}, {"ids": "1,2"}} {
		s, _ := Lookup("chang-roberts-bidirectional")
		p, err := NewParams(s, flags)
		if err == nil {
			_, err = s.Build(p)
		}
		if !errors.Is(err, ErrUsage) {
			t.Errorf("%v: error %v, want ErrUsage", flags, err)
		}
	}
}
