package specs

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// uniformity draws n values with sample, from a generator seeded with
// seed, and compares them with the values each yields, each as likely as
// any other (a value yielded twice twice as likely), telling values apart
// by key. It returns an error when a draw is not among them, or when
// Pearson's chi-square statistic exceeds the value that a uniform sampler
// exceeds with probability about 1e-4 (so a correct sampler fails for
// about one seed in 10,000; the seeds here are fixed).
func uniformity[T any](each iter.Seq[T], sample func(r *rand.Rand) (T, error), key func(T) string, n int, seed uint64) error {
	want := map[string]float64{}
	total := 0
	for v := range each {
		want[key(v)]++
		total++
	}
	if total == 0 {
		return errors.New("nothing to draw from")
	}
	for k := range want {
		want[k] *= float64(n) / float64(total)
	}
	got := map[string]int{}
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	for range n {
		v, err := sample(r)
		if err != nil {
			return err
		}
		k := key(v)
		if _, ok := want[k]; !ok {
			return fmt.Errorf("the draw %v is not one of the %d values enumerated", v, total)
		}
		got[k]++
	}
	chi := 0.0
	for k, e := range want {
		d := float64(got[k]) - e
		chi += d * d / e
	}
	if df := float64(len(want) - 1); df > 0 {
		// Wilson and Hilferty: (X/df)^(1/3) is about normal with mean
		// 1 − 2/(9 df) and variance 2/(9 df); z = 3.72 leaves 1e-4 above.
		v := 2 / (9 * df)
		if crit := df * math.Pow(1-v+3.72*math.Sqrt(v), 3); chi > crit {
			return fmt.Errorf("not uniform: chi-square %.1f with %d degrees of freedom, above %.1f", chi, len(want)-1, crit)
		}
	}
	return nil
}

// choiceUniformity is uniformity for the values of c.
func choiceUniformity[T any](c choices[T], n int, seed uint64) error {
	return uniformity(c.each, func(r *rand.Rand) (T, error) { return c.sample(r), nil },
		func(v T) string { return fmt.Sprint(v) }, n, seed)
}

// modelUniformity is uniformity for the initial states of m, told apart
// by their encodings.
func modelUniformity(m explorer.Model, n int, seed uint64) error {
	each := func(yield func([]byte) bool) {
		if err := m.(explorer.InitialStreamer).InitialStates(yield); err != nil {
			panic(err)
		}
	}
	return uniformity(each, m.(explorer.InitialSampler).SampleInitial, func(st []byte) string { return string(st) }, n, seed)
}

// sampleDraws is how many draws the uniformity tests make of k states: 100
// per state and at least 3,000, enough for the chi-square approximation
// and to catch the mutants of TestSamplingMutantsCaught; of a single
// state, a few, which must all be it.
func sampleDraws(k int) int {
	if k == 1 {
		return 10
	}
	return max(100*k, 3000)
}

// sampleCases are the catalog's specs at small parameters, each spec at
// its defaults and, where those give a single initial state, at flags that
// give many too.
func sampleCases() []struct {
	spec  string
	flags map[string]string
} {
	type c = struct {
		spec  string
		flags map[string]string
	}
	var out []c
	for _, s := range Catalog() {
		out = append(out, c{s.Name, nil})
		names := map[string]bool{}
		for _, p := range s.Params {
			names[p.Flag] = true
		}
		switch {
		case names["ids"] && names["initiators"]:
			out = append(out, c{s.Name, map[string]string{"n": "3", "ids": "all", "initiators": "subsets"}})
		case names["ids"]:
			out = append(out, c{s.Name, map[string]string{"n": "3", "ids": "all"}})
		}
	}
	return out
}

// TestCatalogSamplesUniformly draws initial states of every catalog spec
// at small parameters: each draw is one of the states the spec enumerates
// (the same encoding), and their frequencies are uniform over them
// (chi-square, fixed seeds: the test is deterministic).
func TestCatalogSamplesUniformly(t *testing.T) {
	t.Parallel()
	for _, tc := range sampleCases() {
		t.Run(caseName(tc.spec, tc.flags), func(t *testing.T) {
			m := build(t, tc.spec, tc.flags)
			initial, err := m.Initial()
			if err != nil {
				t.Fatal(err)
			}
			draws := sampleDraws(len(initial))
			if testing.Short() {
				// The race detector makes a draw 40 times slower (28 s
				// for the whole test): -short skips the cases of more
				// than 100 states (each spec keeps its case at --n 3)
				// and makes a fifth of the draws.
				if len(initial) > 100 {
					t.Skipf("%d initial states: skipped with -short", len(initial))
				}
				draws = max(draws/5, 2)
			}
			if err := modelUniformity(m, draws, uint64(len(tc.spec))); err != nil {
				t.Fatalf("%d initial states: %v", len(initial), err)
			}
		})
	}
}

