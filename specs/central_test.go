package specs

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// TestCentralBroken checks the twin: K grants without checking busy, so
// both clients get a REPLY and enter.
func TestCentralBroken(t *testing.T) {
	t.Parallel()
	want := []string{
		"request(REQUEST)_{1,3}", "request(REQUEST)_{2,3}", "receive(REQUEST)_{1,3}", "receive(REPLY)_{3,1}",
		"enter_{1}", "receive(REQUEST)_{2,3}", "receive(REPLY)_{3,2}", "enter_{2}",
	}
	v := counterexample(t, "central-broken", map[string]string{"n": "2"}, nil, properties.MutualExclusion)
	if got := explorer.Actions(v.Trace.Steps); !slices.Equal(got, want) {
		t.Errorf("counterexample %q, want %q", got, want)
	}
	if s := twinOf(central()); s.Bug == "" || s.Name != "central-broken" {
		t.Errorf("twin: name %q, bug %q", s.Name, s.Bug)
	}
	// The holder assertion is not vacuous: the twin overwrites holder, so
	// the first holder's RELEASE fails it.
	r := check(t, "central-broken", map[string]string{"n": "2"}, explorer.Config{Workers: 1, Properties: []string{ctHolderAssertion}})
	if r.Status != explorer.Violated || r.Violations[0].Property != ctHolderAssertion {
		t.Errorf("holder assertion on the twin: %v, want violated", r.Status)
	}
}

// TestCentralCrash checks the "Expected to FAIL" of docs/algorithms/central.md:
// the coordinator is a single point of failure, so with one crash GA2
// fails. The shortest counterexample crashes K while both clients wait.
// Safety still holds.
func TestCentralCrash(t *testing.T) {
	t.Parallel()
	flags := map[string]string{"n": "2", "crashes": "1"}
	r := check(t, "central", flags, explorer.Config{Workers: 2, Properties: []string{properties.Progress}})
	if r.Status != explorer.Violated || r.Violations[0].Property != properties.Progress {
		t.Fatalf("%v %v; want progress violated", r.Status, r.Violations)
	}
	want := []string{"request(REQUEST)_{1,3}", "request(REQUEST)_{2,3}", "crash_{3}", "receive(REQUEST)_{1,3}", "receive(REQUEST)_{2,3}"}
	v := r.Violations[0]
	if got := explorer.Actions(v.Trace.Steps); !slices.Equal(got, want) {
		t.Errorf("counterexample %q, want %q", got, want)
	}
	if expl := strings.Join(v.Trace.Explanation, "\n"); !strings.Contains(expl, "the coordinator (process 3) has crashed") {
		t.Errorf("explanation %q", expl)
	}
	r = check(t, "central", flags, explorer.Config{Workers: 2, Properties: []string{properties.MutualExclusion, ctHolderAssertion}})
	if r.Status != explorer.OK {
		t.Errorf("safety with a crash: %v %v", r.Status, r.Violations)
	}
}

// TestCentralParams checks the canonical values and that bad values are
// usage errors naming the flag.
func TestCentralParams(t *testing.T) {
	t.Parallel()
	s := central()
	p, err := NewParams(s, map[string]string{"requesters": "3,1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Build(p); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"n": 3, "requests": 1, "requesters": "1,3", "crashes": 0, "channels": "unordered", "capacity": 2}
	for k, v := range want {
		if got := p.Canonical()[k]; fmt.Sprint(got) != fmt.Sprint(v) {
			t.Errorf("canonical --%s = %v, want %v", k, got, v)
		}
	}
	// Requesters are clients 1..N: K (process 4 here) is not one.
	mxUsageErrors(t, s, map[string]string{"n": "0", "requests": "6", "requesters": "4", "crashes": "4", "channels": "lossy", "capacity": "x"})
}
