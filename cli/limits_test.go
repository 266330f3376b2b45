package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// TestHostileCommandLines: values that used to be accepted with a
// surprising meaning (--max-memory 0.5 or 0.9B meant no limit; NaN, Inf
// and 1e30 were accepted; --workers 010 was octal; --metric messages:NOPE
// reported 0) and a value that panicked (a wall with overflowing widths,
// exit 2 from the Go runtime) now exit 2 naming the flag and what is
// allowed.
func TestHostileCommandLines(t *testing.T) {
	t.Parallel()
	cr := []string{"check", "chang-roberts", "--n", "3", "--quiet"}
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--max-memory", "0.5"}, []string{`--max-memory "0.5"`, "is 0 bytes", "allowed: a size from 1B"}},
		{[]string{"--max-memory", "0.9B"}, []string{`--max-memory "0.9B"`, "allowed"}},
		{[]string{"--max-memory", "NaN"}, []string{`--max-memory "NaN"`, "allowed"}},
		{[]string{"--max-memory", "Inf"}, []string{`--max-memory "Inf"`, "allowed"}},
		{[]string{"--max-memory", "+Inf"}, []string{`--max-memory "+Inf"`, "allowed"}},
		{[]string{"--max-memory", "1e30"}, []string{`--max-memory "1e30"`, "allowed"}},
		{[]string{"--max-memory", "2000000000GiB"}, []string{`--max-memory "2000000000GiB"`, "1EiB"}},
		{[]string{"--max-memory", "-1GiB"}, []string{`--max-memory "-1GiB"`}},
		{[]string{"--max-memory", "0x10"}, []string{`--max-memory "0x10"`}},
		{[]string{"--workers", "010"}, []string{`--workers "010"`, "not a decimal integer", "1 to 256"}},
		{[]string{"--workers", "0x2"}, []string{`--workers "0x2"`, "not a decimal integer"}},
		{[]string{"--workers", "+2"}, []string{`--workers "+2"`}},
		{[]string{"--workers", "0"}, []string{"--workers 0", "1 to 256"}},
		{[]string{"--max-states", "010"}, []string{`--max-states "010"`}},
		{[]string{"--max-states", "1e6"}, []string{`--max-states "1e6"`}},
		{[]string{"--max-states", "-1"}, []string{"--max-states -1", "allowed: 0 to"}},
		{[]string{"--max-depth", "0x10"}, []string{`--max-depth "0x10"`}},
		{[]string{"--timeout", "0s"}, []string{`--timeout "0s"`, "positive duration"}},
		{[]string{"--timeout", "-5s"}, []string{`--timeout "-5s"`}},
		{[]string{"--timeout", strings.Repeat("9", 100) + "h"}, []string{"--timeout", "…"}},
		{[]string{"--metric", "messages:NOPE"}, []string{"--metric messages:NOPE", "sends a message of type NOPE", "allowed"}},
	} {
		args := append(append([]string(nil), cr...), tt.args...)
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := vacheck(args...)
			if code != exitUsage || stdout != "" {
				t.Errorf("exit %d, stdout %q; want exit 2 and no result\nstderr: %s", code, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("error %q does not mention %q", stderr, w)
				}
			}
		})
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"quorums", "wall:9223372036854775807,9223372036854775807,5", "--n", "5"}, "bad parameter: rows 1 to 1 are already wider than N=5"},
		{[]string{"quorums", "weighted:9223372036854775807,9223372036854775807", "--n", "2"}, "bad parameter"},
		{[]string{"quorums", "grid", "--n", "010"}, `--n "010": not a decimal integer`},
		{[]string{"quorums", "/dev/zero", "--n", "3"}, "not a regular file (a device)"},
		{[]string{"check", "echo-election", "--n", "3", "--topology", "/dev/zero"}, "not a regular file (a device)"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, stderr := vacheck(tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tt.want)
			}
		})
	}
	// The same rule as --n: 010 is refused by both.
	if code, _, stderr := vacheck("check", "chang-roberts", "--n", "010"); code != exitUsage || !strings.Contains(stderr, `--n "010"`) {
		t.Errorf("--n 010: exit %d, %s", code, stderr)
	}
}

// TestGoodLimitsAccepted: the documented forms still work.
func TestGoodLimitsAccepted(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"1000000", "512MiB", "1.5GiB", "4G", "2GB", "1B", " 3 MiB"} {
		if _, err := parseBytes(s); err != nil {
			t.Errorf("parseBytes(%q): %v", s, err)
		}
	}
	if b, _ := parseBytes("1.5KiB"); b != 1536 {
		t.Errorf("1.5KiB = %d bytes", b)
	}
	code, _, stderr := vacheck("check", "chang-roberts", "--n", "3", "--quiet", "--workers", "2", "--max-memory", "1GiB",
		"--timeout", "1m", "--max-states", "1000000", "--max-depth", "100")
	if code != exitOK {
		t.Errorf("exit %d: %s", code, stderr)
	}
	code, stdout, stderr := vacheck("check", "lamport", "--n", "2", "--quiet", "--metric", "messages:REQUEST")
	if code != exitOK || !strings.Contains(stdout, "messages:REQUEST") {
		t.Errorf("messages:REQUEST: exit %d: %s%s", code, stdout, stderr)
	}
}

