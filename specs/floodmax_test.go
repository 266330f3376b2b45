package specs

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// fmReference counts the states and transitions of FloodMax over FIFO
// channels for one ID arrangement, without the automaton package. The IDs
// never influence control in FloodMax, so a global state is fixed by how
// far each process has got: its round r, whether it has sent round r,
// and which neighbours it has heard in round r (an ideal of the poset of
// send, receive and end events). A neighbour's round-r message can be
// received once both have sent round r and it was not heard yet; the
// channel j→i then holds the messages j sent minus those i received.
func fmReference(adj [][]int, d int) (states, transitions int) {
	n := len(adj)
	type proc struct {
		round int
		sent  bool
		heard uint64
	}
	key := func(ps []proc) string { return fmt.Sprint(ps) }
	// sentRounds is the number of rounds j has sent so far.
	sentRounds := func(p proc) int {
		if p.sent {
			return p.round
		}
		return p.round - 1
	}
	start := make([]proc, n)
	for i := range start {
		start[i].round = 1
	}
	seen := map[string]bool{key(start): true}
	queue := [][]proc{start}
	for len(queue) > 0 {
		ps := queue[0]
		queue = queue[1:]
		var next [][]proc
		for i, p := range ps {
			done := p.round > d
			all := uint64(0)
			for _, j := range adj[i] {
				all |= 1 << j
			}
			switch {
			case done:
			case !p.sent:
				q := append([]proc(nil), ps...)
				q[i].sent = true
				next = append(next, q)
			case p.heard == all:
				q := append([]proc(nil), ps...)
				q[i] = proc{round: p.round + 1} // round D+1 means decided
				next = append(next, q)
			default:
				for _, j := range adj[i] {
					if p.heard&(1<<j) == 0 && sentRounds(ps[j]) >= p.round {
						q := append([]proc(nil), ps...)
						q[i].heard |= 1 << j
						next = append(next, q)
					}
				}
			}
		}
		for _, q := range next {
			transitions++
			if k := key(q); !seen[k] {
				seen[k] = true
				queue = append(queue, q)
			}
		}
	}
	return len(seen), transitions
}

func fmCheck(t *testing.T, m explorer.Model, props []string, cfg explorer.Config) *explorer.Result {
	t.Helper()
	cfg.Properties = props
	r, err := explorer.Check(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestFloodmaxCounts pins the state spaces of floodmax with D = the
// graph's diameter and checks its claims (1.9: UNIQ, AGREE, VALID, TERM,
// KNOW, DLF). Each count is fmReference times the number of ID
// arrangements; by hand, N=2 (one edge, D=1) has the ideals of the events
// s1, s2 < r1, r2, r1 < e1, r2 < e2: 12 states and 16 transitions.
func TestFloodmaxCounts(t *testing.T) {
	for _, tt := range []struct {
		flags               map[string]string
		arrangements        int
		states, transitions int64
	}{
		{map[string]string{"n": "2", "ids": "increasing"}, 1, 12, 16},
		{map[string]string{"n": "3", "ids": "all"}, 6, 1146, 2778},
		{map[string]string{"n": "3", "topology": "complete", "ids": "all", "objective": "min"}, 6, 846, 2448},
		{map[string]string{"n": "4", "topology": "star", "ids": "increasing"}, 1, 1557, 5476},
		{map[string]string{"n": "4", "topology": "ring", "ids": "4,1,3,2"}, 1, 2719, 10416},
		{map[string]string{"n": "3", "ids": "increasing", "diameter": "3"}, 1, 328, 805},
	} {
		t.Run(fmt.Sprint(tt.flags), func(t *testing.T) {
			s := floodmax(false)
			m := buildSpec(t, s, tt.flags)
			p, _ := NewParams(s, tt.flags)
			g, err := parseGraphTopology(p)
			if err != nil {
				t.Fatal(err)
			}
			d := max(g.Diameter(), 1)
			fmt.Sscan(tt.flags["diameter"], &d)
			states, transitions := fmReference(g.Adj, d)
			if int64(states*tt.arrangements) != tt.states || int64(transitions*tt.arrangements) != tt.transitions {
				t.Errorf("reference %d×%d states, %d×%d transitions; pinned %d, %d", states, tt.arrangements, transitions, tt.arrangements, tt.states, tt.transitions)
			}
			for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}, {Strategy: explorer.DFS}} {
				r := fmCheck(t, m, s.Claims, cfg)
				if r.Status != explorer.OK {
					t.Fatalf("%v/%d: status %v %+v", cfg.Strategy, cfg.Workers, r.Status, r.Violations)
				}
				if r.States != tt.states || r.Transitions != tt.transitions {
					t.Errorf("%v/%d: %d states, %d transitions; want %d, %d", cfg.Strategy, cfg.Workers, r.States, r.Transitions, tt.states, tt.transitions)
				}
			}
		})
	}
}

