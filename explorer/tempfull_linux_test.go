//go:build linux

package explorer_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// tempFullChild, set in the environment, makes TestLivenessWithFailing-
// TempFiles the child process that runs the check with files limited in
// size, as a full temporary directory would have them.
const tempFullChild = "VACHECK_TEST_TEMP_FULL"

// fan is 0 -> 1, ..., 0 -> n: n terminal states, all of them the goal;
// one level, whose fingerprints take 8n bytes in each temporary file.
func fan(n int) *liveGraph {
	g := &liveGraph{init: []int{0}, goal: func(s int) bool { return s > 0 }, edges: map[int][]edge{}}
	for i := 1; i <= n; i++ {
		g.edges[0] = append(g.edges[0], edge{i, 0, 1})
	}
	return g
}

// TestLivenessWithFailingTempFiles: when the temporary files that keep the
// state graph out of memory cannot be written (a full disk; here a file
// size limit of 64 KiB, RLIMIT_FSIZE, in a child process), the graph is
// built again in memory and the run ends with its verdicts, for the
// recorded graph (BFS) and the one built after the search (DFS). Before,
// the run failed as "ERROR in the model", without the reason, and with
// every verdict unknown, the safety ones included.
func TestLivenessWithFailingTempFiles(t *testing.T) {
	if os.Getenv(tempFullChild) != "" {
		limit := uint64(64 << 10)
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
			t.Fatal(err)
		}
		out := map[string]any{}
		for _, cfg := range []explorer.Config{{Strategy: explorer.BFS, Workers: 2}, {Strategy: explorer.DFS}} {
			cfg.Metrics = []string{"messages"}
			r, err := explorer.Check(fan(20000), cfg)
			if err != nil {
				t.Fatal(err)
			}
			verdicts := map[string]string{}
			for _, p := range r.Properties {
				verdicts[p.Name] = p.Verdict.String()
			}
			out[cfg.Strategy.String()] = map[string]any{"status": r.Status.String(), "reason": r.Reason, "verdicts": verdicts,
				"metrics": len(r.Metrics), "graph": r.Graph != nil}
		}
		b, _ := json.Marshal(out)
		fmt.Printf("RESULT %s\n", b)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLivenessWithFailingTempFiles$", "-test.count=1")
	cmd.Env = append(os.Environ(), tempFullChild+"=1", "TMPDIR="+t.TempDir())
	raw, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, raw)
	}
	_, line, ok := strings.Cut(string(raw), "RESULT ")
	if !ok {
		t.Fatalf("child said:\n%s", raw)
	}
	line, _, _ = strings.Cut(line, "\n")
	var got map[string]struct {
		Status   string
		Reason   string
		Verdicts map[string]string
		Metrics  int
		Graph    bool
	}
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatal(err)
	}
	for _, st := range []string{"bfs", "dfs"} {
		r := got[st]
		if r.Status != "ok" || r.Verdicts["goal"] != "holds" || r.Verdicts["deadlock-freedom"] != "holds" || r.Metrics != 1 || !r.Graph {
			t.Errorf("%s with temporary files limited to 64 KiB: %+v; want ok, goal and deadlock-freedom hold, the metric", st, r)
		}
	}
}
