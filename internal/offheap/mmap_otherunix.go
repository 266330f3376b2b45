//go:build unix && !linux

package offheap

// remapAnon is not available: the Array copies into a new mapping.
func remapAnon(mem []byte, n int) ([]byte, bool) { return nil, false }
