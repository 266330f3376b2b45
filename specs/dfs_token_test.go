package specs

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/topology"
)

func dtCheck(t *testing.T, m explorer.Model, props []string, cfg explorer.Config) *explorer.Result {
	t.Helper()
	cfg.Properties = props
	r, err := explorer.Check(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestDFSTokenCounts pins the state spaces of dfs-token and checks its
// claims (1.10: UNIQ, VALID over the actual starters, DLF with exactly one
// won). By hand, N=2 with the single starter 1 (path or coloring): start_1
// sends the token to 2 (the only candidate), 2 joins and sends it back
// (no unvisited neighbour / no unexplored port), 1 receives it at home and
// wins: 4 states, 3 transitions. The larger values are regression values,
// cross-checked BFS = DFS = 2 workers and by the exact message counts of
// TestDFSTokenMessages.
func TestDFSTokenCounts(t *testing.T) {
	for _, tt := range []struct {
		flags               map[string]string
		states, transitions int64
	}{
		{map[string]string{"n": "2", "initiators": "one"}, 4, 3},
		{map[string]string{"n": "2", "initiators": "one", "method": "coloring"}, 4, 3},
		{map[string]string{}, 2141, 5536},
		{map[string]string{"method": "coloring"}, 2362, 5932},
		{map[string]string{"n": "3", "topology": "complete", "ids": "all", "initiators": "subsets"}, 2202, 4374},
		{map[string]string{"n": "3", "topology": "complete", "ids": "all", "initiators": "subsets", "method": "coloring"}, 2532, 4824},
		{map[string]string{"n": "4", "topology": "star", "ids": "decreasing", "objective": "min", "method": "coloring"}, 2328, 5676},
	} {
		t.Run(fmt.Sprint(tt.flags), func(t *testing.T) {
			s := dfsToken(false)
			m := buildSpec(t, s, tt.flags)
			for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}, {Strategy: explorer.DFS}} {
				r := dtCheck(t, m, s.Claims, cfg)
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

// TestDFSTokenMessages: with one actual starter the traversal costs exactly
// 2(N−1) messages (path) or 2E (coloring); with M starters at least that
// and at most M times that (1.10); the maxima are pinned as regression
// values.
func TestDFSTokenMessages(t *testing.T) {
	for _, tt := range []struct {
		n          int
		topology   string
		method     string
		initiators string
		max        int64 // with all starters
	}{
		{1, "ring", "path", "all", 0}, {1, "ring", "coloring", "all", 0}, {2, "line", "path", "all", 3}, {3, "line", "path", "all", 8},
		{4, "ring", "path", "all", 12}, {4, "ring", "coloring", "all", 14},
		{4, "complete", "path", "all", 12}, {4, "complete", "coloring", "all", 20},
		{5, "random:2:6", "path", "1,3,5", 17}, {5, "random:2:6", "coloring", "1,3,5", 21},
	} {
		g, err := topology.Parse(tt.topology, tt.n)
		if err != nil {
			t.Fatal(err)
		}
		n, e := int64(tt.n), int64(g.NumEdges())
		trav := 2 * (n - 1)
		if tt.method == "coloring" {
			trav = 2 * e
		}
		t.Run(fmt.Sprintf("n=%d/%s/%s", tt.n, tt.topology, tt.method), func(t *testing.T) {
			if tt.n >= 4 && tt.method == "coloring" && tt.topology != "ring" && testing.Short() {
				t.Skip("the larger colouring runs take a while; run without -short")
			}
			flags := map[string]string{"n": fmt.Sprint(tt.n), "topology": tt.topology, "method": tt.method, "ids": "all"}
			for _, one := range []string{"one", fmt.Sprint(tt.n)} {
				flags["initiators"] = one
				r := dtCheck(t, buildSpec(t, dfsToken(false), flags), []string{}, explorer.Config{Metrics: []string{"messages:TOKEN"}})
				if mt := r.Metrics[0]; mt.Min != trav || mt.Max != trav {
					t.Errorf("single starter %s: %d…%d messages, want exactly %d", one, mt.Min, mt.Max, trav)
				}
			}
			flags["initiators"] = tt.initiators
			if tt.n >= 4 {
				flags["ids"] = "increasing" // all arrangements take too long here
			}
			r := dtCheck(t, buildSpec(t, dfsToken(false), flags), []string{}, explorer.Config{Metrics: []string{"messages"}})
			m := int64(strings.Count(tt.initiators, ",") + 1)
			if tt.initiators == "all" {
				m = n
			}
			if mt := r.Metrics[0]; mt.Min != trav || mt.Max != tt.max || mt.Max > m*trav {
				t.Errorf("starters %s: %d…%d messages, want %d…%d (≤ M × %d = %d)", tt.initiators, mt.Min, mt.Max, trav, tt.max, trav, m*trav)
			}
		})
	}
}

// TestDFSTokenKnowFails: without the announcement only the winner knows it
// is the leader, so termination (TERM with KNOW) fails for N ≥ 2 (section
// 3, "Expected to FAIL") and holds for N = 1.
func TestDFSTokenKnowFails(t *testing.T) {
	for _, method := range []string{"path", "coloring"} {
		for n, want := range map[int]explorer.Status{1: explorer.OK, 3: explorer.Violated} {
			m := buildSpec(t, dfsToken(false), map[string]string{"n": fmt.Sprint(n), "method": method})
			if r := dtCheck(t, m, []string{properties.Termination}, explorer.Config{}); r.Status != want {
				t.Errorf("%s N=%d: termination %v, want %v", method, n, r.Status, want)
			}
		}
	}
}

// TestDFSTokenBroken: with the wake-up rule dropped, a process that a
// token woke starts after the election is over, and its better token wins
// a second election: two processes won (UNIQ), and the first winner is no
// longer the best actual starter (VALID).
func TestDFSTokenBroken(t *testing.T) {
	for _, method := range []string{"path", "coloring"} {
		for _, flags := range []map[string]string{{"n": "2"}, {"method": method}} {
			flags["method"] = method
			m := buildSpec(t, dfsToken(true), flags)
			for _, prop := range []string{properties.Uniqueness, properties.Validity} {
				r := dtCheck(t, m, []string{prop}, explorer.Config{})
				if r.Status != explorer.Violated || r.Violations[0].Property != prop {
					t.Errorf("%v: %s: status %v, want violated", flags, prop, r.Status)
				}
			}
		}
	}
	m := buildSpec(t, dfsToken(true), map[string]string{"n": "2"})
	r := dtCheck(t, m, []string{properties.Uniqueness}, explorer.Config{})
	var actions []string
	for _, st := range r.Violations[0].Trace.Steps {
		actions = append(actions, st.Action)
	}
	want := "start_{1} receive(TOKEN(1,{1}))_{1,2} start_{2} receive(TOKEN(1,{1,2}))_{2,1} receive(TOKEN(2,{2}))_{2,1} receive(TOKEN(2,{1,2}))_{1,2}"
	if got := strings.Join(actions, " "); got != want {
		t.Errorf("counterexample %s\nwant %s", got, want)
	}
}

func TestDFSTokenUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		flags map[string]string
		want  []string
	}{
		{map[string]string{"method": "bfs"}, []string{"--method bfs", "path or coloring"}},
		{map[string]string{"objective": "mid"}, []string{"--objective mid", "max or min"}},
		{map[string]string{"initiators": "7"}, []string{"--initiators 7", "no process 7"}},
		{map[string]string{"ids": "1,1,2,3"}, []string{"--ids 1,1,2,3", "twice"}},
		{map[string]string{"topology": "hypercube"}, []string{"--topology hypercube", "allowed"}},
	} {
		s := dfsToken(false)
		p, err := NewParams(s, tt.flags)
		if err == nil {
			_, err = s.Build(p)
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