// caseName is spec followed by its flags as on a command line.
func caseName(spec string, flags map[string]string) string {
	name := spec
	for _, k := range slices.Sorted(maps.Keys(flags)) {
		name += fmt.Sprintf(" --%s %s", k, flags[k])
	}
	return name
}

// TestCatalogSamplesDeterministically: the same seed draws the same
// initial states.
func TestCatalogSamplesDeterministically(t *testing.T) {
	t.Parallel()
	for _, tc := range sampleCases() {
		m := build(t, tc.spec, tc.flags).(explorer.InitialSampler)
		draw := func() [][]byte {
			r := rand.New(rand.NewPCG(42, 7))
			var out [][]byte
			for range 20 {
				st, err := m.SampleInitial(r)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, st)
			}
			return out
		}
		if a, b := draw(), draw(); !slices.EqualFunc(a, b, bytes.Equal) {
			t.Errorf("%s: the same seed drew different initial states", caseName(tc.spec, tc.flags))
		}
	}
}

// TestChoicesEnumerate compares the lazy generators with references built
// another way: permutationsOf with the recursive permutations in
// lexicographic order, subsetsOf with the bit masks in order, and their
// counts with the numbers yielded and with n! and 2^n where those
// overflow.
func TestChoicesEnumerate(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 7; n++ {
		c := permutationsOf(n)
		got := slices.Collect(c.each)
		if want := permutations(n); !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("n=%d: permutations %v, want %v", n, got, want)
		}
		if k, ok := c.count(); !ok || k != uint64(len(got)) {
			t.Errorf("n=%d: count %d %v, yielded %d", n, k, ok, len(got))
		}
	}
	for n := 1; n <= 10; n++ {
		for _, nonEmpty := range []bool{true, false} {
			c := subsetsOf(n, nonEmpty)
			got := slices.Collect(c.each)
			var want [][]bool
			for mask := 0; mask < 1<<n; mask++ {
				if mask == 0 && nonEmpty {
					continue
				}
				set := make([]bool, n)
				for i := range set {
					set[i] = mask>>i&1 != 0
				}
				want = append(want, set)
			}
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("n=%d nonEmpty=%v: subsets %v, want %v", n, nonEmpty, got, want)
			}
			if k, ok := c.count(); !ok || k != uint64(len(want)) {
				t.Errorf("n=%d nonEmpty=%v: count %d %v, want %d", n, nonEmpty, k, ok, len(want))
			}
		}
	}
	if k, ok := permutationsOf(20).count(); !ok || k != 2432902008176640000 {
		t.Errorf("20!: %d %v", k, ok)
	}
	if _, ok := permutationsOf(21).count(); ok {
		t.Error("21! fits in a uint64")
	}
	if k, ok := subsetsOf(64, true).count(); !ok || k != math.MaxUint64 {
		t.Errorf("2^64−1: %d %v", k, ok)
	}
	if _, ok := subsetsOf(64, false).count(); ok {
		t.Error("2^64 fits in a uint64")
	}
	pr := product(permutationsOf(4), subsetsOf(3, true), func(ids []int, set []bool) string { return fmt.Sprint(ids, set) })
	if k, ok := pr.count(); !ok || k != 24*7 || len(slices.Collect(pr.each)) != 24*7 {
		t.Errorf("product: count %d %v", k, ok)
	}
	if _, ok := product(permutationsOf(20), subsetsOf(20, false), func([]int, []bool) int { return 0 }).count(); ok {
		t.Error("20!·2^20 fits in a uint64")
	}
}

