package simulate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/simulate"
	"github.com/zeebo/xxh3"
)

// digest writes down everything of a result that must not depend on how
// fast the simulation is done: the ends, the steps, the sketch's estimate
// (a function of every state visited), the statistics with their
// histograms, the verdicts, the counterexamples step by step and the
// coverage. Elapsed and Workers are left out.
func digest(res *simulate.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "status %v %q limit %v runs %d/%d ends %+v steps %d distinct %.17g\n",
		res.Status, res.Reason, res.Limit, res.Runs, res.Asked, res.Ends, res.Steps, res.Distinct)
	for _, m := range res.Metrics {
		fmt.Fprintf(&b, "metric %+v\n", m)
	}
	for _, p := range res.Properties {
		fmt.Fprintf(&b, "property %s checked %v runs %d\n", p.Name, p.Checked, p.Runs)
	}
	for _, v := range res.Violations {
		fmt.Fprintf(&b, "violation %s run %d found %d initial %x: %s\n", v.Property, v.Run, v.Found, v.Initial, strings.Join(explorer.Actions(v.Trace.Steps), " "))
	}
	if res.Failure != nil {
		fmt.Fprintf(&b, "failure run %d: %s (%v)\n", res.Failure.Run, strings.Join(explorer.Actions(res.Failure.Trace.Steps), " "), res.FailureErr)
	}
	if res.Coverage != nil {
		fmt.Fprintf(&b, "coverage %+v\n", *res.Coverage)
	}
	return b.String()
}

// TestOutputPinned pins the results of simulations of catalog specs, as
// they were before the simulation was made faster (stop 38: the figures
// are those of main at fad9afc), for 1 and 2 workers: a faster
// simulation must take the same runs, visit the same states and find the
// same counterexamples. The first case is the one the speed-up was made
// for, at N=16: `vacheck simulate chang-roberts --n 16 --ids all --runs
// 200 --seed 1 --metric messages` printed 21,434 steps, ~21,500 distinct
// states, mean 53.59, stddev 6.88, min 42, p50 52, p90 62, p99 74, max 86.
// The others cover what the worker's faster path must also do right:
// crashes (effects not remembered), unordered channels, a violation
// shrunk, counts by message type, coverage, and a model whose steps read
// other processes (timeouts).
func TestOutputPinned(t *testing.T) {
	cases := []struct {
		spec  string
		flags map[string]string
		cfg   simulate.Config
		want  uint64 // xxh3 of digest
	}{
		{"chang-roberts", map[string]string{"n": "16", "ids": "all"}, simulate.Config{Runs: 200, Seed: 1, Metrics: []string{"messages"}}, 0xcc2ea7a4c8ca4444},
		{"chang-roberts", map[string]string{"n": "6", "channels": "unordered"}, simulate.Config{Runs: 100, Seed: 2, Metrics: []string{"messages", "steps"}}, 0x5fab7d73446cc05f},
		{"chang-roberts-broken", map[string]string{"n": "5"}, simulate.Config{Runs: 50, Seed: 3}, 0x56af2fd8d778263},
		{"chang-roberts-announce", map[string]string{"n": "4", "crashes": "1"}, simulate.Config{Runs: 100, Seed: 4, Metrics: []string{"messages"}}, 0x57cb9e9b3d0dd7f8},
		{"ricart-agrawala", map[string]string{"n": "3"}, simulate.Config{Runs: 50, Seed: 5, Coverage: true, Metrics: []string{"messages:REQUEST", "time"}}, 0x1aed5553c324dab1},
		{"token-ring-recovery", map[string]string{"n": "3"}, simulate.Config{Runs: 100, Seed: 6, MaxSteps: 200, Metrics: []string{"steps"}}, 0xabb5f4213f0d2e88},
		{"peterson", map[string]string{"n": "8"}, simulate.Config{Runs: 50, Seed: 7, Metrics: []string{"messages"}}, 0x5526fae03bae71ad},
		{"maekawa-basic", map[string]string{}, simulate.Config{Runs: 50, Seed: 8, MaxSteps: 300}, 0xe16446085cbd38e1},
	}
	for _, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			m := build(t, c.spec, c.flags)
			var first string
			for _, w := range []int{1, 2} {
				cfg := c.cfg
				cfg.Workers = w
				res, err := simulate.Simulate(m, cfg)
				if err != nil {
					t.Fatal(err)
				}
				d := digest(res)
				if first == "" {
					first = d
					if got := xxh3.HashString(d); got != c.want {
						t.Errorf("%v %+v: digest %#x, want %#x; the result:\n%s", c.flags, c.cfg, got, c.want, d)
					}
				} else if d != first {
					t.Errorf("workers %d:\n%s\nworkers 1:\n%s", w, d, first)
				}
			}
		})
	}
}
