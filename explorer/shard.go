package explorer

import "fmt"

// Shard selects a part of a model's initial states (Config.Shard), so that
// a check can be split over several runs, each on a part, whose results
// package shard merges. The split is round-robin by the index of the
// initial state in the model's enumeration (Model.Initial, or
// InitialStreamer, which yield them in a fixed order): part Index holds the
// initial states whose index i has i mod Count = Index. The zero value
// (and Count 1) selects every initial state.
type Shard struct {
	Index, Count int
}

// Whole reports whether sh selects every initial state.
func (sh Shard) Whole() bool { return sh.Count <= 1 }

// Has reports whether sh selects the initial state of index i in the
// model's enumeration.
func (sh Shard) Has(i int) bool { return sh.Whole() || i%sh.Count == sh.Index }

// Global returns the index in the model's enumeration of the initial state
// that is the local-th selected by sh.
func (sh Shard) Global(local int) int {
	if sh.Whole() {
		return local
	}
	return local*sh.Count + sh.Index
}

func (sh Shard) String() string { return fmt.Sprintf("%d/%d", sh.Index, sh.Count) }

// validate checks that sh names a part that exists.
func (sh Shard) validate() error {
	if sh == (Shard{}) {
		return nil
	}
	v := sh.String()
	switch {
	case sh.Count < 1:
		return configError("Shard", v, "{Shard %s}: the number of parts must be at least 1", v)
	case sh.Index < 0 || sh.Index >= sh.Count:
		return configError("Shard", v, "{Shard %s}: the part must be from 0 to %d", v, sh.Count-1)
	}
	return nil
}

// EachShardInitial yields the initial states of m that sh selects, one at
// a time as EachInitial does, with their index in the model's whole
// enumeration, until yield returns false.
func EachShardInitial(m Model, sh Shard, yield func(i int, st []byte) bool) error {
	i := -1
	return eachInitial(m, func(st []byte) bool {
		i++
		if !sh.Has(i) {
			return true
		}
		return yield(i, st)
	})
}

// eachShardInitial yields the initial states of m that sh selects, as
// eachInitial does: the search numbers them locally (0, 1, ...).
func eachShardInitial(m Model, sh Shard, yield func(st []byte) bool) error {
	if sh.Whole() {
		return eachInitial(m, yield)
	}
	return EachShardInitial(m, sh, func(_ int, st []byte) bool { return yield(st) })
}

// ConstantWorker is an optional interface of a Worker whose model may
// declare a constant part of its states: a part that no transition
// changes, such as the arrangement of the processes' IDs. Constant returns
// a 64-bit hash of that part of s (of a canonical encoding of it), equal
// for two states exactly when their constant parts are equal, up to hash
// collisions; ok is false when the model declares no constant part.
//
// Package shard uses it to prove that the parts of a check split by
// initial state explore disjoint state spaces: when the initial states'
// constant parts are pairwise distinct, and every state a part explores
// has the constant part of one of its own initial states (which each part
// checks in every state it expands, with Config.OnExpand), no state is
// explored by two parts, and their counts add up.
type ConstantWorker interface {
	Constant(s []byte) (h uint64, ok bool, err error)
}

// Expanded state hook: see Config.OnExpand.

// ExpandInfo describes a state a breadth-first search expanded, for
// Config.OnExpand.
type ExpandInfo struct {
	// Worker is the index of the worker goroutine that expanded it, from 0
	// to Result.Workers-1: calls with different Workers may run at once.
	Worker int
	// State is the state's encoding, valid only during the call, and
	// Fingerprint its fingerprint.
	State       []byte
	Fingerprint uint64
	// Depth is its BFS level: its distance from the nearest initial state
	// of the search.
	Depth int
	// Transitions is the number of transitions computed from it (counted
	// in Result.Transitions); Terminal says that none of them is a
	// non-fault transition (counted in Result.Terminal).
	Transitions int
	Terminal    bool
}

// Instrument returns the model a search of m with the given metrics
// explores: m itself, or for the metrics that need more state tracked
// (Instrumenter), the instrumented model, whose states Config.OnExpand
// then receives.
func Instrument(m Model, metrics []string) (Model, error) {
	im, _, _, err := instrument(m, metrics)
	return im, err
}

// Fingerprint returns the fingerprint the search stores for state st: a
// fixed-seed 64-bit hash of its encoding, the same in every process and on
// every machine.
func Fingerprint(st []byte) uint64 { return fingerprint(st) }
