package explorer

// This file holds the loading half of checkpoints (see Checkpoint in
// checkpoint.go): reading and validating a saved file, and resuming a
// breadth-first or depth-first search from it.

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dolthub/swiss"
	"github.com/vacheck/vacheck/internal/input"
)

// readVisited reads what writeVisited wrote into the search's visited set
// (BFS), or into a new fpSet that it returns (DFS). The saved search may
// have had another number of shards (workers): the records of saved shard
// k go, in order, to shard k mod W after those of the saved shards before
// it, and remap renumbers a saved reference accordingly.
func (s *search) readVisited(r *ckReader) (seen *fpSet, remap func(stateRef) (stateRef, bool), stored int64) {
	if s.cfg.Strategy == DFS {
		seen = newFPSet()
		n := r.count(8)
		for i := uint64(0); i < n && r.err == nil; i++ {
			if h := r.u64(); !seen.insert(h) && r.err == nil {
				r.fail(fmt.Errorf("fingerprint %016x twice", h))
			}
		}
		return seen, func(ref stateRef) (stateRef, bool) { return ref, false }, int64(seen.Len())
	}
	W := uint64(len(s.shards))
	old := r.count(8)
	if old > 256 {
		r.fail(fmt.Errorf("%d shards", old))
		return nil, func(ref stateRef) (stateRef, bool) { return ref, false }, 0
	}
	counts := make([]uint64, old)
	offsets := make([]uint64, old)
	next := make([]uint64, W)
	for k := range counts {
		counts[k] = r.count(12)
		offsets[k] = next[uint64(k)%W]
		next[uint64(k)%W] += counts[k]
	}
	remap = func(ref stateRef) (stateRef, bool) {
		if ref == noRef {
			return noRef, true
		}
		k, pos := uint64(ref.shard()), ref.pos()
		if k >= old || pos >= counts[k] {
			return 0, false
		}
		return stateRef((k%W)<<refPosBits | (offsets[k] + pos)), true
	}
	for k := uint64(0); k < old && r.err == nil; k++ {
		m := s.shards[k%W]
		for i := uint64(0); i < counts[k] && r.err == nil; i++ {
			parent, act := stateRef(r.u64()), r.u32()
			p, ok := remap(parent)
			if !ok {
				r.fail(fmt.Errorf("record %d of shard %d has no predecessor %d", i, k, parent))
				break
			}
			m.addRecord(p, act)
		}
	}
	n := r.count(8)
	var records uint64
	for _, c := range counts {
		records += c
	}
	if r.err == nil && n != records {
		r.fail(fmt.Errorf("%d fingerprints for %d records", n, records))
	}
	for i := uint64(0); i < n && r.err == nil; i++ {
		h := r.u64()
		if !s.shards[s.shard(h)].fps.insert(h) && r.err == nil {
			r.fail(fmt.Errorf("fingerprint %016x twice", h))
		}
	}
	return nil, remap, int64(n)
}

// checkCounters refuses counters, and a reason the search stopped for,
// that no search with s's settings saves: the resumed search would report
// them, or index by them, as they are.
func (s *search) checkCounters(c ckCounters) error {
	for _, f := range []struct {
		name string
		v    int64
	}{{"states", c.states}, {"transitions", c.transitions}, {"terminal states", c.terminal}, {"cut states", c.cut},
		{"reduced states", c.reduced}, {"depth", c.depth}, {"raw states", c.raw}, {"raw terminal states", c.rawTerminal},
		{"elapsed time", int64(c.prior)}} {
		if f.v < 0 {
			return fmt.Errorf("%s %d", f.name, f.v)
		}
	}
	switch {
	case c.terminal > c.states || c.cut > c.states || c.reduced > c.states:
		return fmt.Errorf("%d terminal, %d cut or %d reduced states of %d", c.terminal, c.cut, c.reduced, c.states)
	case c.depth > c.states:
		return fmt.Errorf("depth %d with %d states", c.depth, c.states)
	// The raw counts, like Result.States, leave out the states outside the
	// model's constraint (cut); states counts every state stored.
	case !s.cfg.Symmetry && (c.raw != c.states-c.cut || c.rawTerminal != c.terminal):
		return fmt.Errorf("raw counts %d and %d without symmetry", c.raw, c.rawTerminal)
	case s.cfg.Symmetry && (c.raw < c.states-c.cut || c.rawTerminal < c.terminal || c.rawTerminal > c.raw):
		return fmt.Errorf("raw counts %d and %d for %d orbits, %d terminal", c.raw, c.rawTerminal, c.states-c.cut, c.terminal)
	}
	// A search saves when nothing stopped it, or (depth first) after the
	// depth limit cut a state, which it words as it does here.
	switch {
	case c.limit == NoLimit && c.incomplete == "":
	case c.limit == DepthLimit && s.cfg.Strategy == DFS && s.cfg.MaxDepth > 0 && c.incomplete == dfsDepthReason(s.cfg.MaxDepth):
	default:
		return fmt.Errorf("stopped by limit %d (%q)", c.limit, input.Clip(c.incomplete))
	}
	return nil
}

