package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// perInitialRun is the JSON of check --per-initial-state.
type perInitialRun struct {
	Status        string
	InitialStates int `json:"initial_states"`
	Properties    []struct {
		Name      string
		Verdicts  map[string]int
		Violating []map[string]string
		Causes    []struct {
			Actions        []string
			InitialStates  []map[string]string `json:"initial_states"`
			Counterexample struct {
				Rerun string
				Trace []struct{ Action string }
			}
		}
	}
}

// TestPerInitialState: the example, floodmax on a line of 4 with a
// diameter of 2 (the line's is 3) and every arrangement. Which
// arrangements violate which property is compared with 24 plain checks,
// one per arrangement (--ids X --continue): the figures come from them.
// The safety claims only: each liveness check of floodmax's adds 0.1 s of
// wall time, 2.4 s for the 24 arrangements.
func TestPerInitialState(t *testing.T) {
	t.Parallel()
	safety := []string{"--property", "uniqueness", "--property", "agreement", "--property", "validity", "--property", "round-sync", "--quiet", "--workers", "1"}
	args := append([]string{"check", "floodmax", "--topology", "line", "--n", "4", "--diameter", "2", "--ids", "all", "--per-initial-state"}, safety...)
	code, out, stderr := vacheck(append(args, "--format", "json")...)
	if code != exitViolated {
		t.Fatalf("exit %d, want %d: %s", code, exitViolated, stderr)
	}
	var run perInitialRun
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		t.Fatal(err)
	}
	if run.Status != "violated" || run.InitialStates != 24 {
		t.Fatalf("status %s, %d initial states; want violated, 24 (4!)", run.Status, run.InitialStates)
	}
	per := map[string][]string{} // property → the violating arrangements
	for _, p := range run.Properties {
		for _, v := range p.Violating {
			per[p.Name] = append(per[p.Name], v["ids"])
		}
		if p.Verdicts["violated"] != len(p.Violating) || p.Verdicts["violated"]+p.Verdicts["holds"] != 24 || len(run.Properties) != 5 {
			t.Errorf("%s: verdicts %v, %d violating", p.Name, p.Verdicts, len(p.Violating))
		}
		n := 0
		for _, c := range p.Causes {
			n += len(c.InitialStates)
			if !strings.Contains(c.Counterexample.Rerun, "--ids "+c.InitialStates[0]["ids"]) || len(c.Actions) != len(c.Counterexample.Trace) {
				t.Errorf("%s: a cause's counterexample: %+v", p.Name, c)
			}
		}
		if n != len(p.Violating) {
			t.Errorf("%s: the causes hold %d initial states, %d violate it", p.Name, n, len(p.Violating))
		}
	}
	// The oracle: each arrangement checked on its own.
	want := map[string][]string{}
	for _, ids := range permutations4() {
		_, out, _ := vacheck(append([]string{"check", "floodmax", "--topology", "line", "--n", "4", "--diameter", "2", "--ids", ids, "--continue", "--format", "json"}, safety...)...)
		var one struct {
			Properties []struct{ Name, Status string }
		}
		if err := json.Unmarshal([]byte(out), &one); err != nil {
			t.Fatal(err)
		}
		for _, p := range one.Properties {
			if p.Status == "violated" {
				want[p.Name] = append(want[p.Name], ids)
			}
		}
	}
	for name, ids := range want {
		if !slices.Equal(per[name], ids) {
			t.Errorf("%s: violated from %v; the plain checks say %v", name, per[name], ids)
		}
	}
	if len(per) != len(want) {
		t.Errorf("violated properties %v; the plain checks say %v", per, want)
	}
	// As the plain checks found them (agreement in 12 arrangements,
	// uniqueness and validity in 4).
	if len(want["agreement"]) != 12 || len(want["uniqueness"]) != 4 {
		t.Errorf("the plain checks: %v", want)
	}
	code, text, _ := vacheck(args...)
	for _, line := range []string{"  uniqueness     holds in 20, violated in 4", "VIOLATED agreement in 12 of 24 initial states, with 2 distinct causes:", "  --ids 3,1,2,4", "result: VIOLATED"} {
		if !strings.Contains(text, line+"\n") {
			t.Errorf("the text has no line %q:\n%s", line, text)
		}
	}
	if code != exitViolated {
		t.Errorf("text: exit %d", code)
	}
}

// permutations4 is every arrangement of 1..4, in lexicographic order, as
// --ids takes it.
func permutations4() []string {
	var out []string
	for a := 1; a <= 4; a++ {
		for b := 1; b <= 4; b++ {
			for c := 1; c <= 4; c++ {
				d := 10 - a - b - c
				if a != b && a != c && b != c && d >= 1 && d <= 4 && d != a && d != b && d != c {
					out = append(out, strings.Join([]string{string(rune('0' + a)), string(rune('0' + b)), string(rune('0' + c)), string(rune('0' + d))}, ","))
				}
			}
		}
	}
	return out
}

// TestPerInitialStateExits: every initial state of a correct spec holds
// (exit 0); flags that do not combine with it are refused (exit 2), as is
// a spec that cannot name its initial states (TestPerInitialStateNeedsNames).
func TestPerInitialStateExits(t *testing.T) {
	t.Parallel()
	code, out, _ := vacheck("check", "chang-roberts", "--n", "3", "--per-initial-state", "--quiet")
	if code != exitOK || !strings.Contains(out, "per initial state: 6 initial states") || !strings.Contains(out, "result: OK, every property holds in every initial state") {
		t.Errorf("chang-roberts --n 3: exit %d:\n%s", code, out)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"chang-roberts", "--n", "3", "--html", "x.html"}, "--html does not combine with"},
		{[]string{"chang-roberts", "--n", "3", "--metric", "messages"}, "--metric does not combine with"},
	} {
		code, _, stderr := vacheck(append(append([]string{"check"}, tt.args...), "--per-initial-state", "--quiet")...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}