// TestFloodmaxMessages: exactly 2·E·D messages in every run (1.9: each
// edge carries one message in each direction per round), for D equal to
// and above the diameter.
func TestFloodmaxMessages(t *testing.T) {
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
			m := buildSpec(t, floodmax(false), map[string]string{"n": fmt.Sprint(tt.n), "topology": tt.topology, "diameter": tt.d, "ids": "increasing"})
			r := fmCheck(t, m, []string{}, explorer.Config{Metrics: []string{"messages", "messages:MAX"}})
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
	for _, tt := range []struct {
		spec  Spec
		flags map[string]string
	}{
		{floodmax(false), map[string]string{"n": "3", "ids": "3,1,2", "diameter": "1"}},
		{floodmax(false), map[string]string{"n": "4", "ids": "all", "diameter": "2"}},
		{floodmax(false), map[string]string{"n": "5", "topology": "ring", "ids": "3,1,5,2,4", "diameter": "1"}},
		{floodmax(true), map[string]string{"n": "3", "ids": "3,1,2"}},
		{floodmax(true), map[string]string{}},
	} {
		if tt.flags["ids"] == "all" && testing.Short() {
			continue // 24 arrangements; run without -short
		}
		m := buildSpec(t, tt.spec, tt.flags)
		for _, prop := range []string{properties.Agreement, properties.Uniqueness, properties.Validity, properties.Termination} {
			r := fmCheck(t, m, []string{prop}, explorer.Config{})
			if r.Status != explorer.Violated || r.Violations[0].Property != prop {
				t.Errorf("%s %v: %s: status %v, want violated", tt.spec.Name, tt.flags, prop, r.Status)
			}
		}
		r := fmCheck(t, m, []string{properties.DeadlockFreedom, fmRoundSync}, explorer.Config{})
		if r.Status != explorer.OK {
			t.Errorf("%s %v: deadlock-freedom and round-sync: status %v, want ok (every process still decides after D rounds)", tt.spec.Name, tt.flags, r.Status)
		}
	}
}

// TestFloodmaxUnordered: without FIFO a round-(r+1) message can overtake
// a round-r one on its link, and round-sync fails.
func TestFloodmaxUnordered(t *testing.T) {
	m := buildSpec(t, floodmax(false), map[string]string{"n": "3", "ids": "increasing", "channels": "unordered"})
	if r := fmCheck(t, m, []string{fmRoundSync}, explorer.Config{}); r.Status != explorer.Violated {
		t.Errorf("round-sync under unordered channels: status %v, want violated", r.Status)
	}
}

func TestFloodmaxUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		spec  Spec
		flags map[string]string
		want  []string
	}{
		{floodmax(false), map[string]string{"diameter": "0"}, []string{"--diameter 0", "graph (the graph's diameter, 3)"}},
		{floodmax(false), map[string]string{"diameter": "two"}, []string{"--diameter two", "allowed"}},
		{floodmax(false), map[string]string{"objective": "mean"}, []string{"--objective mean", "max or min"}},
		{floodmax(false), map[string]string{"topology": "random:1:2", "n": "4"}, []string{"--topology random:1:2", "EDGES"}},
		{floodmax(true), map[string]string{"topology": "complete"}, []string{"--topology complete", "diameter 1", "at least 2"}},
		{floodmax(true), map[string]string{"diameter": "2"}, []string{"--diameter does not apply"}},
	} {
		p, err := NewParams(tt.spec, tt.flags)
		if err == nil {
			_, err = tt.spec.Build(p)
		}
		if !errors.Is(err, ErrUsage) {
			t.Errorf("%v: error %v, want ErrUsage", tt.flags, err)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %q does not mention %q", tt.flags, err, w)
			}
		}
	}
}
