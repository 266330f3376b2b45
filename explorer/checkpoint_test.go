package explorer_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vacheck/vacheck/explorer"
)

// torus is a 30×30×30 torus with moves +1 along each axis: 27,000 states,
// 88 BFS levels of up to a few hundred states, no terminal state except
// four dead ends on the diagonal, and (when withBug) one bad state deep
// inside.
func torus(withBug bool) *graph {
	const n = 30
	g := &graph{init: []int{0, 1}, next: func(s int) []int {
		x, y, z := s%n, s/n%n, s/(n*n)
		if x == y && y == z && x%7 == 3 {
			return nil
		}
		return []int{(x+1)%n + y*n + z*n*n, x + (y+1)%n*n + z*n*n, x + y*n + (z+1)%n*n*n}
	}}
	if withBug {
		g.bad = func(s int) bool { return s == 20+25*n+17*n*n }
	}
	return g
}

// interrupting wraps a graph so that its workers cancel the search's
// context when the after-th state is stored, and then pause a few times so
// that the search notices before it ends.
type interrupting struct {
	*graph
	after  int64
	count  *atomic.Int64
	cancel context.CancelCauseFunc
}

func (m interrupting) NewWorker() explorer.Worker {
	return interruptingWorker{graphWorker{m.graph}, m}
}

type interruptingWorker struct {
	graphWorker
	m interrupting
}

// Check counts the states checked (a resumed DFS replays its path with
// expansions that check nothing, which must not count).
func (w interruptingWorker) Check(b []byte, want uint64) (uint64, error) {
	if c := w.m.count.Add(1); c >= w.m.after && c < w.m.after+5 {
		w.m.cancel(errors.New("interrupted by the test"))
		time.Sleep(time.Millisecond)
	}
	return w.graphWorker.Check(b, want)
}

// Expand checks with Check, so that the states a breadth-first search
// checks as it expands them count too.
func (w interruptingWorker) Expand(b []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	return explorer.ExpandBySuccessors(w, b, x)
}

// sameResult compares what a resumed search must reproduce.
func sameResult(t *testing.T, what string, got, want *explorer.Result) {
	t.Helper()
	if got.Status != want.Status || got.States != want.States || got.Transitions != want.Transitions ||
		got.Terminal != want.Terminal || got.Depth != want.Depth || got.Cut != want.Cut {
		t.Errorf("%s: %v %d states %d transitions %d terminal depth %d; want %v %d %d %d depth %d",
			what, got.Status, got.States, got.Transitions, got.Terminal, got.Depth,
			want.Status, want.States, want.Transitions, want.Terminal, want.Depth)
	}
	if !reflect.DeepEqual(got.Properties, want.Properties) {
		t.Errorf("%s: verdicts %v; want %v", what, got.Properties, want.Properties)
	}
	if !reflect.DeepEqual(got.Violations, want.Violations) {
		t.Errorf("%s: counterexamples %+v; want %+v", what, got.Violations, want.Violations)
	}
}

// TestCheckpointResumeMatchesUninterrupted interrupts searches again and
// again, after k states stored each time, resumes each from its checkpoint
// (BFS with another worker count), and requires the final result of the
// chain to be that of a search never interrupted.
func TestCheckpointResumeMatchesUninterrupted(t *testing.T) {
	for _, bug := range []bool{false, true} {
		for _, tc := range []struct {
			name          string
			cfg           explorer.Config
			resumeWorkers int
			every         int64
		}{
			{"bfs-1-then-2", explorer.Config{Strategy: explorer.BFS, Workers: 1}, 2, 5000},
			{"bfs-2", explorer.Config{Strategy: explorer.BFS, Workers: 2}, 2, 7000},
			{"bfs-3-then-1", explorer.Config{Strategy: explorer.BFS, Workers: 3}, 1, 3000},
			// Levels cut in chunks of 5 states, which the workers claim.
			{"bfs-2-chunks-then-3", explorer.WithChunks(explorer.Config{Strategy: explorer.BFS, Workers: 2}, 5, false), 3, 6000},
			{"dfs", explorer.Config{Strategy: explorer.DFS}, 1, 1500},
		} {
			name := tc.name
			if bug {
				name += "-violated"
			}
			t.Run(name, func(t *testing.T) {
				g := torus(bug)
				want := check(t, g, tc.cfg)
				if want.Status == explorer.Incomplete || (bug != (want.Status == explorer.Violated)) {
					t.Fatalf("uninterrupted: %v", want.Status)
				}
				file := filepath.Join(t.TempDir(), "ckpt")
				var got *explorer.Result
				saves := 0
				for run := 0; ; run++ {
					if run > 20 {
						t.Fatal("no end after 20 resumptions")
					}
					ctx, cancel := context.WithCancelCause(context.Background())
					m := interrupting{graph: g, after: tc.every, count: new(atomic.Int64), cancel: cancel}
					cfg := tc.cfg
					if run > 0 {
						cfg.Workers = tc.resumeWorkers
					}
					cfg.Context = ctx
					cfg.Checkpoint = &explorer.Checkpoint{File: file, Every: time.Hour, Resume: run > 0, Build: "test build", Model: "torus",
						Saved: func(s explorer.CheckpointSaved) {
							if s.Err != nil {
								t.Error(s.Err)
							}
							saves++
						}}
					r, err := explorer.Check(m, cfg)
					cancel(nil)
					if err != nil {
						t.Fatalf("run %d: %v", run, err)
					}
					if r.Status != explorer.Incomplete {
						got = r
						break
					}
					if r.Reason != "interrupted by the test" {
						t.Fatalf("run %d: incomplete: %s", run, r.Reason)
					}
				}
				if saves < 2 {
					t.Errorf("%d checkpoints saved; want the search interrupted at least twice (make every smaller)", saves)
				}
				sameResult(t, "resumed", got, want)
			})
		}
	}
}

