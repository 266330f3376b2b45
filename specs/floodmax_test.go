package specs

import (
	"fmt"
	"slices"
	"testing"

	"github.com/vacheck/vacheck/automaton/automatontest"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// fmRef is a global state of FloodMax over FIFO channels written without
// the automaton package, for the arrangement K. The IDs never influence
// control in FloodMax, so a state is fixed by how far each process has
// got: its round r, whether it has sent round r, and which neighbours it
// has heard in round r (an ideal of the poset of send, receive and end
// events). A neighbour's round-r message can be received once both have
// sent round r and it was not heard yet; the channel j→i then holds the
// messages j sent minus those i received.
type fmRef struct {
	K     int
	procs []fmRefProc
}

type fmRefProc struct {
	round int
	sent  bool
	heard uint64
}

func (r fmRef) key() string { return fmt.Sprint(r.K, r.procs) }

// next returns the successors of r with D rounds.
func (r fmRef) next(adj [][]int, d int) []fmRef {
	// sentRounds is the number of rounds p has sent so far.
	sentRounds := func(p fmRefProc) int {
		if p.sent {
			return p.round
		}
		return p.round - 1
	}
	var next []fmRef
	with := func(i int, p fmRefProc) {
		q := fmRef{r.K, slices.Clone(r.procs)}
		q.procs[i] = p
		next = append(next, q)
	}
	for i, p := range r.procs {
		all := uint64(0)
		for _, j := range adj[i] {
			all |= 1 << j
		}
		switch {
		case p.round > d: // decided
		case !p.sent:
			with(i, fmRefProc{p.round, true, p.heard})
		case p.heard == all:
			with(i, fmRefProc{round: p.round + 1}) // round D+1 means decided
		default:
			for _, j := range adj[i] {
				if p.heard&(1<<j) == 0 && sentRounds(r.procs[j]) >= p.round {
					with(i, fmRefProc{p.round, p.sent, p.heard | 1<<j})
				}
			}
		}
	}
	return next
}

// fmReference is the reference model's figures for the parameters p of
// floodmax (testdata/counts/floodmax.txt): one copy of the state space per
// ID arrangement.
func fmReference(t testing.TB, p *Params) refFigures {
	g, ids := refGraph(t, p)
	d := max(g.Diameter(), 1)
	if p.Given("diameter") && p.String("diameter") != "graph" {
		d = refInt(t, p, "diameter")
	}
	m := refModel[fmRef]{key: fmRef.key, next: func(r fmRef) ([]fmRef, []int) { return r.next(g.Adj, d), nil }}
	for k := range len(ids) {
		start := fmRef{k, make([]fmRefProc, g.N)}
		for i := range start.procs {
			start.procs[i].round = 1
		}
		m.initial = append(m.initial, start)
	}
	return refWalk(t, m)
}

// TestFloodmaxMessages: exactly 2·E·D messages in every run (1.9: each
// edge carries one message in each direction per round), for D equal to
// and above the diameter.
func TestFloodmaxMessages(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n        int
		topology string
		d        string
		want     int64
	}{
		{1, "line", "graph", 0}, {2, "line", "graph", 2}, {3, "line", "graph", 8}, {3, "line", "3", 12},
		{3, "complete", "graph", 6}, {4, "ring", "graph", 16}, {4, "star", "graph", 12}, {4, "complete", "2", 24},
		{5, "random:1:5", "graph", 20},
	} {
		t.Run(fmt.Sprintf("n=%d/%s/D=%s", tt.n, tt.topology, tt.d), func(t *testing.T) {
			m := buildSpec(t, floodmax(), map[string]string{"n": fmt.Sprint(tt.n), "topology": tt.topology, "diameter": tt.d, "ids": "increasing"})
			r := automatontest.Check(t, m, explorer.Config{Properties: []string{}, Metrics: []string{"messages", "messages:MAX"}})
			if all, typed := r.Metrics[0], r.Metrics[1]; all.Min != tt.want || all.Max != tt.want || typed.Min != tt.want || typed.Max != tt.want {
				t.Errorf("messages %d…%d (MAX %d…%d), want exactly 2ED = %d", all.Min, all.Max, typed.Min, typed.Max, tt.want)
			}
		})
	}
}

// TestFloodmaxDiameterTooSmall is the negative test of 1.9: with D below
// the diameter, AGREE and UNIQ fail; on the path 3 — 1 — 2 with D = 1 the
// end holding 2 never hears of 3 and declares itself leader. The broken
// twin (D = diameter − 1 built in) fails the same way.
func TestFloodmaxDiameterTooSmall(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		spec  Spec
		flags map[string]string
	}{
		{floodmax(), map[string]string{"n": "3", "ids": "3,1,2", "diameter": "1"}},
		{floodmax(), map[string]string{"n": "4", "ids": "all", "diameter": "2"}},
		{floodmax(), map[string]string{"n": "5", "topology": "ring", "ids": "3,1,5,2,4", "diameter": "1"}},
		{twinOf(floodmax()), map[string]string{"n": "3", "ids": "3,1,2"}},
		{twinOf(floodmax()), map[string]string{}},
	} {
		if tt.flags["ids"] == "all" && testing.Short() {
			continue // 24 arrangements; run without -short
		}
		m := buildSpec(t, tt.spec, tt.flags)
		for _, prop := range []string{properties.Agreement, properties.Uniqueness, properties.Validity, properties.Termination} {
			r := automatontest.Check(t, m, explorer.Config{Properties: []string{prop}})
			if r.Status != explorer.Violated || r.Violations[0].Property != prop {
				t.Errorf("%s %v: %s: status %v, want violated", tt.spec.Name, tt.flags, prop, r.Status)
			}
		}
		r := automatontest.Check(t, m, explorer.Config{Properties: []string{properties.DeadlockFreedom, fmRoundSync}})
		if r.Status != explorer.OK {
			t.Errorf("%s %v: deadlock-freedom and round-sync: status %v, want ok (every process still decides after D rounds)", tt.spec.Name, tt.flags, r.Status)
		}
	}
}

// TestFloodmaxUnordered: without FIFO a round-(r+1) message can overtake
// a round-r one on its link, and round-sync fails.
func TestFloodmaxUnordered(t *testing.T) {
	t.Parallel()
	m := buildSpec(t, floodmax(), map[string]string{"n": "3", "ids": "increasing", "channels": "unordered"})
	if r := automatontest.Check(t, m, explorer.Config{Properties: []string{fmRoundSync}}); r.Status != explorer.Violated {
		t.Errorf("round-sync under unordered channels: status %v, want violated", r.Status)
	}
}

func TestFloodmaxUsageErrors(t *testing.T) {
	t.Parallel()
	wantUsages(t, floodmax(), []usageCase{
		{map[string]string{"diameter": "0"}, []string{"--diameter 0", "graph (the graph's diameter, 3)"}},
		{map[string]string{"diameter": "two"}, []string{"--diameter two", "allowed"}},
		{map[string]string{"objective": "mean"}, []string{"--objective mean", "max or min"}},
		{map[string]string{"topology": "random:1:2", "n": "4"}, []string{"--topology random:1:2", "EDGES"}},
	})
	wantUsages(t, twinOf(floodmax()), []usageCase{
		{map[string]string{"topology": "complete"}, []string{"--topology complete", "diameter 1", "at least 2"}},
		{map[string]string{"diameter": "2"}, []string{"--diameter does not apply"}},
	})
}
