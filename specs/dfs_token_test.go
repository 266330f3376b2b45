package specs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/topology"
)

// TestDFSTokenMessages: with one actual starter the traversal costs exactly
// 2(N−1) messages (path) or 2E (coloring); with M starters at least that
// and at most M times that (1.10); the maxima are pinned as regression
// values.
func TestDFSTokenMessages(t *testing.T) {
	t.Parallel()
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
				r := check(t, "dfs-token", flags, explorer.Config{Properties: []string{}, Metrics: []string{"messages:TOKEN"}})
				if mt := r.Metrics[0]; mt.Min != trav || mt.Max != trav {
					t.Errorf("single starter %s: %d…%d messages, want exactly %d", one, mt.Min, mt.Max, trav)
				}
			}
			flags["initiators"] = tt.initiators
			if tt.n >= 4 {
				flags["ids"] = "increasing" // all arrangements take too long here
			}
			r := check(t, "dfs-token", flags, explorer.Config{Properties: []string{}, Metrics: []string{"messages"}})
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
	t.Parallel()
	for _, method := range []string{"path", "coloring"} {
		for n, want := range map[int]explorer.Status{1: explorer.OK, 3: explorer.Violated} {
			flags := map[string]string{"n": fmt.Sprint(n), "method": method}
			if r := check(t, "dfs-token", flags, explorer.Config{Properties: []string{properties.Termination}}); r.Status != want {
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
	t.Parallel()
	for _, method := range []string{"path", "coloring"} {
		for _, flags := range []map[string]string{{"n": "2"}, {"method": method}} {
			flags["method"] = method
			for _, prop := range []string{properties.Uniqueness, properties.Validity} {
				r := check(t, "dfs-token-broken", flags, explorer.Config{Properties: []string{prop}})
				if r.Status != explorer.Violated || r.Violations[0].Property != prop {
					t.Errorf("%v: %s: status %v, want violated", flags, prop, r.Status)
				}
			}
		}
	}
	r := check(t, "dfs-token-broken", map[string]string{"n": "2"}, explorer.Config{Properties: []string{properties.Uniqueness}})
	actions := explorer.Actions(r.Violations[0].Trace.Steps)
	want := "start_{1} receive(TOKEN(1,{1}))_{1,2} start_{2} receive(TOKEN(1,{1,2}))_{2,1} receive(TOKEN(2,{2}))_{2,1} receive(TOKEN(2,{1,2}))_{1,2}"
	if got := strings.Join(actions, " "); got != want {
		t.Errorf("counterexample %s\nwant %s", got, want)
	}
}

func TestDFSTokenUsageErrors(t *testing.T) {
	t.Parallel()
	wantUsages(t, dfsToken(), []usageCase{
		{map[string]string{"method": "bfs"}, []string{"--method bfs", "path or coloring"}},
		{map[string]string{"objective": "mid"}, []string{"--objective mid", "max or min"}},
		{map[string]string{"initiators": "7"}, []string{"--initiators 7", "no process 7"}},
		{map[string]string{"ids": "1,1,2,3"}, []string{"--ids 1,1,2,3", "twice"}},
		{map[string]string{"topology": "hypercube"}, []string{"--topology hypercube", "allowed"}},
	})
}
