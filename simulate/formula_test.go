package simulate

import (
	"math"
	"strings"
	"testing"
)

func TestFormula(t *testing.T) {
	tests := []struct {
		expr string
		n    float64
		want float64
	}{
		{"n*H(n)", 3, 5.5},                // 3·(1 + 1/2 + 1/3)
		{"N·H(N)", 7, 363. / 20},          // 7·H_7, the average at N = 7
		{"n*(n+1)/2", 4, 10},              // the most messages of Chang-Roberts
		{"2*n - 1", 5, 9},                 // and the least
		{"2^3^2", 0, 512},                 // right-associative
		{"-2^2", 0, -4},                   // the power binds tighter than the minus
		{"2^-1", 0, 0.5},                  //
		{"2*n*floor(log2(n)) + n", 8, 56}, // Peterson's bound
		{"ln(n)", math.E, 1},
		{"sqrt(n) + ceil(0.5)", 9, 4},
		{"  n / 4 - 1  ", 8, 1},
	}
	for _, tt := range tests {
		f, err := ParseFormula(tt.expr)
		if err != nil {
			t.Errorf("%q: %v", tt.expr, err)
			continue
		}
		if got := f.Eval(tt.n); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%q at n=%v: %v, want %v", tt.expr, tt.n, got, tt.want)
		}
		if f.String() != strings.TrimSpace(tt.expr) {
			t.Errorf("%q: String %q", tt.expr, f.String())
		}
	}
	// Past 10^5 terms, H is its asymptotic expansion: it meets the sum.
	if a, b := harmonic(100000), harmonic(100001); math.Abs(b-a-1/100001.) > 1e-12 {
		t.Errorf("H(100001) - H(100000) = %v, want 1/100001", b-a)
	}
	if v := harmonic(1e300); math.IsInf(v, 0) || v < 691 || v > 692 {
		t.Errorf("H(1e300) = %v, want ln(1e300) + γ ≈ 691.3", v)
	}
	if v := (&Formula{root: call{"H", num(-1)}}).Eval(0); !math.IsNaN(v) {
		t.Errorf("H(-1) = %v, want NaN", v)
	}
	for _, bad := range []struct{ expr, want string }{
		{"", "the formula ends"},
		{"n*", "the formula ends"},
		{"foo(n)", `unknown name "foo"`},
		{"(n+1", "missing )"},
		{"n n", `at character 3: unexpected "n"`},
		{"H n", "H needs an argument in parentheses"},
		{"1..2", `"1..2" is not a number`},
		{"1.5e0", `at character 4: unexpected "e"`},
		{"n $ 2", `unexpected "$"`},
	} {
		_, err := ParseFormula(bad.expr)
		if err == nil || !strings.Contains(err.Error(), bad.want) || !strings.Contains(err.Error(), "allowed: an expression over n") {
			t.Errorf("%q: got %v, want an error with %q and what is allowed", bad.expr, err, bad.want)
		}
	}
}
