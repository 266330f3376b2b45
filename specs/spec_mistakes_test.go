package specs

import (
	"errors"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
)

// TestDoRefusesUnknownSteps feeds every process of every spec of the
// catalog (default parameters, first initial state) a step no spec has:
// its Do must fail loudly, naming the step, rather than do nothing, which
// a misspelt step name in Steps would otherwise do silently.
func TestDoRefusesUnknownSteps(t *testing.T) {
	t.Parallel()
	for _, spec := range Catalog() {
		p, err := NewParams(spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		m, err := spec.Model(p)
		if err != nil {
			t.Fatalf("%s: %v", spec.Name, err)
		}
		sys, ok := m.(interface {
			TryStep(i int, st automaton.Step) error
			N() int
		})
		if !ok {
			t.Errorf("%s: %T has no TryStep", spec.Name, m)
			continue
		}
		for i := 0; i < sys.N(); i++ {
			for _, st := range []automaton.Step{automaton.Do("no-such-step"), automaton.Out("no-such-step", (i+1)%sys.N())} {
				err := sys.TryStep(i, st)
				if err == nil || !strings.Contains(err.Error(), `no case for step "no-such-step"`) {
					t.Errorf("%s: process %d, step %+v: %v; want the error of unknownStep", spec.Name, i+1, st, err)
					break
				}
			}
		}
	}
}

// TestSpecMistakes: a claim the model does not offer and a parameter read
// but not declared are the spec's mistakes (ErrSpec), not the user's
// (ErrUsage), even when Build turns the missing parameter into a usage
// error of its own.
func TestSpecMistakes(t *testing.T) {
	t.Parallel()
	cr := changRoberts()
	claims := cr
	claims.Claims = append(append([]string(nil), cr.Claims...), "lemma2")
	undeclared := cr
	undeclared.Build = func(p *Params) (explorer.Model, error) {
		if _, err := p.Int("rounds", 1, 3); err != nil {
			return nil, Usage(err)
		}
		return cr.Build(p)
	}
	undeclaredString := cr
	undeclaredString.Build = func(p *Params) (explorer.Model, error) {
		if p.String("rouds") != "" {
			return nil, Usagef("rouds", "", "never")
		}
		return cr.Build(p)
	}
	for _, tc := range []struct {
		spec Spec
		want string
	}{
		{claims, "chang-roberts claims the property lemma2, which its model does not offer"},
		{undeclared, "chang-roberts reads the parameter --rounds, which it does not declare"},
		{undeclaredString, "chang-roberts reads the parameter --rouds, which it does not declare"},
	} {
		p, err := NewParams(tc.spec, map[string]string{"n": "3"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = tc.spec.Model(p)
		if !errors.Is(err, ErrSpec) || errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v; want an ErrSpec saying %q", err, tc.want)
		}
	}
	// The catalog itself has none of these mistakes.
	for _, spec := range Catalog() {
		p, _ := NewParams(spec, nil)
		if _, err := spec.Model(p); err != nil {
			t.Errorf("%s: %v", spec.Name, err)
		}
	}
}
