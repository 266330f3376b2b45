package simulate

import (
	"strings"
	"testing"
)

// FuzzParseFormula: no input makes the parser panic, and a formula that
// parses evaluates without panicking and reads back as written.
func FuzzParseFormula(f *testing.F) {
	for _, s := range []string{"n*H(n)", "n*(n+1)/2", "2*n*floor(log2(n))+n", "N·H(N)", "-2^-n", "((n))", "sqrt(ceil(ln(n)))", "1..2", "n n", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseFormula(s)
		if err != nil {
			if !strings.Contains(err.Error(), "allowed: ") {
				t.Errorf("%q: the error says nothing of what is allowed: %v", s, err)
			}
			return
		}
		for _, n := range []float64{0, 1, 7, 64} {
			e.Eval(n)
		}
		if e.String() != strings.TrimSpace(s) {
			t.Errorf("%q reads back as %q", s, e.String())
		}
	})
}
