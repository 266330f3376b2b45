package specs

import (
	"fmt"
	"slices"
	"testing"

	"github.com/vacheck/vacheck/topology"
)

// graphShapes are graphs of every kind the topology package builds, small
// enough to check every run from one initiator: the instances of the
// single-initiator message tests of the parallel echo elections.
var graphShapes = []struct {
	n        int
	topology string
}{
	{1, "ring"}, {2, "line"}, {3, "line"}, {4, "ring"}, {4, "complete"}, {5, "star"},
	{5, "grid"}, {5, "random:1:6"}, {5, "random:2:5"}, {6, "random:7:9"},
}

// checkSingleInitiator2E checks "a single initiator: exactly 2E messages"
// (docs/algorithms/echo-election.md, adoption.md) for spec on every graph
// of graphShapes: every edge carries two explorers, or an explorer and an
// echo, in every run, whether the initiator is the weakest process or the
// strongest. flags are added to every instance (an objective).
func checkSingleInitiator2E(t *testing.T, spec func() Spec, flags map[string]string) {
	for _, tt := range graphShapes {
		g, err := topology.Parse(tt.topology, tt.n)
		if err != nil {
			t.Fatal(err)
		}
		for _, init := range []string{"one", fmt.Sprint(tt.n)} {
			t.Run(fmt.Sprintf("n=%d/topology=%s/initiators=%s", tt.n, tt.topology, init), func(t *testing.T) {
				given := map[string]string{"n": fmt.Sprint(tt.n), "topology": tt.topology, "initiators": init}
				for k, v := range flags {
					given[k] = v
				}
				m := buildSpec(t, spec(), given)
				lo, hi := messageRange(t, m)
				if want := 2 * g.NumEdges(); lo != want || hi != want {
					t.Errorf("%v: messages %d…%d, want exactly 2E = %d", flags, lo, hi, want)
				}
			})
		}
	}
}

// refGraph returns the graph of p's --topology and --n and the ID
// arrangements of its --ids, as the specs read them, for the reference
// model of an election on a graph.
func refGraph(t testing.TB, p *Params) (topology.Graph, [][]int) {
	t.Helper()
	g, err := parseGraphTopology(p)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := parseIDs(p, g.N)
	if err != nil {
		t.Fatal(err)
	}
	return g, slices.Collect(ids.each)
}

// refInitiators returns the initiator sets of p's --initiators for n
// processes, as the specs read them, for a reference model.
func refInitiators(t testing.TB, p *Params, n int) [][]bool {
	t.Helper()
	sets, err := parseInitiators(p, n)
	if err != nil {
		t.Fatal(err)
	}
	return slices.Collect(sets.each)
}

// usageCase is a set of bad parameters and what its usage error must say.
type usageCase struct {
	flags map[string]string
	want  []string
}

// wantUsages builds s with the flags of every case and checks that the
// build fails with a usage error that says what the case wants
// (wantUsage).
func wantUsages(t *testing.T, s Spec, cases []usageCase) {
	t.Helper()
	for _, c := range cases {
		wantUsage(t, buildErr(s, c.flags), c.flags, c.want...)
	}
}

