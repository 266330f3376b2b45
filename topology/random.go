package topology

import "fmt"

// splitMix64 is the SplitMix64 generator (Steele, Lea and Flood 2014). It is
// written out here, rather than taken from math/rand, so that a seed gives
// the same graph on every machine and with every Go release.
type splitMix64 struct{ state uint64 }

func (r *splitMix64) next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// intn returns a uniform integer in [0, n) for n > 0, without modulo bias.
func (r *splitMix64) intn(n int) int {
	b := uint64(n)
	threshold := -b % b // 2^64 mod b
	for {
		if v := r.next(); v >= threshold {
			return int(v % b)
		}
	}
}

// edgeRange returns the smallest and largest number of edges of a connected
// simple graph on n processes: n-1 and n(n-1)/2.
func edgeRange(n int) (lo, hi int) {
	return n - 1, n * (n - 1) / 2
}

// Random returns a connected graph on n processes with exactly edges edges,
// determined by seed alone. It draws a uniformly random labelled spanning
// tree (a random Prüfer sequence) and then adds edges-(n-1) further edges
// chosen uniformly among the remaining pairs. The generator is SplitMix64,
// implemented in this package, so the result never depends on the Go
// version. The graph's name is "random:SEED:EDGES".
//
// Random fails with ErrBadSize if n < 1 and with ErrEdgeCount unless
// n-1 <= edges <= n(n-1)/2.
func Random(n int, seed uint64, edges int) (Graph, error) {
	if n < 1 {
		return Graph{}, fmt.Errorf("%w: random graph needs at least 1 node, got %d", ErrBadSize, n)
	}
	lo, hi := edgeRange(n)
	if edges < lo || edges > hi {
		return Graph{}, fmt.Errorf("%w: a connected graph on %d nodes has %d..%d edges, got %d",
			ErrEdgeCount, n, lo, hi, edges)
	}
	rng := &splitMix64{state: seed}
	es := randomTree(n, rng)
	present := make(map[[2]int]bool, edges)
	for _, e := range es {
		present[e] = true
	}
	// Pick the extra edges, or, when more than half of the free pairs are
	// wanted, the free pairs to leave out; either way by rejection sampling.
	free := hi - lo
	extra := edges - lo
	pick := extra
	if 2*extra > free {
		pick = free - extra
	}
	chosen := make(map[[2]int]bool, pick)
	var order [][2]int
	for len(order) < pick {
		a, b := rng.intn(n), rng.intn(n)
		if a == b {
			continue
		}
		e := [2]int{min(a, b), max(a, b)}
		if present[e] || chosen[e] {
			continue
		}
		chosen[e] = true
		order = append(order, e)
	}
	if pick == extra {
		es = append(es, order...)
	} else {
		for a := range n {
			for b := a + 1; b < n; b++ {
				if e := [2]int{a, b}; !present[e] && !chosen[e] {
					es = append(es, e)
				}
			}
		}
	}
	return build(n, fmt.Sprintf("random:%d:%d", seed, edges), es), nil
}

// randomTree returns the edges of the tree encoded by a random Prüfer
// sequence, which is uniform over the n^(n-2) labelled trees.
func randomTree(n int, rng *splitMix64) [][2]int {
	if n < 2 {
		return nil
	}
	code := make([]int, n-2)
	for i := range code {
		code[i] = rng.intn(n)
	}
	degree := make([]int, n)
	for i := range degree {
		degree[i] = 1
	}
	for _, v := range code {
		degree[v]++
	}
	ptr := 0
	for degree[ptr] != 1 {
		ptr++
	}
	leaf := ptr
	es := make([][2]int, 0, n-1)
	for _, v := range code {
		es = append(es, [2]int{min(leaf, v), max(leaf, v)})
		degree[v]--
		if degree[v] == 1 && v < ptr {
			leaf = v
		} else {
			ptr++
			for degree[ptr] != 1 {
				ptr++
			}
			leaf = ptr
		}
	}
	return append(es, [2]int{min(leaf, n-1), max(leaf, n-1)})
}
