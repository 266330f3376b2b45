package explorer

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/zeebo/xxh3"
)

// Checkpoint makes a search save its state to a file now and then, and
// continue from such a file.
//
// BFS saves at a level boundary: the visited set with its predecessor
// records, the next level's states in canonical order, the counters and the
// counterexamples found so far. A search stopped in the middle of a level
// (by Context or Timeout) saves the boundary before that level, so that
// resuming redoes the level. DFS saves between two expansions: the visited
// set, the current path as (initial state, action indices), which resuming
// replays, and the stack as (depth, action index) pairs relative to that
// path. Either way the resumed search reports the counts, verdicts and
// counterexamples of a search that was never stopped, for any number of
// workers. Only the safety search is saved: the liveness and metrics phase
// that follows it starts afresh on resume.
//
// The file is written to a temporary file that is synced and renamed over
// File, so a crash while writing leaves the previous checkpoint whole. It
// ends with a SHA-256 of everything before it, and a file whose checksum,
// format version, Build, Model, initial states, properties or search
// settings differ from those of the search resuming it is refused with an
// error wrapping ErrCheckpoint before anything of it is used.
type Checkpoint struct {
	// File is the checkpoint file; its directory must exist.
	File string
	// Every is how often to save; five minutes when zero.
	Every time.Duration
	// Resume continues the search saved in File instead of starting afresh.
	Resume bool
	// Build identifies the program (see BuildID); a checkpoint written by
	// another build is refused.
	Build string
	// Model identifies the model for people, such as the spec and its
	// parameters; a checkpoint of another model is refused. The explorer
	// checks the initial states and property names as well.
	Model string
	// Meta is stored as is in the file (the command line, for the CLI), for
	// ReadCheckpoint.
	Meta []byte
	// Saved, when set, is called after each attempt to save, from the
	// search's goroutine.
	Saved func(CheckpointSaved)
	// SaveRate is the rate, in bytes per second, at which the search
	// expects to write the checkpoint until it has timed a save of its own;
	// DefaultSaveRate when zero. A Timeout stops the search early enough
	// to save the checkpoint within it at this rate (see saveRoom).
	SaveRate float64
}

// DefaultSaveRate is Checkpoint.SaveRate when not given: 64 MiB/s. The 332
// MB checkpoint of chang-roberts --n 64 --ids increasing, stopped in its
// fourth level, took 5 s to write and sync on 2 cores under a load of 17
// (66 MB/s); an idle machine with a fast disk writes faster, and a later
// save of the same search uses the rate its last save measured.
const DefaultSaveRate = 64 << 20

// CheckpointSaved describes one save of a checkpoint.
type CheckpointSaved struct {
	States int64 // distinct states stored at the saved point
	Depth  int   // BFS level (the next one to expand), or DFS stack depth
	Bytes  int64 // size of the file
	Took   time.Duration
	Err    error // why the file could not be written; the search goes on
}

// CheckpointInfo is what ReadCheckpoint tells of a checkpoint file.
type CheckpointInfo struct {
	Build, Model string
	Meta         []byte
	Strategy     Strategy
	States       int64
	Depth        int
	Elapsed      time.Duration // search time before the checkpoint
	Bytes        int64
}

// ErrCheckpoint reports a checkpoint that cannot be resumed: unreadable,
// corrupted, or written by another build, model or search.
var ErrCheckpoint = errors.New("explorer: checkpoint refused")

// BuildID identifies the running program: its VCS revision and whether
// the tree was modified, when the build recorded them, and the SHA-256 of
// its executable, which tells apart two builds of a modified tree.
func BuildID() string {
	var b strings.Builder
	b.WriteString(runtime.Version())
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision":
				fmt.Fprintf(&b, " rev %s", s.Value)
			case s.Key == "vcs.modified" && s.Value == "true":
				b.WriteString(" (modified)")
			}
		}
	}
	if exe, err := os.Executable(); err == nil {
		if f, err := os.Open(exe); err == nil {
			h := sha256.New()
			if _, err := io.Copy(h, f); err == nil {
				fmt.Fprintf(&b, " executable sha256 %x", h.Sum(nil)[:12])
			}
			f.Close()
		}
	}
	return b.String()
}

