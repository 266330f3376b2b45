package explorer_test

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vacheck/vacheck/explorer"
)

// counterOffset returns where the counters of the checkpoint body begin:
// after the magic, the version, the build, model and meta strings, the
// model hash and the identity string.
func counterOffset(t *testing.T, body []byte) int {
	t.Helper()
	off := len("vacheck checkpoint\n") + 4
	str := func() {
		if off+8 > len(body) {
			t.Fatalf("no string at %d", off)
		}
		off += 8 + int(binary.LittleEndian.Uint64(body[off:]))
	}
	str() // build
	str() // model
	str() // meta
	off += 8
	str() // identity
	return off
}

// The counters of a checkpoint, in the order they are saved.
const (
	ckStates = iota
	ckTransitions
	ckTerminal
	ckCut
	ckReduced
	ckDepth
	ckRaw
	ckRawTerminal
	ckElapsed
	ckReason // the reason the saved search was incomplete, then its limit
)

// TestCheckpointFieldsChecked: a checkpoint whose checksum is right but
// whose counters no search saves is refused with ErrCheckpoint, not
// resumed with them. On the code before the fields were checked, states -5
// resumed to a result 5 states short with status OK, depth -1 panicked
// with index out of range [-1] in the BFS, and a reason saved with the
// file made the resumed run report it.
func TestCheckpointFieldsChecked(t *testing.T) {
	file := checkpointOf(t)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	body := data[:len(data)-sha256.Size]
	at := counterOffset(t, body)
	get := func(k int) int64 { return int64(binary.LittleEndian.Uint64(body[at+8*k:])) }
	set := func(k int, v int64) func([]byte) []byte {
		return func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[at+8*k:], uint64(v))
			return b
		}
	}
	reason := func(text string, limit explorer.Limit) func([]byte) []byte {
		return func(b []byte) []byte {
			r := at + 8*ckReason
			if binary.LittleEndian.Uint64(b[r:]) != 0 || b[r+8] != 0 {
				t.Fatal("the checkpoint has a reason already")
			}
			field := binary.LittleEndian.AppendUint64(nil, uint64(len(text)))
			field = append(append(field, text...), byte(limit))
			return append(append(append([]byte(nil), b[:r]...), field...), b[r+9:]...)
		}
	}
	states := get(ckStates)
	bfs := explorer.Config{Strategy: explorer.BFS, Workers: 2}
	resume := func(body []byte) (*explorer.Result, error) {
		if err := os.WriteFile(file, resum(body), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := bfs
		cfg.Checkpoint = &explorer.Checkpoint{File: file, Resume: true, Build: "A", Model: "torus"}
		return explorer.Check(torus(false), cfg)
	}
	want := check(t, torus(false), bfs)
	if got, err := resume(append([]byte(nil), body...)); err != nil {
		t.Fatalf("the checkpoint as saved: %v", err)
	} else {
		sameResult(t, "the checkpoint as saved", got, want)
	}
	for _, tc := range []struct {
		name string
		edit func([]byte) []byte
		says string
	}{
		{"states -5", set(ckStates, -5), "states -5"},
		{"one state more", func(b []byte) []byte { return set(ckRaw, states+1)(set(ckStates, states+1)(b)) }, "states counted"},
		{"transitions -1", set(ckTransitions, -1), "transitions -1"},
		{"terminal beyond states", set(ckTerminal, states+1), "terminal"},
		{"cut -3", set(ckCut, -3), "cut states -3"},
		{"depth -8189", set(ckDepth, -8189), "depth -8189"},
		{"depth beyond states", set(ckDepth, states+1), "depth"},
		{"raw states without symmetry", set(ckRaw, states+7), "raw counts"},
		{"elapsed -1s", set(ckElapsed, -1e9), "elapsed time"},
		{"a reason", reason("all good", explorer.NoLimit), "stopped by limit 0"},
		{"a time limit", reason("time limit reached (--timeout 1s)", explorer.TimeLimit), "stopped by limit 3"},
		{"an unknown limit", reason("", explorer.Limit(200)), "stopped by limit 200"},
	} {
		r, err := resume(tc.edit(append([]byte(nil), body...)))
		if !errors.Is(err, explorer.ErrCheckpoint) || !strings.Contains(err.Error(), tc.says) {
			st := "no result"
			if r != nil {
				st = r.Status.String()
			}
			t.Errorf("%s: %v (%s); want ErrCheckpoint saying %q", tc.name, err, st, tc.says)
		}
	}
}

// TestCheckpointOfAConstrainedSearchResumes: the checks on a checkpoint's
// counters accept what a search under a constraint saves (the states
// outside it are stored, and counted apart: in cut, not in the raw
// counts), from every save point: each resumes to the search's result.
func TestCheckpointOfAConstrainedSearchResumes(t *testing.T) {
	for _, cfg := range configs {
		m := boundedGraph{chain(2), 30}
		want := check(t, m, cfg)
		if want.Status != explorer.Bounded || want.Cut != 2 {
			t.Fatalf("%v/%d: %v, %d cut", cfg.Strategy, cfg.Workers, want.Status, want.Cut)
		}
		dir := t.TempDir()
		var saved []string
		run := cfg
		run.Checkpoint = &explorer.Checkpoint{File: filepath.Join(dir, "ckpt"), Every: time.Nanosecond, Build: "b", Model: "chain",
			Saved: func(explorer.CheckpointSaved) {
				data, err := os.ReadFile(filepath.Join(dir, "ckpt"))
				if err != nil {
					t.Fatal(err)
				}
				f := filepath.Join(dir, fmt.Sprintf("save%d", len(saved)))
				if err := os.WriteFile(f, data, 0o600); err != nil {
					t.Fatal(err)
				}
				saved = append(saved, f)
			}}
		check(t, m, run)
		if len(saved) == 0 {
			t.Fatalf("%v/%d: %d saves", cfg.Strategy, cfg.Workers, len(saved))
		}
		for _, f := range saved {
			run.Checkpoint = &explorer.Checkpoint{File: f, Resume: true, Build: "b", Model: "chain"}
			sameResult(t, fmt.Sprintf("%v/%d resumed from %s", cfg.Strategy, cfg.Workers, filepath.Base(f)), check(t, m, run), want)
		}
	}
}
