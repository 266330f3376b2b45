package quorum

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// sentinels are the errors every error of Parse and ParseFile wraps one of.
var sentinels = []error{ErrNoConstruction, ErrNoPlane, ErrUnknown, ErrBadParam, ErrBadFile}

// fuzzN maps a fuzzed integer to N in 1..64, the range the specs use.
func fuzzN(n int) int {
	if n < 0 {
		n = -(n + 1)
	}
	return 1 + n%64
}

// format writes s as a quorum file, one line per process, 1-based.
func format(s System) string {
	var b strings.Builder
	for _, q := range s.Quorums {
		for k, m := range q {
			if k > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprint(&b, m+1)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// checkError checks what every error of this package promises: a
// sentinel, the flag first, and no long quotation of the input.
func checkError(t *testing.T, err error, prefix string, input int) {
	t.Helper()
	if !slices.ContainsFunc(sentinels, func(s error) bool { return errors.Is(err, s) }) {
		t.Fatalf("error wraps no sentinel: %v", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		t.Fatalf("error does not start with %q: %v", prefix, err)
	}
	if len(msg) > 2*input+600 {
		t.Fatalf("error of %d bytes for an input of %d: %.200s", len(msg), input, msg)
	}
}

// checkRoundTrip checks that s is well formed for n and that writing it as
// a quorum file and reading it back gives s again.
func checkRoundTrip(t *testing.T, s System, n int) {
	t.Helper()
	if s.N != n {
		t.Fatalf("N=%d for --n %d", s.N, n)
	}
	if err := s.WellFormed(); err != nil {
		t.Fatalf("Parse returned a malformed system: %v", err)
	}
	back, err := parseText("roundtrip", format(s), n)
	if err != nil {
		t.Fatalf("written back and parsed: %v\n%s", err, format(s))
	}
	if !slices.EqualFunc(back.Quorums, s.Quorums, slices.Equal) {
		t.Fatalf("round trip changed the system: %v became %v", s, back)
	}
}

// FuzzParse fuzzes the --quorums value. A construction always intersects;
// a success round-trips through a quorum file.
func FuzzParse(f *testing.F) {
	for _, v := range []string{"fpp", "grid", "majority", "tree", "single", "all", "", " grid ",
		"weighted:1,1,1", "weighted:3,0,1,1", "weighted:-1,2", "weighted:", "weighted:9223372036854775807,9223372036854775807",
		"wall:1,2,3", "wall:9223372036854775807,9223372036854775807,5", "wall:0,6", "wall:", "wall:1,,2",
		"fpp:3", "nope", "/dev/zero", ".", "random:1:2"} {
		f.Add(v, 6)
	}
	f.Add("fpp", 7)
	f.Add("weighted:1073741823,1", 2)
	f.Fuzz(func(t *testing.T, value string, n int) {
		n = fuzzN(n)
		if _, err := os.Stat(strings.TrimSpace(value)); err == nil && strings.TrimSpace(value) != "" {
			if !slices.Contains([]string{"fpp", "grid", "majority", "tree", "single", "all"}, strings.TrimSpace(value)) {
				t.Skip("an existing file: FuzzParseFile covers files")
			}
		}
		s, err := Parse(value, n)
		if err != nil {
			checkError(t, err, "--quorums ", len(value))
			return
		}
		checkRoundTrip(t, s, n)
		if err := s.Validate(false); err != nil {
			t.Fatalf("construction %q for N=%d does not intersect: %v", value, n, err)
		}
	})
}

// FuzzParseFile fuzzes the contents of a quorum file.
func FuzzParseFile(f *testing.F) {
	f.Add("1 2\n2 3\n1 3\n", 3)
	f.Add("# comment\n1,2\n\n2\t3 # S_2\n3 1\r\n", 3)
	f.Add("1\n1\n", 2)
	f.Add("1 1\n2\n", 2)
	f.Add("0\n", 1)
	f.Add("1 9999999999999999999999\n", 1)
	f.Add(",\n", 1)
	f.Add(strings.Repeat("x", 200)+"\n", 1)
	f.Add("1\n2\n3\n", 2)
	f.Fuzz(func(t *testing.T, text string, n int) {
		n = fuzzN(n)
		s, err := parseText("q.txt", text, n)
		if err != nil {
			checkError(t, err, "--quorums q.txt: ", 0)
			if !errors.Is(err, ErrBadFile) {
				t.Fatalf("a file error that is not ErrBadFile: %v", err)
			}
			return
		}
		checkRoundTrip(t, s, n)
		if s.Name != "q.txt" {
			t.Fatalf("name %q", s.Name)
		}
	})
}

// TestHostileFiles: a device, a FIFO, a directory and a file over 1 MiB are
// refused without reading them (before, /dev/zero was read until memory ran
// out and a FIFO blocked), and a long token is quoted cut.
func TestHostileFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte(strings.Repeat("1\n", MaxFileSize)), 0o600); err != nil {
		t.Fatal(err)
	}
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte(strings.Repeat("7", 100000)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{"/dev/zero", "not a regular file (a device)"},
		{fifo, "not a regular file (a named pipe)"},
		{dir, "not a regular file (a directory)"},
		{big, "at most 1048576 bytes (1 MiB)"},
	}
	for _, tt := range tests {
		for _, parse := range []func(string, int) (System, error){ParseFile, Parse} {
			_, err := parse(tt.path, 1)
			if !errors.Is(err, ErrBadFile) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: got %v, want ErrBadFile and %q", tt.path, err, tt.want)
			}
		}
	}
	_, err := ParseFile(token, 1)
	if !errors.Is(err, ErrBadFile) || len(err.Error()) > 300 || !strings.Contains(err.Error(), `"`+strings.Repeat("7", 40)+`…"`) {
		t.Errorf("long token: got %.400v", err)
	}
}

// TestParseOverflow: row widths and weights near the int limit used to
// overflow their sum (wall panicked with an index out of range).
func TestParseOverflow(t *testing.T) {
	for _, v := range []string{
		"wall:9223372036854775807,9223372036854775807,5",
		"wall:9223372036854775807,-9223372036854775807",
		"weighted:9223372036854775807,9223372036854775807,1",
		"weighted:4611686018427387904,4611686018427387904",
	} {
		n := len(strings.Split(v, ","))
		if strings.HasPrefix(v, "wall") {
			n = 5
		}
		_, err := Parse(v, n)
		if !errors.Is(err, ErrBadParam) {
			t.Errorf("%s: got %v, want ErrBadParam", v, err)
		}
	}
}
