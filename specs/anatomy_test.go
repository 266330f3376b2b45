package specs

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
)

// TestParamsSticky: the sticky methods keep the first error, exactly the
// error of the method that returns it, and read nothing after it.
func TestParamsSticky(t *testing.T) {
	t.Parallel()
	flags := map[string]string{"n": "3", "ids": "1,1,2", "objective": "mid", "channels": "lossy"}
	p, err := NewParams(changRoberts(), flags)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := NewParams(changRoberts(), flags)
	if _, want := parseIDs(q, 3); want == nil {
		t.Fatal("--ids 1,1,2 accepted")
	} else {
		n := p.IntFlag("n", 1, maxN)
		idsets, obj := p.ids(n), p.objective()
		disc, capacity := p.ChannelFlags(channel.FIFO, n)
		p.Fail(errors.New("later"))
		if n != 3 || idsets.each != nil || obj != 0 || disc != 0 || capacity != 0 {
			t.Errorf("values %d %v %v %v %d", n, idsets, obj, disc, capacity)
		}
		if p.Err() == nil || p.Err().Error() != want.Error() || !errors.Is(p.Err(), ErrUsage) {
			t.Errorf("Err() = %v, want %v", p.Err(), want)
		}
	}
	for _, flag := range []string{"objective", "channels", "capacity"} {
		if _, ok := p.Canonical()[flag]; ok {
			t.Errorf("--%s read after the error: %v", flag, p.Canonical())
		}
	}
	p, _ = NewParams(changRoberts(), nil)
	if p.Fail(nil); p.IntFlag("n", 1, maxN) != 5 || p.Err() != nil {
		t.Errorf("defaults: %v", p.Err())
	}
}

// TestBuildReportsTheFirstError: a Build that reads its parameters with
// the sticky methods reports the error of the first bad one, in the order
// the parameters were read before (--n, --ids, --initiators, --objective,
// --channels, --capacity).
func TestBuildReportsTheFirstError(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		spec  string
		flags map[string]string
		want  string
	}{
		{"chang-roberts", map[string]string{"n": "x", "ids": "1,1", "objective": "mid", "channels": "lossy"}, `--n "x": not an integer`},
		{"chang-roberts-broken", map[string]string{"ids": "1,1", "objective": "mid"}, "--ids 1,1: ID 1 appears twice"},
		{"chang-roberts", map[string]string{"objective": "mid", "channels": "lossy"}, "--objective mid: allowed: max or min"},
		{"lelann", map[string]string{"initiators": "9", "objective": "mid"}, "--initiators 9: there is no process 9 with --n 4"},
		{"lelann-broken", map[string]string{"channels": "fifo", "capacity": "0"}, "--capacity 0: out of range for lelann-broken"},
		{"raymond", map[string]string{"topology": "ring", "requesters": "x"}, "--topology ring: ring is not a tree"},
		{"raymond-broken", map[string]string{"requests": "9", "requesters": "x"}, "--requests 9: out of range"},
		{"raymond", map[string]string{"requesters": "2,2", "channels": "lossy"}, "--requesters 2,2: process 2 is listed twice"},
	} {
		s, err := Lookup(tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewParams(s, tt.flags)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Build(p); err == nil || !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %v: %v, want %q", tt.spec, tt.flags, err, tt.want)
		}
	}
}

// TestWithTwins: a declared twin follows its spec as a spec of its own,
// whose Build sees Params.Broken; a catalog without declarations, or one
// expanded already, is left as it is.
func TestWithTwins(t *testing.T) {
	t.Parallel()
	var built []bool
	base := Spec{Name: "x", Section: "9.9", Summary: "x", Claims: []string{"a", "b"},
		Broken: &Twin{Summary: "x with a bug", Bug: "bug"},
		Build: func(p *Params) (explorer.Model, error) {
			built = append(built, p.Broken())
			return nil, nil
		}}
	plain := Spec{Name: "y", Summary: "y"}
	if c := []Spec{plain, plain}; &WithTwins(c)[0] != &c[0] {
		t.Error("a catalog without twins was copied")
	}
	c := WithTwins([]Spec{plain, base, plain})
	var names []string
	for _, s := range c {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"y", "x", "x-broken", "y"}) {
		t.Fatalf("names %v", names)
	}
	if twin := c[2]; twin.Summary != "x with a bug" || twin.Bug != "bug" || twin.Broken != nil || !slices.Equal(twin.Claims, base.Claims) || twin.Section != "9.9" {
		t.Errorf("twin %+v", twin)
	}
	if again := WithTwins(c); len(again) != len(c) {
		t.Errorf("expanded again: %d specs", len(again))
	}
	for _, s := range c[1:3] {
		p, err := NewParams(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		s.Build(p)
	}
	if !slices.Equal(built, []bool{false, true}) {
		t.Errorf("Broken() in Build: %v", built)
	}
	odd := Spec{Name: "z", Section: "9.8", Params: []Param{{Flag: "n"}, {Flag: "k"}},
		Broken: &Twin{Name: "z-basic", Section: "9.7", Bug: "b"}}
	odd.Broken.Params = withoutParams(odd.Params, "k")
	if twin := twinOf(odd); twin.Name != "z-basic" || twin.Section != "9.7" || len(twin.Params) != 1 || len(odd.Params) != 2 {
		t.Errorf("twin with its own name, section and parameters: %+v", twin)
	}
}

