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
// (explorer.Expansion's Offer): in the catalog's rings, three successors in
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
	if x, ok := packShort(b); ok {
		return mixKey(x, k)
	}
	return segKeyLong(k, b)
}

// packShort packs a payload of up to 7 bytes with its length into a word,
// when it can be read in one load (the bytes beyond it masked off); the
// hot loops call it and mixKey themselves, which the compiler inlines,
// where segKey is a call.
func packShort(b []byte) (uint64, bool) {
	if len(b) > 7 || cap(b) < 8 {
		return 0, false
	}
	return binary.LittleEndian.Uint64(b[:8])&(1<<(8*uint(len(b)))-1) | uint64(len(b))<<56, true
}

// segKeyLong is segKey for a payload packShort cannot pack.
func segKeyLong(k int, b []byte) uint64 {
	if len(b) > 7 {
		return xxh3.HashSeed(b, uint64(k+1)*0x9e3779b97f4a7c15)
	}
	var x uint64
	for i, c := range b {
		x |= uint64(c) << (8 * i)
	}
	return mixKey(x|uint64(len(b))<<56, k)
}

// mixKey is the key of segment k with the packed payload x: x xored with
// a seed of the position, mixed by SplitMix64's finalizer.
func mixKey(x uint64, k int) uint64 {
	x ^= uint64(k+1) * 0x9e3779b97f4a7c15
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
		} else if x, ok := packShort(b); ok {
			keys[k] = mixKey(x, k)
		} else {
			keys[k] = segKeyLong(k, b)
		}
		sum += keys[k]
	}
	return sum
}

// isKeyed reports whether the worker's successors can be told apart
// before they are built (expandKeyed): a successor is the expanded state
// with the segments its transition changed replaced, unless the model
// normalizes states or carries the bookkeeping of a metric.
func (w *worker[S, M, P]) isKeyed() bool {
	sys := w.sys
	return sys.cfg.Normalize == nil && !sys.tracking() &&
		(sys.obs == nil || len(sys.obs.o.Actions) == 0)
}

// expandKeyed is Expand with Offer for a keyed worker: it offers each
// transition by the key of its successor, computed from the keys of the
// state's segments and of those the transition changes, and builds only the
// successors Offer asks for. Under Reduce (which the search never asks
// with Offer) it expands fully. One deferred recover serves the three parts
// (one for each cost 1.5% of a search's instructions): a panic of the model
// while the state is loaded or checked is an error of the check, one while
// it is expanded an error of the expansion.
// recoverExpansion, deferred by an expansion whose results are r and err,
// turns a panic of the model into the error it is: one while the state was
// loaded or checked (before r.Expanded) is an error of the check, one while
// it was expanded an error of the expansion.
func recoverExpansion(r *explorer.Expanded, err *error) {
	if p := recover(); p != nil {
		if r.Expanded {
			r.Enabled, *err = 0, panicError(p)
		} else {
			*r = explorer.Expanded{CheckErr: panicError(p)}
		}
	}
}

func (w *worker[S, M, P]) expandKeyed(s []byte, x *explorer.Expansion) (r explorer.Expanded, err error) {
	defer recoverExpansion(&r, &err)
	sum := w.loadKeyed(s)
	if r.Violated = w.violations(&w.v, x.Want); r.Violated&x.Stop != 0 {
		return r, nil
	}
	r.Expanded, r.All = true, true
	r.Enabled = w.expandKeyedLoaded(sum, x.Offer, x.Emit)
	return r, nil
}

// loadKeyed loads s into w.v with its segments' keys, in w.keys, and
// returns its key. The view's cache of decoded processes finds a process
// by its key. The caller recovers from a panic.
func (w *worker[S, M, P]) loadKeyed(s []byte) (sum uint64) {
	w.recording = false // as load: in case an effect that was recorded panicked
	return w.v.loadKeyed(s, w.decodeGlobals, w.keys, w.emptyKeys)
}

// expandKeyedLoaded is expand, asking offer before it builds each
// successor, for the state loadKeyed loaded, whose key is sum. The caller
// recovers from a panic.
func (w *worker[S, M, P]) expandKeyedLoaded(sum uint64, offer func(explorer.Transition, uint64) bool, emit func(explorer.Transition, []byte)) int {
	w.enumerate()
	v, sys := &w.v, w.sys
	keys := v.keys
	var probe memoProbe[S]
	for i := range w.acts {
		a := &w.acts[i]
		w.cur = i
		m := w.memoFor(a, &probe)
		if m != nil && m.packed && m.failed == 0 {
			// A remembered effect: its successor's key from the
			// channels' segments as they are, without their new ones,
			// which only a successor offered needs.
			if key, ok := w.lazyKey(a, m, sum+m.key-keys[1+a.proc]); ok {
				t := explorer.Transition{Action: uint32(i), Task: int32(a.proc), Messages: m.sent}
				if a.kind == Input {
					t.Task = int32(sys.n + a.ch)
				}
				if offer(t, key) {
					w.replay(a, m)
					w.assembleWith(a.proc, true, false, m.enc)
					emit(t, w.out)
				}
				continue
			}
		}
		var t explorer.Transition
		var procChanged, globalsChanged bool
		var enc []byte
		var pkey uint64
		if m != nil {
			t, globalsChanged = w.replay(a, m)
			procChanged, enc, pkey = true, m.enc, m.key
		} else {
			t, procChanged, globalsChanged, enc, pkey = w.stepRecord(a, &probe)
		}
		t.Action = uint32(i)
		key := sum
		if globalsChanged {
			key += segKey(0, w.gseg) - keys[0]
		}
		if procChanged {
			key += pkey - keys[1+a.proc]
		}
		for _, j := range w.joined {
			key += w.jkey[j] - keys[1+j]
		}
		for _, c := range w.touched {
			k := 1 + sys.n + c
			if b := w.pend[c]; len(b) == 0 {
				key += w.emptyKeys[k] - keys[k]
			} else if x, ok := packShort(b); ok {
				key += mixKey(x, k) - keys[k]
			} else {
				key += segKeyLong(k, b) - keys[k]
			}
		}
		if offer(t, key) {
			w.assembleWith(a.proc, procChanged, globalsChanged, enc)
			emit(t, w.out)
		}
	}
	return len(w.acts)
}
