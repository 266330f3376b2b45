package quorum

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// oneBased returns the quorums of s 1-based, as the docs write them.
func oneBased(s System) [][]int {
	out := make([][]int, len(s.Quorums))
	for i, q := range s.Quorums {
		for _, m := range q {
			out[i] = append(out[i], m+1)
		}
	}
	return out
}

// must returns a function that fails the test on a non-nil error and
// otherwise returns the system: must(t)(Grid(9)).
func must(t *testing.T) func(System, error) System {
	return func(s System, err error) System {
		t.Helper()
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return s
	}
}

// isDominationWitness reports whether the 1-based set h meets every quorum of s
// and contains none: the witness of the docs/algorithms/maekawa.md ND test.
func isDominationWitness(s System, h []int) bool {
	in := make(map[int]bool)
	for _, m := range h {
		in[m-1] = true
	}
	for _, q := range s.Quorums {
		meets, contained := false, true
		for _, m := range q {
			meets = meets || in[m]
			contained = contained && in[m]
		}
		if !meets || contained {
			return false
		}
	}
	return true
}

// gridOf returns Grid(n), failing the test on error.
func gridOf(t *testing.T, n int) System { return must(t)(Grid(n)) }

// TestReferenceResults checks the reference results of the ND test in
// docs/algorithms/maekawa.md, and the other properties of the same systems.
func TestReferenceResults(t *testing.T) {
	plane := func(n int) func() (System, error) { return func() (System, error) { return ProjectivePlane(n) } }
	majority := func(n int) func() (System, error) { return func() (System, error) { return Majority(n) } }
	tests := []struct {
		name      string
		build     func() (System, error)
		coterie   bool
		symmetric bool
		k, d      int
		nd        Verdict
		witness   []int // 1-based smallest witness when nd == Fails
		ideal     bool
	}{
		// "ND — the 3-process triangle {1,2},{2,3},{3,1}, the 7-process Fano system".
		{"triangle", plane(3), true, true, 2, 2, Holds, nil, true},
		{"Fano", plane(7), true, true, 3, 3, Holds, nil, true},
		// "the 13-process ideal system below ({1,2,3,5,6,8} meets all 13
		// quorums but contains none): being ideal does not imply being
		// non-dominated". The smallest witness happens to be that very set.
		{"13-process table", plane(13), true, true, 4, 4, Fails, []int{1, 2, 3, 5, 6, 8}, true},
		// "majority for even N (e.g. N = 4: {1,2} meets every 3-set but
		// contains none)". For N=4 the cyclic quorums are all the 3-sets.
		{"majority N=4", majority(4), true, true, 3, 3, Fails, []int{1, 2}, false},
		// For N=3 the cyclic quorums are the whole majority coterie.
		{"majority N=3", majority(3), true, true, 2, 2, Holds, nil, true},
		// "the 3 × 3 grid (a full row meets every quorum)"; the smallest
		// witness is the first row.
		{"3x3 grid", func() (System, error) { return Grid(9) }, true, true, 5, 5, Fails, []int{1, 2, 3}, false},
		{"single N=1", func() (System, error) { return Single(1) }, true, true, 1, 1, Holds, nil, true},
		// {U} is dominated, e.g. by the single coordinator {{1}}.
		{"all N=4", func() (System, error) { return All(4) }, true, true, 4, 4, Fails, []int{1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := must(t)(tt.build())
			r := Analyze(s)
			if !r.Intersecting || !r.SelfIncluded {
				t.Errorf("Intersecting=%v SelfIncluded=%v, want both true", r.Intersecting, r.SelfIncluded)
			}
			if r.Coterie != tt.coterie || r.Symmetric != tt.symmetric || r.K != tt.k || r.D != tt.d || r.Ideal != tt.ideal {
				t.Errorf("Coterie=%v Symmetric=%v K=%d D=%d Ideal=%v, want %v %v %d %d %v",
					r.Coterie, r.Symmetric, r.K, r.D, r.Ideal, tt.coterie, tt.symmetric, tt.k, tt.d, tt.ideal)
			}
			if r.NonDominated != tt.nd {
				t.Errorf("NonDominated=%v, want %v (%v)", r.NonDominated, tt.nd, r)
			}
			if got := oneBasedSet(r.Witness); !slices.Equal(got, tt.witness) {
				t.Errorf("Witness=%v, want %v", got, tt.witness)
			}
			if tt.witness != nil && !isDominationWitness(s, tt.witness) {
				t.Errorf("%v does not meet every quorum or contains one", tt.witness)
			}
		})
	}
}