// TestInternalErrorExit4: a panic outside the model is an internal error,
// exit 4 with a request to report it, never the runtime's exit 2.
func TestInternalErrorExit4(t *testing.T) {
	t.Parallel()
	var errb bytes.Buffer
	code := guard(func([]string, io.Writer, io.Writer) int { panic("boom") }, nil, io.Discard, &errb)
	if code != exitModel || !strings.Contains(errb.String(), "internal error: boom") || !strings.Contains(errb.String(), "report") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
	if code := guard(func([]string, io.Writer, io.Writer) int { return exitViolated }, nil, io.Discard, io.Discard); code != exitViolated {
		t.Errorf("exit %d passed through as %d", exitViolated, code)
	}
}

// FuzzParseBytes: an accepted size is 1 byte to 1 EiB and is written in
// the documented syntax.
func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"512MiB", "4GiB", "1.5GB", "1000000", "0.5", "0.9B", "NaN", "Inf", "-Inf", "1e30", "0x10", "1_000", "", "GiB", "1.GiB", ".5GiB", "1024PiB", "18446744073709551616"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := parseBytes(s)
		if err != nil {
			if !strings.Contains(err.Error(), "allowed") {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if b < 1 || b > maxBytes || !sizeSyntax.MatchString(strings.TrimSpace(s)) {
			t.Fatalf("%q accepted as %d bytes", s, b)
		}
	})
}

// FuzzParseDecimal: an accepted value is in range and written canonically.
func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"4", "010", "0x10", "+4", "-4", "0", " 4 ", "4.0", "1e3", "9223372036854775808", "", "٣"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseDecimal("workers", s, 1, 256)
		if err != nil {
			var ue usageError
			if !asUsage(err, &ue) || !strings.Contains(err.Error(), "--workers") || len(err.Error()) > 400 {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if v < 1 || v > 256 || strings.TrimSpace(s) != strings.TrimLeft(strings.TrimSpace(s), "0+") {
			t.Fatalf("%q accepted as %d", s, v)
		}
	})
}

// FuzzParseTimeout: an accepted timeout is positive.
func FuzzParseTimeout(f *testing.F) {
	for _, s := range []string{"30s", "5m", "1h", "0s", "-1s", "1", "1e3s", "9999999999999h", "1.5h", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseTimeout(s)
		if err != nil {
			if !strings.Contains(err.Error(), "--timeout") || len(err.Error()) > 400 {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if d <= 0 || d > time.Duration(1<<63-1) {
			t.Fatalf("%q accepted as %v", s, d)
		}
	})
}

// FuzzQuorumsCommand runs `vacheck quorums SYSTEM --n N`: it exits 0 or 2,
// never panics, and an error names the flag.
func FuzzQuorumsCommand(f *testing.F) {
	for _, s := range []string{"fpp", "grid", "majority", "tree", "single", "all", "weighted:1,2,3", "wall:1,2",
		"wall:9223372036854775807,9223372036854775807,5", "/dev/zero", ".", "nope"} {
		f.Add(s, "3")
	}
	f.Add("fpp", "7")
	f.Add("grid", "010")
	f.Fuzz(func(t *testing.T, system, n string) {
		if v, err := parseDecimal("n", n, 1, 1024); err == nil && v > 20 {
			t.Skip("large N: slow analysis")
		}
		if strings.HasPrefix(system, "-") {
			t.Skip("a flag, not a system")
		}
		var out, errb bytes.Buffer
		code := guard(run, []string{"vacheck", "quorums", system, "--n", n}, &out, &errb)
		if code != exitOK && code != exitUsage || strings.Contains(errb.String(), "internal error") {
			t.Fatalf("quorums %q --n %q: exit %d\n%s", system, n, code, errb.String())
		}
		if code == exitUsage && !strings.Contains(errb.String(), "--") && !strings.Contains(errb.String(), "quorums takes") {
			t.Fatalf("quorums %q --n %q: %s", system, n, errb.String())
		}
	})
}

func asUsage(err error, ue *usageError) bool {
	u, ok := err.(usageError)
	*ue = u
	return ok
}

// TestMetricNotComputedIsSaid: a metric asked for that the run did not
// compute (it stopped at a violation, or hit a limit) is reported as not
// computed, with why, in the text and the JSON, rather than left out.
func TestMetricNotComputedIsSaid(t *testing.T) {
	t.Parallel()
	code, out, _ := vacheck("check", "chang-roberts-broken", "--n", "3", "--metric", "messages", "--quiet")
	if code != exitViolated || !strings.Contains(out, "messages: not computed (the search stopped at the first violation; with --continue") {
		t.Errorf("violated: exit %d\n%s", code, out)
	}
	code, out, _ = vacheck("check", "chang-roberts", "--n", "4", "--max-depth", "5", "--metric", "messages", "--metric", "steps", "--quiet")
	if code != exitIncomplete || !strings.Contains(out, "messages, steps: not computed (the search is incomplete: depth limit reached") {
		t.Errorf("incomplete: exit %d\n%s", code, out)
	}
	code, out, _ = vacheck("check", "chang-roberts", "--n", "4", "--max-depth", "5", "--metric", "messages", "--quiet", "--format", "json")
	var run struct {
		NotComputed map[string]string `json:"metrics_not_computed"`
	}
	if err := json.Unmarshal([]byte(out), &run); err != nil || code != exitIncomplete || !strings.Contains(run.NotComputed["messages"], "incomplete") {
		t.Errorf("JSON: exit %d, %+v (%v)", code, run, err)
	}
	code, out, _ = vacheck("check", "chang-roberts", "--n", "3", "--metric", "messages", "--quiet")
	if code != exitOK || strings.Contains(out, "not computed") || !strings.Contains(out, "messages over all complete executions: min 5, max 6") {
		t.Errorf("complete: exit %d\n%s", code, out)
	}
}
