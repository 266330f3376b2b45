package automaton

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// color is a named enum type, the way specs write process statuses.
type color uint8

const (
	red color = 1 + iota
	green
	blue
)

type inner struct {
	A int16
	B []string
	C [2]bool
}

// allKinds has a field of every kind the codec supports.
type allKinds struct {
	B      bool
	I      int
	I8     int8
	I16    int16
	I32    int32
	I64    int64
	U      uint
	U8     uint8
	U16    uint16
	U32    uint32
	U64    uint64
	S      string
	Sl     []int
	Nested [][]int32
	Arr    [3]uint16
	In     inner
	Ins    []inner
	Col    color
	Cols   []color
	Grid   [2][2]int8
}

func fullValue() allKinds {
	return allKinds{
		B: true, I: math.MinInt64, I8: math.MinInt8, I16: math.MaxInt16, I32: math.MinInt32, I64: math.MaxInt64,
		U: math.MaxUint, U8: math.MaxUint8, U16: math.MaxUint16, U32: math.MaxUint32, U64: math.MaxUint64,
		S:      "héllo, wörld",
		Sl:     []int{0, -1, 63, 64, -64, -65, 1 << 40},
		Nested: [][]int32{{1, 2}, nil, {-3}},
		Arr:    [3]uint16{1, 127, 128},
		In:     inner{A: -300, B: []string{"", "x", strings.Repeat("y", 200)}, C: [2]bool{true, false}},
		Ins:    []inner{{A: 1}, {B: []string{"z"}, C: [2]bool{false, true}}},
		Col:    blue,
		Cols:   []color{red, green, blue, 0, 255},
		Grid:   [2][2]int8{{-1, 1}, {math.MaxInt8, math.MinInt8}},
	}
}

func mustCompile[T any](tb testing.TB) *codec {
	tb.Helper()
	c, err := compile(reflect.TypeFor[T]())
	if err != nil {
		tb.Fatalf("compile %v: %v", reflect.TypeFor[T](), err)
	}
	return c
}

func encode[T any](c *codec, v T) []byte { return c.enc(unsafe.Pointer(&v), nil) }

// decode decodes one T from b and returns it with the bytes left over.
func decode[T any](c *codec, b []byte, a *arena) (T, []byte, error) {
	var v T
	rest, err := c.dec(unsafe.Pointer(&v), b, a)
	return v, rest, err
}

