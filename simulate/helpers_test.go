package simulate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// graph is a hand-written Model for testing the simulator alone: states
// are integers encoded as 4 bytes, with their transitions given by next.
type graph struct {
	init  []int
	next  func(s int) []edge
	bad   func(s int) bool // the invariant "good" fails here
	end   func(s int) bool // valid end states; nil: every terminal state
	panic func(s int) bool // Successors panics here
	bound func(s int) bool // the model's bound (explorer.Bounder); nil: none
}

// edge is a transition of a graph: its target, label, the messages it
// sends, and whether it is a fault.
type edge struct {
	to    int
	label string
	msgs  int32
	fault bool
}

func enc(s int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(s)) }
func dec(b []byte) int { return int(binary.BigEndian.Uint32(b)) }

func (g *graph) Initial() ([][]byte, error) {
	var out [][]byte
	for _, s := range g.init {
		out = append(out, enc(s))
	}
	return out, nil
}

func (g *graph) Properties() []properties.Info {
	return []properties.Info{{Name: "good", Kind: properties.Invariant, Doc: "no bad state"}}
}

func (g *graph) NewWorker() explorer.Worker { return graphWorker{g} }

func (g *graph) Describe(b []byte) ([]explorer.Var, error) {
	return []explorer.Var{{Name: "s", Value: dec(b)}}, nil
}

func (g *graph) Label(b []byte, a int) (string, error) {
	es := g.next(dec(b))
	if a >= len(es) {
		return "", fmt.Errorf("no action %d", a)
	}
	if es[a].label == "" {
		return fmt.Sprintf("%d->%d", dec(b), es[a].to), nil
	}
	return es[a].label, nil
}

type graphWorker struct{ g *graph }

func (w graphWorker) Successors(b []byte, emit func(explorer.Transition, []byte)) (int, error) {
	s := dec(b)
	if w.g.panic != nil && w.g.panic(s) {
		panic(fmt.Sprintf("step from %d", s))
	}
	es := w.g.next(s)
	for _, e := range es {
		emit(explorer.Transition{Messages: e.msgs, Fault: e.fault}, enc(e.to))
	}
	return len(es), nil
}

func (w graphWorker) Check(b []byte, want uint64) (uint64, error) {
	if want&1 != 0 && w.g.bad != nil && w.g.bad(dec(b)) {
		return 1, nil
	}
	return 0, nil
}

func (w graphWorker) Expand(b []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	return explorer.ExpandBySuccessors(w, b, x)
}

func (w graphWorker) ValidEnd(b []byte) (bool, error) {
	return w.g.end == nil || w.g.end(dec(b)), nil
}

func (w graphWorker) InBound(b []byte) (bool, error) {
	return w.g.bound == nil || w.g.bound(dec(b)), nil
}

// to lists plain transitions to targets, labelled s->t.
func to(ts ...int) []edge {
	var out []edge
	for _, t := range ts {
		out = append(out, edge{to: t})
	}
	return out
}

// sampled is a graph that draws its initial state itself
// (explorer.InitialSampler): uniformly among its init, by its own rule.
type sampled struct {
	*graph
	draws *int // counts the draws, to see that the sampler is used
}

func (m sampled) SampleInitial(r *rand.Rand) ([]byte, error) {
	*m.draws++
	return enc(m.init[r.IntN(len(m.init))]), nil
}

func simulate(t *testing.T, m explorer.Model, cfg Config) *Result {
	t.Helper()
	res, err := Simulate(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// sameFigures reports whether two results agree on everything but the
// time taken and the number of workers.
func sameFigures(a, b *Result) bool {
	x, y := *a, *b
	x.Elapsed, y.Elapsed = 0, 0
	x.Workers, y.Workers = 0, 0
	return reflect.DeepEqual(x, y)
}

// chiSquare is Pearson's statistic of observed counts against expected
// probabilities.
func chiSquare(observed []int64, p []float64) float64 {
	var n int64
	for _, o := range observed {
		n += o
	}
	x := 0.0
	for i, o := range observed {
		e := p[i] * float64(n)
		x += (float64(o) - e) * (float64(o) - e) / e
	}
	return x
}

// refusing is a graph with a sampler that cannot draw, as an
// automaton.System whose spec streams its initial states without one.
type refusing struct{ *graph }

func (refusing) SampleInitial(*rand.Rand) ([]byte, error) {
	return nil, errors.New("no sampler here")
}
