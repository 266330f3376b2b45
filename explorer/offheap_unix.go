//go:build unix

package explorer

import (
	"syscall"
	"unsafe"
)

// mapSlots returns n zeroed slots in memory mapped from the operating
// system, outside the Go heap, or ok false when that fails. The Go heap
// holds a freed table until the next collection and may grow to twice
// what is live before one; mapped tables are returned to the system as
// soon as they are replaced, so the visited set costs what it holds.
func mapSlots(n int) (slots []uint64, ok bool) {
	b, err := syscall.Mmap(-1, 0, n*8, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, false
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), n), true
}

// unmapSlots returns slots, from mapSlots, to the operating system.
func unmapSlots(slots []uint64) {
	_ = syscall.Munmap(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(slots))), len(slots)*8))
}
