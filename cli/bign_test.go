package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepBeyond64 sweeps chang-roberts across N = 64, which was the
// limit of every spec, to N = 256, its new one, by simulation. With the
// IDs increasing along the ring the count does not depend on the
// schedule: 2N-1 messages (every ID but the largest goes one hop), which
// every run must give exactly, process 65's message and the rest included.
// The page draws the curve to 256.
func TestSweepBeyond64(t *testing.T) {
	t.Parallel()
	html := filepath.Join(t.TempDir(), "curve.html")
	code, out, stderr := vacheck("sweep", "chang-roberts", "--simulate", "--n", "63..66,256", "--ids", "increasing", "--runs", "2",
		"--metric", "messages", "--format", "json", "--html", html, "--quiet")
	var rows []struct {
		N      int
		Status string
		Ends   map[string]int64
		Stats  map[string]struct{ Min, Max int64 } `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil || code != exitIncomplete || len(rows) != 5 {
		t.Fatalf("exit %d, %v:\n%s%s", code, err, out, stderr)
	}
	for _, r := range rows {
		m := r.Stats["messages"]
		if r.Status != "incomplete" || r.Ends["valid_end"] != 2 || m.Min != int64(2*r.N-1) || m.Max != int64(2*r.N-1) {
			t.Errorf("N=%d: %+v, want 2 runs to a valid end with %d messages", r.N, r, 2*r.N-1)
		}
	}
	page, _ := os.ReadFile(html)
	if !strings.Contains(string(page), "chang-roberts: messages against N") || !strings.Contains(string(page), "mean (measured) at 256: 511") {
		t.Errorf("the page has no curve to N=256:\n%.2000s", page)
	}
}

// TestNBeyondTheMasks: each spec refuses an N beyond what its masks allow,
// with exit 2 naming the flag, the value and the range; the ring
// elections stop at 256, the rest at 64.
func TestNBeyondTheMasks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "chang-roberts", "--n", "257"}, "--n 257: out of range for chang-roberts; allowed: 1 to 256"},
		{[]string{"sweep", "lelann", "--simulate", "--n", "255..257"}, "--n 257: out of range for lelann; allowed: 1 to 256"},
		{[]string{"simulate", "ricart-agrawala", "--n", "65"}, "--n 65: out of range for ricart-agrawala; allowed: 1 to 64"},
		{[]string{"simulate", "chang-roberts-announce", "--n", "65", "--ids", "increasing", "--crashes", "1"},
			"--crashes 1: crashes are modelled for at most 64 processes and --n is 65; allowed: 0, or --n up to 64"},
	} {
		code, out, stderr := vacheck(tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, want 2 saying %q\n%s%s", tc.args, code, tc.want, out, stderr)
		}
	}
}