// TestCodecScalars pins the exact encoding of every scalar kind and checks
// that it decodes back to the same value with nothing left over.
func TestCodecScalars(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want []byte
	}{
		{"false", false, []byte{0x00}},
		{"true", true, []byte{0x01}},
		{"int 0", 0, []byte{0x00}},
		{"int 1", 1, []byte{0x02}},
		{"int -1", -1, []byte{0x01}},
		{"int 63 (largest one-byte positive)", 63, []byte{0x7e}},
		{"int -64 (smallest one-byte negative)", -64, []byte{0x7f}},
		{"int 64", 64, []byte{0x80, 0x01}},
		{"int -65", -65, []byte{0x81, 0x01}},
		{"int MaxInt64", math.MaxInt64, []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"int MinInt64", math.MinInt64, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"int8 MaxInt8", int8(math.MaxInt8), []byte{0xfe, 0x01}},
		{"int8 MinInt8", int8(math.MinInt8), []byte{0xff, 0x01}},
		{"int16 MinInt16", int16(math.MinInt16), []byte{0xff, 0xff, 0x03}},
		{"int32 MaxInt32", int32(math.MaxInt32), []byte{0xfe, 0xff, 0xff, 0xff, 0x0f}},
		{"int64 MinInt64", int64(math.MinInt64), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"uint 0", uint(0), []byte{0x00}},
		{"uint MaxUint", uint(math.MaxUint), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"uint8 127", uint8(127), []byte{0x7f}},
		{"uint8 128", uint8(128), []byte{0x80, 0x01}},
		{"uint8 MaxUint8", uint8(math.MaxUint8), []byte{0xff, 0x01}},
		{"uint16 MaxUint16", uint16(math.MaxUint16), []byte{0xff, 0xff, 0x03}},
		{"uint32 MaxUint32", uint32(math.MaxUint32), []byte{0xff, 0xff, 0xff, 0xff, 0x0f}},
		{"uint64 MaxUint64", uint64(math.MaxUint64), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"named enum", green, []byte{0x02}},
		{"empty string", "", []byte{0x00}},
		{"string", "hi", []byte{0x02, 'h', 'i'}},
		{"string of 128 bytes", strings.Repeat("a", 128), append([]byte{0x80, 0x01}, strings.Repeat("a", 128)...)},
		{"slice", []int{1, -1}, []byte{0x02, 0x02, 0x01}},
		{"nested slice", [][]int8{{1}, nil, {2, 3}}, []byte{0x03, 0x01, 0x02, 0x00, 0x02, 0x04, 0x06}},
		{"slice of enums", []color{red, blue}, []byte{0x02, 0x01, 0x03}},
		{"array", [3]uint16{1, 2, 300}, []byte{0x01, 0x02, 0xac, 0x02}},
		{"struct", inner{A: -2, B: []string{"a"}, C: [2]bool{false, true}}, []byte{0x03, 0x01, 0x01, 'a', 0x00, 0x01}},
		{"nested struct", struct {
			X  bool
			In inner
		}{true, inner{A: 1}}, []byte{0x01, 0x02, 0x00, 0x00, 0x00}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ := reflect.TypeOf(tt.v)
			c, err := compile(typ)
			if err != nil {
				t.Fatal(err)
			}
			in := reflect.New(typ)
			in.Elem().Set(reflect.ValueOf(tt.v))
			got := c.enc(in.UnsafePointer(), nil)
			if !bytes.Equal(got, tt.want) {
				t.Errorf("encode %#v = % x, want % x", tt.v, got, tt.want)
			}
			out := reflect.New(typ)
			rest, err := c.dec(out.UnsafePointer(), got, nil)
			if err != nil {
				t.Fatalf("decode % x: %v", got, err)
			}
			if len(rest) != 0 {
				t.Errorf("decode left % x", rest)
			}
			if !reflect.DeepEqual(out.Elem().Interface(), tt.v) {
				t.Errorf("round trip of %#v gave %#v", tt.v, out.Elem().Interface())
			}
		})
	}
}

func TestCodecRoundTripAllKinds(t *testing.T) {
	c := mustCompile[allKinds](t)
	for _, v := range []allKinds{{}, fullValue()} {
		b := encode(c, v)
		for _, a := range []*arena{nil, new(arena)} {
			got, rest, err := decode[allKinds](c, b, a)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if len(rest) != 0 {
				t.Errorf("decode left %d bytes", len(rest))
			}
			// Nil and empty slices are the same state; %+v prints both as [].
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", v) {
				t.Errorf("round trip (arena %v):\n got %+v\nwant %+v", a != nil, got, v)
			}
			if again := encode(c, got); !bytes.Equal(again, b) {
				t.Errorf("re-encoding differs:\n got % x\nwant % x", again, b)
			}
		}
	}
	// The zero value is one byte per scalar, per empty string or slice, and
	// per array element: B and 10 integers, S, Sl, Nested (14), Arr (3),
	// In.A, In.B, In.C (4), Ins, Col, Cols (3), Grid (4).
	if got, want := len(encode(c, allKinds{})), 14+3+4+3+4; got != want {
		t.Errorf("zero value encodes to %d bytes, want %d", got, want)
	}
}

// TestCodecNilAndEmpty: nil and empty slices are the same state, so they
// encode the same; both decode to empty slices (from an arena, with room to
// append without allocating).
func TestCodecNilAndEmpty(t *testing.T) {
	c := mustCompile[allKinds](t)
	empty := allKinds{Sl: []int{}, Nested: [][]int32{}, Ins: []inner{}, Cols: []color{}, In: inner{B: []string{}}}
	if a, b := encode(c, allKinds{}), encode(c, empty); !bytes.Equal(a, b) {
		t.Errorf("nil slices encode to % x, empty slices to % x", a, b)
	}
	got, _, err := decode[allKinds](c, encode(c, empty), new(arena))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Sl) != 0 || len(got.Nested) != 0 || len(got.Ins) != 0 || len(got.Cols) != 0 || len(got.In.B) != 0 {
		t.Errorf("empty slices decode to %#v, want empty slices", got)
	}
	inNil := encode(c, allKinds{Nested: [][]int32{nil, {}}})
	if want := encode(c, allKinds{Nested: [][]int32{{}, nil}}); !bytes.Equal(inNil, want) {
		t.Errorf("nested nil and empty differ: % x vs % x", inNil, want)
	}
}

