package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestExpressionFlags: the brief's examples. Uniqueness as an expression
// holds on chang-roberts --n 4 --ids all (exit 0, over the spec's 4,308
// states); two chosen processes are reached in the broken twin, with a
// witness (exit 0), and never in chang-roberts (exit 1). Each property is
// reported under its expression, commas and all.
func TestExpressionFlags(t *testing.T) {
	t.Parallel()
	const unique = `count(procs, .status == "chosen") <= 1`
	const two = `count(procs, .status == "chosen") == 2`
	code, out, errs := vacheck("check", "chang-roberts", "--n", "4", "--ids", "all", "--quiet", "--invariant", unique)
	if code != exitOK || !strings.Contains(out, unique+"  holds") || !strings.Contains(out, "4,308 distinct states") {
		t.Fatalf("--invariant: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = vacheck("check", "chang-roberts-broken", "--n", "4", "--ids", "all", "--quiet", "--reach", two)
	if code != exitOK || !strings.Contains(out, "REACHED "+two) || !strings.Contains(out, "Witness (shortest, 26 steps)") {
		t.Fatalf("--reach on the broken twin: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = vacheck("check", "chang-roberts", "--n", "3", "--quiet", "--reach", two)
	if code != exitViolated || !strings.Contains(out, "No reachable state satisfies it") {
		t.Fatalf("--reach never met: exit %d\n%s%s", code, out, errs)
	}
	// JSON: the witness, and a reach never met.
	code, out, _ = vacheck("check", "chang-roberts", "--n", "3", "--quiet", "--format", "json", "--reach", two, "--reach", `count(procs, .status == "chosen") == 1`)
	var j struct {
		Status     string
		Properties []struct{ Name, Kind, Status string }
		Violations []struct {
			Property  string
			Unreached bool
		}
		Witnesses []struct {
			Property string
			Trace    []json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if code != exitViolated || j.Status != "violated" || len(j.Violations) != 1 || !j.Violations[0].Unreached || j.Violations[0].Property != two ||
		len(j.Witnesses) != 1 || len(j.Witnesses[0].Trace) == 0 {
		t.Errorf("JSON: exit %d, %+v", code, j)
	}
}

// TestExpressionFlagsEveryKind: each flag checks what it says, and with
// --property a claim is checked too.
func TestExpressionFlagsEveryKind(t *testing.T) {
	t.Parallel()
	code, out, errs := vacheck("check", "chang-roberts", "--n", "3", "--quiet", "--property", "uniqueness",
		"--eventually", `one(procs, .status == "chosen")`,
		"--leads-to", `any(procs, len(.send) > 0) ~> all(procs, len(.send) == 0)`,
		"--stable", `all(chans, len(.msgs) == 0)`,
		"--action", `all(0..n-1, old.procs[#].status != "chosen" || new.procs[#].status == "chosen")`)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{"uniqueness", "--eventually:", "--leads-to:", "--stable:", "--action:"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not say %q:\n%s", want, out)
		}
	}
	code, out, _ = vacheck("check", "chang-roberts", "--n", "3", "--quiet", "--action", `count(new.procs, .status == "chosen") == 0`)
	if code != exitViolated || !strings.Contains(out, "The last step of this trace does not satisfy it") {
		t.Errorf("a violated --action: exit %d\n%s", code, out)
	}
}

// TestExpressionErrors: a bad expression is a usage error (exit 2) naming
// the flag, the column and a "did you mean"; one that fails in a state is
// a model error (exit 4) with the trace to that state; symmetry and
// partial-order reduction are refused with expressions, saying why.
func TestExpressionErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"--invariant", `count(procs, .stauts == "chosen") <= 1`}, exitUsage, []string{"--invariant", "column 15", `unknown variable "stauts"`, `did you mean "status"?`}},
		{[]string{"--reach", `N == 3`}, exitUsage, []string{"--reach", `unknown name "N"`, `did you mean "n"?`}},
		{[]string{"--leads-to", `true`}, exitUsage, []string{"--leads-to", "~>"}},
		{[]string{"--invariant", `procs[n].u > 0`}, exitModel, []string{"MODEL ERROR", "index out of range", "initial state"}},
		{[]string{"--invariant", `true`, "--symmetry"}, exitUsage, []string{"--symmetry", "expression"}},
		{[]string{"--invariant", `true`, "--reduction", "por"}, exitUsage, []string{"--reduction por", "any variable"}},
	}
	for _, tc := range cases {
		args := append([]string{"check", "chang-roberts", "--n", "3", "--quiet"}, tc.args...)
		code, out, errs := vacheck(args...)
		if code != tc.code {
			t.Errorf("%v: exit %d; want %d\n%s%s", tc.args, code, tc.code, out, errs)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out+errs, w) {
				t.Errorf("%v: the output does not say %q:\n%s%s", tc.args, w, out, errs)
			}
		}
	}
}

// TestFairFlag: --fair STEP[:strong] makes a step fair of its own; a
// misspelt step is a usage error with a "did you mean".
func TestFairFlag(t *testing.T) {
	t.Parallel()
	base := []string{"check", "perpetuum-mobile", "--n", "3", "--quiet", "--eventually", "procs[1].done == 1", "--fairness", "none"}
	if code, out, errs := vacheck(base...); code != exitViolated {
		t.Errorf("without --fair: exit %d; want 1\n%s%s", code, out, errs)
	}
	if code, out, errs := vacheck(append(base, "--fair", "request:strong")...); code != exitOK {
		t.Errorf("--fair request:strong: exit %d; want 0\n%s%s", code, out, errs)
	}
	code, out, errs := vacheck(append(base, "--fair", "reqest")...)
	if code != exitUsage || !strings.Contains(errs, "--fair reqest: no transition of the state graph is a step reqest (did you mean request?)") {
		t.Errorf("--fair reqest: exit %d; want 2 and a did you mean\n%s%s", code, out, errs)
	}
	if code, _, errs := vacheck(append(base, "--fair", "request:often")...); code != exitUsage || !strings.Contains(errs, "STEP:strong") {
		t.Errorf("--fair request:often: exit %d, %s; want 2", code, errs)
	}
}

// TestConstraintFlag: --constraint on lamport --n 3 counts as the spec's
// --clock-limit 6 (15,799 states + 9,635 cut, exit 5), names the
// expression in the report, and still checks the spec's claims; one that
// cuts nothing exits 0.
func TestConstraintFlag(t *testing.T) {
	t.Parallel()
	const clock = `all(procs, .C <= 6)`
	code, out, errs := vacheck("check", "lamport", "--n", "3", "--quiet", "--constraint", clock)
	if code != exitBounded || !strings.Contains(out, "15,799 distinct states") || !strings.Contains(out, "9,635 more states outside the model's constraint (--constraint \""+clock+"\")") ||
		!strings.Contains(out, "mutual-exclusion    holds-within-bound") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = vacheck("check", "chang-roberts", "--n", "3", "--quiet", "--constraint", "all(chans, len(.msgs) <= 3)")
	if code != exitOK || !strings.Contains(out, "uniqueness") {
		t.Fatalf("a constraint that cuts nothing: exit %d\n%s%s", code, out, errs)
	}
	code, _, errs = vacheck("check", "lamport", "--n", "3", "--quiet", "--constraint", "all(procs, .clock <= 6)")
	if code != exitUsage || !strings.Contains(errs, `--constraint "all(procs, .clock <= 6)"`) {
		t.Errorf("an unknown name: exit %d\n%s", code, errs)
	}
}
