//go:build unix && !linux

package offheap

// remapAnon is not available: the Array copies into a new mapping.
func remapAnon(mem []byte, n int) ([]byte, bool) { return nil, false }

// discard is not available: the memory stays.
func discard(mem []byte) bool { return false }