type padded struct {
	A int8
	B int64
	C bool
}

// TestCodecCanonical: values that are equal encode to equal bytes whatever
// their memory looks like (capacity, backing arrays, padding bytes).
func TestCodecCanonical(t *testing.T) {
	c := mustCompile[allKinds](t)
	a := fullValue()
	b := fullValue()
	b.Sl = append(make([]int, 0, 100), a.Sl...)
	b.S = strings.Join([]string{"héllo,", "wörld"}, " ")
	b.Nested = [][]int32{append([]int32{9, 9}, 1, 2)[2:], nil, {-3}}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the test's two values should be equal")
	}
	if ea, eb := encode(c, a), encode(c, b); !bytes.Equal(ea, eb) {
		t.Errorf("equal values encode differently:\n% x\n% x", ea, eb)
	}

	// Padding bytes are not part of the value.
	pc := mustCompile[padded](t)
	dirty := make([]uint64, unsafe.Sizeof(padded{})/8)
	for i := range dirty {
		dirty[i] = math.MaxUint64
	}
	p := (*padded)(unsafe.Pointer(&dirty[0]))
	p.A, p.B, p.C = -1, 7, true
	clean := padded{A: -1, B: 7, C: true}
	if got, want := pc.enc(unsafe.Pointer(p), nil), encode(pc, clean); !bytes.Equal(got, want) {
		t.Errorf("padding leaks into the encoding: % x, want % x", got, want)
	}

	// Different values encode differently, also when a field boundary
	// moves: {"ab", ""} and {"a", "b"}.
	type two struct{ X, Y string }
	tc := mustCompile[two](t)
	if x, y := encode(tc, two{"ab", ""}), encode(tc, two{"a", "b"}); bytes.Equal(x, y) {
		t.Errorf("{ab,} and {a,b} both encode to % x", x)
	}
}

type (
	withMap       struct{ M map[string]int }
	withPointer   struct{ P *int }
	withInterface struct{ I any }
	withFunc      struct{ F func() }
	withChan      struct{ C chan int }
	withFloat     struct{ X float64 }
	withDeepMap   struct{ L []struct{ M map[int]int } }
	withNestedTag struct {
		In struct {
			K int `vacheck:"-"`
		}
	}
	withArrayTag struct {
		Arr [2]struct {
			P *int `vacheck:"-"`
		}
	}
)

// TestCodecRejects: types whose encoding would not be canonical or
// self-contained are refused with an error naming the field.
func TestCodecRejects(t *testing.T) {
	tests := []struct {
		typ  reflect.Type
		want string // prefix of the error
	}{
		{reflect.TypeFor[withMap](), "automaton: automaton.withMap.M: maps are not supported in states (their order is random)"},
		{reflect.TypeFor[withPointer](), "automaton: automaton.withPointer.P: ptr values are not supported in states"},
		{reflect.TypeFor[withInterface](), "automaton: automaton.withInterface.I: interface values are not supported in states"},
		{reflect.TypeFor[withFunc](), "automaton: automaton.withFunc.F: func values are not supported in states"},
		{reflect.TypeFor[withChan](), "automaton: automaton.withChan.C: chan values are not supported in states"},
		{reflect.TypeFor[withFloat](), "automaton: automaton.withFloat.X: float64 values are not supported in states"},
		{reflect.TypeFor[withDeepMap](), "automaton: automaton.withDeepMap.L[].M: maps are not supported"},
		{reflect.TypeFor[withNestedTag](), "automaton: automaton.withNestedTag.In.K: constant fields (`vacheck:\"-\"`) are allowed only at the top level of a process state"},
		{reflect.TypeFor[withArrayTag](), "automaton: automaton.withArrayTag.Arr[].P: constant fields (`vacheck:\"-\"`) are allowed only at the top level"},
		{reflect.TypeFor[map[int]int](), "automaton: map[int]int: maps are not supported"},
		{reflect.TypeFor[*int](), "automaton: *int: ptr values are not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.typ.String(), func(t *testing.T) {
			_, err := compile(tt.typ)
			if err == nil {
				t.Fatalf("compile(%v) succeeded, want an error", tt.typ)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("compile(%v):\n got %q\nwant prefix %q", tt.typ, err, tt.want)
			}
		})
	}
}