// oneBasedSet converts a 0-based set to 1-based.
func oneBasedSet(h []int) []int {
	if h == nil {
		return nil
	}
	out := make([]int, len(h))
	for i, m := range h {
		out[i] = m + 1
	}
	return out
}

// TestMajorityCoterie checks "majority coteries for odd N" are ND and those
// for even N are not (docs/algorithms/maekawa.md), on the full coterie of all
// ⌊N/2⌋+1-sets rather than on the N cyclic quorums of Majority.
func TestMajorityCoterie(t *testing.T) {
	for n := 1; n <= 10; n++ {
		k := n/2 + 1
		var sets []uint32
		for m := uint32(0); m < 1<<n; m++ {
			if popcount(m) == k {
				sets = append(sets, m)
			}
		}
		_, dominated := ndWitness(n, sets)
		if want := n%2 == 0; dominated != want {
			t.Errorf("majority coterie N=%d: dominated=%v, want %v", n, dominated, want)
		}
	}
}

func popcount(m uint32) int {
	c := 0
	for ; m != 0; m &= m - 1 {
		c++
	}
	return c
}

// TestMajorityCyclicNotND documents that the N cyclic quorums of Majority
// are dominated for N ≥ 4, odd N included: {1,3} meets every window of 3
// consecutive processes out of 5.
func TestMajorityCyclicNotND(t *testing.T) {
	for n := 4; n <= 12; n++ {
		if r := Analyze(must(t)(Majority(n))); r.NonDominated != Fails {
			t.Errorf("Majority(%d): NonDominated=%v, want no", n, r.NonDominated)
		}
	}
	if !isDominationWitness(must(t)(Majority(5)), []int{1, 3}) {
		t.Error("{1,3} should meet every quorum of Majority(5) and contain none")
	}
}

// TestTable13 checks the 13-process ideal system of docs/algorithms/maekawa.md
// against the document's table and its listed checks.
func TestTable13(t *testing.T) {
	s := must(t)(ProjectivePlane(13))
	want := [][]int{
		{1, 2, 3, 4}, {2, 5, 8, 11}, {3, 6, 8, 13}, {4, 6, 10, 11}, {1, 5, 6, 7},
		{2, 6, 9, 12}, {2, 7, 10, 13}, {1, 8, 9, 10}, {3, 7, 9, 11}, {3, 5, 10, 12},
		{1, 11, 12, 13}, {4, 7, 8, 12}, {4, 5, 9, 13},
	}
	if got := oneBased(s); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("quorums = %v, want the table of docs/algorithms/maekawa.md %v", got, want)
	}
	degree := make([]int, 13)
	for i, q := range s.Quorums {
		if !slices.Contains(q, i) {
			t.Errorf("%d ∉ S_%d", i+1, i+1)
		}
		if len(q) != 4 {
			t.Errorf("|S_%d| = %d, want 4", i+1, len(q))
		}
		for _, m := range q {
			degree[m]++
		}
		for j := i + 1; j < 13; j++ {
			if c := len(intersection(q, s.Quorums[j])); c != 1 {
				t.Errorf("|S_%d ∩ S_%d| = %d, want 1", i+1, j+1, c)
			}
		}
	}
	for p, d := range degree {
		if d != 4 {
			t.Errorf("process %d lies in %d quorums, want 4", p+1, d)
		}
	}
	// The Maekawa deadlock of docs/algorithms/maekawa.md relies on these.
	for _, c := range []struct{ a, b, meet int }{{7, 8, 10}, {7, 11, 13}, {8, 11, 1}} {
		got := oneBasedSet(intersection(s.Quorums[c.a-1], s.Quorums[c.b-1]))
		if !slices.Equal(got, []int{c.meet}) {
			t.Errorf("S_%d ∩ S_%d = %v, want {%d}", c.a, c.b, got, c.meet)
		}
	}
}