// TestChoicesSampleUniformly checks the samplers of the generators,
// alone and in a product, against their enumerations.
func TestChoicesSampleUniformly(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 5; n++ {
		if err := choiceUniformity(permutationsOf(n), sampleDraws(len(permutations(n))), uint64(n)); err != nil {
			t.Errorf("permutations of %d: %v", n, err)
		}
	}
	for n := 1; n <= 6; n++ {
		for _, nonEmpty := range []bool{true, false} {
			if err := choiceUniformity(subsetsOf(n, nonEmpty), sampleDraws(1<<n), uint64(n)); err != nil {
				t.Errorf("subsets of %d (non-empty %v): %v", n, nonEmpty, err)
			}
		}
	}
	pr := product(permutationsOf(3), subsetsOf(3, true), func(ids []int, set []bool) string { return fmt.Sprint(ids, set) })
	if err := choiceUniformity(pr, sampleDraws(42), 9); err != nil {
		t.Errorf("product: %v", err)
	}
}

// TestSamplingMutantsCaught checks that the uniformity test finds out a
// sampler with the classic Fisher-Yates mistake (swapping with any
// position instead of one from i on: n^n equally likely runs cannot fall
// evenly on n! permutations), and a subset sampler that turns an empty
// draw into the full set instead of drawing again, each with as many draws
// as TestCatalogSamplesUniformly makes (sampleDraws). At n = 3 the
// Fisher-Yates mistake draws the six permutations 4, 5, 5, 5, 4 and 4
// times in 27: a chi-square expected at 5 + 0.0123 per draw, which passes
// the 26.3 that fails a test after about 2,100 draws; at n = 4 it is
// 23 + 0.0298 per draw against 57.3 (1,900 draws).
func TestSamplingMutantsCaught(t *testing.T) {
	t.Parallel()
	for n := 3; n <= 5; n++ {
		biased := permutationsOf(n)
		biased.sample = func(r *rand.Rand) []int {
			perm := make([]int, n)
			for i := range perm {
				perm[i] = i + 1
			}
			for i := range perm {
				j := r.IntN(n) // the mutant: [0, n) instead of [i, n)
				perm[i], perm[j] = perm[j], perm[i]
			}
			return perm
		}
		if err := choiceUniformity(biased, sampleDraws(len(permutations(n))), uint64(n)); err == nil || !strings.Contains(err.Error(), "not uniform") {
			t.Errorf("n=%d: the biased Fisher-Yates passed: %v", n, err)
		}
	}
	biased := subsetsOf(3, true)
	biased.sample = func(r *rand.Rand) []bool {
		set := subsetsOf(3, false).sample(r)
		if !slices.Contains(set, true) {
			return []bool{true, true, true}
		}
		return set
	}
	if err := choiceUniformity(biased, sampleDraws(7), 3); err == nil || !strings.Contains(err.Error(), "not uniform") {
		t.Errorf("the biased subset sampler passed: %v", err)
	}
}

// TestSampleLargeN: with Params.SetSampling, --ids all and --initiators
// subsets take any N (a check refuses N above 9 and 12), and a draw
// costs N steps, not N!: chang-roberts and lelann at N = 64 draw
// permutations of 1..64, and permutationsOf draws one of 200!.
func TestSampleLargeN(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"chang-roberts", "lelann", "echo-election", "chang-roberts-bidirectional"} {
		s, err := Lookup(spec)
		if err != nil {
			t.Fatal(err)
		}
		flags := map[string]string{"n": "64", "ids": "all"}
		if spec == "lelann" || spec == "echo-election" {
			flags["initiators"] = "subsets"
		}
		p, err := NewParams(s, flags)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Build(p); err == nil || !errors.Is(err, ErrUsage) {
			t.Fatalf("%s --n 64 --ids all without sampling: %v, want a usage error", spec, err)
		}
		p, _ = NewParams(s, flags)
		p.SetSampling(true)
		m, err := s.Build(p)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 2))
		a, err := m.(explorer.InitialSampler).SampleInitial(r)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := m.(explorer.InitialSampler).SampleInitial(r)
		if bytes.Equal(a, b) {
			t.Errorf("%s: two draws of 64! arrangements are equal", spec)
		}
	}
	perm := permutationsOf(200).sample(rand.New(rand.NewPCG(3, 4)))
	sorted := slices.Sorted(slices.Values(perm))
	for i, v := range sorted {
		if v != i+1 {
			t.Fatalf("a draw of permutationsOf(200) is not a permutation of 1..200: %v", perm)
		}
	}
}
