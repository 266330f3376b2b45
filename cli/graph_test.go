package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGraphCommand: `vacheck graph` writes DOT or SVG of a tiny
// instance, refuses a large one with exit 3 and its size, writing
// nothing, and bad flags with exit 2.
func TestGraphCommand(t *testing.T) {
	t.Parallel()
	code, out, stderr := vacheck("graph", "chang-roberts", "--n", "3", "--ids", "increasing")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"digraph \"chang-roberts --capacity 3 --channels fifo --ids increasing --n 3 --objective max\"",
		"39 states (1 initial, 1 terminal, 0 deadlocked, 0 violating a property), 76 transitions", `s0 -> s1 [label="send(1)_{1,2}"]`} {
		if !strings.Contains(out, w) {
			t.Errorf("the DOT lacks %q", w)
		}
	}
	file := filepath.Join(t.TempDir(), "g.svg")
	if code, _, stderr := vacheck("graph", "--format", "svg", "chang-roberts", "--n", "3", "-o", file); code != exitOK || !strings.Contains(stderr, "282 states and 558 transitions") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if data, err := os.ReadFile(file); err != nil || !strings.HasPrefix(string(data), "<svg") || strings.Count(string(data), "data-node=") != 282 {
		t.Errorf("the SVG file: %v, %d nodes", err, strings.Count(string(data), "data-node="))
	}

	// Too large: exit 3, the count, nothing written.
	big := filepath.Join(t.TempDir(), "big.dot")
	code, out, stderr = vacheck("graph", "maekawa-basic", "--n", "3", "-o", big)
	if code != exitIncomplete || out != "" || !strings.Contains(stderr, "6179 states, more than the limit of 300") || !strings.Contains(stderr, "nothing written") {
		t.Errorf("too large: exit %d, stdout %q, stderr %s", code, out, stderr)
	}
	if _, err := os.Stat(big); !os.IsNotExist(err) {
		t.Errorf("a refused graph left %s", big)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"graph", "chang-roberts", "--format", "png"}, `--format "png": allowed values are dot and svg`},
		{[]string{"graph", "chang-roberts", "--max-states", "0"}, `--max-states "0": a whole number from 1 to 5000`},
		{[]string{"graph", "chang-roberts", "--max-states", "99999"}, "a larger picture is unreadable"},
		{[]string{"graph", "chang-robert"}, `unknown spec "chang-robert"`},
		{[]string{"graph"}, "graph takes one SPEC"},
		{[]string{"graph", "chang-roberts", "--n", "0"}, "--n 0"},
		{[]string{"graph", "chang-roberts", "--n", "3", "-o", filepath.Join(t.TempDir(), "no", "such", "dir.dot")}, "--output"},
	} {
		code, _, stderr := vacheck(c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