func intersection(a, b []int) []int {
	var out []int
	for _, m := range a {
		if slices.Contains(b, m) {
			out = append(out, m)
		}
	}
	return out
}

// TestSmallPlanes checks the triangle and the Fano plane as listed in
// docs/algorithms/maekawa.md, through String.
func TestSmallPlanes(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{
		{3, "S_1={1,2} S_2={2,3} S_3={1,3}"},
		{7, "S_1={1,2,4} S_2={2,3,5} S_3={3,4,6} S_4={4,5,7} S_5={1,5,6} S_6={2,6,7} S_7={1,3,7}"},
	}
	for _, tt := range tests {
		if got := must(t)(ProjectivePlane(tt.n)).String(); got != tt.want {
			t.Errorf("ProjectivePlane(%d) = %s, want %s", tt.n, got, tt.want)
		}
	}
}

// TestProjectivePlaneGeneric checks PG(2,q) built over GF(q), for prime and
// prime-power orders, against the theorem of docs/algorithms/maekawa.md: ideal,
// K = q+1, every process in q+1 quorums, and i ∈ S_i.
func TestProjectivePlaneGeneric(t *testing.T) {
	check := func(t *testing.T, s System, q int) {
		t.Helper()
		if err := s.Validate(true); err != nil {
			t.Fatal(err)
		}
		r := Analyze(s)
		if !r.Ideal || !r.Coterie || !r.Symmetric || r.K != q+1 || r.D != q+1 || r.Distinct != s.N {
			t.Errorf("order %d: %v, want ideal symmetric coterie with K=D=%d", q, r, q+1)
		}
	}
	for _, q := range []int{2, 3, 4, 5, 7, 8, 9} {
		n := q*q + q + 1
		s := must(t)(ProjectivePlane(n))
		if s.N != n || s.Name != "fpp" {
			t.Errorf("ProjectivePlane(%d): N=%d Name=%q", n, s.N, s.Name)
		}
		check(t, s, q)
		// The generic construction also works for the orders the document
		// hard-codes.
		p, m := primePower(q)
		check(t, System{N: n, Quorums: pg2(newField(p, m))}, q)
	}
}

// TestGridExample checks the N=16 example of docs/algorithms/maekawa.md.
func TestGridExample(t *testing.T) {
	s := gridOf(t, 16)
	if got, want := oneBased(s)[5], []int{2, 5, 6, 7, 8, 10, 14}; !slices.Equal(got, want) {
		t.Errorf("grid N=16: S_6 = %v, want %v", got, want)
	}
	if r := Analyze(s); !r.Symmetric || r.K != 7 || r.D != 7 {
		t.Errorf("grid N=16: %v, want symmetric with K = 2⌈√N⌉−1 = 7", r)
	}
	// A partial last row: N=5 has rows 1 2 3 / 4 5.
	if got, want := gridOf(t, 5).String(), "S_1={1,2,3,4} S_2={1,2,3,5} S_3={1,2,3} S_4={1,4,5} S_5={2,4,5}"; got != want {
		t.Errorf("grid N=5 = %s, want %s", got, want)
	}
}

