package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/specs"
)

// TestUserBinaryNamesItself: a user's binary built with Main (args[0]
// /usr/local/bin/tokencheck) names itself in its help, its version, a
// spec's help and its errors, not "vacheck" (issue 34 item 7).
func TestUserBinaryNamesItself(t *testing.T) {
	t.Parallel()
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(append([]string{"/usr/local/bin/tokencheck"}, args...), &out, &errb, specs.Catalog())
		return code, out.String(), errb.String()
	}
	tests := []struct {
		args []string
		code int
		want string // on stdout, or stderr for an error
	}{
		{[]string{"--help"}, exitOK, "tokencheck list [FILTER]\n      tokencheck check SPEC"},
		{[]string{"--version"}, exitOK, "tokencheck, built on vacheck "},
		{[]string{"check", "chang-roberts", "--help"}, exitOK, "usage: tokencheck check chang-roberts"},
		{[]string{"check", "chang-robert"}, exitUsage, "tokencheck: unknown spec \"chang-robert\"; did you mean chang-roberts? (see 'tokencheck list')"},
	}
	for _, tt := range tests {
		code, stdout, stderr := run(tt.args...)
		got := stdout
		if tt.code != exitOK {
			got = stderr
		}
		if code != tt.code || !strings.Contains(got, tt.want) {
			t.Errorf("%v: exit %d, want %d and %q in\n%s%s", tt.args, code, tt.code, tt.want, stdout, stderr)
		}
		if strings.Contains(got, "vacheck check") || strings.Contains(got, "vacheck:") {
			t.Errorf("%v says vacheck:\n%s", tt.args, got)
		}
	}
	// A message split over writes is renamed once, at its line's start.
	var b bytes.Buffer
	r := &renamer{w: &b, prog: "tc"}
	for _, w := range []string{"vacheck: a ", "vacheck: b\nvacheck: c\n", "x vacheck: d\n", "vacheck: e\n"} {
		r.Write([]byte(w))
	}
	if want := "tc: a vacheck: b\ntc: c\nx vacheck: d\ntc: e\n"; b.String() != want {
		t.Errorf("renamer wrote %q, want %q", b.String(), want)
	}
}

// TestErrorsWithoutPackagePrefixes: user-facing errors do not carry Go
// package names or sentinel words such as "explorer: checkpoint refused"
// or "bad usage:" (issue 34 item 7).
func TestErrorsWithoutPackagePrefixes(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"explorer: checkpoint refused: f: too short", "checkpoint refused: f: too short"},
		{"bad usage: invalid --topology x", "invalid --topology x"},
		{"explorer: bad configuration: --workers 0", "--workers 0"},
		{"resuming: explorer: automaton: bad configuration: x", "resuming: x"},
		{"a spec named explorer: kept? no: kept", "a spec named explorer: kept? no: kept"},
	}
	for _, tt := range tests {
		if got := userMessage(tt.in); got != tt.want {
			t.Errorf("userMessage(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/checkpoint.vck", []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"resume", dir},
		{"check", "raymond", "--topology", dir + "/none"},
		{"check", "nope"},
	} {
		code, _, stderr := vacheck(args...)
		if code != exitUsage || strings.Contains(stderr, "explorer:") || strings.Contains(stderr, "bad usage") {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
}
