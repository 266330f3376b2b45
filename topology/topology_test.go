package topology

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// checkWellFormed verifies the invariants every Graph of this package has.
func checkWellFormed(t *testing.T, g Graph) {
	t.Helper()
	if len(g.Adj) != g.N {
		t.Fatalf("%v: len(Adj) = %d, want %d", g, len(g.Adj), g.N)
	}
	for i, nb := range g.Adj {
		if !slices.IsSorted(nb) || len(slices.Compact(slices.Clone(nb))) != len(nb) {
			t.Errorf("%v: Adj[%d] = %v not sorted or has duplicates", g, i, nb)
		}
		for p, j := range nb {
			if j == i || j < 0 || j >= g.N {
				t.Errorf("%v: Adj[%d] contains %d", g, i, j)
				continue
			}
			if g.Port(i, j) != p {
				t.Errorf("%v: Port(%d, %d) = %d, want %d", g, i, j, g.Port(i, j), p)
			}
			if g.Port(j, i) < 0 {
				t.Errorf("%v: edge %d-%d not symmetric", g, i, j)
			}
		}
	}
	es := g.Edges()
	if len(es) != g.NumEdges() {
		t.Errorf("%v: len(Edges()) = %d, NumEdges() = %d", g, len(es), g.NumEdges())
	}
	if !slices.IsSortedFunc(es, func(a, b [2]int) int {
		return slices.Compare(a[:], b[:])
	}) {
		t.Errorf("%v: Edges() not sorted: %v", g, es)
	}
	for _, e := range es {
		if e[0] >= e[1] {
			t.Errorf("%v: edge %v not ordered", g, e)
		}
	}
}

func TestConstructors(t *testing.T) {
	gridEdges := []int{0, 1, 2, 4, 5, 7, 8, 10} // n = 1..8, with ⌈√n⌉ columns
	for n := 1; n <= 8; n++ {
		ringEdges := n
		if n < 3 {
			ringEdges = n - 1
		}
		for _, c := range []struct {
			g     Graph
			name  string
			edges int
		}{
			{Ring(n), "ring", ringEdges},
			{Line(n), "line", n - 1},
			{Star(n), "star", n - 1},
			{Complete(n), "complete", n * (n - 1) / 2},
			{Grid(n), "grid", gridEdges[n-1]},
		} {
			t.Run(fmt.Sprintf("%s/%d", c.name, n), func(t *testing.T) {
				checkWellFormed(t, c.g)
				if c.g.N != n || c.g.Name != c.name {
					t.Errorf("got N=%d Name=%q, want %d %q", c.g.N, c.g.Name, n, c.name)
				}
				if got := c.g.NumEdges(); got != c.edges {
					t.Errorf("NumEdges() = %d, want %d", got, c.edges)
				}
				if !c.g.Connected() {
					t.Errorf("%v not connected", c.g)
				}
			})
		}
		for i, nb := range Grid(n).Adj {
			if len(nb) > 4 {
				t.Errorf("Grid(%d): process %d has degree %d", n, i+1, len(nb))
			}
		}
		for i := 1; i < n; i++ {
			if Star(n).Adj[i][0] != 0 {
				t.Errorf("Star(%d): leaf %d not attached to process 1", n, i+1)
			}
		}
	}
}

func TestConstructorsPanic(t *testing.T) {
	for name, f := range map[string]func(int) Graph{
		"Ring": Ring, "Line": Line, "Star": Star, "Complete": Complete, "Grid": Grid,
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s(0) did not panic", name)
				}
			}()
			f(0)
		}()
	}
}