// TestIntersectionEverywhere checks "the intersection property also holds
// with a partial last row" and the intersection (and i ∈ S_i) of every
// construction for N = 1..30.
func TestIntersectionEverywhere(t *testing.T) {
	for n := 1; n <= 30; n++ {
		weights := make([]int, n)
		for i := range weights {
			weights[i] = (i*7)%5 + 1
		}
		var rows []int // widths 1, 2, 3, ... with the remainder last
		for left, w := n, 1; left > 0; w++ {
			rows = append(rows, min(w, left))
			left -= min(w, left)
		}
		systems := []struct {
			kind  string
			build func() (System, error)
		}{
			{"grid", func() (System, error) { return Grid(n) }},
			{"majority", func() (System, error) { return Majority(n) }},
			{"weighted", func() (System, error) { return WeightedMajority(weights) }},
			{"tree", func() (System, error) { return Tree(n) }},
			{"wall", func() (System, error) { return Wall(n, rows) }},
			{"all", func() (System, error) { return All(n) }},
			{"single", func() (System, error) { return Single(n) }},
			{"default", func() (System, error) { return Default(n) }},
		}
		for _, sys := range systems {
			s := must(t)(sys.build())
			needSelf := sys.kind != "single"
			if err := s.Validate(needSelf); err != nil {
				t.Errorf("%s N=%d: %v", sys.kind, n, err)
			}
			if r := Analyze(s); !r.Intersecting || r.SelfIncluded != (needSelf || n == 1) {
				t.Errorf("%s N=%d: %v", sys.kind, n, r)
			}
		}
	}
}

// TestWeightedMajority checks the deterministic choice and minimality.
func TestWeightedMajority(t *testing.T) {
	tests := []struct {
		weights []int
		want    string
	}{
		{[]int{1, 1, 1}, "S_1={1,2} S_2={1,2} S_3={1,3}"},
		{[]int{3, 1, 1, 1}, "S_1={1,2} S_2={1,2} S_3={1,3} S_4={1,4}"},
		{[]int{3, 1, 1, 1, 2}, "S_1={1,5} S_2={1,2,5} S_3={1,3,5} S_4={1,4,5} S_5={1,5}"},
		{[]int{0, 1}, "S_1={1,2} S_2={2}"},
	}
	for _, tt := range tests {
		s := must(t)(WeightedMajority(tt.weights))
		if got := s.String(); got != tt.want {
			t.Errorf("WeightedMajority(%v) = %s, want %s", tt.weights, got, tt.want)
		}
		total := 0
		for _, w := range tt.weights {
			total += w
		}
		for i, q := range s.Quorums {
			sum := 0
			for _, m := range q {
				sum += tt.weights[m]
			}
			if 2*sum <= total {
				t.Errorf("%v: S_%d has weight %d ≤ G/2", tt.weights, i+1, sum)
			}
			for _, m := range q {
				if m != i && 2*(sum-tt.weights[m]) > total {
					t.Errorf("%v: S_%d is not minimal: %d is redundant", tt.weights, i+1, m+1)
				}
			}
		}
	}
}

// TestTree checks the root-to-leaf paths in heap order.
func TestTree(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{
		{1, "S_1={1}"},
		{3, "S_1={1,2} S_2={1,2} S_3={1,3}"},
		{6, "S_1={1,2,4} S_2={1,2,4} S_3={1,3,6} S_4={1,2,4} S_5={1,2,5} S_6={1,3,6}"},
		{7, "S_1={1,2,4} S_2={1,2,4} S_3={1,3,6} S_4={1,2,4} S_5={1,2,5} S_6={1,3,6} S_7={1,3,7}"},
	}
	for _, tt := range tests {
		if got := must(t)(Tree(tt.n)).String(); got != tt.want {
			t.Errorf("Tree(%d) = %s, want %s", tt.n, got, tt.want)
		}
	}
}

// TestWall checks the crumbling wall: whole row plus the first process of
// every row below.
func TestWall(t *testing.T) {
	s := must(t)(Wall(6, []int{1, 2, 3}))
	if got, want := s.String(), "S_1={1,2,4} S_2={2,3,4} S_3={2,3,4} S_4={4,5,6} S_5={4,5,6} S_6={4,5,6}"; got != want {
		t.Errorf("Wall(6, 1,2,3) = %s, want %s", got, want)
	}
	if s.Name != "wall:1,2,3" {
		t.Errorf("Name = %q, want wall:1,2,3", s.Name)
	}
}

