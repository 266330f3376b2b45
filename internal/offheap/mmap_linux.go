//go:build linux

package offheap

import (
	"syscall"
	"unsafe"
)

// remapAnon grows the mapping mem to n bytes with mremap, which moves pages
// instead of copying them.
func remapAnon(mem []byte, n int) ([]byte, bool) {
	const mremapMayMove = 1
	addr, _, errno := syscall.Syscall6(syscall.SYS_MREMAP, uintptr(unsafe.Pointer(unsafe.SliceData(mem))), uintptr(len(mem)), uintptr(n), mremapMayMove, 0, 0)
	if errno != 0 {
		return nil, false
	}
	// addr is memory outside the Go heap, which the collector never moves.
	p := *(*unsafe.Pointer)(unsafe.Pointer(&addr))
	return unsafe.Slice((*byte)(p), n), true
}

// discard gives the pages of mem back; reading them again gives zeros.
func discard(mem []byte) bool { return syscall.Madvise(mem, syscall.MADV_DONTNEED) == nil }
