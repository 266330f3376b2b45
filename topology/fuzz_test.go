package topology

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

// fileSentinels are the sentinels an error about an edge-list file wraps.
var fileSentinels = []error{ErrBadSize, ErrSyntax, ErrNodeCount, ErrUnknownNode, ErrSelfLoop, ErrDuplicateEdge, ErrNotConnected, ErrBadFile}

// fuzzN maps a fuzzed integer to --n in 0..64 (0: unset).
func fuzzN(n int) int {
	if n < 0 {
		n = -(n + 1)
	}
	return n % 65
}

// edgeList writes g as an edge-list file that fixes its node count.
func edgeList(g Graph) string {
	var b strings.Builder
	fmt.Fprintf(&b, "nodes %d\n", g.N)
	for _, e := range g.Edges() {
		fmt.Fprintf(&b, "%d %d\n", e[0]+1, e[1]+1)
	}
	return b.String()
}

// checkGraph checks a graph a parser returned: well formed, connected, of
// the requested size, and the same after a round trip through a file.
func checkGraph(t *testing.T, g Graph, n int) {
	t.Helper()
	checkWellFormed(t, g)
	if n > 0 && g.N != n {
		t.Fatalf("%v: N=%d for --n %d", g, g.N, n)
	}
	if g.N < 1 || g.N > MaxNodes || !g.Connected() {
		t.Fatalf("%v: N=%d, connected %v", g, g.N, g.Connected())
	}
	back, err := parseEdgeList("back.txt", edgeList(g), g.N)
	if err != nil {
		t.Fatalf("%v written back: %v", g, err)
	}
	if !slices.EqualFunc(back.Adj, g.Adj, slices.Equal) {
		t.Fatalf("round trip changed %v into %v", g, back)
	}
}

// FuzzParse fuzzes the --topology value, random:SEED:EDGES included.
func FuzzParse(f *testing.F) {
	for _, v := range []string{"ring", "line", "star", "complete", "grid", "random:1:5", "random:18446744073709551615:4",
		"random:0:3", "random", "random:", "random:1", "random:x:3", "random:1:x", "random:-1:3", "random:1:2:3",
		"random:1:99999999999999999999", "", "Ring", "/dev/zero", ".", "ring "} {
		f.Add(v, 4)
	}
	f.Add("random:7:45", 10)
	f.Add("random:7:9", 10)
	f.Add("grid", 0)
	f.Fuzz(func(t *testing.T, value string, n int) {
		n = fuzzN(n)
		if _, err := os.Stat(value); err == nil && !strings.HasPrefix(value, "random") {
			switch value {
			case "ring", "line", "star", "complete", "grid":
			default:
				t.Skip("an existing file: FuzzParseEdgeList covers files")
			}
		}
		g, err := Parse(value, n)
		if err != nil {
			if !errors.Is(err, ErrBadTopology) {
				t.Fatalf("error without ErrBadTopology: %v", err)
			}
			if !strings.HasPrefix(err.Error(), "invalid --topology ") {
				t.Fatalf("error does not name the flag: %v", err)
			}
			if len(err.Error()) > 2*len(value)+300 {
				t.Fatalf("error of %d bytes: %.200s", len(err.Error()), err)
			}
			return
		}
		checkGraph(t, g, n)
		var seed uint64
		var edges int
		if _, err := fmt.Sscanf(value, "random:%d:%d", &seed, &edges); err == nil {
			if g.NumEdges() != edges {
				t.Fatalf("%s: %d edges", value, g.NumEdges())
			}
			if again, _ := Parse(value, n); !slices.EqualFunc(again.Adj, g.Adj, slices.Equal) {
				t.Fatalf("%s: not deterministic", value)
			}
		}
	})
}

// FuzzParseEdgeList fuzzes the contents of an edge-list file.
func FuzzParseEdgeList(f *testing.F) {
	f.Add("# a square with a diagonal\nnodes 4\n\n1 2\n2\t3 # c\n3,4\r\n4 , 1\n  1   3  \n", 4)
	f.Add("1 2\n3 2\n", 0)
	f.Add("nodes 1\n", 0)
	f.Add("nodes 65536\n", 0)
	f.Add("1 65537\n", 0)
	f.Add("1,,2\n", 3)
	f.Add("nodes 2\nnodes 2\n", 0)
	f.Add("1 1\n", 2)
	f.Add("1 2\n2 1\n", 2)
	f.Add("0 1\n", 0)
	f.Add("1 2\n3 4\n", 4)
	f.Add(strings.Repeat("9", 100)+" 1\n", 0)
	f.Fuzz(func(t *testing.T, text string, n int) {
		n = fuzzN(n)
		g, err := parseEdgeList("g.txt", text, n)
		if err != nil {
			if !slices.ContainsFunc(fileSentinels, func(s error) bool { return errors.Is(err, s) }) {
				t.Fatalf("error wraps no sentinel: %v", err)
			}
			if !strings.HasPrefix(err.Error(), "g.txt:") || len(err.Error()) > 300 {
				t.Fatalf("error does not name the file, or is too long: %.300s", err)
			}
			return
		}
		checkGraph(t, g, n)
		if g.Name != "g.txt" {
			t.Fatalf("name %q", g.Name)
		}
	})
}

// TestHostileFiles: a device, a FIFO, a directory and a file over 1 MiB are
// refused without being read (before, /dev/zero was read until memory ran
// out and a FIFO blocked), and a long token is quoted cut.
func TestHostileFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte(strings.Repeat("# padding\n", MaxFileSize/10+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("1 "+strings.Repeat("x", 100000)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{"/dev/zero", "not a regular file (a device)"},
		{fifo, "not a regular file (a named pipe)"},
		{dir, "not a regular file (a directory)"},
		{big, "at most 1048576 bytes (1 MiB)"},
	} {
		_, err := ParseFile(c.path, 0)
		if !errors.Is(err, ErrBadFile) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseFile(%s): got %v, want ErrBadFile and %q", c.path, err, c.want)
		}
		_, err = Parse(c.path, 3)
		if !errors.Is(err, ErrBadTopology) || !errors.Is(err, ErrBadFile) {
			t.Errorf("Parse(%s): got %v, want ErrBadTopology and ErrBadFile", c.path, err)
		}
	}
	_, err := ParseFile(token, 0)
	if !errors.Is(err, ErrSyntax) || len(err.Error()) > len(token)+100 || !strings.Contains(err.Error(), `"`+strings.Repeat("x", 40)+`…"`) {
		t.Errorf("long token: got %.300v", err)
	}
}
