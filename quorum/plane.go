package quorum

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxPlaneOrder is the largest order q for which ProjectivePlane constructs
// PG(2,q) (N = q²+q+1 = 4161 processes).
const MaxPlaneOrder = 64

// ProjectivePlane returns an ideal quorum system built from a finite projective
// plane (docs/algorithms/maekawa.md): N = q²+q+1 processes, quorums of size
// q+1, every process in q+1 quorums, every two quorums meeting in exactly one
// process, and i ∈ S_i.
//
// N=3 gives the triangle S_1={1,2}, S_2={2,3}, S_3={3,1} (order 1); N=7 the
// Fano plane S_i={i,i+1,i+3} (mod 7, values 1..7); N=13 exactly the 13-process
// table of docs/algorithms/maekawa.md. For other N = q²+q+1 with q a prime
// power up to MaxPlaneOrder it builds PG(2,q) over GF(q) and gives each process
// a distinct line through it, found by a deterministic bipartite matching (a
// system of distinct representatives, which exists because the point–line
// incidence graph is (q+1)-regular).
//
// Any other N gives an error wrapping ErrNoPlane (and so ErrNoConstruction)
// that lists the valid N. That no plane exists when q is not a prime power
// is the open prime-power conjecture; the error says none is known.
func ProjectivePlane(n int) (System, error) {
	switch n {
	case 3:
		return fromOneBased("fpp", [][]int{{1, 2}, {2, 3}, {3, 1}}), nil
	case 7:
		table := make([][]int, 7)
		for i := range table {
			table[i] = []int{i%7 + 1, (i+1)%7 + 1, (i+3)%7 + 1}
		}
		return fromOneBased("fpp", table), nil
	case 13: // the 13-process ideal system of docs/algorithms/maekawa.md, 1-based
		return fromOneBased("fpp", [][]int{
			{1, 2, 3, 4}, {2, 5, 8, 11}, {3, 6, 8, 13}, {4, 6, 10, 11}, {1, 5, 6, 7},
			{2, 6, 9, 12}, {2, 7, 10, 13}, {1, 8, 9, 10}, {3, 7, 9, 11}, {3, 5, 10, 12},
			{1, 11, 12, 13}, {4, 7, 8, 12}, {4, 5, 9, 13},
		}), nil
	}
	if err := checkN("fpp", n); err != nil {
		return System{}, err
	}
	q := planeOrder(n)
	if q < 0 {
		return System{}, fmt.Errorf("--quorums fpp: %w has N=%d processes (N must be q²+q+1 for a prime power q, or 3: %s)",
			ErrNoPlane, n, validPlaneSizes())
	}
	p, m := primePower(q)
	if p < 0 {
		return System{}, fmt.Errorf("--quorums fpp: %w of order %d is known (N=%d = q²+q+1 for q=%d, which is not a prime power; N must be q²+q+1 for a prime power q, or 3: %s)",
			ErrNoPlane, q, n, q, validPlaneSizes())
	}
	if q > MaxPlaneOrder {
		return System{}, fmt.Errorf("--quorums fpp: %w built for N=%d: order %d exceeds the supported maximum %d (N=%d)",
			ErrNoConstruction, n, q, MaxPlaneOrder, MaxPlaneOrder*MaxPlaneOrder+MaxPlaneOrder+1)
	}
	return System{N: n, Name: "fpp", Quorums: pg2(newField(p, m))}, nil
}

// planeOrder returns q ≥ 2 with q²+q+1 = n, or -1.
func planeOrder(n int) int {
	for q := 2; q*q+q+1 <= n; q++ {
		if q*q+q+1 == n {
			return q
		}
	}
	return -1
}

// primePower returns p, m with q = p^m and p prime, or -1, -1.
func primePower(q int) (p, m int) {
	if q < 2 {
		return -1, -1
	}
	p = q
	for d := 2; d*d <= q; d++ {
		if q%d == 0 {
			p = d
			break
		}
	}
	for q%p == 0 {
		q /= p
		m++
	}
	if q != 1 {
		return -1, -1
	}
	return p, m
}

// validPlaneSizes lists the N for which ProjectivePlane succeeds, up to 100.
func validPlaneSizes() string {
	sizes := []string{"3"}
	for q := 2; q*q+q+1 <= 100; q++ {
		if p, _ := primePower(q); p > 0 {
			sizes = append(sizes, strconv.Itoa(q*q+q+1))
		}
	}
	return strings.Join(sizes, ", ") + ", ..."
}