// removeStaleTemps removes the temporary files writeAtomic leaves next to
// file when the process is killed in the middle of a save.
func removeStaleTemps(file string) {
	dir, base := filepath.Split(file)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), base+".tmp") && e.Type().IsRegular() {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// loadHalts reports whether a limit, or the Context, stops the loading of
// a checkpoint now; it samples the memory itself, as loading allocates
// faster than the monitor samples.
func (s *search) loadHalts() bool {
	if t := s.cfg.Timeout; t > 0 && time.Since(s.start) >= t {
		s.stop.CompareAndSwap(running, stopTimeout)
	}
	return s.halting() || s.overMemory()
}

// loadCheckpoint reads the checkpoint the search resumes from, after
// verifying its checksum and that it was written by this build, for this
// model, by a search with the same settings. A limit reached while it
// reads ends it with errLoadStopped; a file larger than MaxMemory is not
// read at all, as loading it takes about as much memory as its size.
func (s *search) loadCheckpoint() error {
	ck := s.cfg.Checkpoint
	if fi, err := os.Stat(ck.File); err == nil && s.cfg.MaxMemory > 0 && uint64(fi.Size()) > s.cfg.MaxMemory {
		s.stop.CompareAndSwap(running, stopMemory)
		s.cutShort(MemoryLimit, fmt.Sprintf("memory limit reached (--max-memory %s): the checkpoint has %s, and loading it takes about as much memory",
			formatBytes(s.cfg.MaxMemory), formatBytes(uint64(fi.Size()))))
		return errLoadStopped
	}
	r, closeFile, err := openCheckpoint(ck.File, s.loadHalts)
	if errors.Is(err, errLoadStopped) {
		return errLoadStopped
	}
	if err != nil {
		return err
	}
	defer closeFile()
	h, err := r.header()
	if err != nil {
		return err
	}
	var diffs []string
	if h.build != ck.Build {
		diffs = append(diffs, fmt.Sprintf("it was written by another build of vacheck (%s; this is %s)", h.build, ck.Build))
	}
	if h.model != ck.Model {
		diffs = append(diffs, fmt.Sprintf("it is of another model (%s; this is %s)", h.model, ck.Model))
	} else if h.hash != s.hash {
		diffs = append(diffs, "its model has other initial states or properties than this one (the spec changed)")
	}
	if id := s.identity(); h.identity != id {
		diffs = append(diffs, fmt.Sprintf("it was written by a search with %s; this one has %s", h.identity, id))
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%w: %s: %s", ErrCheckpoint, ck.File, strings.Join(diffs, "; "))
	}
	var c ckCounters
	c.read(r)
	c.incomplete, c.limit = r.str(), Limit(r.u8())
	if r.err == nil {
		if err := s.checkCounters(c); err != nil {
			r.fail(err)
		}
	}
	nv := r.count(18)
	var viols []found
	for i := uint64(0); i < nv && r.err == nil; i++ {
		f := found{prop: int(int64(r.u64())), fp: r.u64()}
		if r.u8() == 1 {
			f.ref, f.hasRef = stateRef(r.u64()), true
		}
		if r.u8() == 1 {
			f.path = &path{init: int(int64(r.u64()))}
			na := r.count(12)
			for k := uint64(0); k < na && r.err == nil; k++ {
				f.path.acts = append(f.path.acts, r.u32())
				f.path.fps = append(f.path.fps, r.u64())
			}
			if f.path.init < 0 {
				r.fail(fmt.Errorf("a counterexample starts at initial state %d", f.path.init))
			}
		}
		switch {
		case f.prop < 0 || f.prop > s.deadlock:
			r.fail(fmt.Errorf("property %d out of range", f.prop))
		case !f.hasRef && f.path == nil:
			r.fail(fmt.Errorf("a counterexample to property %d has neither a state nor a path", f.prop))
		case slices.ContainsFunc(viols, func(g found) bool { return g.prop == f.prop }):
			r.fail(fmt.Errorf("two counterexamples to property %d", f.prop))
		}
		viols = append(viols, f)
	}
	res := &resumed{depth: int(c.depth)}
	if Strategy(r.u8()) != s.cfg.Strategy {
		r.fail(errors.New("strategy mismatch"))
	}
	if s.cfg.Strategy == BFS {
		res.level = &bucket{}
		n := r.count(20)
		if r.err == nil && int64(n) > c.states {
			r.fail(fmt.Errorf("a level of %d states in a search of %d", n, c.states))
		}
		for i := uint64(0); i < n && r.err == nil; i++ {
			fp, ref := r.u64(), stateRef(r.u64())
			st := r.bytes()
			if r.err == nil && fingerprint(st) != fp {
				r.fail(fmt.Errorf("state %d of the level does not have its fingerprint", i))
			}
			res.level.add(st, fp, uint32(i), 0, ref)
		}
	} else {
		n := r.count(12)
		for i := uint64(0); i < n && r.err == nil; i++ {
			res.trail = append(res.trail, dfsStep{act: r.u32(), fp: r.u64()})
		}
		n = r.count(20)
		for i := uint64(0); i < n && r.err == nil; i++ {
			d := int64(r.u64())
			if d < 0 || d > c.depth {
				r.fail(fmt.Errorf("a stack entry at depth %d in a search of depth %d", d, c.depth))
			}
			res.depths = append(res.depths, int(d))
			res.stack = append(res.stack, dfsStep{act: r.u32(), fp: r.u64()})
		}
	}
	var remap func(stateRef) (stateRef, bool)
	var stored int64
	res.seen, remap, stored = s.readVisited(r)
	if r.err == nil && r.left != 0 {
		r.fail(fmt.Errorf("%d bytes left over", r.left))
	}
	if r.err == nil && stored != c.states {
		// The count every figure of the resumed search starts from.
		r.fail(fmt.Errorf("%d states counted, %d stored", c.states, stored))
	}
	// The references saved name records of the saved shards: renumber
	// them for this search's shards.
	for _, f := range viols {
		if f.hasRef && r.err == nil {
			var ok bool
			if f.ref, ok = remap(f.ref); !ok {
				r.fail(fmt.Errorf("a counterexample's state %d is not in the visited set", f.ref))
			}
		}
	}
	if res.level != nil && r.err == nil {
		for k := range res.level.len() {
			ref := res.level.ref(k)
			nref, ok := remap(ref)
			res.level.setRef(k, nref)
			if !ok || ref == noRef {
				r.fail(fmt.Errorf("state %d of the level is not in the visited set", k))
				break
			}
			if h := res.level.fp(k); !s.shards[s.shard(h)].Has(h) {
				r.fail(fmt.Errorf("state %d of the level is not in the visited set", k))
				break
			}
		}
	}
	if errors.Is(r.err, errLoadStopped) {
		return errLoadStopped
	}
	if r.err != nil {
		return fmt.Errorf("%w: %s: malformed: %v", ErrCheckpoint, ck.File, r.err)
	}
	// Only now, with every field checked, does the search take them.
	c.store(s)
	for _, f := range viols {
		s.recordFound(f)
	}
	s.resume = res
	return nil
}

// resumeStack rebuilds the DFS stack of a resumed search, once the initial
// states are known again.
func (s *search) resumeStack() error {
	res := s.resume
	if res == nil || s.cfg.Strategy != DFS {
		return nil
	}
	var err error
	if res.arena, res.dstack, res.trail, err = s.resumeDFS(s.workers[0]); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrCheckpoint, s.cfg.Checkpoint.File, err)
	}
	return nil
}