type counter struct{ n int }

type withConst struct {
	A     int
	Peer  *counter       `vacheck:"-"`
	Table map[string]int `vacheck:"-"`
	B     string         `vacheck:"label"`
}

// TestCodecConstants: top-level `vacheck:"-"` fields may hold anything, are
// not encoded, and are left alone by decoding.
func TestCodecConstants(t *testing.T) {
	c := mustCompile[withConst](t)
	if len(c.consts) != 2 {
		t.Errorf("%d constant fields, want 2", len(c.consts))
	}
	var names []string
	for _, f := range c.fields {
		names = append(names, f.name)
	}
	if got, want := strings.Join(names, ","), "a,label"; got != want {
		t.Errorf("field names %q, want %q", got, want)
	}
	shared := &counter{n: 7}
	v := withConst{A: 1, Peer: shared, Table: map[string]int{"x": 1}, B: "x"}
	got := encode(c, v)
	if want := []byte{0x02, 0x01, 'x'}; !bytes.Equal(got, want) {
		t.Errorf("encode = % x, want % x (A and B only)", got, want)
	}
	if other := encode(c, withConst{A: 1, B: "x"}); !bytes.Equal(other, got) {
		t.Errorf("constant fields change the encoding: % x vs % x", other, got)
	}
	into := withConst{Peer: shared}
	if _, err := c.dec(unsafe.Pointer(&into), got, nil); err != nil {
		t.Fatal(err)
	}
	if into.A != 1 || into.B != "x" || into.Peer != shared || into.Table != nil {
		t.Errorf("decode gave %+v, want A=1 B=x and the constant fields untouched", into)
	}
}

// TestCodecTruncated: every strict prefix of an encoding, and malformed
// lengths, give errShort and never a panic.
func TestCodecTruncated(t *testing.T) {
	c := mustCompile[allKinds](t)
	full := encode(c, fullValue())
	for n := 0; n < len(full); n++ {
		_, _, err := decode[allKinds](c, full[:n], new(arena))
		if !errors.Is(err, errShort) {
			t.Fatalf("decoding the first %d of %d bytes: err = %v, want errShort", n, len(full), err)
		}
	}
	tests := []struct {
		name string
		typ  reflect.Type
		b    []byte
	}{
		{"varint overflow", reflect.TypeFor[int64](), bytes.Repeat([]byte{0xff}, 11)},
		{"uvarint overflow", reflect.TypeFor[uint64](), bytes.Repeat([]byte{0xff}, 11)},
		{"string longer than input", reflect.TypeFor[string](), []byte{0x05, 'a', 'b'}},
		{"string length overflow", reflect.TypeFor[string](), bytes.Repeat([]byte{0xff}, 11)},
		{"huge string length", reflect.TypeFor[string](), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"slice longer than input", reflect.TypeFor[[]int](), []byte{0x03, 0x02}},
		{"huge slice length", reflect.TypeFor[[]string](), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"empty bool", reflect.TypeFor[bool](), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := compile(tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range []*arena{nil, new(arena)} {
				if _, err := c.dec(reflect.New(tt.typ).UnsafePointer(), tt.b, a); !errors.Is(err, errShort) {
					t.Errorf("decode % x: err = %v, want errShort", tt.b, err)
				}
			}
		})
	}
}

