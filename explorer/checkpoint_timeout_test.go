package explorer_test

import (
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/vacheck/vacheck/explorer"
)

// slowGraph is a graph whose expansions take a millisecond each.
type slowGraph struct{ *graph }

func (m slowGraph) NewWorker() explorer.Worker { return slowWorker{graphWorker{m.graph}} }

type slowWorker struct{ graphWorker }

func (w slowWorker) Successors(b []byte, emit func(explorer.Transition, []byte)) (int, error) {
	time.Sleep(time.Millisecond)
	return w.graphWorker.Successors(b, emit)
}

func (w slowWorker) Expand(b []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	return explorer.ExpandBySuccessors(w, b, x)
}

// roomLeft reads the room a timeout left for the save from the reason.
var roomLeft = regexp.MustCompile(`of which the last (\S+) are left to save the checkpoint\)$`)

// TestTimeoutLeavesRoomForTheSave: with a checkpoint, a Timeout stops the
// search early enough for the save that follows the stop to end within
// it, at the expected rate: the room it leaves is the size of the save
// over the rate. At a rate of 1 byte/s, the room in seconds is the size
// the search expects, which must be that of the file it then writes
// (within 10%), for 1 and 2 workers. Before, the search ran its whole
// Timeout and saved after it: the slow level of 40,000 states here ran for
// the hour. At the default rate, a small search has room to spare: it
// finishes.
func TestTimeoutLeavesRoomForTheSave(t *testing.T) {
	// 0 → 1..40,000 → 40,001..80,000, each expansion taking 1 ms.
	wide := twoWideLevels()
	for _, w := range []int{1, 2} {
		var saved explorer.CheckpointSaved
		cfg := explorer.Config{Workers: w, Timeout: time.Hour, Checkpoint: &explorer.Checkpoint{
			File: filepath.Join(t.TempDir(), "ckpt"), Build: "b", Model: "wide", SaveRate: 1,
			Saved: func(s explorer.CheckpointSaved) { saved = s },
		}}
		r := check(t, slowGraph{wide}, cfg)
		if r.Status != explorer.Incomplete || r.Limit != explorer.TimeLimit {
			t.Fatalf("%d workers, a save expected to take days: %v, limit %v (%s); want incomplete at the time limit at once", w, r.Status, r.Limit, r.Reason)
		}
		if saved.Err != nil || saved.Bytes == 0 {
			t.Fatalf("%d workers: the save after the stop: %+v", w, saved)
		}
		m := roomLeft.FindStringSubmatch(r.Reason)
		if m == nil {
			t.Fatalf("%d workers: the reason %q does not say the room left for the save", w, r.Reason)
		}
		room, err := time.ParseDuration(m[1])
		if err != nil {
			t.Fatal(err)
		}
		if expected := room.Seconds(); expected < 0.9*float64(saved.Bytes) || expected > 1.1*float64(saved.Bytes) {
			t.Errorf("%d workers: expected a save of %.0f bytes, and it wrote %d", w, expected, saved.Bytes)
		}
	}
	cfg := explorer.Config{Timeout: time.Hour, Checkpoint: &explorer.Checkpoint{File: filepath.Join(t.TempDir(), "ckpt"), Build: "b", Model: "torus"}}
	if r := check(t, torus(false), cfg); r.Status != explorer.OK {
		t.Errorf("torus at the default rate within an hour: %v (%s), want ok", r.Status, r.Reason)
	}
}
