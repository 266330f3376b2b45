package automaton_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
)

// acounter counts to 3 by itself.
type acounter struct{ X int }

func (p *acounter) Steps(_ *automaton.View[acounter, int], out []automaton.Step) []automaton.Step {
	if p.X < 3 {
		out = append(out, automaton.Do("inc"))
	}
	return out
}
func (p *acounter) Do(automaton.Step, *automaton.Effects[int]) { p.X++ }
func (p *acounter) Receive(int, int, *automaton.Effects[int])  {}

func belowTwo(of automaton.Reduction) automaton.Assumption[acounter, int] {
	return automaton.Assumption[acounter, int]{Name: "below-two", Of: of, Holds: func(v *automaton.View[acounter, int]) bool {
		return v.Proc(0).X < 2
	}}
}

// TestAssumptionIsAModelFailure checks that a violated assumption ends the
// search as a model failure with the trace to the state: before
// normalization (which here would hide it by resetting X), and in a state
// a partial-order search expands.
func TestAssumptionIsAModelFailure(t *testing.T) {
	for _, c := range []struct {
		of  automaton.Reduction
		cfg explorer.Config
	}{
		{automaton.OfNormalize, explorer.Config{}},
		{automaton.OfPartialOrder, explorer.Config{Reduction: explorer.PartialOrder}},
	} {
		cfg := automaton.Config[acounter, int]{
			Initial:     [][]acounter{{{}, {}}},
			Assumptions: []automaton.Assumption[acounter, int]{belowTwo(c.of)},
		}
		if c.of == automaton.OfNormalize {
			cfg.Normalize = func(procs []acounter, _ [][]int) {
				procs[0].X = min(procs[0].X, 1) // merges what the assumption forbids
			}
		} else {
			cfg.PartialOrder = &automaton.PartialOrder[acounter]{Visible: func(_, _ *acounter) bool { return false }}
		}
		sys, err := automaton.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		r, err := explorer.Check(sys, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != explorer.Failed || !strings.Contains(r.Reason, `assumption "below-two"`) || r.Failure == nil {
			t.Errorf("%v: %v (%s), want a model failure on below-two with a trace", c.of, r.Status, r.Reason)
		}
	}
	// An initial state that breaks an assumption of Normalize.
	_, err := automaton.New(automaton.Config[acounter, int]{
		Initial: [][]acounter{{{X: 2}}}, Normalize: func([]acounter, [][]int) {},
		Assumptions: []automaton.Assumption[acounter, int]{belowTwo(automaton.OfNormalize)},
	})
	if err == nil || !strings.Contains(err.Error(), "initial state 1") {
		t.Errorf("initial state breaking an assumption: %v", err)
	}
	// An assumption of a reduction the Config does not have.
	_, err = automaton.New(automaton.Config[acounter, int]{
		Initial:     [][]acounter{{{}}},
		Assumptions: []automaton.Assumption[acounter, int]{belowTwo(automaton.OfNormalize)},
	})
	if !errors.Is(err, automaton.ErrConfig) {
		t.Errorf("assumption without Normalize: %v, want ErrConfig", err)
	}
}
