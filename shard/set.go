package shard

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/zeebo/xxh3"
)

// Record is what a part records of a state it expanded (Union mode).
type Record struct {
	FP    uint64 // the state's fingerprint
	Depth uint32 // its BFS depth in the part's search
	trans uint32 // its transitions, and terminalBit
}

// NewRecord returns the record of a state with fingerprint fp, at depth
// depth, with transitions transitions, terminal or not.
func NewRecord(fp uint64, depth uint32, transitions int64, terminal bool) Record {
	r := Record{FP: fp, Depth: depth, trans: uint32(transitions) &^ terminalBit}
	if terminal {
		r.trans |= terminalBit
	}
	return r
}

// terminalBit marks a terminal state in Record.trans.
const terminalBit = 1 << 31

// Transitions is the number of transitions computed from the state.
func (r Record) Transitions() int64 { return int64(r.trans &^ terminalBit) }

// Terminal reports whether the state is terminal.
func (r Record) Terminal() bool { return r.trans&terminalBit != 0 }

// setMagic starts a fingerprint set file; recordSize is the size of a
// record in it.
const (
	setMagic   = "VACHKFP1"
	recordSize = 16
)

// ErrSet reports a fingerprint set file that is not one, is damaged, or
// does not match its certificate.
var ErrSet = errors.New("shard: bad fingerprint set")

// SetInfo describes a fingerprint set file: its number of records and a
// hash of them, which the certificate records so that a file swapped or
// damaged since is refused.
type SetInfo struct {
	Records int64  `json:"records"`
	Hash    string `json:"xxh3"`
}

// WriteSet writes recs, sorted by fingerprint, to the file path, whole or
// not at all (a temporary file renamed), and describes it.
func WriteSet(path string, recs []Record) (SetInfo, error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, filepath.Base(path)+".tmp*")
	if err != nil {
		return SetInfo{}, fmt.Errorf("shard: writing the fingerprint set: %w", err)
	}
	defer os.Remove(f.Name()) // after the rename, a no-op
	w := bufio.NewWriterSize(f, 1<<20)
	h := xxh3.New()
	var head [16]byte
	copy(head[:8], setMagic)
	binary.LittleEndian.PutUint64(head[8:], uint64(len(recs)))
	w.Write(head[:])
	var b [recordSize]byte
	for k, r := range recs {
		if k > 0 && recs[k-1].FP >= r.FP {
			f.Close()
			return SetInfo{}, fmt.Errorf("%w: records not sorted, or a state recorded twice", ErrSet)
		}
		putRecord(b[:], r)
		h.Write(b[:])
		w.Write(b[:])
	}
	err = w.Flush()
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return SetInfo{}, fmt.Errorf("shard: writing the fingerprint set: %w", err)
	}
	return SetInfo{Records: int64(len(recs)), Hash: fmt.Sprintf("%016x", h.Sum64())}, nil
}

func putRecord(b []byte, r Record) {
	binary.LittleEndian.PutUint64(b, r.FP)
	binary.LittleEndian.PutUint32(b[8:], r.Depth)
	binary.LittleEndian.PutUint32(b[12:], r.trans)
}

// setReader reads one fingerprint set file in order, checking it.
type setReader struct {
	path    string
	r       *bufio.Reader
	f       *os.File
	left    int64
	h       *xxh3.Hasher
	want    SetInfo
	cur     Record
	started bool
}

func openSet(path string, want SetInfo) (*setReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSet, err)
	}
	s := &setReader{path: path, f: f, r: bufio.NewReaderSize(f, 1<<16), h: xxh3.New(), want: want}
	var head [16]byte
	if _, err := io.ReadFull(s.r, head[:]); err != nil || string(head[:8]) != setMagic {
		f.Close()
		return nil, fmt.Errorf("%w: %s is not a fingerprint set file", ErrSet, path)
	}
	s.left = int64(binary.LittleEndian.Uint64(head[8:]))
	if s.left != want.Records {
		f.Close()
		return nil, fmt.Errorf("%w: %s holds %d records, its certificate says %d", ErrSet, path, s.left, want.Records)
	}
	return s, nil
}

