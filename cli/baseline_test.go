package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// makeBaseline runs `sweep chang-roberts --n 3..4 --format json` with the
// extra flags and writes its certificates to a file, which it returns
// with them.
func makeBaseline(t *testing.T, extra ...string) (string, []certificate) {
	t.Helper()
	args := append([]string{"sweep", "chang-roberts", "--n", "3..4", "--format", "json", "--quiet", "--workers", "2"}, extra...)
	code, stdout, stderr := vacheck(args...)
	var certs []certificate
	if err := json.Unmarshal([]byte(stdout), &certs); err != nil || code != exitOK {
		t.Fatalf("%q: exit %d, %v\n%s", args, code, err, stderr)
	}
	file := filepath.Join(t.TempDir(), "baseline.json")
	if err := os.WriteFile(file, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	return file, certs
}

// TestBaselineRefusesAnotherSweep: a baseline compared with a sweep of
// another spec, other parameters or other engine flags is bad usage (exit
// 2), naming what differs, before anything runs. Before, another spec's
// baseline and other parameters compared nothing and exited 0, and other
// flags failed the comparison as changes (exit 1).
func TestBaselineRefusesAnotherSweep(t *testing.T) {
	t.Parallel()
	file, _ := makeBaseline(t, "--metric", "messages")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "lelann"}, "it holds certificates of chang-roberts, not of lelann"},
		{[]string{"sweep", "chang-roberts", "--ids", "increasing"}, "n=3 was checked with other parameters: --ids all there, increasing here"},
		{[]string{"sweep", "chang-roberts", "--capacity", "9"}, "--capacity 3 there, 9 here"},
		{[]string{"sweep", "chang-roberts", "--n", "6..7"}, "has n=3,4, none of this sweep's --n 6..7"},
		{[]string{"sweep", "chang-roberts", "--symmetry"}, "it was made with no --symmetry (this sweep: with)"},
		{[]string{"sweep", "chang-roberts", "--strategy", "dfs"}, "--strategy bfs (this sweep: dfs)"},
		{[]string{"sweep", "chang-roberts", "--fairness", "strong"}, "--fairness weak (this sweep: strong)"},
		{[]string{"sweep", "chang-roberts", "--metric", "steps"}, "it was made with --metric messages, this sweep asks for --metric steps"},
		{[]string{"sweep", "chang-roberts", "--property", "uniqueness"}, "it was made with no --property, this sweep with --property uniqueness"},
	} {
		args := append(tc.args, "--baseline", file, "--quiet")
		code, stdout, stderr := vacheck(args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("%q: exit %d: %s%s\nwant exit 2, nothing run, and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	// A baseline made with --symmetry is refused without it.
	sym, _ := makeBaseline(t, "--symmetry")
	if code, _, stderr := vacheck("sweep", "chang-roberts", "--baseline", sym, "--quiet"); code != exitUsage || !strings.Contains(stderr, "it was made with --symmetry (this sweep: without)") {
		t.Errorf("a --symmetry baseline without --symmetry: exit %d: %s", code, stderr)
	}
}

// TestBaselineFiles: what is not one sweep's certificates, or not a
// regular file, is refused with exit 2 naming the file; /dev/zero used to
// be read until memory ran out, and a FIFO blocked for ever.
func TestBaselineFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good, certs := makeBaseline(t)
	write := func(name, text string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	mixed := append([]certificate(nil), certs...)
	mixed[1].Strategy = "dfs"
	mixedJSON, _ := json.Marshal(mixed)
	future := append([]certificate(nil), certs...)
	future[0].Format = 3
	futureJSON, _ := json.Marshal(future)
	cases := map[string]string{
		write("empty.json", "[]"):                        "holds no certificate",
		write("text.json", "hello"):                      "not the JSON array of certificates",
		write("mixed.json", string(mixedJSON)):           "its certificates were made with different engine flags",
		write("future.json", string(futureJSON)):         "certificate 1 is of format 3; this vacheck reads formats 1 to 2",
		write("no-n.json", `[{"spec":"chang-roberts"}]`): "certificate 1 has no N",
		dir:         "not a regular file (a directory)",
		"/dev/zero": "not a regular file (a device)",
	}
	if runtime.GOOS != "windows" {
		fifo := filepath.Join(dir, "fifo.json")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		cases[fifo] = "not a regular file (a named pipe)"
	}
	for file, want := range cases {
		done := make(chan string, 1)
		go func() {
			code, _, stderr := vacheck("sweep", "chang-roberts", "--baseline", file, "--quiet")
			if code != exitUsage {
				stderr = "exit " + string(rune('0'+code)) + ": " + stderr
			}
			done <- stderr
		}()
		select {
		case stderr := <-done:
			if !strings.Contains(stderr, want) || !strings.Contains(stderr, "--baseline "+file) {
				t.Errorf("--baseline %s: %s; want exit 2 naming the file and %q", file, stderr, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("--baseline %s: still reading after 10s", file)
		}
	}
	if code, _, stderr := vacheck("sweep", "chang-roberts", "--compare", good, "--quiet"); code != exitOK {
		t.Errorf("--compare %s: exit %d: %s", good, code, stderr)
	}
}

// TestBaselineComparesOrFails: nothing compared is no pass (exit 3), nor
// is a run of the baseline left uncompared; a run that is not in the
// baseline is a note. Before, 0 runs compared exited 0.
func TestBaselineComparesOrFails(t *testing.T) {
	t.Parallel()
	file, _ := makeBaseline(t)
	for _, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"--max-states", "100"}, exitIncomplete, []string{"n=3: not compared (incomplete now)", "n=4: not compared (the sweep ended before it)", "0 runs, 0 changes; nothing was compared, which is no pass (exit 3)"}},
		{[]string{"--max-states", "1000"}, exitIncomplete, []string{"n=4: not compared (incomplete now)", "1 run, 0 changes; 1 run of the baseline not compared, so the comparison is incomplete (exit 3)"}},
		{[]string{"--n", "3..5"}, exitOK, []string{"note: n=5: not in " + file, "2 runs, 0 changes\n"}},
		{[]string{"--n", "4"}, exitOK, []string{"1 run, 0 changes\n"}},
	} {
		args := append([]string{"sweep", "chang-roberts", "--baseline", file, "--quiet"}, tc.args...)
		code, stdout, stderr := vacheck(args...)
		for _, want := range tc.want {
			if !strings.Contains(stdout, want) {
				t.Errorf("%q: no %q in\n%s%s", tc.args, want, stdout, stderr)
			}
		}
		if code != tc.code {
			t.Errorf("%q: exit %d, want %d", tc.args, code, tc.code)
		}
	}
}

// TestBaselineSuppliesItsFlags: a baseline made with --metric and
// --property flags supplies them, as it supplies its N: the rerun without
// them compares the same metrics and verdicts (exit 0). Before, it failed
// with "metric messages 5..6 → none". The certificates record the flags
// (format 2), and what a metric adds to the states.
func TestBaselineSuppliesItsFlags(t *testing.T) {
	t.Parallel()
	file, certs := makeBaseline(t, "--metric", "messages", "--metric", "time", "--property", "uniqueness")
	c := certs[0]
	if c.Format != certificateFormat || strings.Join(c.MetricFlags, ",") != "messages,time" || strings.Join(c.PropertyFlags, ",") != "uniqueness" ||
		!strings.Contains(c.Tracked, "causal depth") || c.Strategy != "bfs" || c.Reduction != "none" {
		t.Errorf("certificate: format %d, metric_flags %q, property_flags %q, tracked %q, strategy %q, reduction %q",
			c.Format, c.MetricFlags, c.PropertyFlags, c.Tracked, c.Strategy, c.Reduction)
	}
	code, stdout, stderr := vacheck("sweep", "chang-roberts", "--baseline", file, "--quiet")
	if code != exitOK || !strings.Contains(stdout, "2 runs, 0 changes") || !strings.Contains(stdout, "messages 5..6") || strings.Contains(stdout, "CHANGED") {
		t.Errorf("rerun without the flags: exit %d:\n%s%s", code, stdout, stderr)
	}
	// The same flags, in another order, are the same.
	code, stdout, _ = vacheck("sweep", "chang-roberts", "--baseline", file, "--quiet", "--metric", "time", "--metric", "messages", "--property", "uniqueness")
	if code != exitOK || !strings.Contains(stdout, "2 runs, 0 changes") {
		t.Errorf("rerun with the flags: exit %d:\n%s", code, stdout)
	}
}

// TestOldCertificatesStillCompare: a certificate of format 1 (written
// before the format field, metric_flags, property_flags and tracked) is
// read: its metrics are the names of its "metrics", and it is
// taken to have had no --property.
func TestOldCertificatesStillCompare(t *testing.T) {
	t.Parallel()
	file, _ := makeBaseline(t, "--metric", "messages")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var raw []map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, c := range raw {
		for _, k := range []string{"format", "metric_flags", "property_flags", "tracked"} {
			delete(c, k)
		}
	}
	old, _ := json.Marshal(raw)
	if err := os.WriteFile(file, old, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := vacheck("sweep", "chang-roberts", "--baseline", file, "--quiet")
	if code != exitOK || !strings.Contains(stdout, "2 runs, 0 changes") || !strings.Contains(stdout, "messages 7..10") {
		t.Errorf("format 1 baseline: exit %d:\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := vacheck("sweep", "chang-roberts", "--baseline", file, "--quiet", "--metric", "steps"); code != exitUsage || !strings.Contains(stderr, "--metric messages") {
		t.Errorf("format 1 baseline with another metric: exit %d: %s", code, stderr)
	}
}
