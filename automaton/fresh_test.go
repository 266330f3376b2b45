package automaton

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
	"unsafe"
)

// TestFreshIsDecoding: a shallow copy of a decoded value made fresh equals
// decoding the encoding again (same values, same nil slices, same
// capacities), and shares no slice memory with the value it was copied
// from, with or without an arena.
func TestFreshIsDecoding(t *testing.T) {
	c := mustCompile[allKinds](t)
	for _, v := range []allKinds{{}, fullValue(), {Sl: []int{}, Nested: [][]int32{{}}, Ins: []inner{{B: []string{}}}}} {
		b := encode(c, v)
		for _, a := range []*arena{nil, new(arena)} {
			src, _, err := decode[allKinds](c, b, a)
			if err != nil {
				t.Fatal(err)
			}
			want, _, err := decode[allKinds](c, b, a)
			if err != nil {
				t.Fatal(err)
			}
			got := src
			c.fresh(unsafe.Pointer(&got), a)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("arena %v: fresh copy %+v, decoding %+v", a != nil, got, want)
			}
			if !bytes.Equal(encode(c, got), b) {
				t.Errorf("arena %v: the fresh copy encodes differently", a != nil)
			}
			if shape(got) != shape(want) {
				t.Errorf("arena %v: fresh copy's slices %s, decoding's %s", a != nil, shape(got), shape(want))
			}
			if len(got.Sl) > 0 {
				got.Sl[0] = 42
				got.Nested[0][0] = 42
				got.Cols[0] = 42
				got.In.B[0] = "changed"
				got.Ins[0].A = 42
				if !reflect.DeepEqual(src, want) {
					t.Errorf("arena %v: mutating the fresh copy changed the original: %+v", a != nil, src)
				}
			}
		}
	}
}

// shape describes the nil-ness, lengths and capacities of a value's slices.
func shape(v allKinds) string {
	s := func(h reflect.Value) string { return fmt.Sprintf("%v/%d/%d ", h.IsNil(), h.Len(), h.Cap()) }
	out := s(reflect.ValueOf(v.Sl)) + s(reflect.ValueOf(v.Nested)) + s(reflect.ValueOf(v.In.B)) + s(reflect.ValueOf(v.Ins)) + s(reflect.ValueOf(v.Cols))
	for _, n := range v.Nested {
		out += s(reflect.ValueOf(n))
	}
	for _, in := range v.Ins {
		out += s(reflect.ValueOf(in.B))
	}
	return out
}

// TestFreshNil: a type without slices needs no fresh pass.
func TestFreshNil(t *testing.T) {
	type flat struct {
		A int
		S string
		B [3]bool
	}
	if c := mustCompile[flat](t); c.fresh != nil {
		t.Errorf("a type without slices has a fresh pass")
	}
	if c := mustCompile[withConst](t); c.fresh != nil {
		t.Errorf("constant fields are made fresh; decoding shares them with the prototype")
	}
}
