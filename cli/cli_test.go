package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnknownCommandsAndFlagsExit2: a mistyped command, spec or flag exits
// 2 with a "did you mean", whatever the command.
func TestUnknownCommandsAndFlagsExit2(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"nope"}, `unknown command "nope"; commands: list, check, sweep, quorums, resume, graph, explore, swarm`},
		{[]string{"chang-roberts"}, "did you mean 'vacheck check chang-roberts'?"},
		{[]string{"chang-robert", "--n", "3"}, "did you mean 'vacheck check chang-roberts'?"},
		{[]string{"chek", "chang-roberts"}, "did you mean 'vacheck check'?"},
		{[]string{"--bogus"}, "unknown flag --bogus"},
		{[]string{"list", "--bogus"}, "unknown flag --bogus"},
		{[]string{"list", "extra", "more"}, "list takes at most one FILTER"},
		{[]string{"list", "zzz"}, `no spec matches "zzz"`},
		{[]string{"list", "--format", "yaml"}, `--format "yaml": allowed values are text and json`},
		{[]string{"check", "chang-roberts", "--nn", "3"}, "unknown flag --nn; did you mean --n?"},
		{[]string{"check", "chang-roberts", "--strategi", "dfs"}, "did you mean --strategy?"},
		{[]string{"check", "chang-robert"}, `unknown spec "chang-robert"; did you mean chang-roberts?`},
		{[]string{"check", "chang-robert", "--help"}, "did you mean chang-roberts?"},
		{[]string{"quorums", "fpp", "--nn", "7"}, "did you mean --n?"},
		{[]string{"sweep", "chang-roberts", "--n", "5..3"}, `--n "5..3": a range such as 3..8`},
		{[]string{"sweep", "chang-roberts"}, "sweep needs --n"},
		{[]string{"sweep", "chang-roberts", "--n", "3", "--budget", "soon"}, `--budget "soon"`},
		{[]string{"sweep", "chang-roberts", "--n", "3", "--baseline", "/no/such/file.json"}, "--baseline /no/such/file.json"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := vacheck(tt.args...)
			if code != exitUsage || stdout != "" {
				t.Errorf("exit code %d, stdout %q; want %d and nothing", code, stdout, exitUsage)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("error %q does not contain %q", stderr, tt.want)
			}
		})
	}
}

// TestHelpAndVersionExit0: help for the tool, a command and a spec, and
// the version, on stdout with exit 0.
func TestHelpAndVersionExit0(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"vacheck check SPEC", "COMMANDS", "sweep"}},
		{[]string{"help"}, []string{"COMMANDS"}},
		{[]string{"help", "check"}, []string{"--strategy", "--max-states"}},
		{[]string{"check", "help"}, []string{"--strategy", "--max-states"}},
		{[]string{"sweep", "help"}, []string{"--budget", "--baseline"}},
		{[]string{"check", "--help"}, []string{"--strategy", "--max-memory", "--invariant", "--checkpoint", "SPEC's parameters (--n, --ids, --channels, --capacity, ...) differ by spec: 'vacheck check SPEC --help'"}},
		{[]string{"simulate", "lelann", "--help"}, []string{"usage: vacheck simulate lelann [parameters]", "claims (their safety properties are checked by default)", "simulate flags: --runs, --seed", "(see 'vacheck simulate --help'"}},
		{[]string{"swarm", "lelann", "--help"}, []string{"usage: vacheck swarm lelann", "swarm flags: --jobs"}},
		{[]string{"check", "raymond", "--help"}, []string{"--topology    a tree: line (1-2-...-N), star (centre 1)"}},
		{[]string{"check", "chang-roberts", "--help"}, []string{
			"chang-roberts: Chang-Roberts election", "explained in: docs/algorithms/chang-roberts.md", "--n ", "(default 5)", "--ids", "--channels",
			"claims (checked by default): uniqueness, validity, lemma1, deadlock-freedom",
			"also offers (--property NAME): quiescence, termination", "engine flags: --strategy"}},
		{[]string{"check", "--n", "3", "chang-roberts-broken", "-h"}, []string{"broken on purpose: ", "claims"}},
		{[]string{"sweep", "chang-roberts", "--help"}, []string{"claims (checked by default)"}},
		{[]string{"sweep", "--help"}, []string{"--budget", "--baseline", "--n"}},
		{[]string{"--version"}, []string{"vacheck ", "go1."}},
		{[]string{"version"}, []string{"vacheck "}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := vacheck(tt.args...)
			if code != exitOK || stderr != "" {
				t.Errorf("exit code %d, stderr %q", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("output does not contain %q:\n%s", w, stdout)
				}
			}
		})
	}
}

// TestJSONUsageError: with --format json, bad usage is a JSON object with
// status "error" on stdout (and the message on stderr).
func TestJSONUsageError(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"check", "chang-roberts", "--n", "0", "--format", "json"},
		{"check", "chang-roberts", "--format=json", "--nn", "3"},
		{"sweep", "chang-roberts", "--n", "x", "--format", "json"},
		{"check", "nope", "--format", "json"},
	} {
		code, stdout, stderr := vacheck(args...)
		var got struct {
			Status   string `json:"status"`
			ExitCode int    `json:"exit_code"`
			Error    string `json:"error"`
		}
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Errorf("%v: not JSON: %v\n%s", args, err, stdout)
			continue
		}
		if code != exitUsage || got.Status != "error" || got.ExitCode != exitUsage || got.Error == "" || !strings.Contains(stderr, got.Error) {
			t.Errorf("%v: exit %d, %+v, stderr %q", args, code, got, stderr)
		}
	}
}

