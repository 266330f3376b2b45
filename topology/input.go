package topology

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxFileSize bounds the size of an edge-list file: an edge-list file for the
// graphs the tools can check is a few kilobytes, and the bound keeps a
// mistaken path (/dev/zero, a log file) from filling memory.
const MaxFileSize = 1 << 20

// errNotFile and errTooLarge are the errors of readBounded that are about
// the file rather than from the os package.
var (
	errNotFile  = errors.New("not a regular file")
	errTooLarge = errors.New("file too large")
)

// maxToken bounds the text of a file or flag value quoted in an error.
const maxToken = 40

// clip returns s cut to maxToken characters, with "…" when it was cut, for
// quoting input in an error message.
func clip(s string) string {
	k := 0
	for i := range s {
		if k == maxToken {
			return s[:i] + "…"
		}
		k++
	}
	return s
}

// readBounded reads the regular file at path, at most limit bytes. It
// refuses anything else (a directory, a device such as /dev/zero, a FIFO,
// which would block) before opening it, and checks again after opening,
// so that a file swapped in between is refused too. what names the file
// for errors ("edge-list file").
func readBounded(path, what string, limit int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s); %s must be a regular file", errNotFile, kindOf(fi.Mode()), what)
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%w: the file has %d bytes; %s may have at most %d bytes (1 MiB)", errTooLarge, fi.Size(), what, limit)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s); %s must be a regular file", errNotFile, kindOf(fi.Mode()), what)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: the file has more than %d bytes; %s may have at most %d bytes (1 MiB)", errTooLarge, limit, what, limit)
	}
	return data, nil
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
