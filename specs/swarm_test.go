package specs

import (
	"testing"
	"time"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// TestSwarmFindsMaekawaDeadlock: a swarm finds the deadlock of basic
// Maekawa on the triangle, N=3 (docs/algorithms/maekawa.md: "the basic
// algorithm deadlocks in the smallest case"): every job finds one, none
// shorter than the 12 steps of the shortest, which breadth-first search
// finds among 6,179 states; and on the full algorithm (yield rule B) it
// finds none and is incomplete, never ok.
func TestSwarmFindsMaekawaDeadlock(t *testing.T) {
	t.Parallel()
	claims := []string{properties.MutualExclusion, properties.DeadlockFreedom}
	r, err := explorer.Swarm(build(t, "maekawa-basic", nil), explorer.SwarmConfig{Jobs: 4, Memory: 4 << 20, Workers: 2,
		Config: explorer.Config{Properties: claims}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Violated || len(r.Violations) != 1 || r.Violations[0].Property != properties.DeadlockFreedom || r.Violations[0].Found != 4 {
		t.Fatalf("%v %q: %+v", r.Status, r.Reason, r.Violations)
	}
	if n := len(r.Violations[0].Trace.Steps); n < 12 {
		t.Errorf("a deadlock after %d steps; the shortest has 12", n)
	}
	r, err = explorer.Swarm(build(t, "maekawa", nil), explorer.SwarmConfig{Jobs: 2, Memory: 4 << 20, Workers: 2,
		Config: explorer.Config{Properties: claims}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Incomplete || len(r.Violations) != 0 {
		t.Errorf("maekawa: %v %q, %d violations", r.Status, r.Reason, len(r.Violations))
	}
}

// TestSwarmFanoDeadlock is issue 30's target: basic Maekawa on the Fano
// plane (N=7, quorums {i, i+1, i+3} mod 7) deadlocks, and a breadth-first
// search cannot reach the deadlock (SPIN ran out of 13 GB; vacheck's BFS
// stores 3 million states by depth 10 and finds no terminal state there,
// and the shortest deadlock the swarm finds has 35 steps). A swarm of 8
// jobs, 2 at a time, with 64 MiB of bitstate
// tables must find it within a minute (measured: the first job to find it
// does in about 0.1 s, the whole swarm ends in 9 s).
func TestSwarmFanoDeadlock(t *testing.T) {
	t.Parallel()
	skipUnlessLong(t)
	r, err := explorer.Swarm(build(t, "maekawa-basic", map[string]string{"n": "7"}), explorer.SwarmConfig{
		Jobs: 8, Memory: 64 << 20, Workers: 2, Seed: 1, Timeout: time.Minute,
		Config: explorer.Config{Properties: []string{properties.MutualExclusion, properties.DeadlockFreedom}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Violated || r.Violations[0].Property != properties.DeadlockFreedom {
		t.Fatalf("%v %q", r.Status, r.Reason)
	}
	t.Logf("first deadlock after %v (job %d), %d of 8 jobs found one, swarm %v; shortest %d steps",
		r.FirstFound, r.FirstFoundJob, r.Violations[0].Found, r.Elapsed, len(r.Violations[0].Trace.Steps))
}
