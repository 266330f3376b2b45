package simulate_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// pickExpander is the method of automaton's workers that Simulate uses.
type pickExpander interface {
	ExpandPick(s []byte, x *explorer.Expansion) (explorer.Expanded, error)
}

// TestExpandPickIsExpand walks random runs of catalog models with one
// worker's ExpandPick, which updates its view from the segments the step
// it picked changed, and compares every state with a second worker's
// plain Expand: the same violations, the same transitions offered in the
// same order, and the successor and transition picked equal to those
// Expand emits for that action. Every few steps the run jumps to another
// successor than the one picked, or the worker checks another state, so
// that ExpandPick must notice that its view does not hold the predecessor.
func TestExpandPickIsExpand(t *testing.T) {
	cases := []struct {
		spec  string
		flags map[string]string
	}{
		{"chang-roberts", map[string]string{"n": "8", "ids": "all"}},
		{"chang-roberts", map[string]string{"n": "5", "channels": "unordered"}},
		{"chang-roberts-broken", map[string]string{"n": "5"}},
		{"chang-roberts-announce", map[string]string{"n": "4", "crashes": "1"}},
		{"ricart-agrawala", map[string]string{"n": "3"}},
		{"maekawa-basic", map[string]string{}},
		{"peterson", map[string]string{"n": "6"}},
		{"token-ring-recovery", map[string]string{"n": "3"}},
		{"bully", map[string]string{"n": "3", "crashes": "1"}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.spec, c.flags), func(t *testing.T) {
			m := build(t, c.spec, c.flags)
			wa, wb := m.NewWorker(), m.NewWorker()
			pa, ok := wa.(pickExpander)
			if !ok {
				t.Fatal("the worker has no ExpandPick")
			}
			all := uint64(1)<<uint(len(m.Properties())) - 1
			sampler := m.(explorer.InitialSampler)
			rng := rand.New(rand.NewPCG(1, 2))
			compared := 0
			for run := 0; run < 20; run++ {
				cur, err := sampler.SampleInitial(rng)
				if err != nil {
					t.Fatal(err)
				}
				for step := 0; step < 200; step++ {
					// The reference: every transition, with its successor.
					var ts []explorer.Transition
					var succs [][]byte
					rb, errb := wb.Expand(cur, &explorer.Expansion{Want: all, Stop: all, Emit: func(tr explorer.Transition, next []byte) {
						ts = append(ts, tr)
						succs = append(succs, append([]byte(nil), next...))
					}})
					pick := -1
					if len(ts) > 0 {
						pick = rng.IntN(len(ts))
					}
					var offered []explorer.Transition
					var gotT explorer.Transition
					var got []byte
					emits := 0
					ra, erra := pa.ExpandPick(append([]byte(nil), cur...), &explorer.Expansion{Want: all, Stop: all,
						Offer: func(tr explorer.Transition, _ uint64) bool {
							offered = append(offered, tr)
							return len(offered)-1 == pick
						},
						Emit: func(tr explorer.Transition, next []byte) {
							gotT, got = tr, append([]byte(nil), next...)
							emits++
						}})
					if (erra == nil) != (errb == nil) || (ra.CheckErr == nil) != (rb.CheckErr == nil) || ra.Violated != rb.Violated || ra.Enabled != rb.Enabled || ra.Expanded != rb.Expanded {
						t.Fatalf("run %d step %d: ExpandPick %+v (%v), Expand %+v (%v)", run, step, ra, erra, rb, errb)
					}
					if erra != nil || ra.CheckErr != nil || ra.Violated != 0 || pick < 0 {
						break
					}
					if len(offered) != len(ts) {
						t.Fatalf("run %d step %d: %d transitions offered, %d emitted by Expand", run, step, len(offered), len(ts))
					}
					for i, tr := range offered {
						if tr.Action != ts[i].Action || tr.Task != ts[i].Task || tr.Fault != ts[i].Fault {
							t.Fatalf("run %d step %d: offered %+v as transition %d, Expand emitted %+v", run, step, tr, i, ts[i])
						}
					}
					if emits != 1 || gotT != ts[pick] || !bytes.Equal(got, succs[pick]) {
						t.Fatalf("run %d step %d: picked %d: emitted %d times, %+v %x; Expand: %+v %x", run, step, pick, emits, gotT, got, ts[pick], succs[pick])
					}
					compared++
					cur = got
					switch step % 7 {
					case 3: // another successor than the one picked
						cur = succs[rng.IntN(len(succs))]
					case 5: // the worker looks at another state meanwhile
						if _, err := explorer.Successors(wa, succs[0], func(explorer.Transition, []byte) {}); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			if compared < 50 {
				t.Errorf("only %d steps compared", compared)
			}
			t.Logf("%d steps compared", compared)
		})
	}
}
