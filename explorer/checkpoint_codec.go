package explorer

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/vacheck/vacheck/internal/input"
)

// checkpointMagic and checkpointVersion start every checkpoint file; the
// version changes with the format.
const (
	checkpointMagic   = "vacheck checkpoint\n"
	checkpointVersion = 4
)

// openCheckpoint opens a checkpoint file after checking its SHA-256, so
// that nothing of a corrupted file is ever used. halt, when not nil, is
// asked now and then while the file is read, and ends the reading with
// errLoadStopped when it reports true.
func openCheckpoint(file string, halt func() bool) (*ckReader, func(), error) {
	f, size, err := openRegular(file)
	if err != nil {
		return nil, nil, err
	}
	if size < int64(len(checkpointMagic)+sha256.Size) {
		f.Close()
		return nil, nil, fmt.Errorf("%w: %s: not a checkpoint file (too short)", ErrCheckpoint, file)
	}
	body := size - sha256.Size
	// Buffers of 1 MiB for a large file, no larger than the file for a
	// small one: many small checkpoints are read (the fuzz target).
	buf := int(min(body, 1<<20))
	h := sha256.New()
	if _, err := io.CopyBuffer(h, haltReader{io.NewSectionReader(f, 0, body), halt}, make([]byte, buf)); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%w: %s: %w", ErrCheckpoint, file, err)
	}
	var sum [sha256.Size]byte
	if _, err := f.ReadAt(sum[:], body); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%w: %s: %v", ErrCheckpoint, file, err)
	}
	if !bytes.Equal(sum[:], h.Sum(nil)) {
		f.Close()
		return nil, nil, fmt.Errorf("%w: %s is corrupted: its SHA-256 checksum does not match its contents", ErrCheckpoint, file)
	}
	r := &ckReader{r: bufio.NewReaderSize(io.NewSectionReader(f, 0, body), buf), left: body, halt: halt}
	return r, func() { f.Close() }, nil
}

// openRegular opens file for reading if it is a regular file (input.Open:
// a FIFO or a device is refused without blocking), and returns its size.
func openRegular(file string) (*os.File, int64, error) {
	f, err := input.Open(file, "a checkpoint")
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("%w: %s: %w", ErrCheckpoint, file, err)
	}
	return f, fi.Size(), nil
}

// haltReader reads r until halt, when not nil, reports true.
type haltReader struct {
	r    io.Reader
	halt func() bool
}

func (h haltReader) Read(p []byte) (int, error) {
	if h.halt != nil && h.halt() {
		return 0, errLoadStopped
	}
	return h.r.Read(p)
}

