package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/specs"
)

// TestSymmetryFlag: check --symmetry stores orbits and reports the raw
// counts (text and JSON); a spec that declares no symmetry is refused with
// exit 2, naming the specs that do; arrangements that are not closed under
// rotations and liveness properties are refused too; a violation found
// under symmetry exits 1 with a real counterexample.
func TestSymmetryFlag(t *testing.T) {
	t.Parallel()
	code, out, errb := vacheck("check", "chang-roberts", "--n", "4", "--symmetry", "--quiet")
	if code != exitOK || !strings.Contains(out, "1,077 distinct states") || !strings.Contains(out, "they hold 4,308 states and 24 terminal states") || !strings.Contains(out, "4.00 times fewer") {
		t.Errorf("check --symmetry: exit %d\n%s%s", code, out, errb)
	}
	code, out, _ = vacheck("check", "chang-roberts", "--n", "4", "--symmetry", "--quiet", "--format", "json", "--metric", "messages")
	var run struct {
		States int64 `json:"states"`
		Stats  struct {
			Symmetry  string `json:"symmetry"`
			RawStates int64  `json:"raw_states"`
		} `json:"stats"`
		Metrics map[string]struct{ Min, Max int64 } `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(out), &run); err != nil || code != exitOK || run.States != 1077 || run.Stats.RawStates != 4308 || run.Stats.Symmetry == "" || run.Metrics["messages"].Min != 7 || run.Metrics["messages"].Max != 10 {
		t.Errorf("JSON: exit %d, %+v (%v)", code, run, err)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"check", "lamport", "--symmetry"}, []string{"--symmetry", "lamport declares no symmetry", "the specs that do", "chang-roberts"}},
		{[]string{"check", "chang-roberts", "--n", "4", "--ids", "increasing", "--symmetry"}, []string{"--symmetry", "not closed under the rotations", "--ids all"}},
		{[]string{"check", "chang-roberts-announce", "--n", "3", "--symmetry", "--property", "termination"}, []string{"--symmetry", "liveness property termination"}},
	} {
		code, _, errb := vacheck(append(c.args, "--quiet")...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", c.args, code, exitUsage, errb)
		}
		for _, w := range c.want {
			if !strings.Contains(errb, w) {
				t.Errorf("%v: %q does not say %q", c.args, errb, w)
			}
		}
	}
	code, out, _ = vacheck("check", "chang-roberts-broken", "--n", "3", "--symmetry", "--quiet")
	if code != exitViolated || !strings.Contains(out, "VIOLATED uniqueness") || !strings.Contains(out, "receive(") {
		t.Errorf("broken twin under --symmetry: exit %d\n%s", code, out)
	}
	code, out, _ = vacheck("check", "chang-roberts-announce", "--n", "3", "--symmetry", "--quiet")
	if code != exitOK || !strings.Contains(out, "symmetry (rotations") {
		t.Errorf("announce under --symmetry (termination skipped): exit %d\n%s", code, out)
	}
}

// TestSymmetryNamesTheClaimsItLeavesOut: a liveness claim that --symmetry
// leaves out is listed as not checked, and the verdict says so, in the
// text, the JSON and a sweep, rather than an OK that reads as covering it.
func TestSymmetryNamesTheClaimsItLeavesOut(t *testing.T) {
	t.Parallel()
	code, out, errb := vacheck("check", "chang-roberts-announce", "--n", "3", "--symmetry", "--quiet")
	for _, want := range []string{"termination          not checked", "result: OK, every property checked holds; not checked: termination (--symmetry checks safety properties only"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("text: exit %d, want %q in\n%s%s", code, want, out, errb)
		}
	}
	if strings.Contains(out, "every property holds") {
		t.Errorf("text: an unqualified OK with termination left out:\n%s", out)
	}
	code, out, _ = vacheck("check", "chang-roberts-announce", "--n", "3", "--symmetry", "--quiet", "--format", "json")
	var run struct {
		Status     string `json:"status"`
		Properties []struct{ Name, Status, Reason string }
		NotChecked []string `json:"not_checked"`
	}
	if err := json.Unmarshal([]byte(out), &run); err != nil || code != exitOK || run.Status != "ok" {
		t.Fatalf("JSON: exit %d, %v\n%s", code, err, out)
	}
	if !slices.Equal(run.NotChecked, []string{"termination"}) {
		t.Errorf("JSON: not_checked %v, want [termination] beside status ok", run.NotChecked)
	}
	found := false
	for _, p := range run.Properties {
		if p.Name == "termination" {
			found = p.Status == "not-checked" && strings.Contains(p.Reason, "--symmetry")
		}
	}
	if !found {
		t.Errorf("JSON: termination is not listed as not-checked with a reason: %+v", run.Properties)
	}
	code, out, _ = vacheck("sweep", "chang-roberts-announce", "--n", "3..4", "--symmetry", "--quiet")
	if code != exitOK || !strings.Contains(out, "orbits") || strings.Count(out, "OK (not checked: termination)") != 2 {
		t.Errorf("sweep: exit %d\n%s", code, out)
	}
	code, out, _ = vacheck("sweep", "chang-roberts-announce", "--n", "3", "--symmetry", "--quiet", "--format", "json")
	if code != exitOK || !strings.Contains(out, `"termination": "not-checked"`) || !strings.Contains(out, `"not_checked_reason": "--symmetry checks safety properties only`) {
		t.Errorf("sweep JSON: exit %d\n%s", code, out)
	}
	// The HTML page (written for the metric's witnesses) says the same.
	page := filepath.Join(t.TempDir(), "p.html")
	if code, _, errb := vacheck("check", "chang-roberts-announce", "--n", "3", "--symmetry", "--quiet", "--metric", "messages", "--html", page); code != exitOK {
		t.Fatalf("--html: exit %d: %s", code, errb)
	}
	html, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(html), "<td>termination</td><td>not checked</td>") || !strings.Contains(string(html), "result: OK, every property checked holds; not checked: termination") {
		t.Errorf("the page does not list termination as not checked (%v)", err)
	}
	// Selected explicitly, the safety properties alone are what was asked:
	// nothing is left out.
	code, out, _ = vacheck("check", "chang-roberts-announce", "--n", "3", "--symmetry", "--quiet", "--property", "uniqueness")
	if code != exitOK || strings.Contains(out, "not checked") || !strings.Contains(out, "result: OK, every property holds") {
		t.Errorf("--property uniqueness: exit %d\n%s", code, out)
	}
}

// TestSymmetryRefusalNamesTheOwnCatalog: a module's own command line
// (cli.Main with its catalog) names its own specs that declare a symmetry,
// not the built-in ones.
func TestSymmetryRefusalNamesTheOwnCatalog(t *testing.T) {
	t.Parallel()
	var own []specs.Spec
	for _, s := range specs.Catalog() {
		if s.Name == "lamport" {
			own = append(own, s)
		}
	}
	var out, errb strings.Builder
	code := Run([]string{"vacheck", "check", "lamport", "--symmetry"}, &out, &errb, own)
	if code != exitUsage || !strings.Contains(errb.String(), "no spec of the catalog does") || strings.Contains(errb.String(), "chang-roberts") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}
