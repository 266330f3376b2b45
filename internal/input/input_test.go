package input

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenRefusesWhatIsNotAFile: a directory, a device and a FIFO are
// refused with ErrNotFile, an error that names the path and the kind of
// file, and at once: opening a FIFO nobody writes to used to block for
// ever. A regular file opens and reads.
func TestOpenRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{dir: "a directory"}
	if runtime.GOOS != "windows" {
		cases["/dev/zero"] = "a device"
		fifo := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		cases[fifo] = "a named pipe"
	}
	for path, kind := range cases {
		done := make(chan error, 2)
		go func() {
			f, err := Open(path, "a checkpoint")
			if err == nil {
				f.Close()
			}
			done <- err
			_, err = ReadBounded(path, "a checkpoint", 1<<20)
			done <- err
		}()
		for range 2 {
			select {
			case err := <-done:
				if !errors.Is(err, ErrNotFile) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), kind) ||
					!strings.Contains(err.Error(), "a checkpoint must be a regular file") {
					t.Errorf("%s: %v; want ErrNotFile naming the path and %s", path, err, kind)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: still opening after 10s", path)
			}
		}
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadBounded(file, "a file", 10); err != nil || string(data) != "0123456789" {
		t.Errorf("a regular file: %q, %v", data, err)
	}
	if _, err := ReadBounded(file, "a file", 9); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a file over the limit: %v; want ErrTooLarge", err)
	}
}

// TestClip: long values are cut to MaxToken characters (not bytes) and
// marked; short ones are left alone.
func TestClip(t *testing.T) {
	long := strings.Repeat("é", MaxToken+5)
	if got := Clip(long); got != strings.Repeat("é", MaxToken)+"…" {
		t.Errorf("Clip(long) = %q", got)
	}
	if got := Clip("fpp"); got != "fpp" {
		t.Errorf("Clip(fpp) = %q", got)
	}
}
