package specs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/topology"
)

// The kit of the elections on a general graph (sections 1.8 to 1.13:
// tree-election, floodmax, dfs-token, echo-election, adoption, waiting):
// their common parameters, reading the graph, and the readings of a state
// that several of them make. What a spec's section says stays in the
// spec's file.

// graphNParam is --n of an election on a graph.
var graphNParam = Param{Flag: "n", Default: "4", Usage: "number of processes (with an edge-list file, defaults to the file's)", Max: maxN}

// graphTopologyParam is --topology of an election on any connected graph,
// with def the default graph.
func graphTopologyParam(def string) Param {
	return Param{Flag: "topology", Default: def, Usage: "graph: ring, line, star, complete, grid, random:SEED:EDGES or an edge-list file"}
}

// waveParams are the parameters of the parallel echo elections
// (echo-election, adoption, waiting): the graph, the designated
// initiators, the IDs and the objective.
func waveParams() []Param {
	return []Param{
		graphNParam,
		graphTopologyParam("ring"),
		initiatorsParam("all"),
		{Flag: "ids", Default: "increasing", Usage: "IDs: increasing (process i has ID i), decreasing, a list such as 3,1,2, or all (every permutation of 1..N)"},
		objectiveParam,
	}
}

// parseGraphTopology reads --topology (default ring) and --n for an
// algorithm on a general graph. With an edge-list file and no --n, the file
// gives N. Errors wrap ErrUsage and keep the topology package's message,
// which names --topology and, for a file, the line.
func parseGraphTopology(p *Params) (topology.Graph, error) {
	value := p.String("topology")
	named := slices.Contains([]string{"ring", "line", "star", "complete", "grid"}, value) ||
		value == "random" || strings.HasPrefix(value, "random:")
	n := 0
	if named || p.Given("n") {
		var err error
		if n, err = p.Int("n", 1, maxN); err != nil {
			return topology.Graph{}, err
		}
	}
	g, err := topology.Parse(value, n)
	if err != nil {
		return topology.Graph{}, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if g.N > maxN {
		return topology.Graph{}, Usagef("topology", value, "the graph has %d nodes; allowed: at most %d", g.N, maxN)
	}
	p.Set("n", g.N)
	p.Set("topology", value)
	return g, nil
}

// graph is parseGraphTopology with a sticky error (Params.Err): the empty
// graph after an error.
func (p *Params) graph() topology.Graph {
	return sticky(p, func() (topology.Graph, error) { return parseGraphTopology(p) })
}

// either reads a flag of two values with a sticky error (Params.Err) and
// reports whether it is yes; any other value is an error naming both.
func (p *Params) either(flag, yes, no string) bool {
	return p.oneOf(flag, fmt.Sprintf("allowed: %s or %s", yes, no), yes, no) == yes
}

// procWhere returns the first process of v for which f holds, or -1.
func procWhere[S any, M automaton.Message](v *automaton.View[S, M], f func(p *S) bool) int {
	for i := 0; i < v.N(); i++ {
		if f(v.Proc(i)) {
			return i
		}
	}
	return -1
}

// everyProc reports whether f holds for every process of v.
func everyProc[S any, M automaton.Message](v *automaton.View[S, M], f func(p *S) bool) bool {
	return procWhere(v, func(p *S) bool { return !f(p) }) < 0
}

// bestID returns the best ID under obj among the processes of v for
// which id reports one, or 0 if there is none: the winner that a
// validity claim compares with (every process, or the actual initiators).
func bestID[S any, M automaton.Message](v *automaton.View[S, M], obj objective, id func(p *S) (int, bool)) int {
	best := 0
	for i := 0; i < v.N(); i++ {
		if u, ok := id(v.Proc(i)); ok && (best == 0 || obj.beats(u, best)) {
			best = u
		}
	}
	return best
}
