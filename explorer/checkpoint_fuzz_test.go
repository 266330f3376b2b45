package explorer_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vacheck/vacheck/explorer"
)

// smallTorus is a 6×6×6 torus: a model small enough to resume thousands of
// times a second.
func smallTorus() *graph {
	const n = 6
	return &graph{init: []int{0, 1}, next: func(s int) []int {
		x, y, z := s%n, s/n%n, s/(n*n)
		return []int{(x+1)%n + y*n + z*n*n, x + (y+1)%n*n + z*n*n, x + y*n + (z+1)%n*n*n}
	}}
}

// checkpointBody saves a search of the small torus at its fourth save
// point and returns the file's contents without the trailing checksum.
func checkpointBody(f *testing.F, strategy explorer.Strategy) []byte {
	file := filepath.Join(f.TempDir(), "ckpt")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	saves := 0
	cfg := explorer.Config{Strategy: strategy, Workers: 2, Context: ctx,
		Checkpoint: &explorer.Checkpoint{File: file, Every: time.Nanosecond, Build: "fuzz", Model: "torus",
			Saved: func(explorer.CheckpointSaved) {
				if saves++; saves == 4 {
					cancel(errors.New("stop"))
				}
			}}}
	if _, err := explorer.Check(smallTorus(), cfg); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		f.Fatal(err)
	}
	return b[:len(b)-sha256.Size]
}

// FuzzResumeCheckpoint resumes from checkpoints whose contents are
// arbitrary but whose checksum is right (so that the parser, not the
// checksum, is what refuses them): a malformed checkpoint is refused with
// ErrCheckpoint, never loaded in part, never a panic or a hang; one that
// loads ends the search with a result whose counts are not negative.
//
// Every input is written to the same file, made once per fuzzing
// process: a directory per input cost more than the resume itself.
func FuzzResumeCheckpoint(f *testing.F) {
	f.Add(checkpointBody(f, explorer.BFS), false)
	f.Add(checkpointBody(f, explorer.DFS), true)
	f.Add([]byte("vacheck checkpoint"), false)
	file := filepath.Join(f.TempDir(), "ckpt")
	f.Fuzz(func(t *testing.T, body []byte, dfs bool) {
		sum := sha256.Sum256(body)
		if err := os.WriteFile(file, append(body, sum[:]...), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg := explorer.Config{Strategy: explorer.BFS, Workers: 2, Timeout: 10 * time.Second,
			Checkpoint: &explorer.Checkpoint{File: file, Resume: true, Build: "fuzz", Model: "torus"}}
		if dfs {
			cfg.Strategy = explorer.DFS
		}
		r, err := explorer.Check(smallTorus(), cfg)
		switch {
		case err != nil && !errors.Is(err, explorer.ErrCheckpoint):
			t.Fatalf("a bad checkpoint gave %v, not ErrCheckpoint", err)
		case err == nil && r == nil:
			t.Fatal("no result and no error")
		case err == nil && (r.States < 0 || r.Transitions < 0 || r.Terminal < 0 || r.Depth < 0 || r.Elapsed < 0):
			t.Fatalf("a negative figure: %d states, %d transitions, %d terminal, depth %d, %v", r.States, r.Transitions, r.Terminal, r.Depth, r.Elapsed)
		}
	})
}
