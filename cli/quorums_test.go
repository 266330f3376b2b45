package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuorums checks `vacheck quorums` on the systems of
// docs/algorithms/maekawa.md: every verdict, and a witness for every "no".
func TestQuorums(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"quorums", "fpp", "--n", "13"}, []string{
			"S_1   {1,2,3,4}", "S_13  {4,5,9,13}",
			"symmetric      yes: every quorum has K=4 processes and every process lies in D=4 quorums",
			"non-dominated  no: {1,2,3,5,6,8} meets every quorum but contains none",
			"ideal          yes",
		}},
		{[]string{"quorums", "--n", "7", "fpp"}, []string{"non-dominated  yes", "ideal          yes"}},
		{[]string{"quorums", "grid", "--n", "9"}, []string{"non-dominated  no: {1,2,3} meets every quorum", "ideal          no: S_1={1,2,3,4,7} and S_2={1,2,3,5,8} meet in 3 processes"}},
		{[]string{"quorums", "majority", "--n", "4"}, []string{"non-dominated  no: {1,2} meets every quorum but contains none, so the coterie"}},
		{[]string{"quorums", "tree", "--n", "7"}, []string{"symmetric      no: process 2 lies in a different number of quorums than process 1"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := vacheck(tt.args...)
			if code != exitOK {
				t.Fatalf("exit %d, stderr %s", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
}

// TestQuorumsFileAndJSON reads a quorum file with two disjoint quorums and
// checks the JSON witness.
func TestQuorumsFileAndJSON(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "q.txt")
	if err := os.WriteFile(path, []byte("1 2\n3\n1 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := vacheck("quorums", path, "--n", "3", "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	var j struct {
		Intersecting bool  `json:"intersecting"`
		Disjoint     []int `json:"disjoint"`
		NotSelf      int   `json:"not_self_included"`
	}
	if err := json.Unmarshal([]byte(stdout), &j); err != nil {
		t.Fatalf("%v in %s", err, stdout)
	}
	if j.Intersecting || len(j.Disjoint) != 2 || j.Disjoint[0] != 1 || j.Disjoint[1] != 2 || j.NotSelf != 2 {
		t.Errorf("got %+v, want S_1 and S_2 disjoint and process 2 not in S_2", j)
	}
}

// TestQuorumsBadInput checks exit code 2 and the messages of bad input.
func TestQuorumsBadInput(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"quorums", "fpp"}, "--n is required"},
		{[]string{"quorums", "fpp", "--n", "5"}, "no finite projective plane has N=5"},
		{[]string{"quorums", "fpp", "--n", "x"}, `--n "x"`},
		{[]string{"quorums", "squares", "--n", "4"}, "allowed: fpp, grid"},
		{[]string{"quorums", "grid", "--n", "4", "--format", "xml"}, "--format"},
		{[]string{"quorums", "--n", "4"}, "one quorum system"},
	} {
		code, stdout, stderr := vacheck(tt.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 mentioning %q", tt.args, code, stdout, stderr, tt.want)
		}
	}
}
