package automaton

import (
	"encoding/binary"

	"github.com/zeebo/xxh3"

	"github.com/vacheck/vacheck/explorer"
)

// A state's key is the sum, modulo 2^64, of the keys of its segments (the
// environment's, each process's, each channel's): a function of the
// encoding alone, like its fingerprint, but one that a transition updates
// from the few segments it changes, before the successor is built. The
// search drops a successor it met a moment before by its key
// (explorer.KeyedExpander): in the catalog's rings, three successors in
// four, which are then never assembled, hashed or stored.
//
// segKey is the key of payload b as segment k. A payload of up to 7 bytes
// (most of them: a process's few fields, a channel's few messages) is
// packed with its length into one word, xored with a seed of the position
// and mixed by SplitMix64's finalizer, a bijection: two payloads of one
// segment that differ have keys that differ. A longer payload is hashed
// by XXH3, seeded by the position. Two states that differ then have keys
// that differ by a sum of differences of well-mixed words, which is 0
// with probability about 2^-64.
func segKey(k int, b []byte) uint64 {
	seed := uint64(k+1) * 0x9e3779b97f4a7c15
	if len(b) > 7 {
		return xxh3.HashSeed(b, seed)
	}
	var x uint64
	if cap(b) >= 8 {
		// One load, the bytes beyond the payload masked off.
		x = binary.LittleEndian.Uint64(b[:8]) & (1<<(8*uint(len(b))) - 1)
	} else {
		for i, c := range b {
			x |= uint64(c) << (8 * i)
		}
	}
	x |= uint64(len(b)) << 56
	x ^= seed
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// stateKey returns the key of the state loaded in v, and each segment's
// key in keys; empty holds the key of each segment when it is empty (a
// channel, most often).
func stateKey[S any, M Message](v *View[S, M], keys, empty []uint64) uint64 {
	var sum uint64
	for k, b := range v.segs[:len(keys)] {
		if len(b) == 0 {
			keys[k] = empty[k]
		} else {
			keys[k] = segKey(k, b)
		}
		sum += keys[k]
	}
	return sum
}

// Keyed implements explorer.KeyedExpander: a successor is the expanded
// state with the segments its transition changed replaced, unless the
// model normalizes states or carries the bookkeeping of a metric.
func (w *worker[S, M, P]) Keyed() bool {
	sys := w.sys
	return sys.cfg.Normalize == nil && !sys.instSync && !sys.instTime && !sys.instEntry
}

// CheckExpandKeyed implements explorer.KeyedExpander.
func (w *worker[S, M, P]) CheckExpandKeyed(s []byte, want, stop uint64, offer func(explorer.Transition, uint64) bool, emit func(explorer.Transition, []byte)) (p int, checkErr error, n int, err error) {
	sum, checkErr := w.loadKeyed(s)
	if checkErr == nil {
		p, checkErr = w.checkLoaded(&w.v, want)
		p, checkErr = w.stopFirst(p, checkErr, want, stop)
	}
	if checkErr != nil || p >= 0 && stop&(1<<uint(p)) != 0 {
		return p, checkErr, 0, nil
	}
	n, err = w.expandKeyed(sum, offer, emit)
	return p, nil, n, err
}

// loadKeyed loads s into w.v with its segments' keys, in w.keys, and
// returns its key. The view's cache of decoded processes finds a process
// by its key.
func (w *worker[S, M, P]) loadKeyed(s []byte) (sum uint64, err error) {
	defer catch(&err)
	v := &w.v
	w.load(v, s)
	keys := w.keys[:len(v.segs)]
	sum = stateKey(v, keys, w.emptyKeys)
	v.keys = keys
	return sum, nil
}

// expandKeyed is expand, asking offer before it builds each successor, for
// the state loadKeyed loaded, whose key is sum.
func (w *worker[S, M, P]) expandKeyed(sum uint64, offer func(explorer.Transition, uint64) bool, emit func(explorer.Transition, []byte)) (n int, err error) {
	defer catch(&err)
	w.enumerate()
	v, sys := &w.v, w.sys
	keys := v.keys
	for _, a := range w.acts {
		t, procChanged, globalsChanged, enc, pkey := w.stepKeyed(a)
		key := sum
		if globalsChanged {
			key += segKey(0, w.gseg) - keys[0]
		}
		if procChanged {
			key += pkey - keys[1+a.proc]
		}
		for _, c := range w.touched {
			k := 1 + sys.n + c
			if len(w.pend[c]) == 0 {
				key += w.emptyKeys[k] - keys[k]
			} else {
				key += segKey(k, w.pend[c]) - keys[k]
			}
		}
		if offer(t, key) {
			w.assembleWith(a.proc, procChanged, globalsChanged, enc)
			emit(t, w.out)
		}
	}
	return len(w.acts), nil
}
