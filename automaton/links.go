package automaton

import "strconv"

// Link builders beside Ring, BiRing, Complete and Undirected (system.go): the
// topologies of docs/algorithms/README.md as channel lists. For a graph read by
// the topology package (--topology), Undirected(g.Adj) gives both directions of
// every edge, in the order the adjacency lists give them.

// Star returns the links of a star: both directions between center and
// every other process (the central coordinator of docs/algorithms/central.md).
func Star(n, center int) []Link {
	var links []Link
	for i := 0; i < n; i++ {
		if i != center {
			links = append(links, Link{center, i}, Link{i, center})
		}
	}
	return links
}

// Tree returns the links of a rooted tree given by parent pointers
// (parent[root] = -1): both directions of every tree edge, child by child.
func Tree(parent []int) []Link {
	var links []Link
	for i, p := range parent {
		if p >= 0 {
			links = append(links, Link{p, i}, Link{i, p})
		}
	}
	return links
}

// Proc is a process number kept in a state variable or a message (a
// holder, a parent, a queue of waiting processes). Like every process index
// of the API it is 0-based, and like traces and error messages it prints
// 1-based, so that a stored number and the trace of the same process agree.
// NoProc is ⊥.
type Proc int

// NoProc is the undefined process ⊥.
const NoProc Proc = -1

// String returns p 1-based, or ⊥ for NoProc.
func (p Proc) String() string {
	if p < 0 {
		return "⊥"
	}
	return strconv.Itoa(int(p) + 1)
}
