// Package topology builds and validates the communication graphs on which
// vacheck runs algorithms for general networks (docs/properties.md).
//
// A Graph is an undirected simple graph on processes 0..N-1. Internally
// processes are numbered from 0; users see them numbered from 1, in edge-list
// files, in the --topology flag and in every error message and String result.
//
// The neighbours of a process, in ascending order, are its ports: port p of
// process i is the link to Adj[i][p]. Algorithms that address neighbours by
// port (docs/properties.md) therefore see the same numbering on every run.
package topology

import (
	"fmt"
	"slices"
	"strings"
)

// MaxNodes is the largest number of processes that Parse and ParseFile accept.
// It guards against a typo in a file or flag allocating a huge graph.
const MaxNodes = 1 << 16

// Graph is an undirected simple graph on processes 0..N-1.
//
// Adj[i] lists the neighbours of i in ascending order without duplicates; its
// order defines the ports of i. Graphs built by this package are symmetric
// (j is in Adj[i] exactly when i is in Adj[j]) and have no self-loops.
type Graph struct {
	N    int
	Name string
	Adj  [][]int
}

// Edges returns every edge once as {a, b} with a < b, sorted
// lexicographically. Process numbers are 0-based.
func (g Graph) Edges() [][2]int {
	var es [][2]int
	for a, nb := range g.Adj {
		for _, b := range nb {
			if a < b {
				es = append(es, [2]int{a, b})
			}
		}
	}
	return es
}

// NumEdges returns the number of edges of g.
func (g Graph) NumEdges() int {
	m := 0
	for _, nb := range g.Adj {
		m += len(nb)
	}
	return m / 2
}

// Port returns the port of process i that leads to process j, or -1 if i and
// j are not adjacent or either is out of range.
func (g Graph) Port(i, j int) int {
	if i < 0 || i >= len(g.Adj) {
		return -1
	}
	p, ok := slices.BinarySearch(g.Adj[i], j)
	if !ok {
		return -1
	}
	return p
}

// bfs returns the distance from src to every process, -1 for unreachable ones.
func (g Graph) bfs(src int) []int {
	dist := make([]int, g.N)
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	queue := []int{src}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, v := range g.Adj[u] {
			if dist[v] < 0 {
				dist[v] = dist[u] + 1
				queue = append(queue, v)
			}
		}
	}
	return dist
}

// unreachable returns the smallest process not reachable from process 0, or
// -1 if every process is reachable. g.N must be at least 1.
func (g Graph) unreachable() int {
	return slices.Index(g.bfs(0), -1)
}

// Connected reports whether every process can reach every other one. The
// graph with no processes is not connected.
func (g Graph) Connected() bool {
	return g.N > 0 && g.unreachable() < 0
}

// Diameter returns the largest distance, in hops, between two processes, or
// -1 if g is not connected. A single process has diameter 0.
func (g Graph) Diameter() int {
	if !g.Connected() {
		return -1
	}
	d := 0
	for i := range g.N {
		d = max(d, slices.Max(g.bfs(i)))
	}
	return d
}

// IsTree reports whether g is connected and acyclic (N-1 edges).
func (g Graph) IsTree() bool {
	return g.Connected() && g.NumEdges() == g.N-1
}

// String returns the name, the number of processes and the edge list with
// 1-based process numbers, for example "ring N=3: 1-2 1-3 2-3".
func (g Graph) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s N=%d:", g.Name, g.N)
	es := g.Edges()
	if len(es) == 0 {
		b.WriteString(" no edges")
	}
	for _, e := range es {
		fmt.Fprintf(&b, " %d-%d", e[0]+1, e[1]+1)
	}
	return b.String()
}

// build returns the graph on n processes with the given 0-based edges, which
// must be in range, free of self-loops and distinct.
func build(n int, name string, edges [][2]int) Graph {
	adj := make([][]int, n)
	for _, e := range edges {
		adj[e[0]] = append(adj[e[0]], e[1])
		adj[e[1]] = append(adj[e[1]], e[0])
	}
	for i := range adj {
		if adj[i] == nil {
			adj[i] = []int{}
		}
		slices.Sort(adj[i])
	}
	return Graph{N: n, Name: name, Adj: adj}
}

func mustPositive(fn string, n int) {
	if n < 1 {
		panic(fmt.Sprintf("topology.%s: n must be at least 1, got %d", fn, n))
	}
}

// Ring returns the cycle 1-2-...-n-1. For n = 2 it is the single edge 1-2
// (a simple graph cannot hold the two distinct links of a two-process ring),
// and for n = 1 it has no edges. Ring panics if n < 1.
func Ring(n int) Graph {
	mustPositive("Ring", n)
	var es [][2]int
	for i := 0; i+1 < n; i++ {
		es = append(es, [2]int{i, i + 1})
	}
	if n >= 3 {
		es = append(es, [2]int{0, n - 1})
	}
	return build(n, "ring", es)
}

// Line returns the path 1-2-...-n. Line panics if n < 1.
func Line(n int) Graph {
	mustPositive("Line", n)
	var es [][2]int
	for i := 0; i+1 < n; i++ {
		es = append(es, [2]int{i, i + 1})
	}
	return build(n, "line", es)
}

// Star returns the star whose centre is process 1 (index 0) and whose leaves
// are processes 2..n. Star panics if n < 1.
func Star(n int) Graph {
	mustPositive("Star", n)
	var es [][2]int
	for i := 1; i < n; i++ {
		es = append(es, [2]int{0, i})
	}
	return build(n, "star", es)
}

// Complete returns the complete graph on n processes. Complete panics if
// n < 1.
func Complete(n int) Graph {
	mustPositive("Complete", n)
	var es [][2]int
	for a := range n {
		for b := a + 1; b < n; b++ {
			es = append(es, [2]int{a, b})
		}
	}
	return build(n, "complete", es)
}

// gridColumns returns the number of columns Grid uses for n processes: the
// smallest c with c*c >= n.
func gridColumns(n int) int {
	c := 0
	for c*c < n {
		c++
	}
	return c
}

// Grid returns the grid with ⌈√n⌉ columns, filled row by row
// (process 1 top left), with an edge between horizontal and vertical
// neighbours. The last row may be partial; it is filled from the left, so
// every process in it has a neighbour above and the grid is connected.
// Grid panics if n < 1.
func Grid(n int) Graph {
	mustPositive("Grid", n)
	c := gridColumns(n)
	var es [][2]int
	for i := range n {
		if (i+1)%c != 0 && i+1 < n {
			es = append(es, [2]int{i, i + 1})
		}
		if i+c < n {
			es = append(es, [2]int{i, i + c})
		}
	}
	return build(n, "grid", es)
}