// ckState is what a checkpoint saves besides the visited set: a
// consistent point of the search.
type ckState struct {
	states, transitions, terminal, cut, reduced, depth int64
	// raw and rawTerminal: under symmetry, the states and terminal states
	// of the model the orbits stored so far hold.
	raw, rawTerminal int64
	violations       []found
	incomplete       string
	limit            Limit
	level            *level // BFS: the level to expand next, at depth
	trail            []dfsStep
	stack            []dfsEntry
	seen             *fpSet // DFS visited set
}

// resumed is what a resumed search starts from, besides the visited set
// and the counters, which load puts in place.
type resumed struct {
	depth  int
	level  *bucket // BFS
	trail  []dfsStep
	stack  []dfsStep // DFS: act and fp of each entry, with depths in depths
	depths []int
	seen   *fpSet
	// DFS, rebuilt by resumeDFS: the stack's states and entries.
	arena  []byte
	dstack []dfsEntry
}

// mark captures the counters and counterexamples now, for a checkpoint at
// this point.
func (s *search) mark() ckState {
	return ckState{
		states: s.states.Load(), transitions: s.transitions.Load(), terminal: s.terminal.Load(),
		cut: s.cut.Load(), reduced: s.reduced.Load(), depth: s.depth.Load(),
		raw: s.raw.Load(), rawTerminal: s.rawTerminal.Load(),
		violations: s.violations[:len(s.violations):len(s.violations)], incomplete: s.incomplete, limit: s.limit,
	}
}

// checkpointDue reports whether the search, at a point where it could save
// a checkpoint, should: Every has passed since the last one, or the search
// was stopped by Context or Timeout (not by a limit that may have left the
// visited set half-updated).
func (s *search) checkpointDue() bool {
	if s.cfg.Checkpoint == nil || s.failure != nil {
		return false
	}
	if st := s.stop.Load(); st == stopContext || st == stopTimeout {
		return true
	}
	return !s.stopped() && time.Since(s.lastSave) >= s.checkpointEvery()
}

func (s *search) checkpointEvery() time.Duration {
	if e := s.cfg.Checkpoint.Every; e > 0 {
		return e
	}
	return 5 * time.Minute
}

// identity describes the settings that decide a search's results, which a
// resumed search must share with the saved one.
func (s *search) identity() string {
	c := s.cfg
	id := fmt.Sprintf("strategy %s, reduction %s, symmetry %v, properties %v, continue %v, max-depth %d, metrics %v, fairness %s",
		c.Strategy, c.Reduction, c.Symmetry, c.Properties, c.Continue, c.MaxDepth, c.Metrics, c.Fairness)
	if !c.Shard.Whole() {
		id += ", shard " + c.Shard.String()
	}
	return id
}

// modelHash digests the initial states and the property names, so that a
// checkpoint of another model, or of the same spec with other parameters,
// is refused.
func (s *search) modelHash(live []LiveProperty) (uint64, error) {
	h := xxh3.New()
	var n [8]byte
	// The initial states are built once more, one at a time, for the
	// digest: the search builds and stores them later, under its limits.
	err := eachShardInitial(s.m, s.cfg.Shard, func(st []byte) bool {
		binary.LittleEndian.PutUint64(n[:], uint64(len(st)))
		h.Write(n[:])
		h.Write(st)
		return true
	})
	if err != nil {
		return 0, fmt.Errorf("explorer: initial states: %w", err)
	}
	for _, p := range s.props {
		h.WriteString(p.Name + "\x00")
	}
	for _, p := range live {
		h.WriteString(p.Name + "\x00")
	}
	return h.Sum64(), nil
}

