//go:build unix && !linux

package offheap

import "syscall"

func syscallPageSize() int { return syscall.Getpagesize() }

// mapAnon maps n bytes of private zeroed memory.
func mapAnon(n int) ([]byte, error) {
	return syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
}

func unmap(mem []byte) error { return syscall.Munmap(mem) }

// remapAnon is not available: the Array copies into a new mapping.
func remapAnon(mem []byte, n int) ([]byte, bool) { return nil, false }

// discard is not available: the memory stays.
func discard(mem []byte) bool { return false }