func TestStringAndEdges(t *testing.T) {
	for _, c := range []struct {
		g    Graph
		want string
	}{
		{Ring(4), "ring N=4: 1-2 1-4 2-3 3-4"},
		{Ring(2), "ring N=2: 1-2"},
		{Line(1), "line N=1: no edges"},
		{Grid(7), "grid N=7: 1-2 1-4 2-3 2-5 3-6 4-5 4-7 5-6"},
	} {
		if got := c.g.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
	if got, want := Ring(4).Edges(), [][2]int{{0, 1}, {0, 3}, {1, 2}, {2, 3}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Ring(4).Edges() = %v, want %v", got, want)
	}
}

func TestPort(t *testing.T) {
	g := Star(4)
	for _, c := range []struct{ i, j, want int }{
		{0, 1, 0}, {0, 3, 2}, {3, 0, 0}, {1, 2, -1}, {1, 1, -1}, {-1, 0, -1}, {4, 0, -1}, {0, 9, -1},
	} {
		if got := g.Port(c.i, c.j); got != c.want {
			t.Errorf("Star(4).Port(%d, %d) = %d, want %d", c.i, c.j, got, c.want)
		}
	}
}

func TestDiameterConnectedIsTree(t *testing.T) {
	disconnected := Graph{N: 4, Name: "two edges", Adj: [][]int{{1}, {0}, {3}, {2}}}
	for _, c := range []struct {
		g         Graph
		diameter  int
		connected bool
		tree      bool
	}{
		{Line(1), 0, true, true},
		{Line(2), 1, true, true},
		{Line(6), 5, true, true},
		{Ring(2), 1, true, true},
		{Ring(3), 1, true, false},
		{Ring(6), 3, true, false},
		{Ring(7), 3, true, false},
		{Star(2), 1, true, true},
		{Star(6), 2, true, true},
		{Complete(5), 1, true, false},
		{Grid(4), 2, true, false},
		{Grid(7), 4, true, false},
		{Grid(9), 4, true, false},
		{disconnected, -1, false, false},
		{Graph{Name: "empty"}, -1, false, false},
	} {
		if got := c.g.Diameter(); got != c.diameter {
			t.Errorf("%v: Diameter() = %d, want %d", c.g, got, c.diameter)
		}
		if got := c.g.Connected(); got != c.connected {
			t.Errorf("%v: Connected() = %v, want %v", c.g, got, c.connected)
		}
		if got := c.g.IsTree(); got != c.tree {
			t.Errorf("%v: IsTree() = %v, want %v", c.g, got, c.tree)
		}
	}
}

func TestSplitMix64Reference(t *testing.T) {
	// Reference outputs of SplitMix64 seeded with 0.
	r := &splitMix64{}
	for _, want := range []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f} {
		if got := r.next(); got != want {
			t.Fatalf("next() = %#x, want %#x", got, want)
		}
	}
}

func TestRandomPinned(t *testing.T) {
	// These literals pin the generator: if they change, every published
	// random:SEED:EDGES topology changes with them.
	for _, c := range []struct {
		n     int
		seed  uint64
		edges int
		want  string
	}{
		{5, 42, 6, "random:42:6 N=5: 1-3 1-4 1-5 2-3 2-4 4-5"},
		{8, 1, 7, "random:1:7 N=8: 1-2 1-8 2-3 2-4 4-7 5-8 6-7"},
		{6, 7, 13, "random:7:13 N=6: 1-2 1-3 1-4 1-5 1-6 2-3 2-4 2-6 3-4 3-5 3-6 4-6 5-6"},
	} {
		g, err := Random(c.n, c.seed, c.edges)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.String(); got != c.want {
			t.Errorf("Random(%d, %d, %d) = %q, want %q", c.n, c.seed, c.edges, got, c.want)
		}
	}
}

func TestRandom(t *testing.T) {
	distinct := map[string]bool{}
	for n := 1; n <= 8; n++ {
		lo, hi := n-1, n*(n-1)/2
		for edges := lo; edges <= hi; edges++ {
			for seed := uint64(0); seed < 20; seed++ {
				g, err := Random(n, seed, edges)
				if err != nil {
					t.Fatalf("Random(%d, %d, %d): %v", n, seed, edges, err)
				}
				checkWellFormed(t, g)
				if g.N != n || g.NumEdges() != edges || !g.Connected() {
					t.Fatalf("Random(%d, %d, %d) = %v", n, seed, edges, g)
				}
				if edges == lo && !g.IsTree() {
					t.Errorf("Random(%d, %d, %d) is not a tree", n, seed, edges)
				}
				again, _ := Random(n, seed, edges)
				if !reflect.DeepEqual(g, again) {
					t.Fatalf("Random(%d, %d, %d) not deterministic: %v then %v", n, seed, edges, g, again)
				}
				if n == 6 && edges == 8 {
					distinct[g.String()] = true
				}
			}
		}
	}
	if len(distinct) < 10 {
		t.Errorf("20 seeds gave only %d distinct graphs on 6 nodes with 8 edges", len(distinct))
	}
	for _, c := range []struct{ n, edges int }{{5, 3}, {5, 11}, {1, 1}, {3, -1}} {
		if _, err := Random(c.n, 1, c.edges); !errors.Is(err, ErrEdgeCount) {
			t.Errorf("Random(%d, 1, %d) error = %v, want ErrEdgeCount", c.n, c.edges, err)
		}
	}
	if _, err := Random(0, 1, 0); !errors.Is(err, ErrBadSize) {
		t.Errorf("Random(0, 1, 0) error = %v, want ErrBadSize", err)
	}
}

