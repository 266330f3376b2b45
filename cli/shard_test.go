package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// countsLine is the report's line of counts.
var countsLine = regexp.MustCompile(`(?m)^[0-9,]+ distinct states, [0-9,]+ transitions, depth \d+, [0-9,]+ terminal states$`)

// runParts checks spec args in K parts into dir and returns the
// certificates' paths and the parts' exit codes.
func runParts(t *testing.T, dir string, K int, args ...string) ([]string, []int) {
	t.Helper()
	var certs []string
	var codes []int
	for k := range K {
		cert := filepath.Join(dir, fmt.Sprintf("part-%d.json", k))
		code, _, stderr := vacheck(append(append([]string{"check"}, args...), "--quiet", "--shard", fmt.Sprintf("%d/%d", k, K), "--cert", cert)...)
		if code == exitUsage || code == exitModel {
			t.Fatalf("part %d: exit %d: %s", k, code, stderr)
		}
		certs, codes = append(certs, cert), append(codes, code)
	}
	return certs, codes
}

// TestMergeEqualsUnsharded: the merged report has the unsharded check's
// counts, verdict and exit code, with disjoint parts (chang-roberts' ID
// arrangements), overlapping ones (echo-election's initiator subsets,
// whose runs meet: the fingerprint union), and a violation (the shortest
// counterexample of the parts is the unsharded one's length).
func TestMergeEqualsUnsharded(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		K    int
		mode string
	}{
		{[]string{"chang-roberts", "--n", "4", "--ids", "all"}, 3, "counts summed: the parts are disjoint"},
		{[]string{"chang-roberts", "--n", "3", "--ids", "all"}, 8, "counts summed"}, // more parts than initial states
		{[]string{"echo-election", "--n", "3", "--initiators", "subsets", "--ids", "increasing"}, 3, "union of the parts' fingerprint sets"},
		{[]string{"lelann", "--n", "3", "--metric", "messages"}, 4, "union of the parts' fingerprint sets"},
		{[]string{"chang-roberts-broken", "--n", "4", "--ids", "all"}, 2, "counts summed"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			wantCode, whole, _ := vacheck(append(append([]string{"check"}, tt.args...), "--quiet")...)
			certs, _ := runParts(t, t.TempDir(), tt.K, tt.args...)
			code, merged, stderr := vacheck(append([]string{"merge"}, certs...)...)
			if code != wantCode {
				t.Fatalf("merge exit %d, unsharded %d: %s", code, wantCode, stderr)
			}
			if code == exitViolated {
				short := regexp.MustCompile(`shortest, \d+ steps`)
				if w, m := short.FindString(whole), short.FindString(merged); w == "" || w != m {
					t.Errorf("merged counterexample %q, unsharded %q", m, w)
				}
			} else if w, m := countsLine.FindString(whole), countsLine.FindString(merged); w == "" || w != m {
				t.Errorf("merged %q, unsharded %q", m, w)
			}
			if !strings.Contains(merged, tt.mode) {
				t.Errorf("the merge does not say %q:\n%s", tt.mode, merged)
			}
			if strings.Contains(tt.mode, "union") && !regexp.MustCompile(`in which [1-9][0-9,]* states were reached by more than one part`).MatchString(merged) && tt.args[0] == "echo-election" {
				t.Errorf("echo-election's parts should overlap:\n%s", merged)
			}
			// The JSON report says the same.
			code, out, _ := vacheck(append([]string{"merge", "--format", "json"}, certs...)...)
			var doc map[string]any
			if err := json.Unmarshal([]byte(out), &doc); err != nil || code != wantCode {
				t.Errorf("merge --format json: exit %d, %v:\n%s", code, err, out)
			}
		})
	}
}

