package specs

import (
	"iter"
	"math/bits"
	"math/rand/v2"
)

// choices is the values a parameter chose, such as the ID vectors of --ids
// all or the initiator sets of --initiators subsets: it yields them one at
// a time in a fixed order, counts them, and draws one uniformly, without
// ever building them all, so that a search stops at its limits before N!
// of them exist and a random simulation picks one of 200! arrangements.
type choices[T any] struct {
	// count is how many values each yields, and false when that exceeds
	// a uint64.
	count func() (uint64, bool)
	// each yields the values in order, each of its own (the caller may
	// keep it).
	each iter.Seq[T]
	// sample draws one of the values each yields, each with the same
	// chance, using only r; the value is the caller's.
	sample func(r *rand.Rand) T
	// at builds the k-th value each yields (0-based, k below the count)
	// without those before it, or is nil when it cannot (a count beyond
	// a uint64).
	at func(k uint64) T
}

// indexed is the Config's InitialAt for c: the k-th value each yields
// and true, false past the last; nil when c cannot build one directly.
func (c choices[T]) indexed() func(k uint64) (T, bool) {
	if c.at == nil {
		return nil
	}
	n, ok := c.count()
	if !ok {
		return nil
	}
	return func(k uint64) (T, bool) {
		if k >= n {
			var zero T
			return zero, false
		}
		return c.at(k), true
	}
}

// oneChoice is the single value v (a fresh copy of it each time, by
// clone).
func oneChoice[T any](v T, clone func(T) T) choices[T] {
	return choices[T]{
		count:  func() (uint64, bool) { return 1, true },
		each:   func(yield func(T) bool) { yield(clone(v)) },
		sample: func(*rand.Rand) T { return clone(v) },
		at:     func(uint64) T { return clone(v) },
	}
}

// product is every pair of a value of a and a value of b, a outer and b
// inner, each built by join. A product of independent uniform draws is
// uniform: sample draws from a, then from b.
func product[A, B, T any](a choices[A], b choices[B], join func(A, B) T) choices[T] {
	var at func(k uint64) T
	if cb, ok := b.count(); ok && cb > 0 && a.at != nil && b.at != nil {
		at = func(k uint64) T { return join(a.at(k/cb), b.at(k%cb)) }
	}
	return choices[T]{
		at: at,
		count: func() (uint64, bool) {
			ca, oka := a.count()
			cb, okb := b.count()
			hi, lo := bits.Mul64(ca, cb)
			return lo, oka && okb && hi == 0
		},
		each: func(yield func(T) bool) {
			for x := range a.each {
				for y := range b.each {
					if !yield(join(x, y)) {
						return
					}
				}
			}
		},
		sample: func(r *rand.Rand) T {
			x := a.sample(r)
			return join(x, b.sample(r))
		},
	}
}

// initialStates is the initial states of a spec whose processes differ by
// ID and by a flag (initiator or not, a direction): one for every ID
// vector of ids and flag vector of flags (IDs outer, flags inner), process
// i being proc(i, ids[i], flags[i]). Its each and sample are a
// Config's InitialSeq and InitialSample.
func initialStates[S any](ids choices[[]int], flags choices[[]bool], proc func(i, id int, flag bool) S) choices[[]S] {
	return initialVectors(ids, flags, func(ids []int, flags []bool) []S {
		procs := make([]S, len(ids))
		for i, id := range ids {
			procs[i] = proc(i, id, flags[i])
		}
		return procs
	})
}

// initialVectors is initialStates for a spec that builds the processes of
// an initial state together, from the whole ID and flag vectors.
func initialVectors[S any](ids choices[[]int], flags choices[[]bool], build func(ids []int, flags []bool) []S) choices[[]S] {
	return product(ids, flags, build)
}

// noFlags is the one flag vector of n processes, none set: for a spec
// whose processes differ only by ID.
func noFlags(n int) choices[[]bool] {
	return oneChoice(make([]bool, n), cloneSlice)
}

// cloneSlice returns a copy of s.
func cloneSlice[E any](s []E) []E { return append([]E(nil), s...) }
