//go:build !unix || (linux && (386 || arm || mips || mipsle))

package offheap

import "errors"

func syscallPageSize() int { return 4096 }

// mapAnon is not available (no mmap, or 32-bit Linux): Arrays are Go
// slices.
func mapAnon(n int) ([]byte, error) {
	return nil, errors.New("offheap: no mmap on this system")
}

func remapAnon(mem []byte, n int) ([]byte, bool) { return nil, false }

func unmap(mem []byte) error { return nil }

func discard(mem []byte) bool { return false }
