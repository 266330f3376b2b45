package explorer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// spill is an unlinked temporary file that keeps a stream of fingerprints
// out of memory: written through a buffer, read back once.
type spill struct {
	f   *os.File
	buf []byte
	n   int64 // records written
	err error
}

func newSpill() (*spill, error) {
	f, err := os.CreateTemp("", "vacheck-graph-*")
	if err != nil {
		return nil, err
	}
	// The file goes when it is closed, or when the process ends.
	_ = os.Remove(f.Name())
	return &spill{f: f, buf: make([]byte, 0, 1<<18)}, nil
}

func (p *spill) put(fp uint64) {
	p.buf = binary.LittleEndian.AppendUint64(p.buf, fp)
	p.n++
	if len(p.buf) == cap(p.buf) {
		p.flush()
	}
}

// errTempFile says that a temporary file of the state graph could not be
// written or read back: a full disk, or a file size limit. The graph is
// then built again in memory.
var errTempFile = errors.New("explorer: a temporary file of the state graph failed")

// flush writes the buffer out and returns the first error met, which
// wraps errTempFile.
func (p *spill) flush() error {
	if p.err == nil && len(p.buf) > 0 {
		if _, err := p.f.Write(p.buf); err != nil {
			p.err = fmt.Errorf("%w: writing the state graph to %s: %w", errTempFile, os.TempDir(), err)
		}
	}
	p.buf = p.buf[:0]
	return p.err
}

// read calls fn with records from .. from+count-1, in order, until fn
// returns false. It may run concurrently with other reads.
func (p *spill) read(from, count int64, fn func(fp uint64) bool) error {
	buf := make([]byte, 1<<16)
	for off := 8 * from; count > 0; {
		k := min(count, int64(len(buf)/8))
		b := buf[:8*k]
		if _, err := p.f.ReadAt(b, off); err != nil {
			return fmt.Errorf("%w: reading the state graph back: %w", errTempFile, err)
		}
		for i := 0; i < len(b); i += 8 {
			if !fn(binary.LittleEndian.Uint64(b[i:])) {
				return nil
			}
		}
		off, count = off+8*k, count-k
	}
	return nil
}

func (p *spill) close() {
	p.f.Close()
	p.buf = nil
}