// TestEveryAlgorithmDeclaresOneTwin: every algorithm of the catalog
// declares its broken twin as a field (Spec.Broken) and none registers a
// twin of its own, so the catalog is exactly the algorithms and their
// twins, each twin right after the expansion with its algorithm's page.
// TestBrokenTwinsUnderContinue checks that each twin yields a
// counterexample.
func TestEveryAlgorithmDeclaresOneTwin(t *testing.T) {
	t.Parallel()
	algs := algorithms()
	catalog := Catalog()
	if len(catalog) != 2*len(algs) {
		t.Errorf("%d specs in the catalog of %d algorithms", len(catalog), len(algs))
	}
	for _, s := range algs {
		if s.Broken == nil || s.Bug != "" || s.Broken.Bug == "" {
			t.Errorf("%s: Broken %v, Bug %q: an algorithm declares its twin", s.Name, s.Broken, s.Bug)
			continue
		}
		var twins []Spec
		for _, c := range catalog {
			if c.Bug != "" && c.Name == s.TwinName() {
				twins = append(twins, c)
			}
		}
		if len(twins) != 1 {
			t.Errorf("%s: %d twins named %s", s.Name, len(twins), s.TwinName())
			continue
		}
		own, _ := Lookup(s.Name)
		if tw := twins[0]; tw.Bug != s.Broken.Bug || tw.Summary != s.Broken.Summary || tw.Page != own.Page || tw.Broken != nil || !tw.twin {
			t.Errorf("%s: twin %s has bug %q, page %q (want %q)", s.Name, tw.Name, tw.Bug, tw.Page, own.Page)
		}
	}
}

// TestUnknownStepPanics: a Do given a step it has no case for panics with
// a message naming the step, which the automaton package reports as a
// model error.
func TestUnknownStepPanics(t *testing.T) {
	t.Parallel()
	bad := automaton.Step{Name: "jump"}
	for name, do := range map[string]func(){
		"chang-roberts": func() { (&crNode{}).Do(bad, nil) },
		"lelann":        func() { (&llNode{}).Do(bad, nil) },
		"raymond":       func() { (&rayNode{}).Do(bad, nil) },
	} {
		func() {
			defer func() {
				if got, want := fmt.Sprint(recover()), name+`: Do has no case for step "jump"`; got != want {
					t.Errorf("panic %q, want %q", got, want)
				}
			}()
			do()
		}()
	}
}

// TestStepNamesAreConstants reads the catalog's source: no process method
// (Steps, Do, Join) names a step with a string literal, and no
// automaton.Config lists one in StepNames, so that a step is spelt once, as
// a constant, and Steps cannot offer a step that Do spells otherwise (Do's
// default case, which TestDoRefusesUnknownSteps checks, would report it
// only when the step fires).
func TestStepNamesAreConstants(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	literal := func(e ast.Expr) bool {
		lit, ok := e.(*ast.BasicLit)
		return ok && lit.Kind == token.STRING
	}
	stepMakers := []string{"Do", "Out", "Broadcast", "Arg", "OutArg", "Shared", "SharedArg"}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		report := func(n ast.Node, what string) {
			t.Errorf("%s: %s names a step with a string literal; declare a constant", fset.Position(n.Pos()), what)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Recv == nil || (n.Name.Name != "Do" && n.Name.Name != "Steps" && n.Name.Name != "Join") {
					return true
				}
				checked++
				ast.Inspect(n.Body, func(m ast.Node) bool {
					switch m := m.(type) {
					case *ast.CaseClause:
						for _, e := range m.List {
							if literal(e) {
								report(e, n.Name.Name+"'s case")
							}
						}
					case *ast.BinaryExpr:
						if sel, ok := m.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "Name" && literal(m.Y) {
							report(m, n.Name.Name+"'s comparison")
						}
					case *ast.CompositeLit:
						for _, e := range m.Elts {
							if kv, ok := e.(*ast.KeyValueExpr); ok && fmt.Sprint(kv.Key) == "Name" && literal(kv.Value) {
								report(kv, n.Name.Name+"'s automaton.Step")
							}
						}
					}
					return true
				})
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && fmt.Sprint(sel.X) == "automaton" && slices.Contains(stepMakers, sel.Sel.Name) && len(n.Args) > 0 && literal(n.Args[0]) {
					report(n, "automaton."+sel.Sel.Name)
				}
			case *ast.KeyValueExpr:
				if fmt.Sprint(n.Key) == "StepNames" {
					ast.Inspect(n.Value, func(m ast.Node) bool {
						if e, ok := m.(ast.Expr); ok && literal(e) {
							report(e, "StepNames")
						}
						return true
					})
				}
			}
			return true
		})
	}
	if checked < 2*len(algorithms()) {
		t.Errorf("only %d Steps and Do methods read", checked)
	}
}
