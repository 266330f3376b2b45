package specs

import (
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
