package specs

import (
	"bytes"
	"slices"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// TestCatalogBuildsInitialStatesByIndex: for every catalog spec at the
// parameters of sampleCases (defaults, and --n 3 with every arrangement
// of IDs and every initiator set), the k-th initial state the model builds
// directly (explorer.InitialIndexer) is the k-th it yields, for every k,
// and there is none past the last. The 13 specs that stream their initial
// states (InitialSeq) build them from their choices (choices.at); the
// others pick them from their list.
func TestCatalogBuildsInitialStatesByIndex(t *testing.T) {
	direct := map[string]bool{}
	for _, tc := range sampleCases() {
		m := build(t, tc.spec, tc.flags)
		ix, ok := m.(explorer.InitialIndexer)
		if !ok {
			t.Fatalf("%s: not an explorer.InitialIndexer", caseName(tc.spec, tc.flags))
		}
		k := 0
		err := explorer.EachInitial(m, func(st []byte) bool {
			got, ok, err := ix.InitialAt(k)
			if err != nil || !ok || !bytes.Equal(got, st) {
				t.Errorf("%s: initial state %d built directly (%v, %v) is not the one yielded", caseName(tc.spec, tc.flags), k, ok, err)
				return false
			}
			k++
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, err := ix.InitialAt(k); ok || err != nil {
			t.Errorf("%s: InitialAt(%d), past the last: %v, %v", caseName(tc.spec, tc.flags), k, ok, err)
		}
		direct[tc.spec] = true
	}
	if len(direct) < 40 {
		t.Errorf("only %d specs compared", len(direct))
	}
}

// TestInitialAtPermutations: arrangements of --ids all at --n 9 (9! =
// 362,880, the largest the catalog lists), among them the 300,000th, are
// built directly as the ones nextPermutation streams to, and there is none
// past the last.
func TestInitialAtPermutations(t *testing.T) {
	at := permutationsOf(9).indexed()
	idx := []uint64{0, 1, 2, 5040, 40319, 299999, 362879}
	want := map[uint64][]int{}
	k := uint64(0)
	for perm := range permutationsOf(9).each {
		if slices.Contains(idx, k) {
			want[k] = perm
		}
		k++
	}
	for _, i := range idx {
		if got, ok := at(i); !ok || !slices.Equal(got, want[i]) {
			t.Errorf("permutation %d: %v (%v), want %v", i, got, ok, want[i])
		}
	}
	if _, ok := at(k); ok {
		t.Errorf("a permutation %d, past the last", k)
	}
}
