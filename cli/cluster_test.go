package cli

import (
	"net"
	"strconv"
	"strings"
	"testing"
)

// TestClusterUsage: the flags of a distributed check are checked, and the
// check flags it does not take are refused with exit 2, naming the flag.
func TestClusterUsage(t *testing.T) {
	t.Parallel()
	base := []string{"check", "lamport", "--n", "2", "--requests", "1"}
	cl := append(append([]string{}, base...), "--cluster", "embedded:1", "--ranks", "2", "--rank", "0")
	tests := []struct {
		args []string
		want string
	}{
		{append(append([]string{}, base...), "--ranks", "2"), "--ranks is a flag of a distributed run"},
		{append(append([]string{}, base...), "--cluster", "embedded:1"), "--cluster needs --ranks K"},
		{append(append([]string{}, base...), "--cluster", "tcp://x:1", "--ranks", "2", "--rank", "0"), `--cluster "tcp://x:1"`},
		{append(append([]string{}, base...), "--cluster", "embedded:1", "--ranks", "0", "--rank", "0"), `--ranks "0"`},
		{append(append([]string{}, base...), "--cluster", "embedded:1", "--ranks", "2", "--rank", "x"), `--rank "x"`},
		{append(append([]string{}, cl...), "--max-states", "10"), "--max-states with --cluster"},
		{append(append([]string{}, cl...), "--continue"), "--continue with --cluster"},
		{append(append([]string{}, cl...), "--strategy", "dfs"), `--strategy "dfs" with --cluster`},
		{append(append([]string{}, cl...), "--cluster-timeout", "-1s"), `--cluster-timeout "-1s"`},
		{append(append([]string{}, cl...), "--property", "starvation-freedom"), "starvation-freedom is a liveness property"},
	}
	for _, tt := range tests {
		code, _, stderr := vacheck(tt.args...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 with %q", tt.args, code, stderr, tt.want)
		}
	}
}

// TestClusterOneRank runs a distributed check of one rank with an
// embedded server through the command line: the counts of the check
// without --cluster (lamport --n 2 --requests 1), liveness claims left
// out as not checked.
func TestClusterOneRank(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	args := []string{"check", "lamport", "--n", "2", "--requests", "1", "--quiet"}
	code, want, _ := vacheck(args...)
	if code != exitOK {
		t.Fatalf("one process: exit %d", code)
	}
	code, got, stderr := vacheck(append(args, "--cluster", "embedded:"+port, "--ranks", "1", "--rank", "0")...)
	if code != exitOK {
		t.Fatalf("cluster: exit %d\n%s", code, stderr)
	}
	counts := func(s string) string {
		for _, line := range strings.Split(s, "\n") {
			if strings.Contains(line, "distinct states") {
				return line
			}
		}
		return ""
	}
	if counts(got) == "" || counts(got) != counts(want) {
		t.Errorf("cluster: %q, one process %q", counts(got), counts(want))
	}
	if !strings.Contains(stderr, "rank 0 of 1:") {
		t.Errorf("no line of rank 0's part on stderr: %q", stderr)
	}
}