// ReadCheckpoint verifies the checksum of a checkpoint file and returns
// what its header says.
func ReadCheckpoint(file string) (CheckpointInfo, error) {
	r, closeFile, err := openCheckpoint(file, nil)
	if err != nil {
		return CheckpointInfo{}, err
	}
	defer closeFile()
	return r.info(file)
}

// PeekCheckpoint returns what the header of a checkpoint file says, like
// ReadCheckpoint, without verifying the checksum of the whole file: it
// reads the first bytes only, however large the file. It is for a caller
// that then resumes the file with Check, which verifies all of it, under
// the search's limits, before it uses any of it; until then, what it
// returns may be that of a corrupted file.
func PeekCheckpoint(file string) (CheckpointInfo, error) {
	f, size, err := openRegular(file)
	if err != nil {
		return CheckpointInfo{}, err
	}
	defer f.Close()
	body := size - sha256.Size
	if body < int64(len(checkpointMagic)) {
		return CheckpointInfo{}, fmt.Errorf("%w: %s: not a checkpoint file (too short)", ErrCheckpoint, file)
	}
	r := &ckReader{r: bufio.NewReader(io.NewSectionReader(f, 0, body)), left: body}
	return r.info(file)
}

// info reads the header and the first counters of a checkpoint.
func (r *ckReader) info(file string) (CheckpointInfo, error) {
	size := r.left + sha256.Size
	h, err := r.header()
	if err != nil {
		return CheckpointInfo{}, err
	}
	info := CheckpointInfo{Build: h.build, Model: h.model, Meta: h.meta, Bytes: size}
	var c ckCounters
	c.read(r)
	info.States, info.Depth, info.Elapsed = c.states, int(c.depth), c.prior
	if r.err != nil {
		return info, fmt.Errorf("%w: %s: malformed: %v", ErrCheckpoint, file, r.err)
	}
	return info, nil
}

