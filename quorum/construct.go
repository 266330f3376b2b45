package quorum

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxTotalWeight bounds the total weight of a weighted majority, so that
// twice any partial sum fits in an int on every platform.
const maxTotalWeight = 1<<30 - 1

// checkN returns an error unless n ≥ 1.
func checkN(name string, n int) error {
	if n < 1 {
		return fmt.Errorf("--quorums %s: %w for N=%d (N must be at least 1)", name, ErrNoConstruction, n)
	}
	return nil
}

// fromOneBased converts a table of 1-based quorums to a System.
func fromOneBased(name string, table [][]int) System {
	qs := make([][]int, len(table))
	for i, row := range table {
		q := make([]int, len(row))
		for k, m := range row {
			q[k] = m - 1
		}
		slices.Sort(q)
		qs[i] = q
	}
	return System{N: len(table), Name: name, Quorums: qs}
}

// build makes the system whose quorum of process i is members(i), sorted
// and without duplicates.
func build(name string, n int, members func(i int) []int) System {
	qs := make([][]int, n)
	for i := range qs {
		q := members(i)
		slices.Sort(q)
		qs[i] = slices.Compact(q)
	}
	return System{N: n, Name: name, Quorums: qs}
}

// ceilSqrt returns ⌈√n⌉ for n ≥ 1.
func ceilSqrt(n int) int {
	c := 1
	for c*c < n {
		c++
	}
	return c
}

// Grid returns the grid quorum system of docs/algorithms/maekawa.md: the
// processes are written row by row into ⌈√N⌉ columns (the last row possibly
// partial) and S_x is the row of x plus the column of x. For N=16, S_6 =
// {2,5,6,7,8,10,14}.
//
// The intersection property also holds with a partial last row: if x is in
// row r and y in column c, S_x ∩ S_y contains the cell (r, c) when it exists;
// it is missing only when r is the partial last row, and then y is in an
// earlier, full row r', so the cell (r', column of x) is in both.
func Grid(n int) (System, error) {
	if err := checkN("grid", n); err != nil {
		return System{}, err
	}
	c := ceilSqrt(n)
	return build("grid", n, func(x int) []int {
		var q []int
		for y := range n {
			if y/c == x/c || y%c == x%c {
				q = append(q, y)
			}
		}
		return q
	}), nil
}

// Majority returns the majority system: S_i is the ⌊N/2⌋+1 consecutive
// processes starting at i, cyclically (so i ∈ S_i). Any two sets of more
// than N/2 processes intersect.
//
// These N quorums are only part of the majority coterie of
// docs/algorithms/maekawa.md (all sets of ⌊N/2⌋+1 processes), and for N ≥ 4
// they are not non-dominated even when N is odd: for N=5, {1,3} meets every S_i
// but contains none.
func Majority(n int) (System, error) {
	if err := checkN("majority", n); err != nil {
		return System{}, err
	}
	k := n/2 + 1
	return build("majority", n, func(i int) []int {
		q := make([]int, k)
		for j := range q {
			q[j] = (i + j) % n
		}
		return q
	}), nil
}

// WeightedMajority returns a weighted-majority system for N = len(weights)
// processes, process i having weight weights[i] ≥ 0
// (docs/algorithms/maekawa.md). With G the total weight, S_i is a minimal set
// containing i whose weight exceeds G/2, chosen deterministically: i first,
// then the heaviest remaining processes (ties to the lower index) until the
// weight exceeds G/2; then every member other than i that is not needed is
// dropped, lightest (last added) first.
//
// Any two sets heavier than G/2 intersect. Because i must stay in S_i, a
// quorum may contain another process's quorum, so the system need not be a
// coterie.
func WeightedMajority(weights []int) (System, error) {
	name := "weighted:" + joinInts(weights)
	n := len(weights)
	if n == 0 {
		return System{}, fmt.Errorf("--quorums %s: %w: no weights given (expected weighted:W1,W2,...,WN with one non-negative integer weight per process)", name, ErrBadParam)
	}
	total := 0
	for i, w := range weights {
		if w < 0 {
			return System{}, fmt.Errorf("--quorums %s: %w: weight %d of process %d is negative (weights must be non-negative integers)", name, ErrBadParam, w, i+1)
		}
		// 2·total must not overflow: the quorums compare twice a weight
		// with the total.
		if w > maxTotalWeight-total {
			return System{}, fmt.Errorf("--quorums %s: %w: the weights sum to more than %d (the largest total weight)", name, ErrBadParam, maxTotalWeight)
		}
		total += w
	}
	if total == 0 {
		return System{}, fmt.Errorf("--quorums %s: %w: the weights sum to 0 (at least one weight must be positive)", name, ErrBadParam)
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(weights[b], weights[a]), cmp.Compare(a, b))
	})
	return build(name, n, func(i int) []int {
		q, sum := []int{i}, weights[i]
		for _, j := range order {
			if 2*sum > total {
				break
			}
			if j != i {
				q = append(q, j)
				sum += weights[j]
			}
		}
		// Drop redundant members, last added (lightest) first. One pass
		// suffices: a member that cannot be dropped now cannot be dropped
		// later either, since the weight only decreases. (With the
		// heaviest-first choice above nothing is ever redundant; the pass
		// keeps minimality independent of that choice.)
		for k := len(q) - 1; k >= 1; k-- {
			if w := weights[q[k]]; 2*(sum-w) > total {
				sum -= w
				q = slices.Delete(q, k, k+1)
			}
		}
		return q
	}), nil
}

