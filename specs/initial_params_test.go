package specs

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// unnamedInitialStates lists the specs whose initial states no parameter
// selects one by one: their counterexamples say "initial state #k" with no
// re-run command. Every catalog spec names its own: the list is empty, and
// the test fails for a spec that cannot.
var unnamedInitialStates = []string{}

// roundTrip checks that every initial state of spec with flags (at most
// limit of them, spread over the whole sequence) is named by parameters
// that, put over flags, give a model whose only initial state is it. It
// returns how many states were named, and an error for the first that is
// not named, or not re-run exactly.
func roundTrip(s Spec, flags map[string]string, limit int) (named int, err error) {
	p, err := NewParams(s, flags)
	if err != nil {
		return 0, err
	}
	m, err := s.Model(p)
	if err != nil {
		return 0, err
	}
	initial, err := m.Initial()
	if err != nil {
		return 0, err
	}
	stride := max(1, len(initial)/limit)
	for k := 0; k < len(initial); k += stride {
		params, err := explorer.NameInitial(m, initial[k])
		if err != nil {
			return named, fmt.Errorf("initial state #%d: %w", k+1, err)
		}
		if params == nil {
			if slices.Contains(unnamedInitialStates, s.Name) {
				continue
			}
			return named, fmt.Errorf("initial state #%d of %d is not named", k+1, len(initial))
		}
		rerun := maps.Clone(flags)
		if rerun == nil {
			rerun = map[string]string{}
		}
		maps.Copy(rerun, params)
		q, err := NewParams(s, rerun)
		if err != nil {
			return named, fmt.Errorf("initial state #%d, named %v: %w", k+1, params, err)
		}
		again, err := s.Model(q)
		if err != nil {
			return named, fmt.Errorf("initial state #%d, named %v: %w", k+1, params, err)
		}
		got, err := again.Initial()
		if err != nil {
			return named, err
		}
		if len(got) != 1 || !bytes.Equal(got[0], initial[k]) {
			return named, fmt.Errorf("initial state #%d, named %v: the re-run has %d initial states, not exactly it", k+1, params, len(got))
		}
		named++
	}
	return named, nil
}

// TestCatalogNamesInitialStates: for every spec of the catalog at its
// defaults and at a small instance with every ID arrangement (and every
// initiator set), every initial state (up to 60 per case, spread over the
// sequence) is named by parameters that re-run exactly it and nothing
// else. The specs that cannot name theirs are listed in
// unnamedInitialStates, and must really be unable to.
func TestCatalogNamesInitialStates(t *testing.T) {
	unnamed := map[string]bool{}
	for _, tc := range sampleCases() {
		s, err := Lookup(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		named, err := roundTrip(s, tc.flags, 60)
		if err != nil {
			t.Errorf("%s: %v", caseName(tc.spec, tc.flags), err)
		}
		if named == 0 && err == nil {
			unnamed[tc.spec] = true
		}
	}
	for _, name := range unnamedInitialStates {
		if !unnamed[name] {
			t.Errorf("%s is listed as unable to name its initial states, but named them", name)
		}
	}
}

// misnamed is a model whose InitialParams names the wrong arrangement: the
// IDs of the right one read backwards.
type misnamed struct{ explorer.Model }

func (m misnamed) InitialParams(st []byte) (map[string]string, error) {
	p, err := explorer.NameInitial(m.Model, st)
	if err != nil || p == nil || p["ids"] == "" {
		return p, err
	}
	ids := strings.Split(p["ids"], ",")
	slices.Reverse(ids)
	return map[string]string{"ids": strings.Join(ids, ",")}, nil
}

// TestMisnamedInitialStateCaught: a spec that names the wrong arrangement
// (the mutant misnamed) fails the round trip.
func TestMisnamedInitialStateCaught(t *testing.T) {
	s, err := Lookup("chang-roberts")
	if err != nil {
		t.Fatal(err)
	}
	build := s.Build
	s.Build = func(p *Params) (explorer.Model, error) {
		m, err := build(p)
		return misnamed{m}, err
	}
	if _, err := roundTrip(s, map[string]string{"n": "3", "ids": "all"}, 60); err == nil {
		t.Fatal("a spec naming the wrong ID arrangement passed the round trip")
	}
}
