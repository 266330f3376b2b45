package specs

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton/automatontest"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// teRefState is a global state of teRefModel: per process st (0 asleep,
// 1 awake, 2 sent, 3 done), got (bit mask of neighbours), best, parent,
// leader, and the FIFO channels as strings of messages "E", "P5", "R5",
// keyed by "from>to"; K is the initial state it comes from (distinct IDs
// or initiator sets make the state spaces of two initial states
// disjoint).
type teRefState struct {
	K                             int
	St, Got, Best, Parent, Leader []int
	Ch                            map[string][]string
}

func (s teRefState) key() string {
	keys := make([]string, 0, len(s.Ch))
	for k := range s.Ch {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	fmt.Fprint(&b, s.K, s.St, s.Got, s.Best, s.Parent, s.Leader)
	for _, k := range keys {
		fmt.Fprint(&b, k, s.Ch[k])
	}
	return b.String()
}

func (s teRefState) clone() teRefState {
	c := teRefState{s.K, slices.Clone(s.St), slices.Clone(s.Got), slices.Clone(s.Best), slices.Clone(s.Parent), slices.Clone(s.Leader), map[string][]string{}}
	for k, v := range s.Ch {
		c.Ch[k] = slices.Clone(v)
	}
	return c
}

// teRefModel is the model of 1.8 with WAKEUP = FLOOD, FIFO channels,
// objective max and the given INFO, written directly from the pseudocode
// without the automaton package, from every ID arrangement and initiator
// set: the independent derivation of the pinned counts.
func teRefModel(adj [][]int, idsets [][]int, sets [][]bool, info bool) refModel[teRefState] {
	n := len(adj)
	type start struct {
		ids        []int
		initiators []bool
	}
	var starts []start
	m := refModel[teRefState]{key: teRefState.key}
	for _, ids := range idsets {
		for _, set := range sets {
			init := teRefState{len(starts), make([]int, n), make([]int, n), slices.Clone(ids), make([]int, n), make([]int, n), map[string][]string{}}
			for i := range init.Parent {
				init.Parent[i] = -1
			}
			starts, m.initial = append(starts, start{ids, set}), append(m.initial, init)
		}
	}
	send := func(s teRefState, i, j int, m string) { k := fmt.Sprint(i, ">", j); s.Ch[k] = append(s.Ch[k], m) }
	count := func(mask int) (c int) {
		for ; mask != 0; mask &= mask - 1 {
			c++
		}
		return c
	}
	try := func(s teRefState, i int) {
		if len(adj[i]) == 0 {
			s.Leader[i], s.St[i] = starts[s.K].ids[i], 3
		} else if count(s.Got[i]) == len(adj[i])-1 {
			for _, q := range adj[i] {
				if s.Got[i]&(1<<q) == 0 {
					s.Parent[i] = q
				}
			}
			send(s, i, s.Parent[i], fmt.Sprint("P", s.Best[i]))
			s.St[i] = 2
		}
	}
	wake := func(s teRefState, i, from int) {
		s.St[i] = 1
		for _, q := range adj[i] {
			if q != from {
				send(s, i, q, "E")
			}
		}
		try(s, i)
	}
	result := func(s teRefState, i, except int) {
		for _, q := range adj[i] {
			if q != except {
				send(s, i, q, fmt.Sprint("R", s.Leader[i]))
			}
		}
	}
	m.next = func(s teRefState) ([]teRefState, []int) {
		var next []teRefState
		for i := 0; i < n; i++ {
			if starts[s.K].initiators[i] && s.St[i] == 0 {
				t := s.clone()
				wake(t, i, -1)
				next = append(next, t)
			}
		}
		for i := 0; i < n; i++ {
			for _, j := range adj[i] {
				k := fmt.Sprint(i, ">", j)
				if len(s.Ch[k]) == 0 {
					continue
				}
				t := s.clone()
				m := t.Ch[k][0]
				t.Ch[k] = t.Ch[k][1:]
				if len(t.Ch[k]) == 0 {
					delete(t.Ch, k)
				}
				var x int
				fmt.Sscan(m[1:], &x)
				switch m[0] {
				case 'E':
					if t.St[j] == 0 {
						wake(t, j, i)
					}
				case 'P':
					if t.St[j] == 0 {
						wake(t, j, i)
					}
					t.Best[j] = max(t.Best[j], x)
					t.Got[j] |= 1 << i
					if t.St[j] == 1 {
						try(t, j) // |got| = deg cannot happen under FLOOD
					} else if t.St[j] == 2 {
						t.Leader[j], t.St[j] = t.Best[j], 3
						if info {
							result(t, j, i)
						}
					}
				case 'R':
					t.Leader[j], t.St[j] = x, 3
					result(t, j, i)
				}
				next = append(next, t)
			}
		}
		return next, nil
	}
	return m
}

// teReference is the reference model's figures for the parameters p of
// tree-election with --wakeup flood (testdata/counts/tree-election.txt).
func teReference(t testing.TB, p *Params) refFigures {
	if p.String("wakeup") != "flood" {
		t.Fatalf("the reference model is that of --wakeup flood, not %s", p.String("wakeup"))
	}
	g, ids := refGraph(t, p)
	return refWalk(t, teRefModel(g.Adj, ids, refInitiators(t, p, g.N), p.String("info") != "off"))
}

// TestTreeElectionKnowFailsWithoutInfo: with --info off only the saturated
// pair (or the root) knows the leader, so termination (TERM and KNOW) is
// violated while every other claim holds (section 3, "Expected to FAIL").
func TestTreeElectionKnowFailsWithoutInfo(t *testing.T) {
	t.Parallel()
	for _, wakeup := range []string{"flood", "assumed"} {
		m := buildSpec(t, treeElection(), map[string]string{"n": "3", "info": "off", "wakeup": wakeup})
		r := automatontest.Check(t, m, explorer.Config{Properties: []string{properties.Termination}})
		if r.Status != explorer.Violated || r.Violations[0].Property != properties.Termination {
			t.Errorf("%s: status %v %+v, want termination violated", wakeup, r.Status, r.Violations)
		}
	}
}

// TestTreeElectionMessages pins the message counts of 1.8 by type:
// EXPLORE exactly N−1 with one initiator and N−1 … 2(N−1) with all;
// PROPOSE exactly N under FLOOD; RESULT exactly N−2 under FLOOD (the
// saturated pair); and PROPOSE + RESULT = 2N−2 exactly for N ≥ 2 with
// INFO, under both wake-up rules (under ASSUMED, where nothing else is
// sent, PROPOSE is N or N−1 and RESULT N−2 or N−1).
func TestTreeElectionMessages(t *testing.T) {
	t.Parallel()
	metrics := []string{"messages:EXPLORE", "messages:PROPOSE", "messages:RESULT", "messages"}
	for _, tt := range []struct {
		n        int
		topology string
	}{{2, "line"}, {3, "line"}, {4, "line"}, {4, "star"}, {5, "star"}, {5, "random:3:4"}, {6, "random:1:5"}} {
		n := int64(tt.n)
		for _, init := range []string{"one", "all"} {
			t.Run(fmt.Sprintf("n=%d/%s/%s", tt.n, tt.topology, init), func(t *testing.T) {
				m := buildSpec(t, treeElection(), map[string]string{"n": fmt.Sprint(tt.n), "topology": tt.topology, "ids": "increasing", "initiators": init})
				r := automatontest.Check(t, m, explorer.Config{Properties: []string{}, Metrics: metrics})
				ex, pr, re := r.Metrics[0], r.Metrics[1], r.Metrics[2]
				exMax := 2 * (n - 1)
				if init == "one" {
					exMax = n - 1
				}
				if ex.Min != n-1 || ex.Max != exMax {
					t.Errorf("EXPLORE %d…%d, want %d…%d", ex.Min, ex.Max, n-1, exMax)
				}
				if pr.Min != n || pr.Max != n || re.Min != n-2 || re.Max != n-2 {
					t.Errorf("PROPOSE %d…%d, RESULT %d…%d; want exactly N = %d and N−2 = %d", pr.Min, pr.Max, re.Min, re.Max, n, n-2)
				}
			})
		}
		t.Run(fmt.Sprintf("n=%d/%s/assumed", tt.n, tt.topology), func(t *testing.T) {
			m := buildSpec(t, treeElection(), map[string]string{"n": fmt.Sprint(tt.n), "topology": tt.topology, "ids": "increasing", "wakeup": "assumed"})
			r := automatontest.Check(t, m, explorer.Config{Properties: []string{}, Metrics: metrics})
			ex, pr, re, all := r.Metrics[0], r.Metrics[1], r.Metrics[2], r.Metrics[3]
			if ex.Max != 0 || pr.Min < n-1 || pr.Max > n || re.Min < n-2 || re.Max > n-1 || all.Min != 2*n-2 || all.Max != 2*n-2 {
				t.Errorf("EXPLORE ≤ %d, PROPOSE %d…%d, RESULT %d…%d, total %d…%d; want 0, within N−1…N, N−2…N−1, exactly 2N−2 = %d",
					ex.Max, pr.Min, pr.Max, re.Min, re.Max, all.Min, all.Max, 2*n-2)
			}
		})
	}
}

// TestTreeElectionBroken: proposing u instead of best loses the subtree
// behind a node, so a saturated node decides on a non-maximal ID (VALID),
// as the shortest counterexample shows, the same for every worker count.
func TestTreeElectionBroken(t *testing.T) {
	t.Parallel()
	for _, flags := range []map[string]string{{"n": "3", "ids": "increasing"}, {}, {"n": "5", "topology": "star", "ids": "increasing", "initiators": "one"}} {
		v := counterexample(t, "tree-election-broken", flags, nil, properties.Validity)
		t.Logf("%v: %v", flags, explorer.Actions(v.Trace.Steps))
	}
}

func TestTreeElectionUsageErrors(t *testing.T) {
	t.Parallel()
	wantUsages(t, treeElection(), []usageCase{
		{map[string]string{"topology": "ring"}, []string{"--topology ring", "not a tree"}},
		{map[string]string{"topology": "complete", "n": "3"}, []string{"--topology complete", "not a tree"}},
		{map[string]string{"topology": "random:1:5", "n": "5"}, []string{"--topology random:1:5", "random:SEED:4"}},
		{map[string]string{"info": "yes"}, []string{"--info yes", "on or off"}},
		{map[string]string{"wakeup": "leaves"}, []string{"--wakeup leaves", "flood or assumed"}},
		{map[string]string{"objective": "median"}, []string{"--objective median", "max or min"}},
		{map[string]string{"wakeup": "assumed", "initiators": "one"}, []string{"--initiators one", "--wakeup assumed"}},
		{map[string]string{"initiators": "9"}, []string{"--initiators 9", "no process 9"}},
		{map[string]string{"n": "0"}, []string{"--n", "allowed"}},
	})
}
