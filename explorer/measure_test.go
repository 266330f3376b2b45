package explorer_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// measureGraph is a synthetic instrumented model (explorer.Instrumenter) to
// test the metrics time, sync-delay and messages-per-entry alone: edge a of
// state s is edges[s][a], with what the MeasureWorker reports for it, and
// entered[s] lists the entry keys that took place in terminal state s.
type measureGraph struct {
	edges   map[int][]mEdge
	entered map[int][]int
	asked   []string
}

type mEdge struct {
	to         int
	time, sync int32
	keys       []int32
}

func (g *measureGraph) Initial() ([][]byte, error)    { return [][]byte{enc(0)}, nil }
func (g *measureGraph) Properties() []properties.Info { return nil }
func (g *measureGraph) NewWorker() explorer.Worker    { return &measureWorker{g: g} }
func (g *measureGraph) Instrument(m []string) (explorer.Model, error) {
	g.asked = m
	return g, nil
}
func (g *measureGraph) Describe(b []byte) ([]explorer.Var, error) {
	return []explorer.Var{{Name: "s", Value: dec(b)}}, nil
}
func (g *measureGraph) Label(b []byte, a int) (string, error) {
	s := dec(b)
	return fmt.Sprintf("%d->%d", s, g.edges[s][a].to), nil
}

type measureWorker struct {
	g   *measureGraph
	cur mEdge
}

func (w *measureWorker) Successors(b []byte, emit func(explorer.Transition, []byte)) (int, error) {
	es := w.g.edges[dec(b)]
	for _, e := range es {
		w.cur = e
		emit(explorer.Transition{Messages: int32(len(e.keys))}, enc(e.to))
	}
	return len(es), nil
}
func (w *measureWorker) Check([]byte, uint64) (uint64, error) { return 0, nil }
func (w *measureWorker) ValidEnd([]byte) (bool, error)        { return true, nil }
func (w *measureWorker) Expand(b []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	return explorer.ExpandBySuccessors(w, b, x)
}
func (w *measureWorker) TimeIncrease() int32        { return w.cur.time }
func (w *measureWorker) SyncDelay() int32           { return w.cur.sync }
func (w *measureWorker) Served(out []int32) []int32 { return append(out, w.cur.keys...) }
func (w *measureWorker) EntryKeys() int             { return 2 }
func (w *measureWorker) EntryName(k int) string     { return fmt.Sprintf("k%d", k) }
func (w *measureWorker) Entered(b []byte, k int) (bool, error) {
	for _, x := range w.g.entered[dec(b)] {
		if x == k {
			return true, nil
		}
	}
	return false, nil
}

// TestInstrumentedMetrics: two runs, 0→1→2 and 0→3.
//   - time is a sum of increases over complete executions: 1+2 = 3 and 1;
//   - sync-delay is a sample taken at some edges, over every one: 2 on 0→1,
//     1 on 0→3;
//   - messages-per-entry counts per entry key, only in runs where the entry
//     took place: key 0 has 3 messages in run 0→1→2 (where it took place) and
//     none in 0→3 (where it did not: not counted), key 1 none in 0→1→2 (where
//     it took place: min 0) and 5 in 0→3 (where it did not: not counted).
func TestInstrumentedMetrics(t *testing.T) {
	g := &measureGraph{
		edges: map[int][]mEdge{
			0: {{to: 1, time: 1, sync: 2, keys: []int32{0}}, {to: 3, time: 1, sync: 1, keys: []int32{1, 1, 1, 1, 1}}},
			1: {{to: 2, time: 2, sync: -1, keys: []int32{0, 0}}},
		},
		entered: map[int][]int{2: {0, 1}},
	}
	r, err := explorer.Check(g, explorer.Config{Workers: 1, Metrics: []string{"time", "sync-delay", "messages-per-entry", "messages"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.asked) != 3 {
		t.Errorf("Instrument was asked for %v, want the three instrumented metrics", g.asked)
	}
	tm, sd, pe, msgs := r.Metrics[0], r.Metrics[1], r.Metrics[2], r.Metrics[3]
	if !tm.Executions || tm.Min != 1 || tm.Max != 3 || tm.AllRuns || len(tm.MaxWitness.Steps) != 2 {
		t.Errorf("time %+v, want min 1, max 3 over complete executions", tm)
	}
	if !sd.Executions || !sd.AllRuns || sd.Min != 1 || sd.Max != 2 ||
		sd.MinWitness.Steps[len(sd.MinWitness.Steps)-1].Action != "0->3" || len(sd.MaxWitness.Steps) != 1 {
		t.Errorf("sync-delay %+v, want min 1 (0->3), max 2 (0->1) over all executions", sd)
	}
	if !pe.Executions || pe.Min != 0 || pe.Max != 3 || pe.MinOf != "k1" || pe.MaxOf != "k0" || len(pe.MaxWitness.Steps) != 2 {
		t.Errorf("messages-per-entry %+v, want min 0 (k1), max 3 (k0)", pe)
	}
	if msgs.Min != 3 || msgs.Max != 5 {
		t.Errorf("messages %+v, want min 3, max 5", msgs)
	}

	// A tracked value that reaches the model's cap is unbounded, with the
	// run that reaches it.
	g.edges[1][0].time = -1
	g.edges[1][0].sync = -2
	r, err = explorer.Check(g, explorer.Config{Workers: 1, Metrics: []string{"time", "sync-delay"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range r.Metrics {
		if !m.Unbounded || !m.Capped || m.MaxWitness == nil || len(m.MaxWitness.Steps) != 2 {
			t.Errorf("%s %+v, want capped with a witness of 2 steps", m.Name, m)
		}
	}
}

// TestInstrumentedMetricsNeedAnInstrumenter: a model that does not offer
// them refuses the instrumented metrics with ErrConfig.
func TestInstrumentedMetricsNeedAnInstrumenter(t *testing.T) {
	g := &graph{init: []int{0}, next: edges(map[int][]int{0: {1}})}
	for _, m := range []string{"time", "sync-delay", "messages-per-entry"} {
		if _, err := explorer.Check(g, explorer.Config{Metrics: []string{m}}); !errors.Is(err, explorer.ErrConfig) {
			t.Errorf("--metric %s: err %v, want ErrConfig", m, err)
		}
	}
}