// TestMergeRefusesPartsThatDoNotBelong: a missing part, a part given
// twice, a part of another check or K, and a file that is no certificate
// are refused with exit 2, naming them.
func TestMergeRefusesPartsThatDoNotBelong(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	certs, _ := runParts(t, filepath.Join(dir), 3, "chang-roberts", "--n", "3", "--ids", "all")
	other := t.TempDir()
	foreign, _ := runParts(t, other, 3, "chang-roberts", "--n", "3", "--ids", "all", "--capacity", "4")
	otherK := t.TempDir()
	byTwo, _ := runParts(t, otherK, 2, "chang-roberts", "--n", "3", "--ids", "all")
	junk := filepath.Join(dir, "junk.json")
	if err := os.WriteFile(junk, []byte(`{"spec": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		certs []string
		want  []string
	}{
		{"missing", certs[:2], []string{"part 2 of 3 is missing"}},
		{"missing two", certs[1:2], []string{"parts 0, 2 of 3 are missing"}},
		{"duplicate", append(append([]string(nil), certs...), certs[1]), []string{"part 1 is given twice", certs[1]}},
		{"foreign model", []string{certs[0], certs[1], foreign[2]}, []string{foreign[2] + " is foreign", "another model, parameters or engine flags", `"capacity":4`}},
		{"foreign K", []string{certs[0], certs[1], byTwo[1]}, []string{byTwo[1] + " is foreign", "another K: 2, not 3"}},
		{"not a certificate", []string{certs[0], junk}, []string{junk + " is not the certificate of a part"}},
		{"none", nil, []string{"merge takes the certificates of every part"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := vacheck(append([]string{"merge"}, tt.certs...)...)
			if code != exitUsage || stdout != "" {
				t.Fatalf("exit %d, stdout %q; want 2 and nothing", code, stdout)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("error %q does not say %q", stderr, w)
				}
			}
		})
	}
}

// TestMergeOfAnIncompletePartIsIncomplete: a part stopped by a limit makes
// the whole check incomplete (exit 3), never ok.
func TestMergeOfAnIncompletePartIsIncomplete(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"chang-roberts", "--n", "3", "--ids", "all"}
	certs, _ := runParts(t, dir, 2, args...)
	code, _, stderr := vacheck(append(append([]string{"check"}, args...), "--quiet", "--shard", "1/2", "--cert", certs[1], "--max-states", "5")...)
	if code != exitIncomplete {
		t.Fatalf("part 1 with --max-states 5: exit %d, %s", code, stderr)
	}
	code, out, _ := vacheck(append([]string{"merge"}, certs...)...)
	if code != exitIncomplete || !strings.Contains(out, "state limit reached") {
		t.Errorf("merge exit %d, want 3 with the part's reason:\n%s", code, out)
	}
}

// TestShardFlagErrors: bad --shard and --cert values, and what a part
// cannot be run with, exit 2 naming the flag. Not parallel: it clears
// the environment's indexes (t.Setenv).
func TestShardFlagErrors(t *testing.T) {
	t.Setenv("JOB_COMPLETION_INDEX", "")
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	cert := filepath.Join(t.TempDir(), "c.json")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "4/4"}, `--shard "4/4": the part k must be a whole number from 0 to 3`},
		{[]string{"--shard", "env/4"}, `--shard "env/4": neither JOB_COMPLETION_INDEX nor SLURM_ARRAY_TASK_ID is set`},
		{[]string{"--shard", "1/2", "--symmetry"}, "--shard with --symmetry: an orbit spans the parts"},
		{[]string{"--shard", "1/2", "--strategy", "dfs"}, "--shard needs breadth-first search"},
		{[]string{"--shard", "1/2", "--reduction", "por", "--strategy", "bfs"}, "--shard with --reduction por"},
		{[]string{"--cert", "/no/such/dir/c.json"}, `--cert "/no/such/dir/c.json": its directory /no/such/dir does not exist`},
		{[]string{"--shard", "0/2", "--cert", cert, "--checkpoint", t.TempDir()}, "--cert with --checkpoint"},
		{[]string{"--shard", "0/2", "--cluster", "embedded:0", "--ranks", "1", "--rank", "0"}, "--shard and --cert split a check by initial state"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := vacheck(append([]string{"check", "chang-roberts", "--n", "3", "--quiet"}, tt.args...)...)
			if code != exitUsage || stdout != "" || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, stdout, stderr, tt.want)
			}
		})
	}
	if _, err := os.Stat(cert); err == nil {
		t.Errorf("a refused run wrote its certificate")
	}
}

// TestShardFromTheEnvironment: --shard env/K reads a Kubernetes Indexed
// Job's index. Not parallel: t.Setenv.
func TestShardFromTheEnvironment(t *testing.T) {
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	cert := filepath.Join(t.TempDir(), "c.json")
	code, _, stderr := vacheck("check", "chang-roberts", "--n", "3", "--quiet", "--shard", "env/2", "--cert", cert)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	c, err := readCert(cert)
	if err != nil || c.Shard != 1 || c.Shards != 2 {
		t.Errorf("certificate of part %d/%d (%v), want 1/2", c.Shard, c.Shards, err)
	}
}

// TestSwarmShard: swarm --shard runs its part of the jobs, and says which.
func TestSwarmShard(t *testing.T) {
	t.Parallel()
	code, out, stderr := vacheck("swarm", "chang-roberts-broken", "--n", "4", "--jobs", "4", "--memory", "4MiB", "--quiet", "--shard", "1/2")
	if code != exitViolated || !strings.Contains(out, "part 1/2 of the swarm: jobs 2, 4 of 4") {
		t.Errorf("exit %d, %s\n%s", code, stderr, out)
	}
	code, _, stderr = vacheck("swarm", "chang-roberts-broken", "--n", "4", "--jobs", "2", "--memory", "4MiB", "--quiet", "--shard", "2/3")
	if code != exitUsage || !strings.Contains(stderr, "--shard 2/3: the swarm has 2 jobs, so part 2 has none") {
		t.Errorf("exit %d, %s", code, stderr)
	}
}

// TestSweepShard: sweep --shard checks each N's part and writes its
// certificate, which merges with the other parts' into that N's check.
func TestSweepShard(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for k := range 2 {
		code, out, stderr := vacheck("sweep", "chang-roberts", "--n", "3..4", "--quiet", "--shard", fmt.Sprintf("%d/2", k), "--cert", dir)
		if code != exitOK || !strings.Contains(out, fmt.Sprintf("part %d/2 of each N's initial states", k)) {
			t.Fatalf("part %d: exit %d, %s\n%s", k, code, stderr, out)
		}
	}
	for _, n := range []string{"3", "4"} {
		_, whole, _ := vacheck("check", "chang-roberts", "--n", n, "--quiet")
		certs, _ := filepath.Glob(filepath.Join(dir, "chang-roberts-n"+n+"-shard-*.json"))
		code, merged, stderr := vacheck(append([]string{"merge"}, certs...)...)
		if w, m := countsLine.FindString(whole), countsLine.FindString(merged); code != exitOK || w == "" || w != m {
			t.Errorf("n=%s: merge of %v: exit %d %s, %q; unsharded %q", n, certs, code, stderr, m, w)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--cert", dir}, "needs --shard k/K"},
		{[]string{"--shard", "0/2", "--cert", filepath.Join(dir, "none")}, "allowed: an existing directory"},
		{[]string{"--shard", "2/2"}, `--shard "2/2"`},
	} {
		code, _, stderr := vacheck(append([]string{"sweep", "chang-roberts", "--n", "3", "--quiet"}, tt.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, %s; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

// TestMergeCountsUncheckedStates: a part whose stop left states stored and
// not checked gives their number to the merged report, text and JSON, so
// that the merge does not claim them checked; the certificate keeps the
// figure through its round trip.
func TestMergeCountsUncheckedStates(t *testing.T) {
	r := &explorer.Result{Status: explorer.Incomplete, States: 40, Unchecked: 17}
	if got := certResultOf(r).result().Unchecked; got != 17 {
		t.Fatalf("the certificate's round trip keeps %d unchecked states, want 17", got)
	}
	dir := t.TempDir()
	args := []string{"chang-roberts", "--n", "3", "--ids", "all"}
	certs, _ := runParts(t, dir, 2, args...)
	if code, _, stderr := vacheck(append(append([]string{"check"}, args...), "--quiet", "--shard", "1/2", "--cert", certs[1], "--max-states", "5")...); code != exitIncomplete {
		t.Fatalf("part 1 with --max-states 5: exit %d, %s", code, stderr)
	}
	// A state limit leaves nothing unchecked; a stop inside a level does
	// (explorer's TestStopDuringStoredLevelCheck). Say the part's did.
	data, err := os.ReadFile(certs[1])
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["report"].(map[string]any)["result"].(map[string]any)["unchecked_states"] = 3
	if data, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certs[1], data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := vacheck(append([]string{"merge"}, certs...)...)
	if code != exitIncomplete || !strings.Contains(out, "(3 more stored, not checked)") {
		t.Errorf("merge exit %d, want 3 saying the part's 3 states not checked:\n%s", code, out)
	}
	code, out, _ = vacheck(append([]string{"merge", "--format", "json"}, certs...)...)
	var rep struct {
		Unchecked int64 `json:"unchecked_states"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitIncomplete || rep.Unchecked != 3 {
		t.Errorf("merge --format json: exit %d, %v, unchecked_states %d; want 3 and 3:\n%s", code, err, rep.Unchecked, out)
	}
}
