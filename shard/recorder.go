package shard

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/vacheck/vacheck/explorer"
	"github.com/zeebo/xxh3"
)

// Mode says how the counts of the parts of a check combine.
type Mode uint8

const (
	// Disjoint: no state is explored by two parts (see the package
	// documentation); the counts add up.
	Disjoint Mode = 1 + iota
	// Union: the parts' fingerprint sets are merged (MergeSets).
	Union
)

func (m Mode) String() string {
	switch m {
	case Disjoint:
		return "disjoint"
	case Union:
		return "union"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// ParseMode reads a Mode from its String.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "disjoint":
		return Disjoint, nil
	case "union":
		return Union, nil
	}
	return 0, fmt.Errorf("shard: unknown mode %q (known: disjoint, union)", s)
}

// ErrConstant reports a state whose constant part is none of its part's
// initial states': a transition changed what the model declares constant.
var ErrConstant = errors.New("shard: the constant part of a state changed")

// maxWorkers is the most workers a search has (explorer.Config.Workers).
const maxWorkers = 256

// Recorder is what a part of a check records as it runs, through
// explorer.Config.OnExpand (Hook): in Disjoint mode it checks every state's
// constant part; in Union mode it keeps every state's fingerprint, depth
// and transition count, which WriteSet writes. Make one with NewRecorder;
// its Hook may be called from several goroutines with different workers.
type Recorder struct {
	m     explorer.Model
	shard explorer.Shard
	mode  Mode
	why   string // why Union
	// own holds the constant parts of the part's initial states (Disjoint).
	own map[uint64]struct{}
	// constants digests the constant parts of every initial state, in
	// order: the parts of one check agree on it.
	constants uint64
	initial   int // the initial states of the part
	all       int // the initial states of the whole check
	workers   []explorer.ConstantWorker
	recs      [][]Record
	// initFP holds the fingerprints of the part's initial states, and
	// seen0[w] counts those worker w expanded: the search must expand
	// exactly them at depth 0.
	initFP map[uint64]struct{}
	seen0  []int64
	mu     sync.Mutex // guards the creation of workers
}

// NewRecorder enumerates the initial states of m, one at a time, and
// decides the mode of part sh: Disjoint when the model declares a constant
// part (explorer.ConstantWorker) and the initial states' constant parts are
// pairwise distinct, Union otherwise.
func NewRecorder(m explorer.Model, sh explorer.Shard) (*Recorder, error) {
	r := &Recorder{m: m, shard: sh, mode: Disjoint, own: map[uint64]struct{}{},
		workers: make([]explorer.ConstantWorker, maxWorkers), recs: make([][]Record, maxWorkers),
		initFP: map[uint64]struct{}{}, seen0: make([]int64, maxWorkers)}
	cw, isCW := m.NewWorker().(explorer.ConstantWorker)
	if !isCW {
		r.mode, r.why = Union, "the model declares no constant part of its states"
	}
	seen := map[uint64]int{}
	digest := xxh3.New()
	var failed error
	var buf [8]byte
	err := explorer.EachInitial(m, func(st []byte) bool {
		i := r.all
		r.all++
		if sh.Has(i) {
			r.initial++
			r.initFP[explorer.Fingerprint(st)] = struct{}{}
		}
		if r.mode != Disjoint {
			return true
		}
		h, ok, err := cw.Constant(st)
		switch {
		case err != nil:
			failed = fmt.Errorf("shard: the constant part of initial state #%d: %w", i+1, err)
			return false
		case !ok:
			r.mode, r.why = Union, "the model declares no constant part of its states"
			return true
		}
		if j, dup := seen[h]; dup {
			r.mode, r.why = Union, fmt.Sprintf("initial states #%d and #%d have the same constant part", j+1, i+1)
			return true
		}
		seen[h] = i
		for k := range buf {
			buf[k] = byte(h >> (8 * k))
		}
		digest.Write(buf[:])
		if sh.Has(i) {
			r.own[h] = struct{}{}
		}
		return true
	})
	if err == nil {
		err = failed
	}
	if err != nil {
		return nil, fmt.Errorf("shard: the initial states: %w", err)
	}
	if r.mode == Disjoint {
		r.constants = digest.Sum64()
	} else {
		r.own = nil
	}
	return r, nil
}

// Mode is how the part's counts combine with the others'.
func (r *Recorder) Mode() Mode { return r.mode }

// Why says why the mode is Union, or is "".
func (r *Recorder) Why() string { return r.why }

// Constants digests the constant parts of every initial state (Disjoint),
// or is 0.
func (r *Recorder) Constants() uint64 { return r.constants }

// Initial returns the number of initial states of the part and of the
// whole check.
func (r *Recorder) Initial() (part, all int) { return r.initial, r.all }

// ErrSplit reports a search that did not start from exactly the initial
// states of its part.
var ErrSplit = errors.New("shard: the search's initial states are not its part's")

// Hook is the explorer.Config.OnExpand of the part's search.
func (r *Recorder) Hook(x explorer.ExpandInfo) error {
	if x.Depth == 0 {
		if _, mine := r.initFP[x.Fingerprint]; !mine {
			return fmt.Errorf("%w: it expanded at depth 0 a state that is no initial state of part %s", ErrSplit, r.shard)
		}
		r.seen0[x.Worker]++
	}
	if r.mode == Union {
		t := uint32(x.Transitions)
		if x.Terminal {
			t |= terminalBit
		}
		r.recs[x.Worker] = append(r.recs[x.Worker], Record{FP: x.Fingerprint, Depth: uint32(x.Depth), trans: t})
		return nil
	}
	w := r.workers[x.Worker]
	if w == nil {
		r.mu.Lock()
		w = r.m.NewWorker().(explorer.ConstantWorker)
		r.workers[x.Worker] = w
		r.mu.Unlock()
	}
	h, ok, err := w.Constant(x.State)
	if err != nil {
		return fmt.Errorf("shard: the constant part of a state: %w", err)
	}
	if _, mine := r.own[h]; !ok || !mine {
		return fmt.Errorf("%w: a state at depth %d has a constant part (the model's Constant, e.g. automaton.Config.Constant) that none of the initial states of part %s has, so a transition changed it: the parts cannot be proved disjoint; fix the model's Constant", ErrConstant, x.Depth, r.shard)
	}
	return nil
}

// Verify checks, after a search that expanded every state it stored
// (Status OK or Bounded), that it expanded every initial state of the
// part: with Hook's check that it expanded no other at depth 0, a split
// that drops, adds or moves an initial state is caught.
func (r *Recorder) Verify(res *explorer.Result) error {
	if res.Status != explorer.OK && res.Status != explorer.Bounded {
		return nil
	}
	var n int64
	for _, c := range r.seen0 {
		n += c
	}
	if n != int64(len(r.initFP)) {
		return fmt.Errorf("%w: it expanded %d initial states, and part %s has %d distinct ones", ErrSplit, n, r.shard, len(r.initFP))
	}
	return nil
}

// Records returns what the part recorded (Union), sorted by fingerprint.
func (r *Recorder) Records() []Record {
	n := 0
	for _, rs := range r.recs {
		n += len(rs)
	}
	out := make([]Record, 0, n)
	for k, rs := range r.recs {
		out = append(out, rs...)
		r.recs[k] = nil
	}
	slices.SortFunc(out, func(a, b Record) int {
		switch {
		case a.FP < b.FP:
			return -1
		case a.FP > b.FP:
			return 1
		}
		return 0
	})
	return out
}
