package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	urfave "github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/internal/input"
	"github.com/vacheck/vacheck/specs"
)

// TestLongValuesAreClippedInErrors gives every flag of check, sweep,
// resume and quorums a value of 120 characters and requires the error to
// quote at most input.MaxToken of them (then "…"): a long value, a pasted
// file or a wrong argument, used to be echoed in full by 26 flags. A path
// is named whole, as an error about a file must: the paths (--html,
// --checkpoint, --baseline, resume's DIR) lie under a regular file, so
// that they are refused without anything created.
func TestLongValuesAreClippedInErrors(t *testing.T) {
	t.Parallel()
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 120)
	tooLong := regexp.MustCompile("x{41,}")
	catalog := specs.WithTwins(specs.Catalog())
	// specFor returns a spec that takes the parameter flag.
	specFor := func(flag string) string {
		for _, s := range catalog {
			for _, p := range s.Params {
				if p.Flag == flag {
					return s.Name
				}
			}
		}
		return "chang-roberts" // an engine flag, or --channels and --capacity
	}
	value := func(flag string) string {
		if flag == "html" || flag == "checkpoint" || flag == "save-trace" || flag == "cpuprofile" {
			return filepath.Join(notDir, long)
		}
		return long
	}
	var lines [][]string
	for _, f := range append(append(engineFlags(), checkpointFlags()...), specFlags(specs.Catalog())...) {
		name := f.Names()[0]
		if _, isBool := f.(*urfave.BoolFlag); isBool {
			continue
		}
		args := []string{"check", specFor(name), "--" + name, value(name), "--quiet"}
		if name == "checkpoint-every" {
			args = append(args, "--checkpoint", t.TempDir())
		}
		lines = append(lines, args)
		switch name {
		case "html", "checkpoint", "checkpoint-every", "n", "max-depth", "show", "trace", "bitstate", "hashes", "save-trace", "cpuprofile": // not flags of sweep
		default:
			lines = append(lines, []string{"sweep", specFor(name), "--n", "3", "--" + name, value(name), "--quiet"})
		}
	}
	dir := t.TempDir()
	lines = append(lines,
		[]string{"sweep", "chang-roberts", "--n", long},
		[]string{"sweep", "chang-roberts", "--n", "3", "--budget", long},
		[]string{"sweep", "chang-roberts", "--n", "3", "--baseline", filepath.Join(notDir, long)},
		[]string{"resume", filepath.Join(dir, long)},
		[]string{"quorums", long, "--n", "3"},
		[]string{"quorums", "grid", "--n", long},
		[]string{"check", long},
		[]string{"help", long},
		[]string{long},
	)
	for _, args := range lines {
		code, _, stderr := vacheck(args...)
		if code == exitOK {
			t.Errorf("%.60q: exit 0", args)
			continue
		}
		path := ""
		for _, a := range args {
			if strings.HasPrefix(a, notDir) || strings.HasPrefix(a, dir) {
				path = a
			}
		}
		switch m := tooLong.FindString(stderr); {
		case path != "" && !strings.Contains(stderr, path):
			t.Errorf("%.60q: exit %d, the error does not name the path whole:\n%s", args, code, stderr)
		case path == "" && (m != "" || !strings.Contains(stderr, "…")):
			t.Errorf("%.60q: exit %d, the error quotes %d characters of the value, or does not mark the cut (at most %d, then …):\n%s", args, code, len(m), input.MaxToken, stderr)
		}
	}
}

// TestClipEcho: clipEcho cuts each long argument where the message quotes
// it, plain or with %q, and leaves short ones and other text alone.
func TestClipEcho(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("y", 50) + "\tz"
	args := []string{"check", "--ids=" + long, "--n", "4"}
	msg := clipEcho(`--ids "`+strings.Repeat("y", 50)+`\tz": bad; --ids `+long+` again; --n 4`, args)
	clipped := input.Clip(long)
	want := `--ids ` + `"` + strings.Repeat("y", input.MaxToken) + `…": bad; --ids ` + clipped + ` again; --n 4`
	if msg != want {
		t.Errorf("clipEcho:\n got %q\nwant %q", msg, want)
	}
}

