package stategraph_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/specs"
	"github.com/vacheck/vacheck/stategraph"
)

func build(t *testing.T, spec string, flags map[string]string) explorer.Model {
	t.Helper()
	s, err := specs.Lookup(spec)
	if err != nil {
		t.Fatal(err)
	}
	p, err := specs.NewParams(s, flags)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Build(p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestBuildCountsAsCheck: the graph has the states, transitions and
// terminal states the exhaustive check counts (chang-roberts --n 3:
// 39/76/1 with --ids increasing, 282/558/6 with every arrangement, the
// figures `vacheck check` prints), and the check's own figures agree.
func TestBuildCountsAsCheck(t *testing.T) {
	for _, c := range []struct {
		ids                 string
		states, edges, term int
		initial             int
	}{
		{"increasing", 39, 76, 1, 1},
		{"all", 282, 558, 6, 6},
	} {
		m := build(t, "chang-roberts", map[string]string{"n": "3", "ids": c.ids})
		g, err := stategraph.Build(context.Background(), m, stategraph.Options{})
		if err != nil {
			t.Fatal(err)
		}
		term, init := 0, 0
		for _, n := range g.Nodes {
			if n.Terminal {
				term++
			}
			if n.Initial >= 0 {
				init++
			}
			if n.Bad() {
				t.Errorf("ids %s: state %d is marked bad in a correct spec: %+v", c.ids, n.ID, n)
			}
		}
		if len(g.Nodes) != c.states || len(g.Edges) != c.edges || term != c.term || init != c.initial {
			t.Errorf("ids %s: %d states, %d edges, %d terminal, %d initial; want %d, %d, %d, %d",
				c.ids, len(g.Nodes), len(g.Edges), term, init, c.states, c.edges, c.term, c.initial)
		}
		res, err := explorer.Check(m, explorer.Config{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if res.States != int64(len(g.Nodes)) || res.Transitions != int64(len(g.Edges)) || res.Terminal != int64(term) {
			t.Errorf("ids %s: check counts %d/%d/%d, the graph %d/%d/%d", c.ids, res.States, res.Transitions, res.Terminal, len(g.Nodes), len(g.Edges), term)
		}
	}
}

// TestPathToReplays: the path PathTo gives for every node replays, by the
// explorer's own Replay, to that node's state, and is a shortest one (its
// length is the node's depth).
func TestPathToReplays(t *testing.T) {
	m := build(t, "chang-roberts", map[string]string{"n": "3", "ids": "all"})
	g, err := stategraph.Build(context.Background(), m, stategraph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range g.Nodes {
		init, path := g.PathTo(n.ID)
		if len(path) != n.Depth {
			t.Fatalf("node %d: path of %d steps, depth %d", n.ID, len(path), n.Depth)
		}
		acts := make([]uint32, len(path))
		for i, a := range path {
			acts[i] = uint32(a)
		}
		tr, err := explorer.Replay(m, init, acts, nil)
		if err != nil {
			t.Fatal(err)
		}
		last := tr.InitialState
		if len(tr.Steps) > 0 {
			last = tr.Steps[len(tr.Steps)-1].State
		}
		if !reflect.DeepEqual(last, n.Vars) {
			t.Fatalf("node %d: the path leads to %v, the node is %v", n.ID, last, n.Vars)
		}
	}
}

// TestTooLarge: a graph past the limit is refused with its exact size
// (maekawa-basic --n 3 has 6,179 states, as `check --continue` counts),
// or with "more than" when counting stops.
func TestTooLarge(t *testing.T) {
	m := build(t, "maekawa-basic", map[string]string{"n": "3"})
	_, err := stategraph.Build(context.Background(), m, stategraph.Options{MaxStates: 300})
	var tl *stategraph.TooLargeError
	if !errors.As(err, &tl) || !errors.Is(err, stategraph.ErrTooLarge) {
		t.Fatalf("err %v, want a TooLargeError", err)
	}
	if !tl.Exact || tl.States != 6179 || tl.MaxStates != 300 {
		t.Errorf("%+v, want exactly 6179 states over 300", tl)
	}
	if !strings.Contains(err.Error(), "6179 states") {
		t.Errorf("the error does not say how many states: %v", err)
	}
	_, err = stategraph.Build(context.Background(), m, stategraph.Options{MaxStates: 10, CountUpTo: 1000})
	if !errors.As(err, &tl) || tl.Exact || tl.States != 1000 || !strings.Contains(err.Error(), "more than 1000") {
		t.Errorf("counting stopped at 1000: got %v", err)
	}
	// Too many initial states alone.
	m = build(t, "chang-roberts", map[string]string{"n": "4", "ids": "all"})
	if _, err = stategraph.Build(context.Background(), m, stategraph.Options{MaxStates: 5}); !errors.As(err, &tl) || tl.States != 4308 {
		t.Errorf("chang-roberts --n 4 over 5 states: %v, want 4308 states", err)
	}
}

// TestCancel: a cancelled context stops Build.
func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := build(t, "chang-roberts", map[string]string{"n": "3"})
	if _, err := stategraph.Build(ctx, m, stategraph.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
}

// toy is a hand-written model: a counter 0..4 that may go up by one or
// jump to 4; 3 violates the invariant "small" (x < 3), 4 is terminal and
// a valid end, and 2 may also step to a dead end (5) that is not.
type toy struct{}

func (toy) Initial() ([][]byte, error) { return [][]byte{{0}}, nil }
func (toy) Properties() []properties.Info {
	return []properties.Info{{Name: "small", Kind: properties.Invariant, Doc: "x < 3 \"quoted\" <b>"}}
}
func (toy) NewWorker() explorer.Worker { return toyWorker{} }
func (toy) Describe(s []byte) ([]explorer.Var, error) {
	return []explorer.Var{{Name: "x", Value: int(s[0])}, {Name: "note", Value: `a "b" <c> & d`}}, nil
}
func (toy) Label(s []byte, a int) (string, error) {
	return []string{"inc", "jump", "die"}[a], nil
}

type toyWorker struct{}

func (w toyWorker) Expand(s []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	return explorer.ExpandBySuccessors(w, s, x)
}
func (toyWorker) Successors(s []byte, emit func(explorer.Transition, []byte)) (int, error) {
	x := s[0]
	if x >= 4 {
		return 0, nil
	}
	emit(explorer.Transition{}, []byte{x + 1})
	emit(explorer.Transition{}, []byte{4})
	n := 2
	if x == 2 {
		emit(explorer.Transition{}, []byte{5})
		n++
	}
	return n, nil
}
func (toyWorker) Check(s []byte, want uint64) (uint64, error) {
	if s[0] == 3 && want&1 != 0 {
		return 1, nil
	}
	return 0, nil
}
func (toyWorker) ValidEnd(s []byte) (bool, error) { return s[0] == 4, nil }

// TestMarks: initial, terminal, deadlocked and violating states are
// marked in the graph, the DOT and the SVG, and every text is escaped.
func TestMarks(t *testing.T) {
	g, err := stategraph.Build(context.Background(), toy{}, stategraph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// BFS from 0: 0; 1, 4; 2; 3, 5.
	want := []struct {
		x               int
		init, term, dl  bool
		violated        string
		depth, parent   int
		parentAct, edge int
	}{
		{0, true, false, false, "", 0, -1, -1, 2},
		{1, false, false, false, "", 1, 0, 0, 2},
		{4, false, true, false, "", 1, 0, 1, 0},
		{2, false, false, false, "", 2, 1, 0, 3},
		{3, false, false, false, "small", 3, 3, 0, 2},
		{5, false, true, true, "", 3, 3, 2, 0},
	}
	if len(g.Nodes) != len(want) || len(g.Edges) != 9 {
		t.Fatalf("%d nodes, %d edges; want 6 and 9", len(g.Nodes), len(g.Edges))
	}
	for i, w := range want {
		n := g.Nodes[i]
		if n.Vars[0].Value != w.x || (n.Initial == 0) != w.init || n.Terminal != w.term || n.Deadlock != w.dl ||
			strings.Join(n.Violated, ",") != w.violated || n.Depth != w.depth || n.Parent != w.parent || n.Action != w.parentAct {
			t.Errorf("node %d: %+v, want %+v", i, n, w)
		}
	}
	if id, ok := g.Find([]byte{3}); !ok || id != 4 {
		t.Errorf("Find(3) = %d, %v; want node 4", id, ok)
	}
	if _, ok := g.Find([]byte{9}); ok {
		t.Error("Find of a state not in the graph")
	}

	var dot bytes.Buffer
	if err := g.DOT(&dot, "toy \"x\""); err != nil {
		t.Fatal(err)
	}
	d := dot.String()
	for _, w := range []string{`digraph "toy \"x\""`, `s0 [label="0\lx = 0\lnote = a \"b\" <c> & d\l"`, `style="rounded,bold"`,
		`s2 [label="2\lx = 4`, `peripheries=2`, `s0 -> s1 [label="inc"]`, `s3 -> s5 [label="die"]`, `VIOLATES small`, `DEADLOCK`} {
		if !strings.Contains(d, w) {
			t.Errorf("the DOT lacks %q:\n%s", w, d)
		}
	}
	if n := strings.Count(d, "fillcolor"); n != 2 {
		t.Errorf("%d states filled red, want 2 (the violation and the deadlock)", n)
	}

	var svg bytes.Buffer
	if err := g.SVG(&svg, "toy <&>"); err != nil {
		t.Fatal(err)
	}
	s := svg.String()
	nodes, err := parseSVG(s)
	if err != nil {
		t.Fatalf("the SVG is not well-formed XML: %v\n%s", err, s)
	}
	wantClass := map[string]string{"0": "node initial", "2": "node terminal", "4": "node bad", "5": "node terminal bad", "1": "node", "3": "node"}
	for id, cls := range wantClass {
		if nodes[id] != cls {
			t.Errorf("SVG node %s has class %q, want %q", id, nodes[id], cls)
		}
	}
	if strings.Contains(s, "<c>") || strings.Contains(s, "toy <&>") {
		t.Error("a value reached the SVG unescaped")
	}
	if n := len(regexp.MustCompile(`<path class="edge[^"]*" data-from`).FindAllString(s, -1)); n != 9 {
		t.Errorf("%d edges drawn, want 9", n)
	}
}

// parseSVG checks that s is well-formed XML and returns the class of each
// node group by its data-node.
func parseSVG(s string) (map[string]string, error) {
	dec := xml.NewDecoder(strings.NewReader(s))
	out := map[string]string{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "g" {
			var id, cls string
			for _, a := range se.Attr {
				switch a.Name.Local {
				case "data-node":
					id = a.Value
				case "class":
					cls = a.Value
				}
			}
			if id != "" {
				out[id] = cls
			}
		}
	}
}

// TestLayoutLevels: the SVG layout puts each breadth-first level on its
// own row, top down, and no two nodes on the same spot.
func TestLayoutLevels(t *testing.T) {
	m := build(t, "chang-roberts", map[string]string{"n": "3", "ids": "all"})
	g, err := stategraph.Build(context.Background(), m, stategraph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, y, w, h := g.Layout()
	seen := map[[2]int]int{}
	for _, n := range g.Nodes {
		if at, dup := seen[[2]int{x[n.ID], y[n.ID]}]; dup {
			t.Fatalf("nodes %d and %d on the same spot", at, n.ID)
		}
		seen[[2]int{x[n.ID], y[n.ID]}] = n.ID
		if x[n.ID] < 0 || x[n.ID] > w || y[n.ID] < 0 || y[n.ID] > h {
			t.Fatalf("node %d at %d,%d outside %dx%d", n.ID, x[n.ID], y[n.ID], w, h)
		}
		for _, o := range g.Nodes {
			if (o.Depth < n.Depth) != (y[o.ID] < y[n.ID]) && o.Depth != n.Depth {
				t.Fatalf("nodes %d (depth %d) and %d (depth %d) are not in level order", o.ID, o.Depth, n.ID, n.Depth)
			}
		}
	}
}
