package explorer_test

import (
	"sync"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// pathCounts counts how a search asks a model's workers for successors.
type pathCounts struct {
	mu       sync.Mutex
	expand   int // calls of Expand
	offered  int // with Offer: successors told apart by their keys
	deferred int // with Want: the state checked as it is expanded
	reduced  int // with Reduce
}

func (c *pathCounts) add(x *explorer.Expansion) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expand++
	if x.Offer != nil {
		c.offered++
	}
	if x.Want != 0 {
		c.deferred++
	}
	if x.Reduce {
		c.reduced++
	}
}

// pathModel wraps a model so that its workers count the expansions they are
// asked for. It forwards the optional interfaces the wrappers under test
// need: symmetry and instrumentation.
type pathModel struct {
	explorer.Model
	c *pathCounts
}

func (m pathModel) NewWorker() explorer.Worker {
	w := pathWorker{m.Model.NewWorker(), m.c}
	switch w.Worker.(type) {
	case explorer.TrackWorker:
		return pathTrackWorker{w}
	case legacyMeasure:
		return pathLegacyWorker{w}
	}
	return w
}

func (m pathModel) Symmetry() (string, error) { return m.Model.(explorer.Symmetric).Symmetry() }
func (m pathModel) NewCanonicalizer() explorer.Canonicalizer {
	return m.Model.(explorer.Symmetric).NewCanonicalizer()
}
func (m pathModel) Instrument(metrics []string) (explorer.Model, error) {
	im, err := m.Model.(explorer.Instrumenter).Instrument(metrics)
	return pathModel{im, m.c}, err
}

type pathWorker struct {
	explorer.Worker
	c *pathCounts
}

func (w pathWorker) Expand(s []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	w.c.add(x)
	return w.Worker.Expand(s, x)
}

// pathTrackWorker forwards TrackWorker's methods, for an instrumented
// model.
type pathTrackWorker struct{ pathWorker }

func (w pathTrackWorker) TrackedMetrics() []explorer.TrackedMetric {
	return w.Worker.(explorer.TrackWorker).TrackedMetrics()
}
func (w pathTrackWorker) Tracks() string { return w.Worker.(explorer.TrackWorker).Tracks() }
func (w pathTrackWorker) Track(i int, out []int32) []int32 {
	return w.Worker.(explorer.TrackWorker).Track(i, out)
}
func (w pathTrackWorker) Reached(i int, s []byte, k int) (bool, error) {
	return w.Worker.(explorer.TrackWorker).Reached(i, s, k)
}

// legacyMeasure is the older MeasureWorker's method set.
type legacyMeasure interface {
	TimeIncrease() int32
	SyncDelay() int32
	Served(out []int32) []int32
	EntryKeys() int
	EntryName(key int) string
	Entered(s []byte, key int) (bool, error)
}

// pathLegacyWorker forwards the MeasureWorker methods, for a model
// instrumented the older way.
type pathLegacyWorker struct{ pathWorker }

func (w pathLegacyWorker) TimeIncrease() int32        { return w.Worker.(legacyMeasure).TimeIncrease() }
func (w pathLegacyWorker) SyncDelay() int32           { return w.Worker.(legacyMeasure).SyncDelay() }
func (w pathLegacyWorker) Served(out []int32) []int32 { return w.Worker.(legacyMeasure).Served(out) }
func (w pathLegacyWorker) EntryKeys() int             { return w.Worker.(legacyMeasure).EntryKeys() }
func (w pathLegacyWorker) EntryName(k int) string     { return w.Worker.(legacyMeasure).EntryName(k) }
func (w pathLegacyWorker) Entered(s []byte, k int) (bool, error) {
	return w.Worker.(legacyMeasure).Entered(s, k)
}

// TestWrappersKeepThePath: a breadth-first search asks the workers of the
// bare model, of its quotient under symmetry and of a model measured for
// metrics the same way: every expansion offers the successors by their keys
// before they are built, and the states are checked as they are expanded.
// (The symmetry wrapper once forwarded only the plain successors, and
// --symmetry took a path 2.7 times slower than the search without it.)
func TestWrappersKeepThePath(t *testing.T) {
	cases := []struct {
		name             string
		m                explorer.Model
		cfg              explorer.Config
		states, terminal int64 // TestSymmetryQuotient's figures, and a chain of 3
		check            bool  // the model has invariants to check
	}{
		{"bare", swap{bad: -1}, explorer.Config{}, 16, 1, true},
		{"symmetry", swap{bad: -1}, explorer.Config{Symmetry: true}, 10, 1, true},
		{"symmetry, 2 workers", swap{bad: -1}, explorer.Config{Symmetry: true, Workers: 2}, 10, 1, true},
		{"messages", swap{wrap: true, bad: -1}, explorer.Config{Metrics: []string{"messages"}}, 16, 0, true},
		{"symmetry and messages", swap{wrap: true, bad: -1}, explorer.Config{Symmetry: true, Metrics: []string{"messages"}}, 10, 0, true},
		{"instrumented", measured(), explorer.Config{Metrics: []string{"time"}}, 3, 1, false},
	}
	for _, tc := range cases {
		c := &pathCounts{}
		r, err := explorer.Check(pathModel{tc.m, c}, tc.cfg)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.Status != explorer.OK || r.States != tc.states || r.Terminal != tc.terminal {
			t.Errorf("%s: %v (%s), %d states, %d terminal; want ok, %d, %d", tc.name, r.Status, r.Reason, r.States, r.Terminal, tc.states, tc.terminal)
		}
		// The search's own expansions: those of the graph built again for
		// metrics, and of traces replayed, offer nothing.
		search := int(tc.states - tc.terminal)
		if c.offered < search || c.reduced != 0 {
			t.Errorf("%s: %d of %d expansions offered keys (%d states expanded), %d reduced; want every state the search expanded offered by keys",
				tc.name, c.offered, c.expand, search, c.reduced)
		}
		if tc.check && c.deferred == 0 {
			t.Errorf("%s: no state was checked as it was expanded", tc.name)
		}
	}
}

// measured is a small instrumented model, a chain 0 -> 1 -> 2.
func measured() *measureGraph {
	return &measureGraph{edges: map[int][]mEdge{0: {{to: 1, time: 1}}, 1: {{to: 2, time: 1}}}}
}
