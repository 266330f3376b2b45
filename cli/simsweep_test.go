package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSimulatedSweep(t *testing.T) {
	t.Parallel()
	html := filepath.Join(t.TempDir(), "curve.html")
	code, out, stderr := vacheck("sweep", "chang-roberts", "--simulate", "--n", "3..6", "--runs", "1000", "--metric", "messages",
		"--formula", "p99@messages=n*n", "--html", html, "--quiet")
	if code != exitIncomplete {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	for _, want := range []string{
		"chang-roberts: simulated sweep of --n 3..6, 1,000 runs per N, seed 1",
		"f1 = n*H(n): the mean of messages (Chang & Roberts 1979)",
		"f4 = n*n: the p99 of messages (--formula)",
		"mean/f1",
		"    3  no violation             messages",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	page, _ := os.ReadFile(html)
	for _, want := range []string{"chang-roberts: messages against N", `stroke-dasharray`, "f1: mean = n*H(n)", "min–max (measured)"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("no %q in the page", want)
		}
	}
	code, out, _ = vacheck("sweep", "chang-roberts", "--simulate", "--n", "4,5", "--runs", "500", "--metric", "messages", "--format", "json", "--quiet")
	var rows []struct {
		N        int
		Status   string
		Formulas []struct {
			Stat  string
			Ratio *float64
		}
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil || code != exitIncomplete || len(rows) != 2 {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	for _, r := range rows {
		if r.Status != "incomplete" || len(r.Formulas) != 3 || r.Formulas[0].Ratio == nil || *r.Formulas[0].Ratio < 0.95 || *r.Formulas[0].Ratio > 1.05 {
			t.Errorf("N=%d: %+v", r.N, r)
		}
	}
	// The broken twin: violated, exit 1, and no formula (the bug breaks
	// them).
	code, out, _ = vacheck("sweep", "chang-roberts-broken", "--simulate", "--n", "3,4", "--runs", "50", "--quiet")
	if code != exitViolated || !strings.Contains(out, "VIOLATED uniqueness") || strings.Contains(out, "f1") {
		t.Errorf("broken twin: exit %d\n%s", code, out)
	}
}

func TestSimulatedSweepBadUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "chang-roberts", "--n", "3", "--runs", "10"}, "--runs: only with --simulate"},
		{[]string{"sweep", "chang-roberts", "--n", "3", "--formula", "n"}, "--formula: only with --simulate"},
		{[]string{"sweep", "chang-roberts", "--simulate", "--n", "3", "--strategy", "dfs"}, "--strategy: not with --simulate"},
		{[]string{"sweep", "chang-roberts", "--simulate", "--n", "3", "--formula", "n"}, `--formula "n": give the --metric it is a formula of`},
		{[]string{"sweep", "chang-roberts", "--simulate", "--n", "3", "--metric", "messages", "--formula", "n*"}, `formula "n*": at character 3: the formula ends`},
		{[]string{"sweep", "chang-roberts", "--simulate", "--n", "3", "--metric", "messages", "--formula", "avg=n"}, `unknown statistic "avg"`},
		{[]string{"sweep", "chang-roberts", "--simulate", "--n", "3", "--metric", "messages", "--formula", "max@time=n"}, `"time" is not a --metric of this sweep`},
		{[]string{"sweep", "chang-roberts", "--simulate", "--n", "1..2000"}, "(at most 1024 values)"},
		{[]string{"sweep", "chang-roberts", "--simulate"}, "sweep needs --n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := vacheck(tt.args...)
			if code != exitUsage || stdout != "" {
				t.Errorf("exit %d, stdout %q; want 2 and nothing", code, stdout)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("error %q does not contain %q", stderr, tt.want)
			}
		})
	}
}
