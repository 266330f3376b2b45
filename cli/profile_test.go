package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCPUProfile(t *testing.T) {
	// Not parallel: the CPU profile is one per process.
	file := filepath.Join(t.TempDir(), "cpu.prof")
	code, out, stderr := vacheck("check", "chang-roberts", "--n", "4", "--cpuprofile", file)
	if strings.Contains(stderr, "already in use") {
		t.Skip("the test binary itself is being profiled")
	}
	if code != exitOK {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// A profile is gzipped protocol buffers (runtime/pprof).
	if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		t.Errorf("%s is not a gzipped profile: % x", file, b[:min(len(b), 8)])
	}

	missing := filepath.Join(t.TempDir(), "no-such-dir", "cpu.prof")
	code, _, stderr = vacheck("check", "chang-roberts", "--n", "4", "--cpuprofile", missing)
	if code != exitUsage || !strings.Contains(stderr, "--cpuprofile "+missing) || !strings.Contains(stderr, "does not exist") {
		t.Errorf("--cpuprofile in a missing directory: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("%s was written after a usage error", missing)
	}
}