// TestSweep: a sweep prints one row per N; its certificates compared with
// themselves show no change (exit 0, even for a broken twin's expected
// violations), and a changed count or verdict fails naming it.
func TestSweep(t *testing.T) {
	t.Parallel()
	code, stdout, _ := vacheck("sweep", "chang-roberts", "--n", "3..4", "--metric", "messages", "--workers", "2")
	// The figures are those `vacheck check chang-roberts --n N --metric
	// messages` gives (N=3: testdata/golden/chang-roberts-n3.txt; the
	// messages min 2N-1 and max N(N+1)/2, as specs/chang_roberts_test.go
	// pins them).
	for _, want := range []string{
		"chang-roberts: sweep of --n 3,4",
		"   3            282            558     12 ",
		"OK                             messages 5..6",
		"   4          4,308         11,272     20 ",
		"messages 7..10",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("sweep table does not contain %q:\n%s", want, stdout)
		}
	}
	if code != exitOK {
		t.Errorf("exit code %d", code)
	}

	code, stdout, _ = vacheck("sweep", "chang-roberts-broken", "--n", "3..4", "--ids", "increasing", "--format", "json", "--workers", "2")
	var certs []certificate
	if err := json.Unmarshal([]byte(stdout), &certs); err != nil || code != exitViolated {
		t.Fatalf("exit %d, certificates: %v\n%s", code, err, stdout)
	}
	if len(certs) != 2 || certs[0].States != 132 || certs[1].States != 917 || certs[0].Verdicts["uniqueness"] != "violated" ||
		certs[0].FingerprintBits != 64 || certs[0].CollisionBound <= 0 || !strings.HasPrefix(certs[0].Version, "vacheck ") ||
		certs[0].Params["ids"] != "increasing" || certs[0].Params["n"] != float64(3) {
		t.Errorf("certificates %+v", certs)
	}
	dir := t.TempDir()
	old := filepath.Join(dir, "old.json")
	if err := os.WriteFile(old, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = vacheck("sweep", "chang-roberts-broken", "--ids", "increasing", "--compare", old, "--workers", "2")
	if code != exitOK || !strings.Contains(stdout, "compared with "+old+": 2 runs, 0 changes") {
		t.Errorf("same certificates: exit %d\n%s", code, stdout)
	}
	certs[0].States++
	certs[1].Verdicts["uniqueness"] = "holds"
	changed, _ := json.Marshal(certs)
	if err := os.WriteFile(old, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = vacheck("sweep", "chang-roberts-broken", "--n", "3..5", "--ids", "increasing", "--baseline", old, "--workers", "2")
	for _, want := range []string{"CHANGED n=3: states 133 → 132", "CHANGED n=4: uniqueness holds → violated", "note: n=5: not in", "2 runs, 2 changes"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("compare output does not contain %q:\n%s", want, stdout)
		}
	}
	if code != exitViolated {
		t.Errorf("changed certificates: exit %d, want %d", code, exitViolated)
	}
}

// TestSweepEndsAtBudget: the N whose run does not finish within the budget
// is reported as incomplete and ends the sweep.
func TestSweepEndsAtBudget(t *testing.T) {
	t.Parallel()
	code, stdout, _ := vacheck("sweep", "chang-roberts", "--n", "3..9", "--budget", "1s", "--workers", "2", "--quiet")
	if code != exitOK {
		t.Errorf("exit code %d, want 0 (N=3 and N=4 finished)", code)
	}
	if !strings.Contains(stdout, "INCOMPLETE") || !strings.Contains(stdout, "incomplete: sweep budget reached (--budget 1s); the sweep ends here") || strings.Contains(stdout, "\n   9 ") {
		t.Errorf("sweep output:\n%s", stdout)
	}
}

// TestStoppedSearchSaysSo: a search that stops at its first violation says,
// under its figures and in JSON, that they are those of the states it had
// explored; one that goes on with --continue to the end does not.
func TestStoppedSearchSaysSo(t *testing.T) {
	t.Parallel()
	const line = "the search stopped at the first violation: the figures are those of the states it had explored (--continue goes on)"
	code, out, _ := vacheck("check", "chang-roberts-broken", "--n", "3", "--quiet")
	if code != exitViolated || !strings.Contains(out, line) {
		t.Errorf("exit %d, want %q in\n%s", code, line, out)
	}
	code, out, _ = vacheck("check", "chang-roberts-broken", "--n", "3", "--quiet", "--format", "json")
	if code != exitViolated || !strings.Contains(out, `"exhaustive": false`) {
		t.Errorf("JSON: exit %d, want exhaustive false in\n%s", code, out)
	}
	code, out, _ = vacheck("check", "chang-roberts-broken", "--n", "3", "--quiet", "--continue")
	if code != exitViolated || strings.Contains(out, "the search stopped") {
		t.Errorf("--continue: exit %d, want no stop line in\n%s", code, out)
	}
	code, out, _ = vacheck("check", "chang-roberts-broken", "--n", "3", "--quiet", "--continue", "--format", "json")
	if code != exitViolated || !strings.Contains(out, `"exhaustive": true`) {
		t.Errorf("--continue JSON: exit %d, want exhaustive true in\n%s", code, out)
	}
	code, out, _ = vacheck("check", "chang-roberts", "--n", "3", "--quiet", "--format", "json")
	if code != exitOK || !strings.Contains(out, `"exhaustive": true`) {
		t.Errorf("ok: exit %d, want exhaustive true in\n%s", code, out)
	}
}
