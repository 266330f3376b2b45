package offheap

import (
	"runtime"
	"testing"
	"time"
)

// mappable reports whether Arrays are mapped on this system (not on
// Windows or 32-bit Linux, where they are Go slices).
func mappable() bool {
	a := Make[byte](minMapBytes)
	defer a.Free()
	return a.m != nil
}

func TestAppendGrowsAcrossTheMappingThreshold(t *testing.T) {
	before := Mapped()
	var a Array[uint64]
	n := 4 * minMapBytes // past the threshold, and past several reservations
	for i := range n {
		a.Append(uint64(i) * 3)
	}
	if a.Len() != n {
		t.Fatalf("Len = %d, want %d", a.Len(), n)
	}
	for i, v := range a.Slice() {
		if v != uint64(i)*3 {
			t.Fatalf("element %d = %d, want %d", i, v, uint64(i)*3)
		}
	}
	if a.m == nil && mappable() {
		t.Fatalf("an array of %d bytes is not mapped", n*8)
	}
	a.Free()
	if a.Len() != 0 || a.Cap() != 0 {
		t.Fatalf("after Free: Len %d Cap %d", a.Len(), a.Cap())
	}
	// The mapping grew (and moved) several times: Free must unmap what
	// it is now, or the memory stays and Mapped drifts.
	if d := int64(Mapped()) - int64(before); d != 0 {
		t.Fatalf("Mapped is %d bytes off after Free of a grown array", d)
	}
	a.Append(7) // usable again
	if a.Slice()[0] != 7 {
		t.Fatal("append after Free lost the element")
	}
	a.Free()
}

func TestAppendSliceAndTruncate(t *testing.T) {
	var a Array[byte]
	chunk := make([]byte, 1000)
	for i := range chunk {
		chunk[i] = byte(i)
	}
	for range 200 {
		a.AppendSlice(chunk)
	}
	if a.Len() != 200_000 {
		t.Fatalf("Len = %d", a.Len())
	}
	for k := 0; k < 200; k++ {
		if a.Slice()[k*1000+999] != byte(999%256) {
			t.Fatalf("chunk %d corrupted", k)
		}
	}
	c := a.Cap()
	a.Truncate(10)
	if a.Len() != 10 || a.Cap() != c {
		t.Fatalf("Truncate: Len %d Cap %d, want 10 and %d", a.Len(), a.Cap(), c)
	}
	a.Free()
}

func TestMakeIsZeroAndResizeKeepsElements(t *testing.T) {
	for _, n := range []int{0, 10, minMapBytes / 8, 3 * minMapBytes} {
		a := Make[uint64](n)
		for i, v := range a.Slice() {
			if v != 0 {
				t.Fatalf("Make(%d): element %d = %d", n, i, v)
			}
			a.Slice()[i] = uint64(i + 1)
		}
		a.Resize(3*n + 5)
		s := a.Slice()
		for i := range n {
			if s[i] != uint64(i+1) {
				t.Fatalf("Resize lost element %d of %d", i, n)
			}
		}
		for i := n; i < len(s); i++ {
			if s[i] != 0 {
				t.Fatalf("Resize(%d) from %d: new element %d = %d, want 0", 3*n+5, n, i, s[i])
			}
		}
		a.Free()
	}
}

// TestMappedCountsWhatArraysUse checks the accounting searches read: it
// rises with what an Array uses (not what it reserves) and falls back on
// Free.
func TestMappedCountsWhatArraysUse(t *testing.T) {
	if !mappable() {
		t.Skip("arrays are Go slices on this system")
	}
	before := Mapped()
	a := Make[uint64](1 << 20) // 8 MiB
	got := Mapped() - before
	if got < 8<<20 || got > 9<<20 {
		t.Fatalf("Mapped rose by %d bytes for an array of 8 MiB", got)
	}
	a.Free()
	if d := int64(Mapped()) - int64(before); d != 0 {
		t.Fatalf("Mapped is %d bytes off after Free", d)
	}
}

// TestDroppedArrayIsUnmapped checks the safety net: an Array dropped
// without Free gives its memory back once collected.
func TestDroppedArrayIsUnmapped(t *testing.T) {
	before := Mapped()
	func() {
		a := Make[uint64](1 << 20)
		a.Slice()[0] = 1
	}()
	deadline := time.Now().Add(5 * time.Second)
	for Mapped() > before && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if Mapped() > before {
		t.Fatalf("Mapped still %d bytes above its start after the array was collected", Mapped()-before)
	}
}

func BenchmarkAppend(b *testing.B) {
	for range b.N {
		var a Array[uint64]
		for i := range 1 << 20 {
			a.Append(uint64(i))
		}
		a.Free()
	}
}

func TestTrimGivesMemoryBackAndKeepsElements(t *testing.T) {
	var a Array[uint64]
	for i := range 1 << 20 {
		a.Append(uint64(i))
	}
	before := Mapped()
	a.Truncate(1000)
	a.Trim(5000)
	if runtime.GOOS == "linux" && mappable() {
		if freed := before - Mapped(); freed < 7<<20 {
			t.Fatalf("Trim gave back %d bytes of about 8 MiB", freed)
		}
		if a.Cap() > 5000+4096/8 {
			t.Fatalf("Cap = %d after Trim(5000)", a.Cap())
		}
	}
	for i, v := range a.Slice() {
		if v != uint64(i) {
			t.Fatalf("element %d = %d after Trim", i, v)
		}
	}
	for i := 1000; i < 1<<20; i++ { // grows again, counted again
		a.Append(uint64(i))
	}
	if got := Mapped(); got < before-64<<10 {
		t.Fatalf("Mapped %d after growing back, was %d", got, before)
	}
	for i, v := range a.Slice() {
		if v != uint64(i) {
			t.Fatalf("element %d = %d after growing back", i, v)
		}
	}
	a.Free()
}
