package specs

import (
	"errors"
	"fmt"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// TestLeLannMessages: M·N + N messages in every run, M the actual
// initiators (each token goes once round the ring, plus N LEADER). One
// initiator: exactly 2N. All designated: 2N (one starts and wakes the
// rest) to N²+N (all start before any message arrives): 6…12, 8…20,
// 10…30 at N = 3, 4, 5 (the section's figures). LEADER: exactly N.
func TestLeLannMessages(t *testing.T) {
	t.Parallel()
	for n := 3; n <= 5; n++ {
		for _, inits := range []string{"one", "all"} {
			if n == 5 && inits == "all" && !*long {
				t.Log("N=5 with every initiator only with -long")
				continue
			}
			want := [][2]int{{2 * n, n*n + n}, {n, n}, {n, n * n}}
			if inits == "one" {
				want = [][2]int{{2 * n, 2 * n}, {n, n}, {n, n}}
			}
			m := build(t, "lelann", map[string]string{"n": fmt.Sprint(n), "initiators": inits})
			metrics := []string{"messages", "messages:LEADER", "messages:CAND"}
			r, err := explorer.Check(m, explorer.Config{Metrics: metrics, Properties: []string{}})
			if err != nil {
				t.Fatal(err)
			}
			for k, mm := range r.Metrics {
				if mm.Min != int64(want[k][0]) || mm.Max != int64(want[k][1]) || mm.Unbounded {
					t.Errorf("n=%d %s %s: %d..%d, want %v", n, inits, metrics[k], mm.Min, mm.Max, want[k])
				}
			}
		}
	}
}

// TestLeLannUnordered: FIFO is required. Under unordered channels p's token
// overtakes q's (q > p) on the link after q and returns to p first: VALID
// fails in 5 steps at N=3; q's token then reaches p in st leader, the
// assert false branch, in 6 steps (the section's figures). With the literal
// rules (a leader discards a late CAND) uniqueness still holds.
func TestLeLannUnordered(t *testing.T) {
	t.Parallel()
	m := build(t, "lelann", map[string]string{"n": "3", "channels": "unordered"})
	for _, tt := range []struct {
		prop  string
		steps int
	}{{properties.Validity, 5}, {llNoLateCand, 6}} {
		r, err := explorer.Check(m, explorer.Config{Properties: []string{tt.prop}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != explorer.Violated || r.Violations[0].Property != tt.prop || len(r.Violations[0].Trace.Steps) != tt.steps {
			t.Errorf("%s: %v %+v, want violated in %d steps", tt.prop, r.Status, r.Violations, tt.steps)
		}
	}
	r, err := explorer.Check(m, explorer.Config{Properties: []string{properties.Uniqueness}})
	if err != nil || r.Status != explorer.OK {
		t.Errorf("uniqueness under unordered channels: %v %v, want ok", r.Status, err)
	}
}

// TestLeLannBroken: without the wake-up rule, 1 starts, 2 relays CAND(1)
// and then starts, so CAND(1) runs ahead of CAND(2) and returns home with
// seen = {1}: 1 becomes leader although 2 is an actual initiator (VALID
// fails in 5 steps at N=3).
func TestLeLannBroken(t *testing.T) {
	t.Parallel()
	m := build(t, "lelann-broken", map[string]string{"n": "3"})
	r, err := explorer.Check(m, explorer.Config{Properties: lelann().Broken.Claims})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Violated || r.Violations[0].Property != properties.Validity || len(r.Violations[0].Trace.Steps) != 5 {
		t.Fatalf("%v %+v, want validity violated in 5 steps", r.Status, r.Violations)
	}
	if got := r.Violations[0].Trace.Steps[2].Action; got != "start_{2}" {
		t.Errorf("step 3 is %s, want start_{2} after relaying", got)
	}
}

func TestLeLannUsage(t *testing.T) {
	t.Parallel()
	for _, flags := range []map[string]string{
		{"initiators": "5"}, {"objective": "mid"}, {"ids": "1,1,2,3"}, {"channels": "lossy"}, {"n": "-1"},
	} {
		s, _ := Lookup("lelann")
		err := buildErr(s, flags)
		if !errors.Is(err, ErrUsage) {
			t.Errorf("%v: error %v, want ErrUsage", flags, err)
		}
	}
}
