package automaton_test

import (
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
)

// counter counts to 5 and asserts, in its effect, that it stays below
// Limit.
type counter struct {
	Count int
	Limit int    `vacheck:"-"`
	Name  string `vacheck:"-"` // the assertion it makes
}

func (c *counter) Steps(_ *automaton.View[counter, int], out []automaton.Step) []automaton.Step {
	if c.Count < 5 {
		out = append(out, automaton.Do("inc"))
	}
	return out
}

func (c *counter) Do(_ automaton.Step, fx *automaton.Effects[int]) {
	c.Count++
	fx.Assert(c.Name, c.Count < c.Limit)
}

func (c *counter) Receive(int, int, *automaton.Effects[int]) {}

func TestAssertInEffect(t *testing.T) {
	sys, err := automaton.New(automaton.Config[counter, int]{
		Initial:    [][]counter{{{Limit: 3, Name: "small"}}},
		Assertions: []automaton.Assertion{{Name: "small", Doc: "the count stays below 3"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := explorer.Check(sys, explorer.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Violated || r.Violations[0].Property != "small" {
		t.Fatalf("%v %+v, want the assertion small violated", r.Status, r.Violations)
	}
	steps := r.Violations[0].Trace.Steps
	if len(steps) != 3 || steps[2].Action != "inc_{1}" {
		t.Fatalf("trace %+v, want three inc steps", steps)
	}
	last := steps[2].State
	if v := last[len(last)-1]; v.Name != "failed-assertion" || v.Value != "small" {
		t.Errorf("last state %v does not name the failed assertion", last)
	}

	// An assertion the Config does not declare is a modelling error.
	sys, _ = automaton.New(automaton.Config[counter, int]{Initial: [][]counter{{{Limit: 1, Name: "undeclared"}}}})
	r, _ = explorer.Check(sys, explorer.Config{})
	if r.Status != explorer.Failed || !strings.Contains(r.Reason, `"undeclared"`) {
		t.Errorf("undeclared assertion: %v %q", r.Status, r.Reason)
	}
}