// writeAtomic writes a checkpoint to a temporary file next to file, with
// the SHA-256 of its contents at the end, syncs it and renames it over
// file. It returns the size written.
func writeAtomic(file string, write func(*ckWriter)) (int64, error) {
	dir := filepath.Dir(file)
	f, err := os.CreateTemp(dir, filepath.Base(file)+".tmp*")
	if err != nil {
		return 0, fmt.Errorf("writing the checkpoint: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(f, h)}
	w := &ckWriter{w: bufio.NewWriterSize(cw, 1<<20)}
	write(w)
	if w.err == nil {
		w.err = w.w.Flush()
	}
	if w.err == nil {
		_, w.err = f.Write(h.Sum(nil))
	}
	if w.err == nil {
		w.err = f.Sync()
	}
	if err := f.Close(); w.err == nil {
		w.err = err
	}
	if w.err == nil {
		w.err = os.Rename(tmp, file)
	}
	if w.err == nil {
		if d, err := os.Open(dir); err == nil {
			_ = d.Sync() // make the rename durable where the system allows it
			d.Close()
		}
	}
	if w.err != nil {
		return 0, fmt.Errorf("writing the checkpoint %s: %w", file, w.err)
	}
	return cw.n + sha256.Size, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// ckWriter writes the little-endian fields of a checkpoint; the first
// error sticks.
type ckWriter struct {
	w   *bufio.Writer
	err error
	buf [8]byte
}

func (w *ckWriter) put(b []byte) {
	if w.err == nil {
		_, w.err = w.w.Write(b)
	}
}
func (w *ckWriter) u8(v uint8) { w.put([]byte{v}) }
func (w *ckWriter) u32(v uint32) {
	binary.LittleEndian.PutUint32(w.buf[:4], v)
	w.put(w.buf[:4])
}
func (w *ckWriter) u64(v uint64) {
	binary.LittleEndian.PutUint64(w.buf[:], v)
	w.put(w.buf[:])
}
func (w *ckWriter) i64(v int64)    { w.u64(uint64(v)) }
func (w *ckWriter) bytes(b []byte) { w.u64(uint64(len(b))); w.put(b) }
func (w *ckWriter) str(s string)   { w.bytes([]byte(s)) }

func (w *ckWriter) header(ck *Checkpoint, hash uint64, identity string) {
	w.put([]byte(checkpointMagic))
	w.u32(checkpointVersion)
	w.str(ck.Build)
	w.str(ck.Model)
	w.bytes(ck.Meta)
	w.u64(hash)
	w.str(identity)
}

// ckReader reads what ckWriter wrote; the first error sticks, and no
// length may exceed what is left of the file.
type ckReader struct {
	r    *bufio.Reader
	left int64
	err  error
	buf  [8]byte
	// halt, when not nil, is asked every haltEvery reads; when it reports
	// true, the reading fails with errLoadStopped.
	halt  func() bool
	reads int
}

// haltEvery is how many fields a ckReader reads between two calls of halt.
const haltEvery = 1 << 16

func (r *ckReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *ckReader) get(n int) []byte {
	if r.reads++; r.halt != nil && r.reads%haltEvery == 0 && r.err == nil && r.halt() {
		r.fail(errLoadStopped)
	}
	if r.err != nil {
		return make([]byte, n)
	}
	if int64(n) > r.left {
		r.fail(io.ErrUnexpectedEOF)
		return make([]byte, n)
	}
	var b []byte
	if n <= len(r.buf) {
		b = r.buf[:n]
	} else {
		b = make([]byte, n)
	}
	if _, err := io.ReadFull(r.r, b); err != nil {
		r.fail(err)
	}
	r.left -= int64(n)
	return b
}

func (r *ckReader) u8() uint8   { return r.get(1)[0] }
func (r *ckReader) u32() uint32 { return binary.LittleEndian.Uint32(r.get(4)) }
func (r *ckReader) u64() uint64 { return binary.LittleEndian.Uint64(r.get(8)) }
func (r *ckReader) i64() int64  { return int64(r.u64()) }

// count reads a number of items of at least each bytes each.
func (r *ckReader) count(each int64) uint64 {
	n := r.u64()
	if r.err == nil && n > uint64(r.left/each) {
		r.fail(fmt.Errorf("a count of %d items is more than the file holds", n))
		return 0
	}
	return n
}

func (r *ckReader) bytes() []byte {
	n := r.count(1)
	if r.err != nil {
		return nil
	}
	return append([]byte(nil), r.get(int(n))...)
}

func (r *ckReader) str() string { return string(r.bytes()) }

type ckHeader struct {
	build, model string
	meta         []byte
	hash         uint64
	identity     string
}

func (r *ckReader) header() (ckHeader, error) {
	var h ckHeader
	if string(r.get(len(checkpointMagic))) != checkpointMagic {
		return h, fmt.Errorf("%w: not a vacheck checkpoint file", ErrCheckpoint)
	}
	if v := r.u32(); r.err == nil && v != checkpointVersion {
		return h, fmt.Errorf("%w: checkpoint format version %d; this build reads version %d", ErrCheckpoint, v, checkpointVersion)
	}
	h.build, h.model, h.meta = r.str(), r.str(), r.bytes()
	h.hash, h.identity = r.u64(), r.str()
	if r.err != nil {
		return h, fmt.Errorf("%w: malformed header: %v", ErrCheckpoint, r.err)
	}
	return h, nil
}
