package explorer_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// wideInitial is a model of count initial states of size bytes each,
// built one at a time (an InitialStreamer), without transitions.
type wideInitial struct {
	*graph
	count, size int
}

func (m wideInitial) InitialStates(yield func(st []byte) bool) error {
	for k := range m.count {
		// Every byte written, so that every page is resident.
		st := bytes.Repeat([]byte{byte(k) | 1}, m.size)
		binary.BigEndian.PutUint32(st, uint32(k))
		if !yield(st) {
			break
		}
	}
	return nil
}

func (m wideInitial) Initial() ([][]byte, error) {
	var out [][]byte
	err := m.InitialStates(func(st []byte) bool { out = append(out, st); return true })
	return out, err
}

// procStatus returns the field of /proc/self/status in bytes (VmHWM, the
// peak resident set, or VmRSS).
func procStatus(t *testing.T, field string) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// TestInitialStatesUnderMemoryLimit: a memory limit reached while the
// initial states are built ends the search there, and the peak memory
// stays within the limit's margin. The model offers 16 GiB of initial
// states, 16 KiB each, and the limit lets about 96 MiB of them in; the
// search used to copy the ones it had stored into level 0 before it
// looked at the limit, which doubled them (the peak resident set, which
// the kernel keeps, grew by 195 MiB against 99 MiB now).
func TestInitialStatesUnderMemoryLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 100 to 200 MiB; under -race the detector's shadow memory counts in the peak")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads the peak resident set from /proc")
	}
	const size, budget = 16 << 10, 96 << 20
	m := wideInitial{graph: &graph{next: edges(nil)}, count: 1 << 20, size: size}
	runtime.GC()
	debug.FreeOSMemory()
	held := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(held)
	limit := held[0].Value.Uint64() - held[1].Value.Uint64() + budget
	// Writing 5 to clear_refs resets the peak resident set to the
	// resident set of now.
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the peak resident set: %v", err)
	}
	base := procStatus(t, "VmHWM")
	r := check(t, m, explorer.Config{Workers: 2, MaxMemory: limit})
	grew := procStatus(t, "VmHWM") - base
	if r.Status != explorer.Incomplete || r.Limit != explorer.MemoryLimit {
		t.Fatalf("%v, limit %v (%q); want incomplete at the memory limit", r.Status, r.Limit, r.Reason)
	}
	if r.States == 0 || r.States*size > 2*budget {
		t.Errorf("%d initial states stored for a budget of %d MiB", r.States, budget>>20)
	}
	t.Logf("%d initial states stored; the peak resident set grew by %.1f MiB for a budget of %d MiB", r.States, float64(grew)/(1<<20), budget>>20)
	if grew > budget*5/4 {
		t.Errorf("the peak resident set grew by %.1f MiB for a budget of %d MiB: more than the margin of 25%%", float64(grew)/(1<<20), budget>>20)
	}
}
