package specs

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

func TestChangRobertsAnnounceBroken(t *testing.T) {
	t.Parallel()
	m := build(t, "chang-roberts-announce-broken", map[string]string{"n": "3", "ids": "increasing"})
	r, err := explorer.Check(m, explorer.Config{Properties: []string{properties.Termination}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Violated || len(r.Violations[0].Trace.Steps) != 12 {
		t.Fatalf("%v %+v: want termination violated after 12 steps (p1 learns the leader and keeps it)", r.Status, r.Violations)
	}
	// Under unordered channels an ELECT can overtake the announcement.
	m = build(t, "chang-roberts-announce", map[string]string{"n": "3", "channels": "unordered"})
	r, _ = explorer.Check(m, explorer.Config{Properties: []string{"no-elect-after-done"}})
	if r.Status != explorer.Violated {
		t.Errorf("unordered channels: no-elect-after-done %v, want violated", r.Status)
	}
}

// TestChangRobertsAnnounceCrash: with one crash-stop fault
// (docs/algorithms/chang-roberts-announce.md and docs/properties.md)
// termination fails with a finite counterexample: the ring is broken, and
// messages to the crashed process are discarded, so the run stops in a terminal
// state where not every process knows the leader (at N=3 with increasing IDs: 1
// and 2 are discarded, then 3 crashes with its own ID still in its send
// buffer); safety still holds.
func TestChangRobertsAnnounceCrash(t *testing.T) {
	t.Parallel()
	m := build(t, "chang-roberts-announce", map[string]string{"n": "3", "ids": "increasing", "crashes": "1"})
	r, err := explorer.Check(m, explorer.Config{Properties: []string{properties.Termination}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Violated || r.Violations[0].Property != properties.Termination {
		t.Fatalf("%v %+v, want termination violated", r.Status, r.Violations)
	}
	tr := r.Violations[0].Trace
	if len(tr.Cycle) != 0 || !slices.ContainsFunc(tr.Steps, func(s explorer.Step) bool { return strings.HasPrefix(s.Action, "crash") }) {
		t.Errorf("counterexample of %d steps and a cycle of %d: want a finite run with a crash", len(tr.Steps), len(tr.Cycle))
	}
	r, err = explorer.Check(m, explorer.Config{Properties: []string{properties.Uniqueness, properties.Agreement, properties.Validity}})
	if err != nil || r.Status != explorer.OK {
		t.Errorf("safety with a crash: %v %v, want ok", r.Status, err)
	}
	s, _ := Lookup("chang-roberts-announce")
	p, _ := NewParams(s, map[string]string{"n": "3", "crashes": "3"})
	if _, err := s.Build(p); !errors.Is(err, ErrUsage) {
		t.Errorf("--crashes 3 with --n 3: %v, want ErrUsage", err)
	}
}

// TestPerpetuumMobile: messages are unbounded, the witness a token round
// of 2N steps (docs/algorithms/perpetuum-mobile.md; the counts are in
// testdata/counts/perpetuum-mobile.txt), and the broken twin starves a
// process.
func TestPerpetuumMobile(t *testing.T) {
	t.Parallel()
	for n := 3; n <= 4; n++ {
		r := check(t, "perpetuum-mobile", map[string]string{"n": fmt.Sprint(n)}, explorer.Config{Metrics: []string{"messages"}})
		if !r.Metrics[0].Unbounded || r.Metrics[0].MaxWitness == nil || len(r.Metrics[0].MaxWitness.Cycle) != 2*n {
			t.Errorf("n=%d: messages %+v, want unbounded with a token round of %d steps", n, r.Metrics[0], 2*n)
		}
	}
	m := build(t, "perpetuum-mobile-broken", map[string]string{"n": "3"})
	r, err := explorer.Check(m, explorer.Config{Properties: []string{properties.StarvationFreedom}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Violated {
		t.Fatalf("broken: %v, want starvation", r.Status)
	}
	v := r.Violations[0]
	if v.Process != 0 || len(v.Trace.Cycle) != 4 || fmt.Sprint(v.Trace.CycleTasks) != "[p2 p3 channel 2→3 channel 3→2]" {
		t.Errorf("broken: process %d starves in a cycle of %d steps taking %v; want process 1, 4 steps, the token between 2 and 3",
			v.Process+1, len(v.Trace.Cycle), v.Trace.CycleTasks)
	}
}

// TestMessagesByType: the announcement adds exactly N ELECTED messages to the
// ELECT messages of 1.1 (docs/algorithms/chang-roberts-announce.md), for every
// arrangement.
func TestMessagesByType(t *testing.T) {
	t.Parallel()
	for n := 3; n <= 4; n++ {
		m := build(t, "chang-roberts-announce", map[string]string{"n": fmt.Sprint(n)})
		r, err := explorer.Check(m, explorer.Config{Metrics: []string{"messages:ELECT", "messages:ELECTED"}, Properties: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		elect, elected := r.Metrics[0], r.Metrics[1]
		if elect.Min != int64(2*n-1) || elect.Max != int64(n*(n+1)/2) {
			t.Errorf("n=%d: ELECT %d..%d, want %d..%d", n, elect.Min, elect.Max, 2*n-1, n*(n+1)/2)
		}
		if elected.Min != int64(n) || elected.Max != int64(n) {
			t.Errorf("n=%d: ELECTED %d..%d, want exactly %d", n, elected.Min, elected.Max, n)
		}
	}
}
