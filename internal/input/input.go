// Package input reads what users hand vacheck (files named by a flag,
// flag values) with bounds, so that a mistaken path or value can neither
// fill memory nor flood an error message.
package input

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ErrNotFile and ErrTooLarge are the errors of ReadBounded that are about
// the file rather than from the os package.
var (
	ErrNotFile  = errors.New("not a regular file")
	ErrTooLarge = errors.New("file too large")
)

// MaxToken bounds the text of a file or flag value quoted in an error.
const MaxToken = 40

// Clip returns s cut to MaxToken characters, with "…" when it was cut, for
// quoting input in an error message.
func Clip(s string) string {
	k := 0
	for i := range s {
		if k == MaxToken {
			return s[:i] + "…"
		}
		k++
	}
	return s
}

// ReadBounded reads the regular file at path, at most limit bytes. It
// refuses anything else (a directory, a device such as /dev/zero, a FIFO,
// which would block) as Open does. what names the file for errors ("a
// quorum file").
func ReadBounded(path, what string, limit int64) ([]byte, error) {
	f, err := Open(path, what)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%w: the file has %d bytes; %s may have at most %s", ErrTooLarge, fi.Size(), what, size(limit))
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: the file has more than %d bytes; %s may have at most %s", ErrTooLarge, limit, what, size(limit))
	}
	return data, nil
}

// Open opens the regular file at path for reading. It refuses anything
// else (a directory, a device such as /dev/zero, a FIFO) before opening
// it, opens without blocking (so that a FIFO swapped in after the check
// cannot block either), and checks again what it opened. what names the
// file for errors ("a checkpoint"); an error that is about the file wraps
// ErrNotFile and, as the os package's do, names the path.
func Open(path, what string) (*os.File, error) {
	notFile := func(m os.FileMode) error {
		return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s); %s must be a regular file", ErrNotFile, kindOf(m), what)}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, notFile(fi.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, err
	} else if !fi.Mode().IsRegular() {
		f.Close()
		return nil, notFile(fi.Mode())
	}
	return f, nil
}

// kindOf names a non-regular file mode for an error message.
func kindOf(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// size writes a byte count for an error message: "1048576 bytes (1 MiB)".
func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d bytes (%d MiB)", n, n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Decimal parses s as a flag's integer: canonical decimal digits only
// (surrounding space allowed; no sign other than a leading minus of a
// negative number, no leading zeros, no base prefix), so that --n 010 and
// --workers 010 mean the same thing: nothing.
func Decimal(s string) (int64, bool) {
	t := strings.TrimSpace(s)
	v, err := strconv.ParseInt(t, 10, 64)
	return v, err == nil && strconv.FormatInt(v, 10) == t
}
