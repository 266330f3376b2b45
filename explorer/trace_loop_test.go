package explorer

import (
	"testing"
	"time"
)

// TestTraceRefusesALoopOfRecords: predecessor records that go round a loop,
// which only a forged checkpoint holds, end the rebuilding of a
// counterexample with an error; before, it followed them for ever.
func TestTraceRefusesALoopOfRecords(t *testing.T) {
	v := newVisitedSet(0)
	defer v.free()
	v.insertFP(1)
	v.insertFP(2)
	a := v.addRecord(stateRef(1), 0) // its parent is the next record
	v.addRecord(a, 0)                // whose parent is the first
	s := &search{shards: []*visitedSet{v}}
	done := make(chan error, 1)
	go func() {
		_, err := s.trace(a, 1)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a loop of records gave a trace")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("trace follows a loop of records for ever")
	}
}