// saveCheckpoint writes st and the visited set to the checkpoint file.
func (s *search) saveCheckpoint(st ckState) {
	ck := s.cfg.Checkpoint
	start := time.Now()
	size, err := writeAtomic(ck.File, func(w *ckWriter) {
		w.header(ck, s.hash, s.identity())
		w.i64(st.states)
		w.i64(st.transitions)
		w.i64(st.terminal)
		w.i64(st.cut)
		w.i64(st.reduced)
		w.i64(st.depth)
		w.i64(st.raw)
		w.i64(st.rawTerminal)
		w.i64(int64(s.prior + time.Since(s.start)))
		w.str(st.incomplete)
		w.u8(uint8(st.limit))
		w.u64(uint64(len(st.violations)))
		for _, f := range st.violations {
			w.u64(uint64(int64(f.prop)))
			w.u64(f.fp)
			if f.hasRef {
				w.u8(1)
				w.u64(uint64(f.ref))
			} else {
				w.u8(0)
			}
			if f.path == nil {
				w.u8(0)
				continue
			}
			w.u8(1)
			w.u64(uint64(f.path.init))
			w.u64(uint64(len(f.path.acts)))
			for k, a := range f.path.acts {
				w.u32(a)
				w.u64(f.path.fps[k])
			}
		}
		w.u8(uint8(s.cfg.Strategy))
		if s.cfg.Strategy == BFS {
			w.u64(uint64(st.level.n))
			for r := 0; r < st.level.n; r++ {
				state, fp, ref := st.level.get(r)
				w.u64(fp)
				w.u64(uint64(ref))
				w.bytes(state)
			}
		} else {
			w.u64(uint64(len(st.trail)))
			for _, t := range st.trail {
				w.u32(t.act)
				w.u64(t.fp)
			}
			w.u64(uint64(len(st.stack)))
			for _, e := range st.stack {
				w.u64(uint64(e.depth))
				w.u32(e.act)
				w.u64(e.fp)
			}
		}
		s.writeVisited(w, st.seen)
	})
	s.lastSave = time.Now()
	if took := s.lastSave.Sub(start); err == nil && took > 0 && size > 0 {
		s.save.rate.Store(int64(float64(size) / took.Seconds()))
	}
	if ck.Saved != nil {
		depth := int(st.depth)
		if s.cfg.Strategy == DFS {
			depth = len(st.trail)
		}
		ck.Saved(CheckpointSaved{States: st.states, Depth: depth, Bytes: size, Took: time.Since(start), Err: err})
	}
}

// saveBudget is what a search with a checkpoint knows of the save that a
// stop would make, so that a Timeout leaves room for it: the stop saves
// the level boundary before the level under way (bfs.go), whose size is
// known when the level begins.
type saveBudget struct {
	bytes atomic.Int64 // the expected size of a BFS save at the boundary
	rate  atomic.Int64 // bytes per second of the last save; 0 before one
	room  atomic.Int64 // the room the Timeout left when it stopped the search
}

// Sizes in a checkpoint: a visited-set record (predecessor, action) and a
// fingerprint, and a BFS level's fixed part per state (fingerprint,
// reference, length).
const ckRecordBytes, ckFPBytes, ckLevelStateBytes = 12, 8, 24

// expectSave records the size of a save of the BFS boundary st, its level
// and its visited set, for saveRoom.
func (s *search) expectSave(st ckState) {
	if s.cfg.Checkpoint == nil || st.level == nil {
		return
	}
	// The buckets may hold candidates phase 2 dropped: the level's states
	// are taken at the buckets' mean size.
	var arena, held int64
	for _, b := range st.level.buckets {
		arena, held = arena+int64(b.stateBytes()), held+int64(b.len())
	}
	n := st.states*(ckRecordBytes+ckFPBytes) + int64(st.level.n)*ckLevelStateBytes
	if held > 0 {
		n += int64(float64(arena) / float64(held) * float64(st.level.n))
	}
	s.save.bytes.Store(n)
}

// saveRoom is how long the save at a stop is expected to take: the size of
// the boundary it saves (for DFS, the visited set's fingerprints) at the
// rate of the last save, or Checkpoint.SaveRate before one. It is 0
// without a checkpoint, and outside the safety search, whose stop saves
// nothing. Called from the monitor.
func (s *search) saveRoom() time.Duration {
	ck := s.cfg.Checkpoint
	if ck == nil || Phase(s.phase.Load()) != Searching {
		return 0
	}
	bytes := s.save.bytes.Load()
	if s.cfg.Strategy == DFS {
		bytes = s.states.Load() * ckFPBytes
	}
	rate := float64(s.save.rate.Load())
	if rate <= 0 {
		rate = cmp.Or(ck.SaveRate, DefaultSaveRate)
	}
	return time.Duration(float64(bytes) / rate * float64(time.Second))
}

