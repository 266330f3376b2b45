// Package offheap keeps large arrays of plain values (no pointers) outside
// the Go heap, in anonymous memory mappings of their own, for the explorer's
// visited set, BFS levels and liveness graph.
//
// The Go heap holds a freed array until the next collection and lets its
// size grow to twice the live data between collections; an array that grows
// by reallocation is copied and leaves the old one behind. For a search that
// stores hundreds of millions of fingerprints that is a third to a half of
// its memory. An Array here is unmapped the moment it is freed, grows within
// an address space reserved ahead (see reservation) and beyond it in place
// where the system allows it (mremap on 64-bit Linux: the pages move, the
// bytes are not copied, and pages already touched are not faulted in
// again), and gives back the pages past a smaller length (Trim). Small
// arrays, and every array on systems without mmap, are ordinary Go slices.
//
// An Array is freed by Free or, as a safety net, once it is unreachable
// (runtime.AddCleanup). Its elements must not be used after Free, nor
// after the Array itself becomes unreachable; an Array must not be copied
// once it has elements (the copies would share one mapping).
package offheap

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// Elem is the types an Array holds: values without pointers.
type Elem interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64 | ~int | ~int8 | ~int16 | ~int32 | ~int64
}

// minMapBytes is the size from which an Array is mapped rather than a Go
// slice: below it a mapping's system calls cost more than the heap's
// overhead saves.
const minMapBytes = 4 << 10

// mapped counts the bytes mapped by every Array of the process, as
// runtime/metrics counts the Go heap's: memory is a property of the process,
// and searches sample it (Mapped) next to the runtime's figures.
var mapped atomic.Int64

// Mapped returns the bytes the process's Arrays hold in mappings now.
func Mapped() uint64 { return uint64(max(mapped.Load(), 0)) }

// Array is a growable array of E. The zero Array is empty and ready to use.
type Array[E Elem] struct {
	s []E
	m *mapping // owns s when s is mapped; nil for a Go slice
}

// mapping is one anonymous memory mapping, larger than what its Array uses
// (reservation), and the cleanup that unmaps it if the Array is dropped
// without Free.
type mapping struct {
	mem     []byte
	used    *int // bytes given out to the Array, counted in Mapped
	cleanup runtime.Cleanup
}

// reservation is the address space a mapping of bytes bytes reserves:
// 64 times as much, up to 1 GiB (and twice as much beyond). Growing within
// the reservation needs no system call, and only the pages touched take
// memory. System calls that change mappings cost tens of microseconds on a
// virtual machine and interrupt every other thread of the process (to
// flush its TLB): with two workers, a few thousand of them cost more time
// than the search saves by them.
func reservation(bytes int) int {
	r := bytes * 64
	if r > 1<<30 || r < bytes { // (r < bytes: it overflowed a 32-bit int)
		r = max(1<<30, 2*bytes)
	}
	return roundUp(r)
}

// Make returns an Array of n zero elements.
func Make[E Elem](n int) Array[E] {
	var a Array[E]
	a.Grow(n)
	a.s = a.s[:n]
	return a
}

// Slice returns the elements. It is valid until the Array grows or is
// freed.
func (a *Array[E]) Slice() []E { return a.s }

// Len returns the number of elements.
func (a *Array[E]) Len() int { return len(a.s) }

// Cap returns the number of elements the Array holds without growing.
func (a *Array[E]) Cap() int { return cap(a.s) }

// Append adds v at the end.
func (a *Array[E]) Append(v E) {
	n := len(a.s)
	if n == cap(a.s) {
		a.Grow(1)
	}
	a.s = a.s[:n+1]
	a.s[n] = v
}

// AppendSlice adds the elements of v at the end.
func (a *Array[E]) AppendSlice(v []E) {
	n := len(a.s)
	if cap(a.s)-n < len(v) {
		a.Grow(len(v))
	}
	a.s = a.s[:n+len(v)]
	copy(a.s[n:], v)
}

// Truncate keeps the first n elements (n <= Len) and the memory.
func (a *Array[E]) Truncate(n int) { a.s = a.s[:n] }

// Resize sets the length to n, growing the Array if needed. The first
// elements keep their values; those beyond the old length hold what the
// memory held (zero in memory never used).
func (a *Array[E]) Resize(n int) {
	if n > cap(a.s) {
		a.Grow(n - len(a.s))
	}
	a.s = a.s[:n]
}

