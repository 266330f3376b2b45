package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestChartGolden compares the text message sequence charts (--show msc)
// with the files in testdata/golden: a deadlock, a ring, a lasso and an
// unordered channel where a message overtakes another. Run `go test
// ./cli -run Chart -update` after a deliberate change and review
// the diff.
func TestChartGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
	}{
		{"msc-maekawa-basic-n3", []string{"check", "maekawa-basic", "--n", "3", "--show", "msc", "--workers", "2"}},
		{"msc-chang-roberts-broken-n3", []string{"check", "chang-roberts-broken", "--n", "3", "--ids", "increasing", "--show", "msc", "--workers", "2"}},
		{"msc-perpetuum-mobile-broken-n3", []string{"check", "perpetuum-mobile-broken", "--n", "3", "--show", "msc", "--workers", "2"}},
		{"msc-lamport-unordered-n3", []string{"check", "lamport", "--n", "3", "--channels", "unordered", "--show", "msc", "--workers", "2"}},
		{"msc-bully-broken-n3", []string{"check", "bully-broken", "--n", "3", "--show", "msc", "--workers", "2"}},
		{"msc-chang-roberts-metric", []string{"check", "chang-roberts", "--n", "3", "--ids", "decreasing", "--property", "uniqueness", "--metric", "messages", "--show", "msc", "--workers", "2"}},
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
			// The chart fits 100 columns for up to 5 processes.
			in := false
			for _, line := range strings.Split(got, "\n") {
				if strings.HasPrefix(line, "  Message sequence chart") {
					in = true
					continue
				}
				if strings.HasPrefix(line, "  What the last state") || line == "" {
					in = false
				}
				if in && len([]rune(line)) > 100 {
					t.Errorf("chart line wider than 100 columns: %q", line)
				}
			}
		})
	}
}

func TestShowAndHTMLFlags(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := vacheck("check", "chang-roberts", "--n", "3", "--show", "chart")
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, `--show "chart"`) || !strings.Contains(stderr, "story, msc, involved") {
		t.Errorf("--show chart: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	dir := t.TempDir()
	// No counterexample and no witness: nothing is written.
	file := filepath.Join(dir, "ok.html")
	code, _, stderr = vacheck("check", "chang-roberts", "--n", "3", "--ids", "1,2,3", "--workers", "2", "--html", file)
	if code != exitOK || !strings.Contains(stderr, "not written") {
		t.Errorf("a run that holds: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("%s written for a run without counterexample: %v", file, err)
	}
	// A counterexample and witnesses: one chart each.
	file = filepath.Join(dir, "cr.html")
	code, _, stderr = vacheck("check", "chang-roberts-broken", "--n", "3", "--ids", "increasing", "--metric", "messages", "--workers", "2", "--html", file, "--format", "json")
	if code != exitViolated || !strings.Contains(stderr, "wrote 1 chart to "+file) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for _, want := range []string{"<svg", "VIOLATED uniqueness", "chang-roberts-broken", "--ids increasing", "broken on purpose"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, bad := range []string{"http://", "https://"} {
		if i := strings.Index(strings.ReplaceAll(page, "http://www.w3.org/2000/svg", ""), bad); i >= 0 {
			t.Errorf("the page refers to the network: %q", page[max(0, i-40):i+40])
		}
	}
}

// TestHTMLPathCheckedBeforeTheRun: an --html FILE that cannot be written is
// a usage error before the search, not the loss of the report after it.
func TestHTMLPathCheckedBeforeTheRun(t *testing.T) {
	t.Parallel()
	dir, other := t.TempDir(), t.TempDir()
	plain := filepath.Join(other, "plain")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, want string }{
		{filepath.Join(dir, "missing", "x.html"), "does not exist"},
		{filepath.Join(plain, "x.html"), "is not a directory"},
		{dir, "not a regular file"},
		{"", "the file name is empty"},
	} {
		code, stdout, stderr := vacheck("check", "chang-roberts-broken", "--n", "3", "--html", c.file)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, "--html") || !strings.Contains(stderr, c.want) {
			t.Errorf("--html %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.file, code, stdout, stderr, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the checks left files behind: %v", entries)
	}
}
