package specs

import (
	"slices"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// TestBrokenTwinsUnderContinue: every broken twin of the catalog, with its
// default parameters but N=3, yields a counterexample, and searching on past it
// (--continue, up to 300,000 states) never reaches a state its model cannot
// expand: a twin's bug must show as a violated property, not as a model
// error after it (suzuki-kasami-broken once sent the token to itself).
func TestBrokenTwinsUnderContinue(t *testing.T) {
	twins := 0
	for _, s := range Catalog() {
		if s.Bug == "" {
			continue
		}
		twins++
		r, err := explorer.Check(buildSpec(t, s, map[string]string{"n": "3"}), explorer.Config{Workers: 1, Continue: true, MaxStates: 300000})
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if r.Status == explorer.Failed || len(r.Violations) == 0 {
			t.Errorf("%s --continue: %v, %d violations (%s)", s.Name, r.Status, len(r.Violations), r.Reason)
		}
	}
	if twins < 20 {
		t.Errorf("only %d broken twins in the catalog", twins)
	}
}

// TestContinueFindsPropertiesBrokenTogether: properties that a twin breaks
// only in states where it breaks another are violated with --continue, in
// every search. virtual-tree-broken's parent cycle breaks T1 and T2 in the
// same state; peterson-broken at N=3 elects a non-maximal value exactly
// where VALID fails. Both were once reported holding, because a check
// names one broken property at a time.
func TestContinueFindsPropertiesBrokenTogether(t *testing.T) {
	for _, tt := range []struct {
		spec  string
		flags map[string]string
		props []string
	}{
		{"virtual-tree-broken", nil, []string{"t1-acyclic", "t2-levels"}},
		{"peterson-broken", map[string]string{"n": "3"}, []string{"validity", "elected-is-imax"}},
	} {
		m := build(t, tt.spec, tt.flags)
		for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}, {Strategy: explorer.DFS}} {
			cfg.Continue, cfg.Properties = true, tt.props
			r, err := explorer.Check(m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range r.Properties {
				if slices.Contains(tt.props, p.Name) && p.Verdict != explorer.ViolatedVerdict {
					t.Errorf("%s %v/%d --continue: %s %v, want violated", tt.spec, cfg.Strategy, cfg.Workers, p.Name, p.Verdict)
				}
			}
		}
	}
}