// TestCheckpointPeriodic saves a checkpoint at every boundary (Every 1ns)
// of a search that completes, then resumes the last one: it is the end of
// the search, and the result is the same.
func TestCheckpointPeriodic(t *testing.T) {
	for _, cfg := range []explorer.Config{{Strategy: explorer.BFS, Workers: 2}, {Strategy: explorer.DFS}} {
		g := torus(true)
		want := check(t, g, cfg)
		file := filepath.Join(t.TempDir(), "ckpt")
		saves := 0
		cfg.Checkpoint = &explorer.Checkpoint{File: file, Every: time.Nanosecond, Build: "b", Model: "torus",
			Saved: func(s explorer.CheckpointSaved) {
				if s.Err != nil || s.Bytes <= 0 {
					t.Errorf("save: %v, %d bytes", s.Err, s.Bytes)
				}
				saves++
			}}
		sameResult(t, cfg.Strategy.String()+" saving", check(t, g, cfg), want)
		if saves < 10 {
			t.Errorf("%s: %d saves; want one per level or per 256 expansions", cfg.Strategy, saves)
		}
		info, err := explorer.ReadCheckpoint(file)
		if err != nil {
			t.Fatal(err)
		}
		if info.Build != "b" || info.Model != "torus" || info.States <= 0 || info.States > want.States {
			t.Errorf("%s: header %+v", cfg.Strategy, info)
		}
		cfg.Checkpoint.Resume = true
		sameResult(t, cfg.Strategy.String()+" resumed from the last save", check(t, g, cfg), want)
	}
}

// checkpointOf runs a BFS of the torus that saves at level 10 and stops,
// and returns the file.
func checkpointOf(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "ckpt")
	cfg := explorer.Config{Strategy: explorer.BFS, Workers: 1,
		Checkpoint: &explorer.Checkpoint{File: file, Every: time.Nanosecond, Build: "A", Model: "torus", Meta: []byte("check torus")}}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	cfg.Context = ctx
	levels := 0
	cfg.Checkpoint.Saved = func(explorer.CheckpointSaved) {
		if levels++; levels == 10 {
			cancel(errors.New("stop"))
		}
	}
	m := interrupting{graph: torus(false), after: 1 << 40, count: new(atomic.Int64), cancel: cancel}
	if r := check(t, m, cfg); r.Status != explorer.Incomplete {
		t.Fatalf("status %v", r.Status)
	}
	return file
}

