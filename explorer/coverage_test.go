package explorer_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// covered is the torus whose three moves are steps: x moves along x,
// "receive" delivers a Y (along y), and z moves along z and sends one Y,
// or two from an odd z. It declares what decl says.
type covered struct {
	*graph
	decl *explorer.Declaration
}

func (m covered) NewWorker() explorer.Worker { return &coverWorker{graphWorker: graphWorker{m.graph}} }

// coveredNoDecl is covered without a declaration.
type coveredNoDecl struct{ *graph }

func (m coveredNoDecl) NewWorker() explorer.Worker {
	return &coverWorker{graphWorker: graphWorker{m.graph}}
}

func (m covered) Declared() explorer.Declaration { return *m.decl }

type coverWorker struct {
	graphWorker
	cur  int
	sent []string
}

func (w *coverWorker) Expand(b []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	w.cur = dec(b)
	return explorer.ExpandBySuccessors(w, b, x)
}

func (w *coverWorker) TrackCoverage(bool) {}

func (w *coverWorker) Fired(t explorer.Transition) explorer.Fired {
	switch t.Action {
	case 0:
		return explorer.Fired{Step: "x"}
	case 1:
		return explorer.Fired{Step: "receive", Received: "Y"}
	}
	w.sent = append(w.sent[:0], "Y")
	if w.cur/900%2 == 1 {
		w.sent = append(w.sent, "Y")
	}
	return explorer.Fired{Step: "z", Sent: w.sent}
}

// TestCoverageCounts: the coverage of every search is the count of the
// model's transitions by step, computed from its states, whatever the
// strategy and the number of workers, and its counts sum to the
// transitions of the search.
func TestCoverageCounts(t *testing.T) {
	m := covered{torus(false), &explorer.Declaration{Steps: []string{"x", "z", "receive", "never"}, Messages: []string{"Y", "Q"}, MayNotFire: map[string]string{"Q": "not in this model"}}}
	// By hand: each of the 27,000 states but the 5 terminal ones (x=y=z,
	// x%7==3: 3, 10, 17, 24) has the three moves; those with an odd z
	// (13,500 states, 2 of them terminal) send two Ys along z.
	const expanded = 27000 - 4
	want := &explorer.Coverage{
		Transitions: 3 * expanded,
		Steps: []explorer.StepCoverage{{Name: "x", Fired: expanded, Declared: true}, {Name: "z", Fired: expanded, Declared: true},
			{Name: "receive", Fired: expanded, Declared: true}, {Name: "never", Declared: true}},
		Messages:      []explorer.MessageCoverage{{Type: "Y", Sent: expanded + 13500 - 2, Received: expanded, Declared: true}, {Type: "Q", Declared: true}},
		ReceiveCases:  []explorer.ReceiveCase{{Received: "Y", Fired: expanded}},
		DeclaresSteps: true, DeclaresMessages: true,
		UnfiredSteps: []string{"never"}, UnfiredMessages: []string{"Q"}, MayNotFire: map[string]string{"Q": "not in this model"},
	}
	for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 3}, {Strategy: explorer.DFS}, {Strategy: explorer.DFS, OrderSeed: 5}, {Bitstate: 4 << 20}} {
		cfg.Coverage = true
		r := check(t, m, cfg)
		if !reflect.DeepEqual(r.Coverage, want) {
			t.Errorf("%v with %d workers: coverage\n%+v\nwant\n%+v", r.Strategy, r.Workers, r.Coverage, want)
		}
		if r.Coverage.Transitions != r.Transitions {
			t.Errorf("%v: coverage of %d transitions, the search made %d", r.Strategy, r.Coverage.Transitions, r.Transitions)
		}
	}
}

// TestCoverageDeclarations: what fired without being declared is listed as
// undeclared; a model that declares nothing gets counts and no lists.
func TestCoverageDeclarations(t *testing.T) {
	m := covered{torus(false), &explorer.Declaration{Steps: []string{"x", "receive"}, Messages: []string{}}}
	r := check(t, m, explorer.Config{Coverage: true})
	c := r.Coverage
	if fmt.Sprint(c.UndeclaredSteps, c.UndeclaredMessages, c.UnfiredSteps, c.UnfiredMessages) != "[z] [Y] [] []" {
		t.Errorf("undeclared %v %v, unfired %v %v", c.UndeclaredSteps, c.UndeclaredMessages, c.UnfiredSteps, c.UnfiredMessages)
	}
	r = check(t, coveredNoDecl{torus(false)}, explorer.Config{Coverage: true})
	c = r.Coverage
	if c.DeclaresSteps || c.DeclaresMessages || len(c.Steps) != 3 || c.UndeclaredSteps != nil || c.UnfiredSteps != nil {
		t.Errorf("without a declaration: %+v", c)
	}
}

// TestCoverageRefusals: a model whose workers cannot describe their
// transitions, and partial-order reduction, are refused.
func TestCoverageRefusals(t *testing.T) {
	for _, c := range []struct {
		m   explorer.Model
		cfg explorer.Config
	}{
		{torus(false), explorer.Config{Coverage: true}},
		{covered{torus(false), &explorer.Declaration{}}, explorer.Config{Coverage: true, Reduction: explorer.PartialOrder}},
	} {
		_, err := explorer.Check(c.m, c.cfg)
		var ce *explorer.ConfigError
		if !errors.As(err, &ce) || ce.Field != "Coverage" {
			t.Errorf("%+v: %v, want a ConfigError on Coverage", c.cfg, err)
		}
	}
}

// TestCoverageCounterMerge: merging the counters of two halves counts as
// one counter of the whole, and receive cases group what was sent by its
// distinct types.
func TestCoverageCounterMerge(t *testing.T) {
	m := covered{torus(false), &explorer.Declaration{Steps: []string{"a"}, Messages: []string{"A", "B"}}}
	fired := []explorer.Fired{
		{Step: "a", Sent: []string{"A"}},
		{Step: "receive", Received: "A", Sent: []string{"B", "A", "B"}},
		{Step: "receive", Received: "A", Sent: []string{"A", "B"}},
		{Step: "receive", Received: "B"},
		{Step: "receive", Received: "B", Discarded: true},
	}
	whole, h1, h2 := explorer.NewCoverageCounter(m), explorer.NewCoverageCounter(m), explorer.NewCoverageCounter(m)
	for k, f := range fired {
		whole.Add(f)
		if k%2 == 0 {
			h1.Add(f)
		} else {
			h2.Add(f)
		}
	}
	h1.Merge(h2)
	if !reflect.DeepEqual(h1.Coverage(), whole.Coverage()) {
		t.Errorf("merged %+v, whole %+v", h1.Coverage(), whole.Coverage())
	}
	got := fmt.Sprint(whole.Coverage().ReceiveCases)
	if want := "[{A [A B] false 2} {B [] false 1} {B [] true 1}]"; got != want {
		t.Errorf("receive cases %s, want %s", got, want)
	}
}