// resumeDFS rebuilds the DFS stack and path of a resumed search by
// replaying the saved path from its initial state: the state of a stack
// entry of depth d is a successor of the path's state at depth d-1.
func (s *search) resumeDFS(w Worker) (arena []byte, stack []dfsEntry, trail []dfsStep, err error) {
	res := s.resume
	states := make([][]byte, len(res.trail))
	for d, t := range res.trail {
		var st []byte
		if d == 0 {
			if int(t.act) >= len(s.initial) {
				return nil, nil, nil, fmt.Errorf("no initial state %d", t.act)
			}
			st = s.initial[t.act]
		} else if st, err = successor(w, states[d-1], t.act); err != nil {
			return nil, nil, nil, err
		}
		if fingerprint(st) != t.fp {
			return nil, nil, nil, fmt.Errorf("replaying the saved path reached another state at depth %d", d)
		}
		states[d] = st
	}
	for k, e := range res.stack {
		d := res.depths[k]
		var st []byte
		switch {
		case d == 0 && int(e.act) < len(s.initial):
			st = s.initial[e.act]
		case d > 0 && d <= len(states):
			if st, err = successor(w, states[d-1], e.act); err != nil {
				return nil, nil, nil, err
			}
		default:
			return nil, nil, nil, fmt.Errorf("stack entry %d does not follow the saved path", k)
		}
		if fingerprint(st) != e.fp {
			return nil, nil, nil, fmt.Errorf("replaying the saved stack reached another state at depth %d", d)
		}
		start := len(arena)
		arena = append(arena, st...)
		stack = append(stack, dfsEntry{start: start, end: len(arena), fp: e.fp, depth: d, act: e.act})
	}
	return arena, stack, res.trail, nil
}

// openSet rebuilds the DFS set of open states under reduction: those on the
// stack and on the current path.
func openSet(stack []dfsEntry, trail []dfsStep) *swiss.Map[uint64, struct{}] {
	open := swiss.NewMap[uint64, struct{}](1024)
	for _, e := range stack {
		open.Put(e.fp, struct{}{})
	}
	for _, t := range trail {
		open.Put(t.fp, struct{}{})
	}
	return open
}