// Grow makes room for at least n more elements without growing again: the
// capacity at least doubles, up to a mapping's size at least a quarter
// more, so that appending stays amortized constant time. Elements beyond
// Len keep what they held (zero in memory never used).
func (a *Array[E]) Grow(n int) {
	need := len(a.s) + n
	if need <= cap(a.s) {
		return
	}
	var zero E
	size := int(unsafe.Sizeof(zero))
	c := max(need, 2*cap(a.s), 8)
	if c*size >= minMapBytes {
		c = max(need, cap(a.s)+cap(a.s)/4)
		bytes := roundUp(c * size)
		if a.m != nil && a.m.extend(bytes) {
			a.s = view[E](a.m.mem)[: len(a.s) : bytes/size]
			return
		}
		if m := newMapping(bytes); m != nil {
			s := view[E](m.mem)[: len(a.s) : bytes/size]
			copy(s, a.s)
			a.Free()
			a.m, a.s = m, s
			return
		}
	}
	s := make([]E, len(a.s), c)
	copy(s, a.s)
	a.Free()
	a.s = s
}

// Trim gives the memory of the elements from n on (n >= Len) back to the
// system where it can (Linux), keeping the address space reserved: the
// capacity drops to about n, and growing past it again counts as new
// memory. An Array that held a large BFS level and now holds a smaller
// one so stops holding pages it no longer uses.
func (a *Array[E]) Trim(n int) {
	if a.m == nil || n < len(a.s) || n >= cap(a.s) {
		return
	}
	var zero E
	size := int(unsafe.Sizeof(zero))
	keep := roundUp(n * size)
	// Only when it pays for the system call (see reservation): a quarter
	// of the memory, and a quarter of a megabyte at least.
	if free := *a.m.used - keep; free < 256<<10 || free < *a.m.used/4 || !discard(a.m.mem[keep:*a.m.used]) {
		return
	}
	a.m.account(keep)
	a.s = a.s[: len(a.s) : keep/size]
}

// Free releases the memory; the Array is then empty and may be used again.
func (a *Array[E]) Free() {
	if a.m != nil {
		a.m.free()
		a.m = nil
	}
	a.s = nil
}

// view returns mem as a slice of E, its capacity all of mem.
func view[E Elem](mem []byte) []E {
	var zero E
	n := len(mem) / int(unsafe.Sizeof(zero))
	return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(mem))), n)
}

// roundUp rounds n up to a multiple of the page size.
func roundUp(n int) int {
	p := pageSize
	return (n + p - 1) / p * p
}

var pageSize = max(4096, syscallPageSize())

// newMapping maps bytes bytes of zeroed memory (and reserves more), or
// returns nil when the system cannot (the caller then uses the Go heap).
func newMapping(bytes int) *mapping {
	mem, err := mapAnon(reservation(bytes))
	if err != nil {
		return nil
	}
	m := &mapping{mem: mem, used: new(int)}
	m.account(bytes)
	m.cleanup = runtime.AddCleanup(m, release, m.region())
	return m
}

// region is what the cleanup needs to unmap a mapping and count it out.
type region struct {
	mem  []byte
	used *int
}

func (m *mapping) region() region { return region{m.mem, m.used} }

// account sets the bytes the Array uses to bytes.
func (m *mapping) account(bytes int) {
	mapped.Add(int64(bytes - *m.used))
	*m.used = bytes
}

// extend lets the Array use bytes bytes of m: within the reservation at
// once, beyond it by growing the mapping in place or moving its pages. It
// reports whether it could.
func (m *mapping) extend(bytes int) bool {
	if bytes > len(m.mem) {
		mem, ok := remapAnon(m.mem, reservation(bytes))
		if !ok {
			return false
		}
		m.cleanup.Stop()
		m.mem = mem
		m.cleanup = runtime.AddCleanup(m, release, m.region())
	}
	m.account(bytes)
	return true
}

func (m *mapping) free() {
	m.cleanup.Stop()
	release(m.region())
	m.mem = nil
}

func release(r region) {
	if unmap(r.mem) == nil {
		mapped.Add(-int64(*r.used))
		*r.used = 0
	}
}