// TestCheckpointRefused: a checkpoint of another build, another model
// (name, or the same name with other initial states), another search, or
// with any byte changed is refused with ErrCheckpoint and a message saying
// what differs.
func TestCheckpointRefused(t *testing.T) {
	file := checkpointOf(t)
	info, err := explorer.ReadCheckpoint(file)
	if err != nil || string(info.Meta) != "check torus" {
		t.Fatalf("%+v %v", info, err)
	}
	resume := func(m explorer.Model, cfg explorer.Config, build, model string) error {
		cfg.Checkpoint = &explorer.Checkpoint{File: file, Resume: true, Build: build, Model: model}
		_, err := explorer.Check(m, cfg)
		return err
	}
	bfs := explorer.Config{Strategy: explorer.BFS, Workers: 2}
	if err := resume(torus(false), bfs, "A", "torus"); err != nil {
		t.Fatalf("the good checkpoint is refused: %v", err)
	}
	other := torus(false)
	other.init = []int{0, 2}
	for _, tc := range []struct {
		name         string
		m            explorer.Model
		cfg          explorer.Config
		build, model string
		says         string
	}{
		{"build", torus(false), bfs, "B", "torus", "another build of vacheck (A; this is B)"},
		{"model", torus(false), bfs, "A", "cube", "another model (torus; this is cube)"},
		{"initial states", other, bfs, "A", "torus", "other initial states"},
		{"strategy", torus(false), explorer.Config{Strategy: explorer.DFS}, "A", "torus", "strategy bfs"},
		{"continue", torus(false), explorer.Config{Continue: true}, "A", "torus", "continue true"},
	} {
		err := resume(tc.m, tc.cfg, tc.build, tc.model)
		if !errors.Is(err, explorer.ErrCheckpoint) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v; want ErrCheckpoint saying %q", tc.name, err, tc.says)
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{0, 30, len(data) / 2, len(data) - 40, len(data) - 1} {
		bad := append([]byte(nil), data...)
		bad[at] ^= 0x10
		if err := os.WriteFile(file, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		err := resume(torus(false), bfs, "A", "torus")
		if !errors.Is(err, explorer.ErrCheckpoint) || !strings.Contains(err.Error(), "corrupted") {
			t.Errorf("byte %d flipped: %v; want a checksum error", at, err)
		}
		if _, err := explorer.ReadCheckpoint(file); err == nil {
			t.Errorf("byte %d flipped: ReadCheckpoint accepts it", at)
		}
	}
	// A truncated file, and one whose checksum is right but whose version
	// is not.
	for name, bad := range map[string][]byte{
		"truncated": data[:len(data)/2],
		"version":   resum(append(append([]byte(nil), data[:19]...), append([]byte{9}, data[20:len(data)-32]...)...)),
	} {
		if err := os.WriteFile(file, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := resume(torus(false), bfs, "A", "torus"); !errors.Is(err, explorer.ErrCheckpoint) {
			t.Errorf("%s: %v; want ErrCheckpoint", name, err)
		}
	}
}

// resum appends the SHA-256 of body, as the checkpoint format does.
func resum(body []byte) []byte {
	sum := sha256.Sum256(body)
	return append(body, sum[:]...)
}

// TestCheckpointWriteFailure: a save into a directory that is gone fails,
// is reported through Saved, leaves no file behind, and the search goes on
// to its result.
func TestCheckpointWriteFailure(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gone")
	var errs int
	cfg := explorer.Config{Strategy: explorer.BFS, Workers: 1, Checkpoint: &explorer.Checkpoint{
		File: filepath.Join(dir, "ckpt"), Every: time.Nanosecond, Build: "b", Model: "torus",
		Saved: func(s explorer.CheckpointSaved) {
			if s.Err != nil {
				errs++
			}
		}}}
	want := check(t, torus(true), explorer.Config{Strategy: explorer.BFS, Workers: 1})
	sameResult(t, "with failing saves", check(t, torus(true), cfg), want)
	if errs == 0 {
		t.Error("no save failed")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s: %v", dir, err)
	}
}

// TestCheckpointKeepsRawCounts: under symmetry a resumed search reports the
// states and terminal states of the model its orbits hold as the search it
// continues would have: a checkpoint saves them.
func TestCheckpointKeepsRawCounts(t *testing.T) {
	for _, cfg := range []explorer.Config{{Strategy: explorer.BFS, Workers: 2, Symmetry: true}, {Strategy: explorer.DFS, Symmetry: true}} {
		m := swap{bad: -1}
		want := check(t, m, cfg)
		if want.RawStates != 16 || want.RawTerminal != 1 || want.States != 10 {
			t.Fatalf("%v: %d orbits of %d states, %d terminal; want 10 of 16, 1", cfg.Strategy, want.States, want.RawStates, want.RawTerminal)
		}
		file := filepath.Join(t.TempDir(), "ckpt")
		cfg.Checkpoint = &explorer.Checkpoint{File: file, Every: time.Nanosecond, Build: "b", Model: "swap"}
		check(t, m, cfg)
		cfg.Checkpoint.Resume = true
		got := check(t, m, cfg)
		if got.RawStates != want.RawStates || got.RawTerminal != want.RawTerminal || got.States != want.States {
			t.Errorf("%v resumed: %d orbits of %d states, %d terminal; want %d of %d, %d",
				cfg.Strategy, got.States, got.RawStates, got.RawTerminal, want.States, want.RawStates, want.RawTerminal)
		}
	}
}

// TestCheckpointHeaderSaysTheTimeSpent: the header that ReadCheckpoint and
// PeekCheckpoint return gives the search time before the save, which
// `vacheck resume` prints. It read the raw state count in its place, as
// nanoseconds ("resuming ... after 0s"; issue 34 item 7): here a few
// hundred, where ten levels, each saved to a file, take far more than
// 50 µs.
func TestCheckpointHeaderSaysTheTimeSpent(t *testing.T) {
	file := checkpointOf(t)
	for name, read := range map[string]func(string) (explorer.CheckpointInfo, error){
		"ReadCheckpoint": explorer.ReadCheckpoint, "PeekCheckpoint": explorer.PeekCheckpoint} {
		info, err := read(file)
		if err != nil {
			t.Fatal(err)
		}
		if info.Elapsed < 50*time.Microsecond || info.Elapsed > time.Minute || info.Depth <= 0 || info.States <= 0 {
			t.Errorf("%s: %v spent, depth %d, %d states", name, info.Elapsed, info.Depth, info.States)
		}
	}
}
