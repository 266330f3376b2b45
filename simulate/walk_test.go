package simulate_test

import (
	"bytes"
	"testing"

	"github.com/vacheck/vacheck/simulate"
)

// TestWalkIsARunOfSimulate: Walk(k) is run k of Simulate with the same
// seed. Over the 40 runs of chang-roberts-broken --n 4 --ids all (initial
// states drawn by the sampler, a permutation of the IDs), the runs Walk
// does end as Simulate counts them, and run Violation.Run ends in a
// violation after Violation.Found steps, from Violation.Initial, which
// InitialOf draws too.
func TestWalkIsARunOfSimulate(t *testing.T) {
	m := build(t, "chang-roberts-broken", map[string]string{"n": "4", "ids": "all"})
	cfg := simulate.Config{Runs: 40, Seed: 7, Workers: 2}
	res, err := simulate.Simulate(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var ends simulate.Ends
	for k := 0; k < cfg.Runs; k++ {
		run, err := simulate.Walk(m, simulate.Config{Seed: cfg.Seed}, k)
		if err != nil {
			t.Fatal(err)
		}
		switch run.End {
		case "violation":
			ends.Violation++
		case "terminal":
			ends.ValidEnd++ // with the deadlocks: compared as a sum
		case "steps":
			ends.StepCap++
		default:
			t.Fatalf("run %d ended %q", k, run.End)
		}
		init, err := simulate.InitialOf(m, cfg.Seed, k)
		if err != nil || !bytes.Equal(init, run.Initial) {
			t.Errorf("run %d: InitialOf %x (%v), Walk started from %x", k, init, err, run.Initial)
		}
		for _, v := range res.Violations {
			if v.Run == k && (run.End != "violation" || len(run.Actions) != v.Found || !bytes.Equal(run.Initial, v.Initial)) {
				t.Errorf("run %d: Walk ended %s after %d steps, Simulate found %s after %d", k, run.End, len(run.Actions), v.Property, v.Found)
			}
		}
	}
	want := res.Ends
	want.ValidEnd += want.Deadlock
	want.Deadlock = 0
	if ends != want || res.Ends.Violation == 0 {
		t.Errorf("Walk's runs ended %+v, Simulate's %+v", ends, res.Ends)
	}
}