// field is the finite field GF(p^m); elements are 0..q-1, read as the
// base-p digits of a polynomial in x of degree < m.
type field struct {
	q        int
	add, mul []int // q×q tables, index a*q+b
}

// newField builds GF(p^m) modulo the first irreducible monic polynomial of
// degree m (in the order of the base-p encoding of its lower coefficients).
func newField(p, m int) field {
	q := 1
	for range m {
		q *= p
	}
	digits := func(a int) []int {
		d := make([]int, m)
		for k := range d {
			d[k] = a % p
			a /= p
		}
		return d
	}
	encode := func(d []int) int {
		a := 0
		for k := m - 1; k >= 0; k-- {
			a = a*p + d[k]
		}
		return a
	}
	f := field{q: q, add: make([]int, q*q), mul: make([]int, q*q)}
	for a := range q {
		da := digits(a)
		for b := range q {
			db := digits(b)
			sum := make([]int, m)
			for k := range sum {
				sum[k] = (da[k] + db[k]) % p
			}
			f.add[a*q+b] = encode(sum)
		}
	}
	// low holds the coefficients of x^0..x^(m-1) of the modulus x^m + ....
	for code := range q {
		low := digits(code)
		if m > 1 && low[0] == 0 {
			continue // divisible by x
		}
		for a := range q {
			da := digits(a)
			for b := range q {
				db := digits(b)
				prod := make([]int, 2*m-1)
				for i := range da {
					for j := range db {
						prod[i+j] = (prod[i+j] + da[i]*db[j]) % p
					}
				}
				for d := 2*m - 2; d >= m; d-- { // x^d = x^(d-m)·(−low)
					c := prod[d]
					for j := range m {
						prod[d-m+j] = ((prod[d-m+j]-c*low[j])%p + p) % p
					}
				}
				f.mul[a*q+b] = encode(prod[:m])
			}
		}
		if f.isField() {
			return f
		}
	}
	panic(fmt.Sprintf("quorum: no irreducible polynomial of degree %d over GF(%d)", m, p))
}

// isField reports whether the multiplication table has no zero divisors,
// that is, whether the modulus was irreducible.
func (f field) isField() bool {
	for a := 1; a < f.q; a++ {
		for b := 1; b < f.q; b++ {
			if f.mul[a*f.q+b] == 0 {
				return false
			}
		}
	}
	return true
}

// pg2 returns one line of PG(2,q) per point, each containing its point.
//
// Points and lines both use the normalised homogeneous coordinates
// (x,y,1), then (x,1,0), then (1,0,0); point (x,y,z) is on line [a,b,c] when
// ax+by+cz = 0. Point i gets the line found for it by Kuhn's augmenting-path
// matching, taking points in order and their lines in ascending order.
func pg2(f field) [][]int {
	q := f.q
	var coords [][3]int
	for x := range q {
		for y := range q {
			coords = append(coords, [3]int{x, y, 1})
		}
	}
	for x := range q {
		coords = append(coords, [3]int{x, 1, 0})
	}
	coords = append(coords, [3]int{1, 0, 0})
	n := len(coords)

	lines := make([][]int, n)      // points on each line, ascending
	pointLines := make([][]int, n) // lines through each point, ascending
	for l, abc := range coords {
		for pt, xyz := range coords {
			s := f.add[f.mul[abc[0]*q+xyz[0]]*q+f.mul[abc[1]*q+xyz[1]]]
			s = f.add[s*q+f.mul[abc[2]*q+xyz[2]]]
			if s == 0 {
				lines[l] = append(lines[l], pt)
				pointLines[pt] = append(pointLines[pt], l)
			}
		}
	}

	owner := make([]int, n) // point matched to each line, or -1
	for l := range owner {
		owner[l] = -1
	}
	seen := make([]int, n) // stamp of the last search that visited a line
	stamp := 0
	var augment func(pt int) bool
	augment = func(pt int) bool {
		for _, l := range pointLines[pt] {
			if seen[l] == stamp {
				continue
			}
			seen[l] = stamp
			if owner[l] < 0 || augment(owner[l]) {
				owner[l] = pt
				return true
			}
		}
		return false
	}
	for pt := range n {
		stamp++
		if !augment(pt) {
			panic("quorum: no system of distinct representatives in PG(2,q)") // impossible: regular bipartite graph
		}
	}
	quorums := make([][]int, n)
	for l, pt := range owner {
		quorums[pt] = lines[l]
	}
	return quorums
}
