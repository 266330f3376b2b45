package specs

import (
	"flag"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

var benchLarge = flag.Bool("bench-large", false, "include N=7 in the chang-roberts benchmark (about 10 GiB, minutes)")

// long adds the large pinned instances to the tests: the rows that take
// seconds each, too many for the default run (go test ./... must take
// under 2 minutes on 2 cores). Every spec, property and strategy they
// check keeps a smaller instance in the default run. .ci/run passes it:
// go test ./specs ./automaton -args -long.
var long = flag.Bool("long", false, "also check the large pinned instances (minutes)")

// skipUnlessLong skips t, a large pinned instance, unless the run has -long.
func skipUnlessLong(t testing.TB) {
	t.Helper()
	if !*long {
		t.Skip("large instance: run with -args -long")
	}
}

func benchSizes() []int {
	if *benchLarge {
		return []int{6, 7}
	}
	return []int{6}
}

// build makes the model of spec with the given flags, failing the test on
// error.
func build(tb testing.TB, spec string, flags map[string]string) explorer.Model {
	tb.Helper()
	s, err := Lookup(spec)
	if err != nil {
		tb.Fatal(err)
	}
	return buildSpec(tb, s, flags)
}

// buildSpec makes the model of s with the given flags, failing the test on
// error; it works for specs not yet in the Catalog.
func buildSpec(tb testing.TB, s Spec, flags map[string]string) explorer.Model {
	tb.Helper()
	p, err := NewParams(s, flags)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := s.Build(p)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// permutations returns every permutation of 1..n in lexicographic order,
// built by recursion: the reference that the lazy permutationsOf is
// compared with.
func permutations(n int) [][]int {
	var out [][]int
	perm := make([]int, n)
	used := make([]bool, n+1)
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			out = append(out, append([]int(nil), perm...))
			return
		}
		for v := 1; v <= n; v++ {
			if !used[v] {
				used[v], perm[k] = true, v
				rec(k + 1)
				used[v] = false
			}
		}
	}
	rec(0)
	return out
}

// twinOf returns the broken twin that s declares (Spec.Broken), as the
// catalog expands it.
func twinOf(s Spec) Spec {
	c := WithTwins([]Spec{s})
	if len(c) != 2 {
		panic(s.Name + " declares no broken twin")
	}
	return c[1]
}

// withTwin returns s and the broken twin it declares.
func withTwin(s Spec) []Spec { return WithTwins([]Spec{s}) }

// maekawaForm returns maekawa when full, else its deadlocking form
// maekawa-basic (its declared twin).
func maekawaForm(full bool) Spec {
	if full {
		return maekawa()
	}
	return twinOf(maekawa())
}