// TestParamsEither checks the kit's reader of a two-valued flag: the
// value read is recorded, another value is a usage error naming the flag,
// the value and both allowed values, and once Params has an error the next
// sticky reads return zero values and keep the first error.
func TestParamsEither(t *testing.T) {
	t.Parallel()
	params := func(given map[string]string) *Params {
		p, err := NewParams(dfsToken(), given)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := params(map[string]string{"method": "coloring"})
	if path := p.either("method", "path", "coloring"); path || p.Err() != nil {
		t.Errorf("--method coloring: path %v, error %v; want false, nil", path, p.Err())
	}
	if got := p.Canonical()["method"]; got != "coloring" {
		t.Errorf("canonical --method %v, want coloring", got)
	}
	p = params(map[string]string{"method": "bfs", "objective": "mid"})
	if path := p.either("method", "path", "coloring"); path {
		t.Error("--method bfs: path true, want false")
	}
	first := p.Err()
	wantUsage(t, first, nil, "--method bfs: allowed: path or coloring")
	if obj := p.objective(); obj != 0 || p.Err() != first {
		t.Errorf("after an error: objective %v, error %v; want the zero value and the first error", obj, p.Err())
	}
	if g := p.graph(); g.N != 0 || p.Err() != first {
		t.Errorf("after an error: a graph of %d nodes, error %v; want none and the first error", g.N, p.Err())
	}
}

// TestGraphSpecsReportFirstBadFlag: the graph elections and bully read
// their flags with sticky errors in the order each Build read them before
// it shared the kit, so that of several bad flags the same one is reported.
func TestGraphSpecsReportFirstBadFlag(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		spec  string
		cases []usageCase
	}{
		{"adoption", []usageCase{
			{map[string]string{"topology": "hypercube", "initiators": "x"}, []string{"--topology hypercube"}},
			{map[string]string{"initiators": "9", "ids": "x"}, []string{"--initiators 9"}},
			{map[string]string{"ids": "x", "objective": "x"}, []string{"--ids x"}},
			{map[string]string{"objective": "x", "channels": "x"}, []string{"--objective x"}},
		}},
		{"echo-election", []usageCase{
			{map[string]string{"n": "0", "initiators": "x"}, []string{"--n 0"}},
			{map[string]string{"initiators": "x", "ids": "x"}, []string{"--initiators x"}},
		}},
		{"waiting", []usageCase{
			{map[string]string{"ids": "5,5", "objective": "x"}, []string{"--ids 5,5"}},
			{map[string]string{"objective": "x", "capacity": "0"}, []string{"--objective x"}},
		}},
		{"dfs-token", []usageCase{
			{map[string]string{"topology": "hypercube", "method": "bfs"}, []string{"--topology hypercube"}},
			{map[string]string{"method": "bfs", "objective": "mid"}, []string{"--method bfs: allowed: path or coloring"}},
			{map[string]string{"objective": "mid", "initiators": "7"}, []string{"--objective mid"}},
			{map[string]string{"initiators": "7", "ids": "1,1"}, []string{"--initiators 7"}},
		}},
		{"tree-election", []usageCase{
			{map[string]string{"topology": "ring", "info": "yes"}, []string{"not a tree"}},
			{map[string]string{"info": "yes", "wakeup": "x"}, []string{"--info yes: allowed: on or off"}},
			{map[string]string{"wakeup": "x", "objective": "x"}, []string{"--wakeup x: allowed: flood or assumed"}},
			{map[string]string{"objective": "x", "initiators": "9"}, []string{"--objective x"}},
			{map[string]string{"wakeup": "assumed", "initiators": "one", "ids": "1,1"}, []string{"--initiators one"}},
			{map[string]string{"initiators": "9", "ids": "x"}, []string{"--initiators 9"}},
		}},
		{"floodmax", []usageCase{
			{map[string]string{"diameter": "two", "objective": "x"}, []string{"--diameter two"}},
			{map[string]string{"objective": "x", "ids": "x"}, []string{"--objective x"}},
			{map[string]string{"ids": "1,1", "capacity": "0"}, []string{"--ids 1,1"}},
		}},
		{"bully", []usageCase{
			{map[string]string{"n": "0", "crashes": "9"}, []string{"--n 0"}},
			{map[string]string{"crashes": "0", "recoveries": "1", "accept": "never"}, []string{"--recoveries 1"}},
			{map[string]string{"answer-timeout": "lazy", "accept": "never"}, []string{"--answer-timeout lazy"}},
			{map[string]string{"start": "never", "detectors": "9"}, []string{"--start never"}},
			{map[string]string{"timeouts": "sometimes", "premature": "3"}, []string{"--timeouts sometimes"}},
			{map[string]string{"timeouts": "unrestricted", "premature": "99", "channels": "lossy"}, []string{"--premature 99"}},
		}},
	} {
		s, err := Lookup(tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		wantUsages(t, s, tt.cases)
	}
}
