package automatontest_test

import (
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/automaton/automatontest"
	"github.com/vacheck/vacheck/explorer"
)

func TestCheckStrategies(t *testing.T) {
	// Chang-Roberts, N=3, every arrangement (specs/testdata/counts): one
	// terminal state per arrangement.
	r := automatontest.CheckStrategies(t, model(t, "chang-roberts", map[string]string{"n": "3"}),
		explorer.Config{Properties: []string{"uniqueness", "validity", "deadlock-freedom"}, Metrics: []string{"messages"}})
	if got, want := automatontest.Figures(r), "ok: 282 states, 558 transitions, 6 terminal\nmessages: 5..6"; got != want {
		t.Errorf("figures %q, want %q", got, want)
	}
	if r.Strategy != explorer.BFS || r.Workers != 1 {
		t.Errorf("returned the result of %v on %d workers, want the first search's (bfs, 1)", r.Strategy, r.Workers)
	}
	// A violation without Continue: where the search stops, and which
	// properties it has found violated there, depend on the order (BFS
	// finds validity violated first, DFS uniqueness and validity in one
	// state); the status does not.
	broken := model(t, "chang-roberts-broken", map[string]string{"n": "3"})
	r = automatontest.CheckStrategies(t, broken, explorer.Config{Properties: []string{"uniqueness", "validity"}})
	if got, want := automatontest.Figures(r), "violated validity"; got != want {
		t.Errorf("figures %q, want %q", got, want)
	}
	// With Continue every order finds both violated; these searches also
	// reach every state, so their counts are compared as well.
	r = automatontest.CheckStrategies(t, broken, explorer.Config{Properties: []string{"uniqueness", "validity"}, Continue: true})
	if got, want := automatontest.Figures(r), "violated uniqueness, validity: 816 states, 1800 transitions, 6 terminal"; got != want {
		t.Errorf("figures %q, want %q", got, want)
	}
}

// TestCheckStrategiesLiveness: the first search alone checks liveness; the
// others are compared with it on their counts. Without the announcement
// chang-roberts-wakeup violates termination
// (docs/algorithms/chang-roberts-wakeup.md), which only the first search
// reports.
func TestCheckStrategiesLiveness(t *testing.T) {
	m := model(t, "chang-roberts-wakeup", map[string]string{"n": "3"})
	r := automatontest.CheckStrategies(t, m, explorer.Config{Properties: []string{"uniqueness", "termination"}, Continue: true})
	if got, want := automatontest.Figures(r), "violated termination: 540 states, 795 transitions, 42 terminal"; got != want {
		t.Errorf("figures %q, want %q", got, want)
	}
}

// TestCheckStrategiesCatchesImpurity is the mutant test: leaky's steps
// read a counter that outlives each search, so the second search of the
// same model finds other states, and CheckStrategies must say so.
func TestCheckStrategiesCatchesImpurity(t *testing.T) {
	m, err := automaton.New(automaton.Config[leaky, int]{
		Initial: [][]leaky{{{Clock: &shared{}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{TB: t}
	automatontest.CheckStrategies(rec, m, explorer.Config{})
	if len(rec.errors) == 0 || !strings.Contains(rec.errors[0], "bfs/1 and bfs/2 disagree") ||
		!strings.Contains(rec.errors[0], "bfs/1: ok: 4 states") {
		t.Errorf("CheckStrategies reported %q", rec.errors)
	}
}

// crasher's step panics once its count reaches 2.
type crasher struct{ Count int }

func (p *crasher) Steps(_ *automaton.View[crasher, int], out []automaton.Step) []automaton.Step {
	return append(out, automaton.Do("tick"))
}

func (p *crasher) Do(_ automaton.Step, _ *automaton.Effects[int]) {
	if p.Count == 2 {
		panic("tick past 2")
	}
	p.Count++
}

func (p *crasher) Receive(int, int, *automaton.Effects[int]) {}

func TestCheckFailsOnAModelFailure(t *testing.T) {
	m, err := automaton.New(automaton.Config[crasher, int]{Initial: [][]crasher{{{}}}})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{TB: t}
	if r := automatontest.Check(rec, m, explorer.Config{}); r.Status != explorer.Failed {
		t.Errorf("status %v, want the model failure", r.Status)
	}
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "fatal: vacheck: the model failed") ||
		!strings.Contains(rec.errors[0], "tick past 2") {
		t.Errorf("Check reported %q", rec.errors)
	}
	// A configuration the explorer refuses.
	rec = &recorder{TB: t}
	automatontest.Check(rec, m, explorer.Config{Workers: -1})
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "fatal: vacheck:") {
		t.Errorf("Check reported %q", rec.errors)
	}
}