// TestCodecArenaIndependence: two decodes sharing an arena give slices in
// different memory, so an effect mutating one state's slice in place cannot
// change another state.
func TestCodecArenaIndependence(t *testing.T) {
	c := mustCompile[allKinds](t)
	b := encode(c, fullValue())
	for _, a := range []*arena{nil, new(arena)} {
		x, _, err := decode[allKinds](c, b, a)
		if err != nil {
			t.Fatal(err)
		}
		y, _, err := decode[allKinds](c, b, a)
		if err != nil {
			t.Fatal(err)
		}
		x.Sl[0] = 42
		x.Nested[0][0] = 42
		x.Cols[0] = 42
		x.In.B[0] = "changed"
		x.Ins[0].A = 42
		if fmt.Sprintf("%+v", y) != fmt.Sprintf("%+v", fullValue()) {
			t.Errorf("arena %v: mutating one decode changed the other: %+v", a != nil, y)
		}
		if &x.Sl[0] == &y.Sl[0] || &x.Nested[0][0] == &y.Nested[0][0] || &x.Cols[0] == &y.Cols[0] {
			t.Errorf("arena %v: two decodes share slice memory", a != nil)
		}
	}
}

// FuzzCodecRoundTrip decodes arbitrary bytes as an allKinds. Decoding must
// never panic; when it succeeds, the value re-encodes to a canonical form
// that is no longer than the input it consumed, equal to it when that input
// was canonical, and a fixed point of decode-then-encode.
func FuzzCodecRoundTrip(f *testing.F) {
	c := mustCompile[allKinds](f)
	f.Add(encode(c, allKinds{}))
	f.Add(encode(c, fullValue()))
	f.Add(append(encode(c, fullValue()), 0xde, 0xad))
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0x80}, 40))
	f.Add(bytes.Repeat([]byte{0x02}, 64))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, rest, err := decode[allKinds](c, b, new(arena))
		w, _, errNil := decode[allKinds](c, b, nil)
		if (err == nil) != (errNil == nil) {
			t.Fatalf("decoding with an arena: %v; without: %v", err, errNil)
		}
		if err != nil {
			if !errors.Is(err, errShort) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		consumed := b[:len(b)-len(rest)]
		canon := encode(c, v)
		if !bytes.Equal(encode(c, w), canon) {
			t.Fatalf("decoding with and without an arena differ")
		}
		if len(canon) > len(consumed) {
			t.Fatalf("re-encoding % x is longer than the input % x it came from", canon, consumed)
		}
		v2, rest2, err := decode[allKinds](c, canon, new(arena))
		if err != nil || len(rest2) != 0 {
			t.Fatalf("the canonical form % x does not decode: %v, %d bytes left", canon, err, len(rest2))
		}
		if again := encode(c, v2); !bytes.Equal(again, canon) {
			t.Fatalf("not a fixed point:\n% x\n% x", canon, again)
		}
		if !reflect.DeepEqual(v, v2) {
			t.Fatalf("the canonical form decodes to a different value")
		}
	})
}

// TestCodecSeedsAreCanonical: an encoding decodes and re-encodes to itself
// byte for byte, trailing bytes are left over untouched.
func TestCodecSeedsAreCanonical(t *testing.T) {
	c := mustCompile[allKinds](t)
	full := encode(c, fullValue())
	v, rest, err := decode[allKinds](c, append(full, 0xde, 0xad), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rest, []byte{0xde, 0xad}) {
		t.Errorf("left over % x, want de ad", rest)
	}
	if got := encode(c, v); !bytes.Equal(got, full) {
		t.Errorf("re-encoding differs from the input prefix")
	}
}

// TestZeroSizeElements: a slice of zero-size values encodes as its length
// alone and decodes back, with or without an arena.
func TestZeroSizeElements(t *testing.T) {
	type acks struct{ E []struct{} }
	c, err := compile(reflect.TypeFor[acks]())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 3, 200} {
		in := acks{E: make([]struct{}, n)}
		b := c.enc(unsafe.Pointer(&in), nil)
		for _, a := range []*arena{nil, {}} {
			var out acks
			rest, err := c.dec(unsafe.Pointer(&out), b, a)
			if err != nil || len(rest) != 0 || len(out.E) != n {
				t.Errorf("n=%d arena=%v: decoded %d elements, rest %d, err %v", n, a != nil, len(out.E), len(rest), err)
			}
		}
	}
}
