package props_test

import (
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/props"
	"github.com/vacheck/vacheck/specs"
)

// buildSpec builds the catalog spec name with the given parameters.
func buildSpec(tb testing.TB, name string, given map[string]string) (explorer.Model, *specs.Params) {
	tb.Helper()
	spec, err := specs.Lookup(name)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := specs.NewParams(spec, given)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := spec.Build(p)
	if err != nil {
		tb.Fatal(err)
	}
	return m, p
}

// uniqueExpr is uniqueness (chang-roberts' Go-coded invariant) as an
// expression.
const uniqueExpr = `count(procs, .status == "chosen") <= 1`

// BenchmarkInvariant compares a search of chang-roberts --n 6 --ids all
// (1,809,852 states) that checks uniqueness as the spec's Go-coded
// invariant with one that checks it as the expression uniqueExpr, one
// worker each: the brief's budget is twice the time of the first.
func BenchmarkInvariant(b *testing.B) {
	given := map[string]string{"n": "6", "ids": "all"}
	for _, tc := range []struct {
		name string
		expr bool
	}{{"go", false}, {"expr", true}} {
		b.Run("invariant="+tc.name, func(b *testing.B) {
			m, p := buildSpec(b, "chang-roberts", given)
			cfg := explorer.Config{Workers: 1, Properties: []string{"uniqueness"}}
			if tc.expr {
				var err error
				if m, err = props.Attach(m, p.Canonical(), props.Property{Kind: props.Invariant, Expr: uniqueExpr}); err != nil {
					b.Fatal(err)
				}
				cfg.Properties = []string{uniqueExpr}
			}
			for b.Loop() {
				r, err := explorer.Check(m, cfg)
				if err != nil || r.Status != explorer.OK || r.States != 1809852 {
					b.Fatalf("%v %v %d", err, r.Status, r.States)
				}
			}
		})
	}
}
