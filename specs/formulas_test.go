package specs

import (
	"math"
	"testing"

	"github.com/vacheck/vacheck/simulate"
)

// TestFormulas: every formula a spec declares parses, names a metric and
// statistic that sweep --simulate measures, and is not inherited by the
// broken twin; and the catalog's formulas give the figures of the
// algorithms' pages and sources.
func TestFormulas(t *testing.T) {
	t.Parallel()
	stats := map[string]bool{"mean": true, "min": true, "max": true, "p50": true, "p90": true, "p99": true}
	metrics := map[string]bool{"messages": true, "steps": true, "time": true}
	for _, s := range Catalog() {
		if s.Bug != "" && len(s.Formulas) > 0 {
			t.Errorf("%s: a broken twin declares formulas", s.Name)
		}
		for _, f := range s.Formulas {
			if _, err := simulate.ParseFormula(f.Expr); err != nil {
				t.Errorf("%s: %v", s.Name, err)
			}
			if !stats[f.Stat] || !metrics[f.Metric] || f.Source == "" {
				t.Errorf("%s: formula %+v: unknown metric or statistic, or no source", s.Name, f)
			}
		}
	}
	eval := func(spec, stat string, n float64) float64 {
		s, err := Lookup(spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range s.Formulas {
			if f.Stat == stat {
				e, _ := simulate.ParseFormula(f.Expr)
				return e.Eval(n)
			}
		}
		t.Fatalf("%s declares no %s", spec, stat)
		return 0
	}
	// docs/algorithms/chang-roberts.md: min 2N-1 = 13 and max N(N+1)/2 =
	// 28 at N = 7; the average over arrangements N·H_N = 7·363/140 = 363/20
	// (Chang & Roberts 1979).
	for stat, want := range map[string]float64{"min": 13, "max": 28, "mean": 363. / 20} {
		if got := eval("chang-roberts", stat, 7); math.Abs(got-want) > 1e-9 {
			t.Errorf("chang-roberts %s at N=7: %v, want %v", stat, got, want)
		}
	}
	// docs/algorithms/peterson.md: max 2N⌊log₂ N⌋ + N, min 3N; at N = 5,
	// 25 and 15 (the exhaustive metrics of vacheck check peterson --n 5).
	if got := eval("peterson", "max", 5); got != 25 {
		t.Errorf("peterson max at N=5: %v, want 25", got)
	}
	if got := eval("peterson", "min", 5); got != 15 {
		t.Errorf("peterson min at N=5: %v, want 15", got)
	}
}
