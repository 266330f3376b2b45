package specs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// reductionFlags are the reductions of lamport, each tried on every mutant:
// clocks × partial-order reduction.
var lamportReductionFlags = []struct {
	clocks string
	red    explorer.Reduction
}{
	{"absolute", explorer.NoReduction}, {"absolute", explorer.PartialOrder},
	{"relative", explorer.NoReduction}, {"relative", explorer.PartialOrder},
	{"minimal", explorer.NoReduction}, {"minimal", explorer.PartialOrder},
}

// mutantOutcome is what a run of a mutant under one reduction must give:
// a violation of the property (with a trace of steps steps, when not 0),
// or, when assumption is set, a model failure naming that assumption.
type mutantOutcome struct {
	violated   string
	steps      int
	assumption string
}

func (o mutantOutcome) String() string {
	if o.assumption != "" {
		return fmt.Sprintf("model error on assumption %q", o.assumption)
	}
	return fmt.Sprintf("%s violated in %d steps", o.violated, o.steps)
}

// checkMutant runs model under one reduction and checks the outcome.
func checkMutant(t *testing.T, label string, m explorer.Model, cfg explorer.Config, want mutantOutcome) {
	t.Helper()
	r, err := explorer.Check(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case want.assumption != "":
		if r.Status != explorer.Failed || r.Err == nil || !strings.Contains(r.Err.Error(), fmt.Sprintf("assumption %q", want.assumption)) {
			t.Errorf("%s: %v %v (%v), want %v", label, r.Status, r.Violations, r.Err, want)
		}
	case r.Status != explorer.Violated || (want.violated != "" && r.Violations[0].Property != want.violated) ||
		(want.steps != 0 && len(r.Violations[0].Trace.Steps) != want.steps):
		t.Errorf("%s: %v %v (%v), want %v", label, r.Status, r.Violations, r.Err, want)
	}
}

// TestLamportMutantsUnderEveryReduction seeds bugs into lamport and checks
// each under every reduction flag: a mutant inside a reduction's
// assumptions gets the same verdict (and counterexample length) as without
// reduction; one that breaks an assumption is caught, by a violation or by
// the assumption as a model failure, never reported OK. Before the
// assumptions, the queue-order mutant was reported "OK, every property
// holds" with --clocks minimal (36,481 states, the correct model's count:
// the normalization sorted the queue again), and the keep-late one too.
func TestLamportMutantsUnderEveryReduction(t *testing.T) {
	t.Parallel()
	ga1 := properties.MutualExclusion
	n3 := map[string]string{"n": "3"}
	n2r2 := map[string]string{"n": "2", "requests": "2"}
	for _, c := range []struct {
		mutant lamportMutant
		flags  map[string]string
		props  []string
		want   map[string]mutantOutcome // by "clocks/reduction"
	}{
		// Ties in arrival order: GA1 fails in 12 steps without reduction
		// (issue 15); minimal sorts Q again and Silent compares stamps,
		// so both refuse the model on queue-sorted.
		{lamportTiesByArrival, n3, []string{ga1}, map[string]mutantOutcome{
			"absolute/none": {violated: ga1, steps: 12}, "relative/none": {violated: ga1, steps: 12},
			"absolute/por": {assumption: "queue-sorted"}, "relative/por": {assumption: "queue-sorted"},
			"minimal/none": {assumption: "queue-sorted"}, "minimal/por": {assumption: "queue-sorted"},
		}},
		// ACKs stamped with the REQUEST's stamp: inside every assumption
		// (a stamp is still only compared and maxed); nobody ever gets a
		// later-stamped message, a deadlock after 15 steps everywhere.
		{lamportAckEcho, n3, nil, map[string]mutantOutcome{
			"absolute/none": {violated: properties.DeadlockFreedom, steps: 15}, "absolute/por": {violated: properties.DeadlockFreedom, steps: 15},
			"relative/none": {violated: properties.DeadlockFreedom, steps: 15}, "relative/por": {violated: properties.DeadlockFreedom, steps: 15},
			"minimal/none": {violated: properties.DeadlockFreedom, steps: 15}, "minimal/por": {violated: properties.DeadlockFreedom, steps: 15},
		}},
		// No tick on receive: inside every assumption (fewer ticks than
		// the regions count only make them finer); deadlock everywhere.
		{lamportNoTick, n3, nil, map[string]mutantOutcome{
			"absolute/none": {violated: properties.DeadlockFreedom, steps: 15}, "absolute/por": {violated: properties.DeadlockFreedom, steps: 15},
			"relative/none": {violated: properties.DeadlockFreedom, steps: 15}, "relative/por": {violated: properties.DeadlockFreedom, steps: 15},
			"minimal/none": {violated: properties.DeadlockFreedom, steps: 15}, "minimal/por": {violated: properties.DeadlockFreedom, steps: 15},
		}},
		// late[] kept across requests: the second request enters on stale
		// evidence and FAIR-TS fails in 8 steps; minimal zeroes the clock
		// of an idle process on the assumption that it keeps no late[j],
		// and refuses the model.
		{lamportKeepLate, n2r2, nil, map[string]mutantOutcome{
			"absolute/none": {violated: properties.TimestampOrder, steps: 8}, "absolute/por": {violated: properties.TimestampOrder, steps: 8},
			"relative/none": {violated: properties.TimestampOrder, steps: 8}, "relative/por": {violated: properties.TimestampOrder, steps: 8},
			"minimal/none": {assumption: "idle-forgets-late"}, "minimal/por": {assumption: "idle-forgets-late"},
		}},
	} {
		for _, f := range lamportReductionFlags {
			flags := map[string]string{"clocks": f.clocks}
			for k, v := range c.flags {
				flags[k] = v
			}
			s := lamportWith(c.mutant)
			props := c.props
			if props == nil {
				props = s.Claims
			}
			key := f.clocks + "/" + f.red.String()
			for _, st := range []explorer.Strategy{explorer.BFS, explorer.DFS} {
				want := c.want[key]
				if st == explorer.DFS && want.assumption == "" {
					// DFS finds some counterexample, not the shortest,
					// and may find it on another of the claims.
					want.violated, want.steps = "", 0
				}
				checkMutant(t, fmt.Sprintf("mutant %d, %s, %v", c.mutant, key, st), buildSpec(t, s, flags),
					explorer.Config{Properties: props, Reduction: f.red, Strategy: st}, want)
			}
		}
	}
}

// TestLamportAssumptionsHold checks that the correct model keeps every
// assumption of its reductions, with FIFO and unordered channels (where
// GA1 fails, under every reduction alike).
func TestLamportAssumptionsHold(t *testing.T) {
	t.Parallel()
	for _, ch := range []string{"fifo", "unordered"} {
		want := explorer.OK
		if ch == "unordered" {
			want = explorer.Violated
		}
		for _, f := range lamportReductionFlags {
			s := lamport()
			m := buildSpec(t, s, map[string]string{"n": "2", "requests": "2", "clocks": f.clocks, "channels": ch})
			r, err := explorer.Check(m, explorer.Config{Properties: s.Claims, Reduction: f.red})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != want {
				t.Errorf("%s, %s/%v: %v (%v)", ch, f.clocks, f.red, r.Status, r.Err)
			}
		}
	}
}
