//go:build linux && !386 && !arm && !mips && !mipsle

package offheap

import (
	"syscall"
	"unsafe"
)

// The mappings are made and unmade with raw system calls: syscall.Munmap
// only unmaps what syscall.Mmap mapped, and mremap moves mappings. (On
// 32-bit Linux, whose mmap system call differs, Arrays are Go slices.)

func syscallPageSize() int { return syscall.Getpagesize() }

// mapAnon maps n bytes of private zeroed memory, not counted against the
// system's commit limit until touched (most of it is a reservation).
func mapAnon(n int) ([]byte, error) {
	addr, _, errno := syscall.Syscall6(syscall.SYS_MMAP, 0, uintptr(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_NORESERVE, ^uintptr(0), 0)
	if errno != 0 {
		return nil, errno
	}
	return bytesAt(addr, n), nil
}

func unmap(mem []byte) error {
	if len(mem) == 0 {
		return syscall.EINVAL
	}
	_, _, errno := syscall.Syscall(syscall.SYS_MUNMAP, uintptr(unsafe.Pointer(unsafe.SliceData(mem))), uintptr(len(mem)), 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// remapAnon grows the mapping mem to n bytes with mremap, which moves pages
// instead of copying them.
func remapAnon(mem []byte, n int) ([]byte, bool) {
	const mremapMayMove = 1
	addr, _, errno := syscall.Syscall6(syscall.SYS_MREMAP, uintptr(unsafe.Pointer(unsafe.SliceData(mem))), uintptr(len(mem)), uintptr(n), mremapMayMove, 0, 0)
	if errno != 0 {
		return nil, false
	}
	return bytesAt(addr, n), true
}

// discard gives the pages of mem back; reading them again gives zeros.
func discard(mem []byte) bool { return syscall.Madvise(mem, syscall.MADV_DONTNEED) == nil }

// bytesAt is the n bytes at addr, memory outside the Go heap, which the
// collector never moves.
func bytesAt(addr uintptr, n int) []byte {
	p := *(*unsafe.Pointer)(unsafe.Pointer(&addr))
	return unsafe.Slice((*byte)(p), n)
}
