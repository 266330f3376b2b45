package explorer

import "testing"

// TestTaskCol: tasks are stored in one byte while they fit, then in two,
// then in four, and read back the same, faults included.
func TestTaskCol(t *testing.T) {
	var want []int32
	var c taskCol
	add := func(ts ...int32) {
		for _, x := range ts {
			c.add(x)
			want = append(want, x)
		}
	}
	check := func(size int) {
		t.Helper()
		if c.size() != size {
			t.Errorf("%d tasks: %d bytes a task, want %d", len(want), c.size(), size)
		}
		for e, x := range want {
			if got := c.at(e); got != x {
				t.Fatalf("edge %d: task %d, want %d", e, got, x)
			}
		}
	}
	add(0, -1, 3, 253)
	check(1)
	add(254, 255, 7, -1)
	check(2)
	add(65533, 65534, 65535, 1)
	check(4)
	var d taskCol
	d.add(2)
	d.appendCol(&c)
	d.add(-1)
	want = append(append([]int32{2}, want...), -1)
	c = d
	check(4)
}

// TestFPIndex: every fingerprint is found at its position, a missing one
// is not, and a duplicate is refused.
func TestFPIndex(t *testing.T) {
	fps := make([]uint64, 1000)
	for i := range fps {
		fps[i] = uint64(i)*0x9e3779b97f4a7c15 + 1
	}
	x, err := newFPIndex(fps, func(int) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	for i, fp := range fps {
		if j, ok := x.get(fp); !ok || int(j) != i {
			t.Fatalf("fingerprint %d: %d %v", i, j, ok)
		}
	}
	if _, ok := x.get(12345); ok {
		t.Error("a missing fingerprint was found")
	}
	if _, err := newFPIndex(append(fps, fps[3]), func(int) bool { return false }); err != errIncomplete {
		t.Errorf("a duplicate fingerprint: %v", err)
	}
}