// TestSingleAll checks the two trivial systems.
func TestSingleAll(t *testing.T) {
	if got, want := must(t)(Single(3)).String(), "S_1={1} S_2={1} S_3={1}"; got != want {
		t.Errorf("Single(3) = %s, want %s", got, want)
	}
	if got, want := must(t)(All(2)).String(), "S_1={1,2} S_2={1,2}"; got != want {
		t.Errorf("All(2) = %s, want %s", got, want)
	}
}

// TestConstructionErrors checks the errors for impossible parameters.
func TestConstructionErrors(t *testing.T) {
	tests := []struct {
		name     string
		build    func() (System, error)
		sentinel error
		want     string // the whole message, or a part of it
	}{
		{"fpp N=5", func() (System, error) { return ProjectivePlane(5) }, ErrNoPlane,
			"--quorums fpp: no finite projective plane has N=5 processes (N must be q²+q+1 for a prime power q, or 3: 3, 7, 13, 21, 31, 57, 73, 91, ...)"},
		{"fpp order 6", func() (System, error) { return ProjectivePlane(43) }, ErrNoPlane,
			"no finite projective plane of order 6 is known"},
		{"fpp too large", func() (System, error) { return ProjectivePlane(101*101 + 101 + 1) }, ErrNoConstruction,
			"order 101 exceeds the supported maximum 64"},
		{"grid N=0", func() (System, error) { return Grid(0) }, ErrNoConstruction,
			"--quorums grid: no quorum system for N=0 (N must be at least 1)"},
		{"wall sum", func() (System, error) { return Wall(5, []int{1, 2}) }, ErrBadParam,
			"--quorums wall:1,2: bad parameter: the row widths sum to 3, not N=5"},
		{"wall width 0", func() (System, error) { return Wall(3, []int{3, 0}) }, ErrBadParam,
			"row 2 has width 0"},
		{"weighted negative", func() (System, error) { return WeightedMajority([]int{1, -1}) }, ErrBadParam,
			"weight -1 of process 2 is negative"},
		{"weighted zero", func() (System, error) { return WeightedMajority([]int{0, 0}) }, ErrBadParam,
			"the weights sum to 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.build()
			if !errors.Is(err, tt.sentinel) {
				t.Fatalf("error %v does not wrap %v", err, tt.sentinel)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
	if _, err := ProjectivePlane(5); !errors.Is(err, ErrNoConstruction) {
		t.Errorf("ErrNoPlane should also match ErrNoConstruction")
	}
}

// TestValidate checks that Validate names the offending processes.
func TestValidate(t *testing.T) {
	tests := []struct {
		name     string
		s        System
		needSelf bool
		sentinel error
		want     string
	}{
		{"disjoint", System{N: 3, Name: "q.txt", Quorums: [][]int{{0, 1}, {1}, {2}}}, false, ErrDisjoint,
			"--quorums q.txt: disjoint quorums: the quorums of processes 1 and 3 share no process (S_1={1,2}, S_3={3})"},
		{"not self", must(t)(Single(3)), true, ErrNotSelf,
			"--quorums single: process not in its own quorum: process 2 is not in S_2={1}"},
		{"too few", System{N: 2, Quorums: [][]int{{0}}}, false, ErrMalformed,
			"quorum system: malformed quorum system: 1 quorums for N=2 processes"},
		{"out of range", System{N: 2, Quorums: [][]int{{0}, {0, 2}}}, false, ErrMalformed,
			"S_2 has member 3 outside 1..2"},
		{"unsorted", System{N: 2, Quorums: [][]int{{1, 0}, {0}}}, false, ErrMalformed,
			"S_1 is not in ascending order"},
		{"empty", System{N: 1, Quorums: [][]int{{}}}, false, ErrMalformed, "S_1 is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Validate(tt.needSelf)
			if !errors.Is(err, tt.sentinel) {
				t.Fatalf("Validate = %v, want an error wrapping %v", err, tt.sentinel)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
	if err := must(t)(Single(3)).Validate(false); err != nil {
		t.Errorf("Single(3).Validate(false) = %v, want nil", err)
	}
}

// TestAnalyzeLarge checks that the ND test is skipped above MaxNDProcesses.
func TestAnalyzeLarge(t *testing.T) {
	r := Analyze(must(t)(ProjectivePlane(31)))
	if r.NonDominated != Unknown || !r.Ideal || r.K != 6 {
		t.Errorf("fpp N=31: %v, want ideal, K=6, non-dominated unknown", r)
	}
	if r := Analyze(System{N: 2, Quorums: [][]int{{0}, {1}}}); r.Intersecting || r.Disjoint != [2]int{0, 1} || r.NonDominated != Fails {
		t.Errorf("disjoint system: %+v", r)
	}
}

// writeFile writes content to a file in a temporary directory.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fanoFile is the Fano plane of docs/algorithms/maekawa.md in the file format.
const fanoFile = `# Fano plane, S_i = {i, i+1, i+3} mod 7

1 2 4
2,3,5
3, 4, 6   # commas and spaces mix
4	5	7
5 6 1
6 7 2
7 1 3
`

// TestParseFile checks reading a quorum file and its error messages.
func TestParseFile(t *testing.T) {
	path := writeFile(t, "fano.txt", fanoFile)
	s := must(t)(ParseFile(path, 7))
	if want := must(t)(ProjectivePlane(7)); !slices.EqualFunc(s.Quorums, want.Quorums, slices.Equal) || s.Name != path {
		t.Errorf("ParseFile = %v (name %q), want %v", s, s.Name, want)
	}

	tests := []struct {
		name, content string
		n             int
		want          string
	}{
		{"not an integer", "1 2\n2 x\n", 2, `line 2: "x" is not an integer (members are process numbers 1..2)`},
		{"out of range", "# header\n1 2\n\n2 3\n", 2, "line 4: member 3 of S_2 is outside 1..2 (--n is 2)"},
		{"zero", "1 0\n1\n", 2, "line 1: member 0 of S_1 is outside 1..2"},
		{"duplicate", "1 2 1\n2\n", 2, "line 1: member 1 of S_1 is listed twice"},
		{"too few lines", "1 2\n", 2, "1 quorum lines, but --n is 2 (one line per process: line k lists S_k)"},
		{"too many lines", "1\n1\n1\n", 2, "3 quorum lines, but --n is 2"},
		{"empty file", "# nothing\n", 1, "0 quorum lines, but --n is 1"},
		{"no members", "1\n , \n", 2, "line 2: no members"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, "q.txt", tt.content)
			_, err := ParseFile(path, tt.n)
			if !errors.Is(err, ErrBadFile) {
				t.Fatalf("ParseFile = %v, want an error wrapping ErrBadFile", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "--quorums "+path+": bad quorum file: ") || !strings.Contains(msg, tt.want) {
				t.Errorf("error %q should name the file and contain %q", msg, tt.want)
			}
		})
	}
	_, err := ParseFile(filepath.Join(t.TempDir(), "missing.txt"), 3)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
}

// TestParse checks every form of the --quorums flag
// (docs/algorithms/maekawa.md).
func TestParse(t *testing.T) {
	file := writeFile(t, "fano.txt", fanoFile)
	tests := []struct {
		value string
		n     int
		want  func() (System, error)
	}{
		{"fpp", 7, func() (System, error) { return ProjectivePlane(7) }},
		{"grid", 5, func() (System, error) { return Grid(5) }},
		{"majority", 4, func() (System, error) { return Majority(4) }},
		{"weighted:3,1,1,1", 4, func() (System, error) { return WeightedMajority([]int{3, 1, 1, 1}) }},
		{"weighted: 1, 2 ,3", 3, func() (System, error) { return WeightedMajority([]int{1, 2, 3}) }},
		{"tree", 7, func() (System, error) { return Tree(7) }},
		{"wall:1,2,3", 6, func() (System, error) { return Wall(6, []int{1, 2, 3}) }},
		{"single", 3, func() (System, error) { return Single(3) }},
		{"all", 3, func() (System, error) { return All(3) }},
		{file, 7, func() (System, error) { return ParseFile(file, 7) }},
		{"", 13, func() (System, error) { return ProjectivePlane(13) }},
		{"", 5, func() (System, error) { return Grid(5) }},
	}
	for _, tt := range tests {
		got := must(t)(Parse(tt.value, tt.n))
		want := must(t)(tt.want())
		if got.N != want.N || got.Name != want.Name || !slices.EqualFunc(got.Quorums, want.Quorums, slices.Equal) {
			t.Errorf("Parse(%q, %d) = %q %v, want %q %v", tt.value, tt.n, got.Name, got, want.Name, want)
		}
	}
}

// TestParseErrors checks that every error names the flag, the value and
// what is allowed.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		value    string
		n        int
		sentinel error
		want     string
	}{
		{"fpp", 5, ErrNoPlane, "--quorums fpp: no finite projective plane has N=5 processes (N must be q²+q+1 for a prime power q, or 3: 3, 7, 13, 21, 31, 57"},
		{"fpp", 0, ErrNoConstruction, "--quorums fpp: no quorum system for N=0 (N must be at least 1)"},
		{"foo", 3, ErrUnknown, "--quorums foo: unknown quorum system and no such file (allowed: fpp, grid, majority, weighted:W1,W2,..., tree, wall:ROWS, single, all, or the path of a quorum file)"},
		{"grid:3", 3, ErrUnknown, "--quorums grid:3: unknown quorum system"},
		{"weighted", 3, ErrBadParam, "--quorums weighted: bad parameter: missing parameters (expected weighted:W1,W2,...,WN"},
		{"weighted:1,x,1", 3, ErrBadParam, `--quorums weighted:1,x,1: bad parameter: "x" is not an integer`},
		{"weighted:1,1", 3, ErrBadParam, "--quorums weighted:1,1: bad parameter: 2 weights for N=3 processes"},
		{"wall:", 6, ErrBadParam, "--quorums wall:: bad parameter: missing parameters (expected wall:W1,W2,... with positive row widths summing to N=6"},
		{"wall:1,2", 6, ErrBadParam, "--quorums wall:1,2: bad parameter: the row widths sum to 3, not N=6"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.value, tt.n)
		if !errors.Is(err, tt.sentinel) {
			t.Errorf("Parse(%q, %d) = %v, want an error wrapping %v", tt.value, tt.n, err, tt.sentinel)
			continue
		}
		if !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Parse(%q, %d) error\n  %q\ndoes not start with\n  %q", tt.value, tt.n, err, tt.want)
		}
	}
	// A file error passes through Parse unchanged.
	path := writeFile(t, "bad.txt", "1 2\n")
	if _, err := Parse(path, 3); !errors.Is(err, ErrBadFile) || !strings.Contains(err.Error(), path) {
		t.Errorf("Parse(file) = %v, want ErrBadFile naming %s", err, path)
	}
}

// TestNewField checks the field axioms used by the PG(2,q) construction.
func TestNewField(t *testing.T) {
	for _, pm := range [][2]int{{2, 1}, {3, 1}, {2, 2}, {2, 3}, {3, 2}, {5, 1}, {2, 6}} {
		f := newField(pm[0], pm[1])
		for a := range f.q {
			if f.add[a] != a || f.mul[f.q+a] != a { // 0 + a = a, 1 · a = a
				t.Fatalf("GF(%d^%d): 0 or 1 is not neutral for %d", pm[0], pm[1], a)
			}
		}
		if !f.isField() {
			t.Errorf("GF(%d^%d) has zero divisors", pm[0], pm[1])
		}
	}
}