// next reads the next record; false at the end, which it checks.
func (s *setReader) next() (bool, error) {
	if s.left == 0 {
		if got := fmt.Sprintf("%016x", s.h.Sum64()); got != s.want.Hash {
			return false, fmt.Errorf("%w: %s does not hash to what its certificate says (%s, not %s): damaged or replaced", ErrSet, s.path, got, s.want.Hash)
		}
		if _, err := s.r.ReadByte(); err != io.EOF {
			return false, fmt.Errorf("%w: %s has bytes after its records", ErrSet, s.path)
		}
		return false, nil
	}
	var b [recordSize]byte
	if _, err := io.ReadFull(s.r, b[:]); err != nil {
		return false, fmt.Errorf("%w: %s is cut short: %v", ErrSet, s.path, err)
	}
	s.h.Write(b[:])
	s.left--
	r := Record{FP: binary.LittleEndian.Uint64(b[:]), Depth: binary.LittleEndian.Uint32(b[8:]), trans: binary.LittleEndian.Uint32(b[12:])}
	if s.started && r.FP <= s.cur.FP {
		return false, fmt.Errorf("%w: %s is not sorted", ErrSet, s.path)
	}
	s.cur, s.started = r, true
	return true, nil
}

// Totals are the figures of the union of the parts' fingerprint sets:
// those of the whole check.
type Totals struct {
	States, Transitions, Terminal int64
	// Depth is the largest over the states of their smallest depth in any
	// part: the depth of the whole breadth-first search.
	Depth int
	// Shared counts the states met by more than one part.
	Shared int64
}

// Set names a fingerprint set file and what its certificate says of it.
type Set struct {
	Path string
	Info SetInfo
}

// MergeSets merges the fingerprint set files of the parts in one pass (a K-way
// merge holding one record and one read buffer per file) and returns the
// figures of their union. A state that two parts record with different
// transition counts means two states with one fingerprint, or parts of
// different models: an error.
func MergeSets(sets []Set) (Totals, error) {
	var t Totals
	h := &setHeap{}
	defer func() {
		for _, s := range *h {
			s.f.Close()
		}
	}()
	for _, set := range sets {
		s, err := openSet(set.Path, set.Info)
		if err != nil {
			return t, err
		}
		ok, err := s.next()
		if err != nil {
			s.f.Close()
			return t, err
		}
		if !ok {
			s.f.Close()
			continue
		}
		heap.Push(h, s)
	}
	for h.Len() > 0 {
		first := (*h)[0].cur
		depth, parts := first.Depth, 0
		for h.Len() > 0 && (*h)[0].cur.FP == first.FP {
			s := (*h)[0]
			if s.cur.trans != first.trans {
				return t, fmt.Errorf("%w: state %016x has %d transitions in %s and %d in another part: a fingerprint collision, or parts of different models", ErrSet, first.FP, s.cur.Transitions(), s.path, first.Transitions())
			}
			depth = min(depth, s.cur.Depth)
			parts++
			ok, err := s.next()
			if err != nil {
				return t, err
			}
			if ok {
				heap.Fix(h, 0)
			} else {
				heap.Pop(h)
				s.f.Close()
			}
		}
		t.States++
		t.Transitions += first.Transitions()
		if first.Terminal() {
			t.Terminal++
		}
		t.Depth = max(t.Depth, int(depth))
		if parts > 1 {
			t.Shared++
		}
	}
	return t, nil
}

// setHeap orders the readers by their current fingerprint.
type setHeap []*setReader

func (h setHeap) Len() int           { return len(h) }
func (h setHeap) Less(i, j int) bool { return h[i].cur.FP < h[j].cur.FP }
func (h setHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *setHeap) Push(x any)        { *h = append(*h, x.(*setReader)) }
func (h *setHeap) Pop() any {
	old := *h
	s := old[len(old)-1]
	*h = old[:len(old)-1]
	return s
}
