//go:build !unix

package explorer

// mapSlots maps memory outside the Go heap where the system allows it; not
// here, so tables live on the heap.
func mapSlots(int) ([]uint64, bool) { return nil, false }

func unmapSlots([]uint64) {}
