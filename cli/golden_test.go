package cli

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// timing matches the parts of the output that depend on the machine: the
// line of times, speeds and memory, and the time the liveness graph took.
var timing = regexp.MustCompile(`(?m)^.*states/s, peak memory.*$|, [0-9.]+ [KMG]?i?B, built in [0-9.]+ m?s|"(elapsed_seconds|states_per_second|peak_memory_bytes|bytes)": [0-9.e+-]+`)

// TestGolden compares what people read with the files in testdata/golden:
// counterexamples as stories, a deadlock explanation, a lasso, metrics and
// the JSON contract. Run `go test ./cli -update` after a deliberate
// change and review the diff.
func TestGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
	}{
		{"chang-roberts-n3", []string{"check", "chang-roberts", "--n", "3", "--workers", "2"}},
		{"chang-roberts-broken-n3", []string{"check", "chang-roberts-broken", "--n", "3", "--ids", "increasing", "--workers", "2"}},
		{"chang-roberts-broken-n3-json", []string{"check", "chang-roberts-broken", "--n", "3", "--ids", "increasing", "--format", "json", "--workers", "2"}},
		{"chang-roberts-termination", []string{"check", "chang-roberts", "--n", "3", "--ids", "decreasing", "--property", "termination", "--metric", "messages", "--workers", "2"}},
		{"maekawa-basic-n3", []string{"check", "maekawa-basic", "--n", "3", "--workers", "2"}},
		{"perpetuum-mobile-broken-n3", []string{"check", "perpetuum-mobile-broken", "--n", "3", "--workers", "2"}},
		{"perpetuum-mobile-metric", []string{"check", "perpetuum-mobile", "--n", "3", "--metric", "messages", "--workers", "2"}},
		{"perpetuum-mobile-per-entry", []string{"check", "perpetuum-mobile", "--n", "3", "--metric", "messages-per-entry", "--metric", "sync-delay", "--workers", "2"}},
		{"chang-roberts-time", []string{"check", "chang-roberts", "--n", "3", "--ids", "increasing", "--metric", "time", "--workers", "2"}},
		{"lamport-broken-n3-involved", []string{"check", "lamport-broken", "--n", "3", "--show", "involved", "--workers", "2"}},
		{"lamport-broken-n3-diff-json", []string{"check", "lamport-broken", "--n", "3", "--trace", "diff", "--format", "json", "--workers", "2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stdout, stderr := vacheck(tt.args...)
			if stderr != "" {
				t.Fatalf("stderr: %s", stderr)
			}
			got := timing.ReplaceAllString(stdout, "<timing>")
			path := filepath.Join("..", "testdata", "golden", tt.name+".txt")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (run with -update and review the diff):\n%s", path, firstDiff(string(want), got))
			}
		})
	}
}

// firstDiff shows the first line where two texts differ.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\n want: " + a + "\n  got: " + b
		}
	}
	return ""
}