// writeFile writes content to a file in a fresh temporary directory.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestParseFile(t *testing.T) {
	const square = "# a square with a diagonal\nnodes 4\n\n1 2\n2\t3 # trailing comment\n3,4\r\n4 , 1\n  1   3  \n"
	want := "1-2 1-3 1-4 2-3 3-4"
	path := writeFile(t, "square.txt", square)
	for _, n := range []int{4, 0} {
		g, err := ParseFile(path, n)
		if err != nil {
			t.Fatalf("ParseFile(n=%d): %v", n, err)
		}
		checkWellFormed(t, g)
		if g.N != 4 || g.Name != path || !strings.HasSuffix(g.String(), ": "+want) {
			t.Errorf("ParseFile(n=%d) = %v, want N=4 edges %s", n, g, want)
		}
	}
	// Without a directive, --n rules, and with n == 0 the largest node does.
	path = writeFile(t, "path.txt", "1 2\n3 2\n")
	if g, err := ParseFile(path, 0); err != nil || g.N != 3 || !g.IsTree() {
		t.Errorf("ParseFile(n=0) = %v, %v; want a path on 3 nodes", g, err)
	}
	if _, err := ParseFile(path, 4); !errors.Is(err, ErrNotConnected) {
		t.Errorf("ParseFile(n=4) error = %v, want ErrNotConnected", err)
	}
	// A single process needs no edges.
	path = writeFile(t, "one.txt", "# nothing\nnodes 1\n")
	if g, err := ParseFile(path, 0); err != nil || g.N != 1 || !g.Connected() {
		t.Errorf("ParseFile(one node) = %v, %v", g, err)
	}
}

func TestParseFileErrors(t *testing.T) {
	for _, c := range []struct {
		name, content string
		n             int
		sentinel      error
		want          string // expected suffix of the message after the file name
	}{
		{"words", "1 2\n2 x\n", 3, ErrSyntax, `:2: syntax error: "x" is not an integer`},
		{"three", "# c\n1 2 3\n", 3, ErrSyntax, `:2: syntax error: want two node numbers "a b", got "1 2 3"`},
		{"one", "1 2\n\n3\n", 3, ErrSyntax, `:3: syntax error: want two node numbers "a b", got "3"`},
		{"commas", "1,,2\n", 3, ErrSyntax, `:1: syntax error: want "a b" with at most one comma, got "1,,2"`},
		{"unknown", "1 2\n2 3\n3 9\n", 5, ErrUnknownNode, ":3: unknown node 9: --n is 5"},
		{"zero", "0 1\n", 2, ErrUnknownNode, ":1: unknown node 0: --n is 2"},
		{"zero-unset", "1 0\n", 0, ErrUnknownNode, ":1: unknown node 0: nodes are numbered from 1"},
		{"unknown-directive", "nodes 3\n1 4\n", 0, ErrUnknownNode, ":2: unknown node 4: nodes 3 on line 1"},
		{"self-loop", "1 2\n\n2 2\n", 2, ErrSelfLoop, ":3: self-loop 2-2"},
		{"duplicate", "1 2\n2 3\n# again\n2 1\n", 3, ErrDuplicateEdge, ":4: duplicate edge 2-1 (first on line 1)"},
		{"nodes-mismatch", "nodes 6\n1 2\n", 5, ErrNodeCount, ":1: node count mismatch: nodes 6 but --n is 5"},
		{"nodes-bad", "nodes x\n", 0, ErrBadSize, ":1: bad number of nodes: nodes x: want an integer between 1 and 65536"},
		{"nodes-late", "1 2\nnodes 2\n", 0, ErrSyntax, ":2: syntax error: nodes directive must come before the first edge"},
		{"nodes-twice", "nodes 2\nnodes 2\n", 0, ErrSyntax, ":2: syntax error: second nodes directive (first on line 1)"},
		{"nodes-arity", "nodes\n", 0, ErrSyntax, `:1: syntax error: want "nodes K", got "nodes"`},
		{"huge", "1 100000000\n", 0, ErrBadSize, ":1: bad number of nodes: node 100000000 exceeds the limit of 65536 nodes"},
		{"disconnected", "1 2\n3 4\n", 4, ErrNotConnected, ": not connected: node 3 is not reachable from node 1"},
		{"isolated", "nodes 3\n1 2\n", 0, ErrNotConnected, ": not connected: node 3 is not reachable from node 1"},
		{"empty", "# nothing\n", 0, ErrBadSize, ": bad number of nodes: no edges and no nodes directive, and --n is not set"},
		{"negative-n", "1 2\n", -1, ErrBadSize, ": bad number of nodes: --n must be 0 (unset) or between 1 and 65536, got -1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, c.name+".txt", c.content)
			_, err := ParseFile(path, c.n)
			if !errors.Is(err, c.sentinel) {
				t.Fatalf("error = %v, want %v", err, c.sentinel)
			}
			if got := err.Error(); got != path+c.want {
				t.Errorf("error = %q, want %q", got, path+c.want)
			}
		})
	}
	if _, err := ParseFile(filepath.Join(t.TempDir(), "missing.txt"), 3); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: error = %v, want os.ErrNotExist", err)
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		value string
		want  Graph
	}{
		{"ring", Ring(5)},
		{"line", Line(5)},
		{"star", Star(5)},
		{"complete", Complete(5)},
		{"grid", Grid(5)},
	} {
		g, err := Parse(c.value, 5)
		if err != nil || !reflect.DeepEqual(g, c.want) {
			t.Errorf("Parse(%q, 5) = %v, %v; want %v", c.value, g, err, c.want)
		}
	}
	g, err := Parse("random:42:6", 5)
	if want, _ := Random(5, 42, 6); err != nil || !reflect.DeepEqual(g, want) {
		t.Errorf("Parse(random:42:6, 5) = %v, %v; want %v", g, err, want)
	}
	path := writeFile(t, "tri.txt", "1 2\n2 3\n3 1\n")
	g, err = Parse(path, 3)
	if err != nil || g.Name != path || g.NumEdges() != 3 {
		t.Errorf("Parse(file, 3) = %v, %v", g, err)
	}
	if g, err = Parse(path, 0); err != nil || g.N != 3 {
		t.Errorf("Parse(file, 0) = %v, %v", g, err)
	}
}

