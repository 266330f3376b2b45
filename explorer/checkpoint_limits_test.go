package explorer_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vacheck/vacheck/explorer"
)

// TestResumeBelowTheSavedStates: resuming with MaxStates below the states
// the checkpoint holds ends at once as incomplete at the state limit, with
// the saved figures, for any number of workers and depth first too. With 2
// or more workers the limit used to be ignored: the search ran to the end
// with status OK.
func TestResumeBelowTheSavedStates(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  explorer.Config
	}{
		{"bfs-1", explorer.Config{Strategy: explorer.BFS, Workers: 1}},
		{"bfs-2", explorer.Config{Strategy: explorer.BFS, Workers: 2}},
		{"bfs-3", explorer.Config{Strategy: explorer.BFS, Workers: 3}},
		{"dfs", explorer.Config{Strategy: explorer.DFS}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "ckpt")
			saves := 0
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			cfg := tc.cfg
			cfg.Context = ctx
			cfg.Checkpoint = &explorer.Checkpoint{File: file, Every: time.Nanosecond, Build: "b", Model: "torus",
				Saved: func(explorer.CheckpointSaved) {
					if saves++; saves == 12 {
						cancel(errors.New("stop"))
					}
				}}
			check(t, torus(false), cfg)
			info, err := explorer.ReadCheckpoint(file)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Context = nil
			cfg.Checkpoint.Resume, cfg.Checkpoint.Saved = true, nil
			cfg.MaxStates = info.States / 2
			r := check(t, torus(false), cfg)
			if r.Status != explorer.Incomplete || r.Limit != explorer.StateLimit || r.States != info.States ||
				!strings.Contains(r.Reason, "the checkpoint holds") {
				t.Errorf("resumed with --max-states %d below the %d saved: %v, %v, %d states, %q; want incomplete at the state limit with the saved states",
					cfg.MaxStates, info.States, r.Status, r.Limit, r.States, r.Reason)
			}
			// At exactly the saved states, the search goes on, and stops at
			// the first new state.
			cfg.MaxStates = info.States
			if r := check(t, torus(false), cfg); r.Status != explorer.Incomplete || r.Limit != explorer.StateLimit || r.States != info.States {
				t.Errorf("resumed with --max-states %d, the saved states: %v, %v, %d states", cfg.MaxStates, r.Status, r.Limit, r.States)
			}
		})
	}
}

// TestResumeLoadsUnderTheLimits: the limits hold while a checkpoint is
// loaded. The timeout counts from the start of Check, the load included; a
// checkpoint larger than MaxMemory is not loaded at all; a cancelled
// Context stops the load. Each ends the run as incomplete with the limit,
// a reason that says it was reached while loading, and nothing loaded.
// Before, the whole file was read (twice: its checksum, then its fields)
// whatever the limits said, and checked only afterwards.
func TestResumeLoadsUnderTheLimits(t *testing.T) {
	file := checkpointOf(t)
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name  string
		cfg   explorer.Config
		limit explorer.Limit
		says  string
	}{
		{"timeout", explorer.Config{Timeout: time.Nanosecond}, explorer.TimeLimit, "time limit reached (--timeout 1ns) while loading the checkpoint"},
		{"memory", explorer.Config{MaxMemory: uint64(fi.Size()) - 1}, explorer.MemoryLimit, "and loading it takes about as much memory"},
		{"context", explorer.Config{Context: cancelled}, explorer.Interrupted, "interrupted while loading the checkpoint"},
	} {
		cfg := tc.cfg
		cfg.Strategy, cfg.Workers = explorer.BFS, 2
		cfg.Checkpoint = &explorer.Checkpoint{File: file, Resume: true, Build: "A", Model: "torus"}
		r := check(t, torus(false), cfg)
		if r.Status != explorer.Incomplete || r.Limit != tc.limit || !strings.Contains(r.Reason, tc.says) || r.States != 0 {
			t.Errorf("%s: %v, %v, %q, %d states; want incomplete, %v, %q, 0 states", tc.name, r.Status, r.Limit, r.Reason, r.States, tc.limit, tc.says)
		}
	}
	// The checkpoint is still whole: without the limits it resumes.
	cfg := explorer.Config{Strategy: explorer.BFS, Workers: 2,
		Checkpoint: &explorer.Checkpoint{File: file, Resume: true, Build: "A", Model: "torus"}}
	if r := check(t, torus(false), cfg); r.Status != explorer.OK {
		t.Errorf("resumed without limits: %v %s", r.Status, r.Reason)
	}
}

// TestResumeRefusesAFIFO: a checkpoint that is a named pipe is refused at
// once with ErrCheckpoint; opening it used to block until a writer came.
func TestResumeRefusesAFIFO(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no named pipes in the file system")
	}
	file := filepath.Join(t.TempDir(), "ckpt")
	if err := syscall.Mkfifo(file, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 3)
	go func() {
		cfg := explorer.Config{Checkpoint: &explorer.Checkpoint{File: file, Resume: true, Build: "A", Model: "torus"}}
		_, err := explorer.Check(torus(false), cfg)
		done <- err
		_, err = explorer.ReadCheckpoint(file)
		done <- err
		_, err = explorer.PeekCheckpoint(file)
		done <- err
	}()
	for range 3 {
		select {
		case err := <-done:
			if !errors.Is(err, explorer.ErrCheckpoint) || !strings.Contains(err.Error(), "a named pipe") {
				t.Errorf("%v; want ErrCheckpoint saying it is a named pipe", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("still opening the named pipe after 10s")
		}
	}
}

// TestCheckpointRemovesStaleTemps: the temporary file of a save that a
// kill interrupted (checkpoint.vck.tmp123 next to checkpoint.vck) is
// removed by the next search that keeps checkpoints there, resumed or
// new; other files are left alone. Before, such files stayed for ever.
func TestCheckpointRemovesStaleTemps(t *testing.T) {
	for _, resume := range []bool{false, true} {
		file := checkpointOf(t)
		dir := filepath.Dir(file)
		stale := []string{file + ".tmp123", file + ".tmp"}
		keep := []string{filepath.Join(dir, "notes.txt"), filepath.Join(dir, "other.tmp1")}
		for _, f := range append(stale, keep...) {
			if err := os.WriteFile(f, []byte("half a save"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if !resume {
			if err := os.Remove(file); err != nil {
				t.Fatal(err)
			}
		}
		cfg := explorer.Config{Strategy: explorer.BFS, Workers: 1,
			Checkpoint: &explorer.Checkpoint{File: file, Resume: resume, Build: "A", Model: "torus"}}
		check(t, torus(false), cfg)
		for _, f := range stale {
			if _, err := os.Stat(f); !os.IsNotExist(err) {
				t.Errorf("resume %v: %s is still there (%v)", resume, f, err)
			}
		}
		for _, f := range keep {
			if _, err := os.Stat(f); err != nil {
				t.Errorf("resume %v: %s: %v", resume, f, err)
			}
		}
	}
}
