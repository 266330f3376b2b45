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
// error after it (suzuki-kasami-broken once sent the token to itself). Each
// counterexample ends with what its last state means (Config.Explain):
// chang-roberts and its variants, lelann and perpetuum-mobile once did not.
func TestBrokenTwinsUnderContinue(t *testing.T) {
	t.Parallel()
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
		// Every twin's counterexample says what its last state means.
		for _, v := range r.Violations {
			if len(v.Trace.Explanation) == 0 {
				t.Errorf("%s: the counterexample of %s does not say what its last state means", s.Name, v.Property)
			}
		}
	}
	if n := len(algorithms()); twins != n {
		t.Errorf("%d broken twins in the catalog of %d algorithms", twins, n)
	}
}

// TestContinueFindsPropertiesBrokenTogether: properties that a twin breaks
// only in states where it breaks another are violated with --continue, in
// every search. virtual-tree-broken's parent cycle breaks T1 and T2 in the
// same state; peterson-broken at N=3 elects a non-maximal value exactly
// where VALID fails. Both were once reported holding, because a check
// names one broken property at a time.
func TestContinueFindsPropertiesBrokenTogether(t *testing.T) {
	t.Parallel()
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

// TestElectionStoryNamesTheValues: the last state of chang-roberts-broken's
// counterexamples names the values that break validity and uniqueness.
func TestElectionStoryNamesTheValues(t *testing.T) {
	t.Parallel()
	m := build(t, "chang-roberts-broken", map[string]string{"n": "3"})
	for prop, want := range map[string][]string{
		"validity": {"p1 is chosen with ID 1, but p3 has ID 3, the best ID", "no message is in transit"},
		"uniqueness": {
			"p1 is chosen with ID 1, but p3 has ID 3, the best ID",
			"p3 is chosen with ID 3",
			"2 processes are chosen (p1, p3): at most one may be",
			"no message is in transit",
		},
	} {
		r, err := explorer.Check(m, explorer.Config{Workers: 1, Properties: []string{prop}})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Violations) == 0 {
			t.Fatalf("%s: %v, no violation", prop, r.Status)
		}
		if got := r.Violations[0].Trace.Explanation; !slices.Equal(got, want) {
			t.Errorf("%s: explanation %q, want %q", prop, got, want)
		}
	}
}
