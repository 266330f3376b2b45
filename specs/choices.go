package specs

import (
	"iter"
	"maps"
	"math/bits"
	"math/rand/v2"

	"github.com/vacheck/vacheck/automaton"
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
	// name, when set, returns the parameter values that select exactly
	// the value v among those each yields ({"ids": "2,1,3"}); see params.
	name func(v T) map[string]string
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

// params returns the parameter values that select exactly v among the
// values of c: c.name's, an empty map when c has one value (the run's own
// parameters select it), and nil when c cannot name v.
func (c choices[T]) params(v T) map[string]string {
	if c.name != nil {
		return c.name(v)
	}
	if n, ok := c.count(); ok && n == 1 {
		return map[string]string{}
	}
	return nil
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
// i being proc(i, ids[i], flags[i]). Its each, sample and name are a
// Config's InitialSeq, InitialSample and InitialParams: of reads back the
// ID and flag proc gave a process, so that an initial state is named by
// the parameters that select its ID and flag vectors (--ids 2,1,3
// --initiators 1,3). TestCatalogNamesInitialStates checks every spec's of
// by the round trip.
func initialStates[S any](ids choices[[]int], flags choices[[]bool], proc func(i, id int, flag bool) S, of func(p *S) (id int, flag bool)) choices[[]S] {
	return initialVectors(ids, flags, func(ids []int, flags []bool) []S {
		procs := make([]S, len(ids))
		for i, id := range ids {
			procs[i] = proc(i, id, flags[i])
		}
		return procs
	}, eachProc(of))
}

// initialVectors is initialStates for a spec that builds the processes of
// an initial state together, from the whole ID and flag vectors; of reads
// the vectors back from the processes.
func initialVectors[S any](ids choices[[]int], flags choices[[]bool], build func(ids []int, flags []bool) []S, of func(procs []S) ([]int, []bool)) choices[[]S] {
	c := product(ids, flags, build)
	c.name = func(procs []S) map[string]string {
		idv, flagv := of(procs)
		a, b := ids.params(idv), flags.params(flagv)
		if a == nil || b == nil {
			return nil
		}
		out := map[string]string{}
		maps.Copy(out, a)
		maps.Copy(out, b)
		return out
	}
	return c
}

// eachProc is the of of initialVectors for processes whose ID and flag
// of reads one at a time.
func eachProc[S any](of func(p *S) (int, bool)) func(procs []S) ([]int, []bool) {
	return func(procs []S) ([]int, []bool) {
		ids, flags := make([]int, len(procs)), make([]bool, len(procs))
		for i := range procs {
			ids[i], flags[i] = of(&procs[i])
		}
		return ids, flags
	}
}

// noFlags is the one flag vector of n processes, none set: for a spec
// whose processes differ only by ID.
func noFlags(n int) choices[[]bool] {
	return oneChoice(make([]bool, n), cloneSlice)
}

// cloneSlice returns a copy of s.
func cloneSlice[E any](s []E) []E { return append([]E(nil), s...) }

// withInitial returns cfg with the initial states c yields: its
// InitialSeq, InitialSample, InitialAt and InitialParams.
func withInitial[S any, M automaton.Message](c choices[[]S], cfg automaton.Config[S, M]) automaton.Config[S, M] {
	cfg.InitialSeq, cfg.InitialSample, cfg.InitialAt, cfg.InitialParams = c.each, c.sample, c.indexed(), c.params
	return cfg
}
