package cli_test

import (
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/specs"
)

// tokenStarts is tokenPass with the token starting at any process: one
// initial state per process, which no parameter names
// (automaton.Config.InitialParams is not set).
var tokenStarts = func() specs.Spec {
	s := tokenPass
	s.Name = "token-starts"
	s.Claims = []string{"deadlock-freedom"}
	s.Build = func(p *specs.Params) (explorer.Model, error) {
		n, err := p.Int("n", 2, 8)
		if err != nil {
			return nil, err
		}
		var initial [][]node
		for k := range n {
			procs := make([]node, n)
			procs[k] = node{Holding: true, Seen: true}
			initial = append(initial, procs)
		}
		return automaton.New(automaton.Config[node, string]{Initial: initial, Links: automaton.Ring(n)})
	}
	return s
}()

// TestPerInitialStateNeedsNames: a user's spec whose initial states have
// no names is refused by --per-initial-state (exit 2), and checked as
// usual without it.
func TestPerInitialStateNeedsNames(t *testing.T) {
	t.Parallel()
	catalog := []specs.Spec{tokenStarts}
	code, _, stderr := runOn(catalog, "check", "token-starts", "--n", "3", "--per-initial-state", "--quiet")
	if code != 2 || !strings.Contains(stderr, "token-starts cannot name its initial states by parameters (initial state 1 has no name)") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if code, out, stderr := runOn(catalog, "check", "token-starts", "--n", "3", "--quiet"); code != 0 {
		t.Errorf("without --per-initial-state: exit %d: %s%s", code, out, stderr)
	}
}
