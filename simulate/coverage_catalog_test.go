package simulate_test

import (
	"reflect"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/simulate"
)

// TestCoverage: with Coverage, a simulation counts each step it takes
// once (the counts sum to Result.Steps), the same counts whatever the
// number of workers, and on ricart-agrawala at N=3 (one request per
// process, every run complete) three requests, entries and exits per run
// and one REPLY per REQUEST.
func TestCoverage(t *testing.T) {
	m := build(t, "ricart-agrawala", map[string]string{"n": "3"})
	var first *explorer.Coverage
	for _, workers := range []int{1, 2, 5} {
		res := run(t, m, simulate.Config{Runs: 200, Seed: 5, Workers: workers, Coverage: true})
		c := res.Coverage
		if c == nil {
			t.Fatal("no coverage")
		}
		if c.Transitions != res.Steps {
			t.Errorf("%d workers: %d transitions counted, %d steps taken", workers, c.Transitions, res.Steps)
		}
		if first == nil {
			first = c
			if res.Ends.ValidEnd != 200 {
				t.Fatalf("runs ended %+v; want 200 at a valid end", res.Ends)
			}
			fired := map[string]int64{}
			for _, s := range c.Steps {
				fired[s.Name] = s.Fired
			}
			if fired["request"] != 600 || fired["enter"] != 600 || fired["exit"] != 600 {
				t.Errorf("steps %v; want 600 requests, entries and exits (3 per run)", fired)
			}
			for _, msg := range c.Messages {
				if msg.Sent != 1200 || msg.Received != 1200 {
					t.Errorf("%s: %d sent, %d received; want 1,200 (2 per request)", msg.Type, msg.Sent, msg.Received)
				}
			}
			if len(c.UnfiredSteps)+len(c.UnfiredMessages) != 0 {
				t.Errorf("never fired: %v %v", c.UnfiredSteps, c.UnfiredMessages)
			}
			continue
		}
		if !reflect.DeepEqual(c, first) {
			t.Errorf("%d workers counted\n%+v\n1 worker\n%+v", workers, c, first)
		}
	}
	// Without coverage, none is reported.
	if res := run(t, m, simulate.Config{Runs: 10, Seed: 5}); res.Coverage != nil {
		t.Error("coverage reported without Config.Coverage")
	}
}

// run simulates m with cfg.
func run(t *testing.T, m explorer.Model, cfg simulate.Config) *simulate.Result {
	t.Helper()
	res, err := simulate.Simulate(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
