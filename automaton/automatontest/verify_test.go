package automatontest_test

import (
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton/automatontest"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/specs"
)

func model(t *testing.T, name string, flags map[string]string) explorer.Model {
	t.Helper()
	spec, err := specs.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := specs.NewParams(spec, flags)
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.Build(p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestVerify(t *testing.T) {
	r := automatontest.Verify(t, model(t, "chang-roberts", map[string]string{"n": "3"}),
		explorer.Config{Properties: []string{"uniqueness", "deadlock-freedom"}})
	if r.States != 282 {
		t.Errorf("%d states, want 282", r.States)
	}
	// A violated property fails the test with the counterexample.
	rec := &recorder{TB: t}
	automatontest.Verify(rec, model(t, "chang-roberts-broken", map[string]string{"n": "3", "ids": "increasing"}),
		explorer.Config{Properties: []string{"uniqueness"}})
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "VIOLATED uniqueness") || !strings.Contains(rec.errors[0], "receive(1)_{3,1}") {
		t.Errorf("Verify reported %q", rec.errors)
	}
}
