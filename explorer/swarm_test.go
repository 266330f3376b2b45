package explorer_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/vacheck/vacheck/explorer"
)

// jobSummary is what must not depend on the number of workers: a job's
// seeds and everything its search found.
func jobSummary(j explorer.SwarmJob) string {
	r := j.Result
	return fmt.Sprint(j.Index, j.Seed, j.OrderSeed, j.HashSeed, r.Status, r.States, r.Transitions, r.Depth, r.Violations, r.Bitstate.BitsSet)
}

// TestSwarmFindsViolations: every job of a swarm on the torus with a bad
// state finds it along its own path; the swarm reports the shortest first,
// and each job's result depends on its seed only: not on the number of
// workers, and it is the result of a single search with the job's seeds.
func TestSwarmFindsViolations(t *testing.T) {
	var first *explorer.SwarmResult
	for _, w := range []int{1, 3} {
		r, err := explorer.Swarm(torus(true), explorer.SwarmConfig{Jobs: 5, Memory: 5 << 20, Workers: w, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != explorer.Violated || len(r.Violations) != 1 || r.Violations[0].Found != 5 || r.FirstFoundJob == 0 {
			t.Fatalf("%d workers: %v %q, %d violations", w, r.Status, r.Reason, len(r.Violations))
		}
		shortest := math.MaxInt
		lengths := map[int]bool{}
		for _, j := range r.Jobs {
			if !j.Started || j.Bytes != 1<<20 || len(j.Result.Violations) != 1 {
				t.Fatalf("job %d: started %v, %d bytes, %+v", j.Index, j.Started, j.Bytes, j.Result)
			}
			n := len(j.Result.Violations[0].Trace.Steps)
			shortest = min(shortest, n)
			lengths[n] = true
		}
		if got := len(r.Violations[0].Trace.Steps); got != shortest || len(lengths) < 3 {
			t.Errorf("%d workers: the swarm reports %d steps; the jobs found %v", w, got, lengths)
		}
		if first == nil {
			first = r
			continue
		}
		for k, j := range r.Jobs {
			if jobSummary(j) != jobSummary(first.Jobs[k]) {
				t.Errorf("job %d differs with %d workers:\n%s\n%s", j.Index, w, jobSummary(j), jobSummary(first.Jobs[k]))
			}
		}
		if fmt.Sprint(r.Violations) != fmt.Sprint(first.Violations) || r.States != first.States {
			t.Errorf("%d workers: the swarm's result differs", w)
		}
	}
	j := first.Jobs[2]
	alone := check(t, torus(true), explorer.Config{Bitstate: j.Bytes, BitstateSeed: j.HashSeed, OrderSeed: j.OrderSeed})
	if fmt.Sprint(alone.Violations, alone.States) != fmt.Sprint(j.Result.Violations, j.Result.States) {
		t.Errorf("job 3 alone: %d states, %v; in the swarm %d, %v", alone.States, alone.Violations, j.Result.States, j.Result.Violations)
	}
}

// TestSwarmWithoutViolation: a swarm that finds nothing is incomplete, and
// the union of its jobs is the model's 27,000 states, estimated within 3%,
// which each job stored.
func TestSwarmWithoutViolation(t *testing.T) {
	r, err := explorer.Swarm(torus(false), explorer.SwarmConfig{Jobs: 3, Memory: 12 << 20, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Incomplete || !strings.Contains(r.Reason, "may omit states") || r.Stored != 3*27000 {
		t.Errorf("%v %q, %d stored", r.Status, r.Reason, r.Stored)
	}
	if math.Abs(r.States-27000) > 810 {
		t.Errorf("union estimated at %.0f states, want 27,000", r.States)
	}
	for _, p := range r.Properties {
		if p.Verdict != explorer.Unknown {
			t.Errorf("%s: %v", p.Name, p.Verdict)
		}
	}
}

// TestSwarmTime: the swarm's time limit stops the jobs running, and those
// not started are not run; it is incomplete and says so.
func TestSwarmTime(t *testing.T) {
	start := time.Now()
	r, err := explorer.Swarm(chain(3), explorer.SwarmConfig{Jobs: 4, Memory: 4 << 20, Workers: 1, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a swarm of 200 ms took %v", d)
	}
	if r.Status != explorer.Incomplete || !r.TimedOut || !strings.Contains(r.Reason, "--time 200ms") || r.Jobs[3].Started {
		t.Errorf("%v timed out %v %q; job 4 started %v", r.Status, r.TimedOut, r.Reason, r.Jobs[3].Started)
	}
	if !r.Jobs[0].Started || r.Jobs[0].Result.Limit != explorer.Interrupted {
		t.Errorf("job 1: %+v", r.Jobs[0])
	}
}

// TestSwarmRefusals: a bad swarm configuration is refused before any job
// runs, naming the field.
func TestSwarmRefusals(t *testing.T) {
	for _, c := range []struct {
		cfg   explorer.SwarmConfig
		field string
	}{
		{explorer.SwarmConfig{Jobs: -1}, "Jobs"},
		{explorer.SwarmConfig{Jobs: 4, Memory: 16}, "Memory"},
		{explorer.SwarmConfig{Config: explorer.Config{Strategy: explorer.BFS}}, "Strategy"},
		{explorer.SwarmConfig{Config: explorer.Config{Workers: 2}}, ""},
		{explorer.SwarmConfig{Config: explorer.Config{Metrics: []string{"steps"}}}, "Bitstate"},
		{explorer.SwarmConfig{Memory: 1 << 30, Workers: 2, Config: explorer.Config{MaxMemory: 1 << 28}}, "Memory"},
	} {
		_, err := explorer.Swarm(torus(false), c.cfg)
		var ce *explorer.ConfigError
		if !errors.As(err, &ce) || ce.Field != c.field {
			t.Errorf("%+v: %v, want a ConfigError on %q", c.cfg, err, c.field)
		}
	}
}

// TestSwarmShardsRunTheWholeSwarmsJobs: the parts of a swarm, run apart,
// run between them exactly the whole swarm's jobs, each with the same
// seeds, table and result.
func TestSwarmShardsRunTheWholeSwarmsJobs(t *testing.T) {
	cfg := explorer.SwarmConfig{Jobs: 5, Memory: 5 << 20, Workers: 2, Seed: 7}
	whole, err := explorer.Swarm(torus(true), cfg)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for k := range 2 {
		cfg.Shard = explorer.Shard{Index: k, Count: 2}
		part, err := explorer.Swarm(torus(true), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if len(part.Jobs) != 3-k {
			t.Fatalf("part %d: %d jobs, want %d", k, len(part.Jobs), 3-k)
		}
		for _, j := range part.Jobs {
			w := whole.Jobs[j.Index-1]
			if seen[j.Index] || (j.Index-1)%2 != k || j.Seed != w.Seed || j.Bytes != w.Bytes || j.Result.States != w.Result.States ||
				len(j.Result.Violations[0].Trace.Steps) != len(w.Result.Violations[0].Trace.Steps) {
				t.Errorf("part %d: job %d differs from the whole swarm's", k, j.Index)
			}
			seen[j.Index] = true
		}
	}
	if len(seen) != 5 {
		t.Errorf("the parts ran %d of the 5 jobs", len(seen))
	}
	cfg.Shard = explorer.Shard{Index: 5, Count: 6}
	if _, err := explorer.Swarm(torus(true), cfg); err == nil || !strings.Contains(err.Error(), "has none") {
		t.Errorf("part 5 of 6 of 5 jobs: %v, want refused", err)
	}
}