func TestParseErrors(t *testing.T) {
	bad := writeFile(t, "bad.txt", "1 2\n2 9\n")
	for _, c := range []struct {
		value    string
		n        int
		sentinel error
		want     string
	}{
		{"hexagon", 5, nil, "invalid --topology hexagon: not a known name or an existing file; " + allowed},
		{"", 5, nil, "invalid --topology : empty value; " + allowed},
		{"ring", 0, ErrBadSize, "invalid --topology ring: bad number of nodes: --n must be between 1 and 65536, got 0"},
		{"random:1:4", 0, ErrBadSize, "invalid --topology random:1:4: bad number of nodes: --n must be between 1 and 65536, got 0"},
		{"random", 5, nil, "invalid --topology random: want random:SEED:EDGES"},
		{"random:1", 5, nil, "invalid --topology random:1: want random:SEED:EDGES"},
		{"random:1:2:3", 5, nil, "invalid --topology random:1:2:3: want random:SEED:EDGES"},
		{"random:x:5", 5, nil, "invalid --topology random:x:5: SEED must be a non-negative integer; want random:SEED:EDGES"},
		{"random:-1:5", 5, nil, "invalid --topology random:-1:5: SEED must be a non-negative integer; want random:SEED:EDGES"},
		{"random:1:x", 5, nil, "invalid --topology random:1:x: EDGES must be an integer between 4 and 10 for --n 5"},
		{"random:1:3", 5, ErrEdgeCount, "invalid --topology random:1:3: edge count out of range: EDGES must be an integer between 4 and 10 for --n 5"},
		{"random:1:11", 5, ErrEdgeCount, "invalid --topology random:1:11: edge count out of range: EDGES must be an integer between 4 and 10 for --n 5"},
		{bad, 5, ErrUnknownNode, "invalid --topology " + bad + ":2: unknown node 9: --n is 5"},
	} {
		_, err := Parse(c.value, c.n)
		if !errors.Is(err, ErrBadTopology) {
			t.Errorf("Parse(%q, %d) error = %v, want ErrBadTopology", c.value, c.n, err)
			continue
		}
		if c.sentinel != nil && !errors.Is(err, c.sentinel) {
			t.Errorf("Parse(%q, %d) error = %v, want %v", c.value, c.n, err, c.sentinel)
		}
		if err.Error() != c.want {
			t.Errorf("Parse(%q, %d) error = %q, want %q", c.value, c.n, err, c.want)
		}
	}
}