// Tree returns the tree quorum system of Agrawal and El Abbadi
// (docs/algorithms/maekawa.md) with one quorum per process. The processes form
// a complete binary tree in heap order (process 1 is the root, the children of
// k are 2k and 2k+1), and S_i is the path from the root through i down to the
// leftmost leaf below i.
//
// A root-to-leaf path is a tree quorum: Q(leaf) = {{leaf}}, and {r} ∪ q is in
// Q(r, L, R) for every q in Q(L) or Q(R). (A node with only a left child is
// read as having an empty right subtree with no quorums.) All these paths
// contain the root, so they intersect; the other tree quorums, which avoid
// failed nodes, are not used by the one-quorum-per-process algorithms.
func Tree(n int) (System, error) {
	if err := checkN("tree", n); err != nil {
		return System{}, err
	}
	return build("tree", n, func(i int) []int {
		var q []int
		for k := i + 1; k >= 1; k /= 2 { // i and its ancestors, 1-based
			q = append(q, k-1)
		}
		for k := 2 * (i + 1); k <= n; k *= 2 { // leftmost path below i
			q = append(q, k-1)
		}
		return q
	}), nil
}

// Wall returns the crumbling wall of Peleg and Wool
// (docs/algorithms/maekawa.md) with rows of the given widths, numbered top to
// bottom and left to right; the widths must be positive and sum to n. The
// quorum of a process in row r is the whole of row r plus the first process of
// every row below r. Two such quorums intersect: in the same row they share the
// row, and otherwise the upper one contains the first process of the lower
// one's row.
func Wall(n int, rows []int) (System, error) {
	name := "wall:" + joinInts(rows)
	if err := checkN(name, n); err != nil {
		return System{}, err
	}
	if len(rows) == 0 {
		return System{}, fmt.Errorf("--quorums %s: %w: no row widths given (expected wall:W1,W2,... with positive widths summing to N=%d, e.g. wall:1,2,3 for N=6)", name, ErrBadParam, n)
	}
	sum := 0
	for r, w := range rows {
		if w < 1 {
			return System{}, fmt.Errorf("--quorums %s: %w: row %d has width %d (row widths must be positive)", name, ErrBadParam, r+1, w)
		}
		// sum ≤ n here, so n-sum cannot overflow, and neither can sum+w.
		if w > n-sum {
			return System{}, fmt.Errorf("--quorums %s: %w: rows 1 to %d are already wider than N=%d in total (the row widths must add up to the number of processes)", name, ErrBadParam, r+1, n)
		}
		sum += w
	}
	if sum != n {
		return System{}, fmt.Errorf("--quorums %s: %w: the row widths sum to %d, not N=%d (they must add up to the number of processes)", name, ErrBadParam, sum, n)
	}
	start := make([]int, len(rows)) // first process of each row
	row := make([]int, n)           // row of each process
	p := 0
	for r, w := range rows {
		start[r] = p
		for range w {
			row[p] = r
			p++
		}
	}
	return build(name, n, func(x int) []int {
		r := row[x]
		var q []int
		for y := start[r]; y < start[r]+rows[r]; y++ {
			q = append(q, y)
		}
		// One process from every row below: its first.
		return append(q, start[r+1:]...)
	}), nil
}

// Single returns the single-coordinator system: every S_i = {1}. Only
// process 1 is in its own quorum, so it does not suit Maekawa's algorithm
// for N > 1.
func Single(n int) (System, error) {
	if err := checkN("single", n); err != nil {
		return System{}, err
	}
	return build("single", n, func(int) []int { return []int{0} }), nil
}

// All returns the system in which every quorum is the whole universe.
func All(n int) (System, error) {
	if err := checkN("all", n); err != nil {
		return System{}, err
	}
	return build("all", n, func(int) []int {
		q := make([]int, n)
		for j := range q {
			q[j] = j
		}
		return q
	}), nil
}

// Default returns the projective plane for n when one exists (see
// ProjectivePlane) and the grid otherwise.
func Default(n int) (System, error) {
	if s, err := ProjectivePlane(n); err == nil {
		return s, nil
	}
	return Grid(n)
}

// joinInts formats xs as "1,2,3".
func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ",")
}