// TestHelpTopics: `vacheck help WORD` gives a command's help or a spec's
// (exit 0); an unknown word is bad usage (exit 2) with a suggestion. It
// used to exit 4, the code of a model error, for any word but a command.
func TestHelpTopics(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"help"}, exitOK, "USAGE"},
		{[]string{"help", "help"}, exitOK, "USAGE"},
		{[]string{"help", "check"}, exitOK, "vacheck check"},
		{[]string{"help", "resume"}, exitOK, "vacheck resume"},
		{[]string{"help", "lamport"}, exitOK, "usage: vacheck check lamport"},
		{[]string{"help", "chek"}, exitUsage, "did you mean 'vacheck help check'"},
		{[]string{"help", "lamprt"}, exitUsage, "did you mean 'vacheck help lamport'"},
		{[]string{"help", "zzzzzz"}, exitUsage, `no help topic "zzzzzz"`},
	} {
		code, stdout, stderr := vacheck(tc.args...)
		if code != tc.code || !strings.Contains(stdout+stderr, tc.want) {
			t.Errorf("%q: exit %d, want %d and %q:\n%s%s", tc.args, code, tc.code, tc.want, stdout, stderr)
		}
	}
}

// failingWriter fails every write, as a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestWriteErrorsAreNotSuccess: when stdout cannot be written (`vacheck
// list > /dev/full`), the command ends with exit 4 and says why, once,
// whatever it printed: a listing, a version, a report (text or JSON), a
// sweep. Bad usage stays exit 2. list, --version and help used to exit 0.
func TestWriteErrorsAreNotSuccess(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"list"}, exitModel},
		{[]string{"--version"}, exitModel},
		{[]string{"help"}, exitModel},
		{[]string{"help", "lamport"}, exitModel},
		{[]string{"quorums", "fpp", "--n", "7"}, exitModel},
		{[]string{"check", "chang-roberts", "--n", "3", "--quiet"}, exitModel},
		{[]string{"check", "chang-roberts", "--n", "3", "--quiet", "--format", "json"}, exitModel},
		{[]string{"sweep", "chang-roberts", "--n", "3", "--quiet"}, exitModel},
		{[]string{"check", "chang-roberts", "--n", "x"}, exitUsage},
	} {
		var stderr bytes.Buffer
		code := run(append([]string{"vacheck"}, tc.args...), failingWriter{}, &stderr)
		if code != tc.code {
			t.Errorf("%q to a full disk: exit %d, want %d: %s", tc.args, code, tc.code, stderr.String())
		}
		if tc.code == exitModel && strings.Count(stderr.String(), "writing the output: no space left on device") != 1 {
			t.Errorf("%q to a full disk: stderr %q; want the write error said once", tc.args, stderr.String())
		}
	}
}

// TestEmptyQuorumsRefused: an empty --quorums value (and an empty system
// for vacheck quorums) is bad usage, not the default system; a blank value
// too. Leaving the flag out still gives the default. Before, the empty
// value silently meant the default.
func TestEmptyQuorumsRefused(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"check", "maekawa", "--n", "3", "--quorums", "", "--quiet"},
		{"check", "maekawa", "--n", "3", "--quorums=", "--quiet"},
		{"check", "maekawa", "--n", "3", "--quorums", "  ", "--quiet"},
		{"sweep", "maekawa", "--n", "3", "--quorums", "", "--quiet"},
		{"quorums", "", "--n", "7"},
		{"quorums", " ", "--n", "7"},
	} {
		if code, _, stderr := vacheck(args...); code != exitUsage || !strings.Contains(stderr, "quorums") {
			t.Errorf("%q: exit %d: %s; want exit 2 naming --quorums", args, code, stderr)
		}
	}
	if code, stdout, stderr := vacheck("check", "maekawa", "--n", "3", "--quiet"); code != exitOK || !strings.Contains(stdout, "--quorums fpp") {
		t.Errorf("maekawa without --quorums: exit %d: %s%s", code, stdout, stderr)
	}
}