// roundDuration rounds d for a message: to 0.1 s from a second up, to the
// millisecond below.
func roundDuration(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

// writeVisited writes the visited set: for BFS the number of shards, the
// number of records of each, every record (predecessor reference and
// action index, in the order they were added, so a record's reference is
// its shard and position), then every state's fingerprint; for DFS (seen)
// the fingerprints. It and readVisited are the only code that knows the
// visited set's layout.
func (s *search) writeVisited(w *ckWriter, seen *fpSet) {
	writeFPs := func(n int64, each func(func(uint64) bool)) {
		w.u64(uint64(n))
		each(func(h uint64) bool { w.u64(h); return w.err == nil })
	}
	if seen != nil {
		writeFPs(int64(seen.Len()), seen.Each)
		return
	}
	w.u64(uint64(len(s.shards)))
	var n int64
	for _, m := range s.shards {
		w.u64(uint64(m.Len()))
		n += m.Len()
	}
	for _, m := range s.shards {
		m.EachRecord(func(_, parent stateRef, act uint32) bool {
			w.u64(uint64(parent))
			w.u32(act)
			return w.err == nil
		})
	}
	writeFPs(n, func(fn func(uint64) bool) {
		for _, m := range s.shards {
			m.EachFP(fn)
		}
	})
}

// ckCounters are the counters a checkpoint saves, in the order it saves
// them.
type ckCounters struct {
	states, transitions, terminal, cut, reduced, depth int64
	raw, rawTerminal                                   int64
	prior                                              time.Duration
	// incomplete and limit: why the saved search was incomplete already.
	incomplete string
	limit      Limit
}

func (c *ckCounters) read(r *ckReader) {
	for _, v := range []*int64{&c.states, &c.transitions, &c.terminal, &c.cut, &c.reduced, &c.depth, &c.raw, &c.rawTerminal} {
		*v = r.i64()
	}
	c.prior = time.Duration(r.i64())
}

// store puts the counters in place in the search.
func (c *ckCounters) store(s *search) {
	s.states.Store(c.states)
	s.transitions.Store(c.transitions)
	s.terminal.Store(c.terminal)
	s.cut.Store(c.cut)
	s.reduced.Store(c.reduced)
	s.depth.Store(c.depth)
	s.raw.Store(c.raw)
	s.rawTerminal.Store(c.rawTerminal)
	s.prior = c.prior
	s.incomplete, s.limit = c.incomplete, c.limit
}

// errLoadStopped says that a limit (or the Context) stopped the loading of
// a checkpoint.
var errLoadStopped = errors.New("explorer: stopped while loading the checkpoint")

// startCheckpoint prepares a search that keeps checkpoints: it digests the
// model, removes the temporary files of saves that never finished (a kill
// in the middle of one), and loads the checkpoint the search resumes from,
// under the search's limits. It reports whether the search ends before it
// starts: a limit was reached while loading, or the checkpoint holds more
// states than MaxStates allows.
func (s *search) startCheckpoint(live []LiveProperty) (end bool, err error) {
	ck := s.cfg.Checkpoint
	if ck == nil {
		return false, nil
	}
	if s.hash, err = s.modelHash(live); err != nil {
		return false, err
	}
	removeStaleTemps(ck.File)
	if ck.Resume {
		s.phase.Store(int32(LoadingCheckpoint))
		err = s.loadCheckpoint()
		s.phase.Store(int32(Searching))
	}
	s.lastSave = time.Now()
	switch {
	case errors.Is(err, errLoadStopped):
		if s.incomplete == "" {
			limit, reason := s.limitReason()
			s.cutShort(limit, reason+" while loading the checkpoint")
		}
		return true, nil
	case err != nil:
		return false, err
	case ck.Resume && s.cfg.MaxStates > 0 && s.states.Load() > s.cfg.MaxStates:
		s.cutShort(StateLimit, fmt.Sprintf("state limit reached (--max-states %d): the checkpoint holds %d states already", s.cfg.MaxStates, s.states.Load()))
		return true, nil
	}
	return false, nil
}
