package automaton

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unsafe"
)

// errShort is returned when an encoded value ends before its fields do.
var errShort = errors.New("automaton: encoded state is truncated")

type encFunc func(p unsafe.Pointer, b []byte) []byte

type decFunc func(p unsafe.Pointer, b []byte, a *arena) ([]byte, error)

// freshFunc gives every slice in the value at p fresh memory holding the same
// elements, from a when it is not nil, exactly as decoding the value's
// encoding would: a shallow copy of a decoded value followed by its
// freshFunc is a deep copy equal to decoding it again, for less.
type freshFunc func(p unsafe.Pointer, a *arena)

// codec encodes values of one Go type into the canonical compact binary form
// that vacheck hashes, and decodes them back. It is compiled once per type by
// reflection and then runs on raw pointers, so the hot path does no
// reflection.
//
// Integers are zig-zag varints, booleans one byte, strings and slices a
// length followed by their elements, arrays and structs their elements in
// order. Struct fields tagged `vacheck:"-"` are constants: they are not
// encoded and are carried over from the process's initial value.
//
// Decoding gives every slice fresh memory (from an arena when one is given),
// so a decoded value never shares memory with another decoded value.
type codec struct {
	typ    reflect.Type
	enc    encFunc
	dec    decFunc
	fresh  freshFunc    // nil when values of typ hold no slices
	consts []constField // top-level constant fields, copied from the prototype
	fields []fieldInfo  // top-level encoded fields, for traces
}

type constField struct {
	off, size uintptr
	index     int    // field index in the struct
	name      string // Go field name, for errors
}

// fieldInfo names a field of a process state for traces.
type fieldInfo struct {
	name      string
	index     int
	omitEmpty bool // `vacheck:"name,omitempty"`: not shown while zero or empty
	bottom    bool // `vacheck:"name,bottom"`: the zero value is ⊥ (explorer.Bottom)
}

// compile builds the codec for t, which must be built from booleans,
// integers, strings, slices, arrays and structs. Maps (whose order is random),
// pointers, interfaces, channels and functions are rejected with an error
// naming the field, except in constant fields.
func compile(t reflect.Type) (*codec, error) {
	c := &codec{typ: t}
	if t.Kind() != reflect.Struct {
		c.fresh = compileFresh(t)
		enc, dec, err := compileType(t, t.String())
		if err != nil {
			return nil, err
		}
		c.enc, c.dec = enc, dec
		return c, nil
	}
	var encs []encFunc
	var decs []decFunc
	var offs []uintptr
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if isConst(f) {
			c.consts = append(c.consts, constField{off: f.Offset, size: f.Type.Size(), index: i, name: f.Name})
			continue
		}
		e, d, err := compileType(f.Type, t.String()+"."+f.Name)
		if err != nil {
			return nil, err
		}
		encs, decs, offs = append(encs, e), append(decs, d), append(offs, f.Offset)
		_, opts, _ := strings.Cut(f.Tag.Get("vacheck"), ",")
		c.fields = append(c.fields, fieldInfo{name: displayName(f), index: i, omitEmpty: opts == "omitempty", bottom: opts == "bottom"})
	}
	c.enc, c.dec = structCodec(encs, decs, offs)
	// Constant fields are shared with the prototype, as decoding does.
	var fresh []freshFunc
	var freshOffs []uintptr
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); !isConst(f) {
			if fr := compileFresh(f.Type); fr != nil {
				fresh, freshOffs = append(fresh, fr), append(freshOffs, f.Offset)
			}
		}
	}
	c.fresh = structFresh(fresh, freshOffs)
	return c, nil
}

// compileFresh builds the freshFunc of t, a type compileType accepts, or
// returns nil if values of t hold no slices (strings are immutable and
// shared).
func compileFresh(t reflect.Type) freshFunc {
	switch t.Kind() {
	case reflect.Array:
		ef := compileFresh(t.Elem())
		if ef == nil || t.Len() == 0 {
			return nil
		}
		n, size := t.Len(), t.Elem().Size()
		return func(p unsafe.Pointer, a *arena) {
			for i := 0; i < n; i++ {
				ef(unsafe.Add(p, uintptr(i)*size), a)
			}
		}
	case reflect.Struct:
		var fresh []freshFunc
		var offs []uintptr
		for i := 0; i < t.NumField(); i++ {
			if fr := compileFresh(t.Field(i).Type); fr != nil {
				fresh, offs = append(fresh, fr), append(offs, t.Field(i).Offset)
			}
		}
		return structFresh(fresh, offs)
	case reflect.Slice:
		return sliceFresh(t)
	}
	return nil
}

func structFresh(fresh []freshFunc, offs []uintptr) freshFunc {
	switch len(fresh) {
	case 0:
		return nil
	case 1:
		f, off := fresh[0], offs[0]
		return func(p unsafe.Pointer, a *arena) { f(unsafe.Add(p, off), a) }
	}
	return func(p unsafe.Pointer, a *arena) {
		for i, f := range fresh {
			f(unsafe.Add(p, offs[i]), a)
		}
	}
}

// sliceFresh is the freshFunc of the slice type t: the memory sliceCodec's
// decoder would give the slice (from the arena, with room for two more
// elements, when the elements hold no pointers), holding a copy of the
// elements, themselves made fresh.
func sliceFresh(t reflect.Type) freshFunc {
	elem := t.Elem()
	ef := compileFresh(elem)
	size := elem.Size()
	if !hasPointers(elem) {
		return func(p unsafe.Pointer, a *arena) {
			h := (*sliceHeader)(p)
			n := h.len
			if a == nil {
				if n == 0 {
					*h = sliceHeader{}
					return
				}
				s := reflect.MakeSlice(t, n, n)
				reflect.Copy(s, reflect.NewAt(t, p).Elem())
				reflect.NewAt(t, p).Elem().Set(s)
				return
			}
			data := a.alloc(uintptr(n+2) * size)
			if n > 0 {
				copy(unsafe.Slice((*byte)(data), uintptr(n)*size), unsafe.Slice((*byte)(h.data), uintptr(n)*size))
			}
			*h = sliceHeader{data: data, len: n, cap: n + 2}
		}
	}
	return func(p unsafe.Pointer, a *arena) {
		h := (*sliceHeader)(p)
		if h.len == 0 {
			*h = sliceHeader{}
			return
		}
		old := reflect.NewAt(t, p).Elem()
		s := reflect.MakeSlice(t, h.len, h.len)
		reflect.Copy(s, old)
		old.Set(s)
		if ef != nil {
			for i := 0; i < h.len; i++ {
				ef(unsafe.Add(h.data, uintptr(i)*size), a)
			}
		}
	}
}

func isConst(f reflect.StructField) bool {
	return f.Tag.Get("vacheck") == "-"
}

// displayName is the name a trace shows for a field: its `vacheck:"name"`
// tag, or the field name with a lower-case first letter ("Status" shows as
// status, as pseudocode writes it), except that a name that starts with an
// acronym is shown as written (PC, RN, TSV). A tag `vacheck:",omitempty"`
// keeps the field name and hides the field in traces while it is zero or
// empty; a tag `vacheck:",bottom"` says that its zero value means ⊥, which
// traces print as ⊥ (explorer.Bottom).
func displayName(f reflect.StructField) string {
	if tag, _, _ := strings.Cut(f.Tag.Get("vacheck"), ","); tag != "" && tag != "-" {
		return tag
	}
	if len(f.Name) > 1 && unicode.IsUpper(rune(f.Name[1])) {
		return f.Name
	}
	return strings.ToLower(f.Name[:1]) + f.Name[1:]
}

func structCodec(encs []encFunc, decs []decFunc, offs []uintptr) (encFunc, decFunc) {
	return func(p unsafe.Pointer, b []byte) []byte {
			for i, e := range encs {
				b = e(unsafe.Add(p, offs[i]), b)
			}
			return b
		}, func(p unsafe.Pointer, b []byte, a *arena) ([]byte, error) {
			var err error
			for i, d := range decs {
				if b, err = d(unsafe.Add(p, offs[i]), b, a); err != nil {
					return nil, err
				}
			}
			return b, nil
		}
}

func compileType(t reflect.Type, where string) (encFunc, decFunc, error) {
	switch t.Kind() {
	case reflect.Bool:
		return func(p unsafe.Pointer, b []byte) []byte {
				if *(*bool)(p) {
					return append(b, 1)
				}
				return append(b, 0)
			}, func(p unsafe.Pointer, b []byte, _ *arena) ([]byte, error) {
				if len(b) == 0 {
					return nil, errShort
				}
				*(*bool)(p) = b[0] != 0
				return b[1:], nil
			}, nil
	case reflect.Int:
		return intCodec[int]()
	case reflect.Int8:
		return intCodec[int8]()
	case reflect.Int16:
		return intCodec[int16]()
	case reflect.Int32:
		return intCodec[int32]()
	case reflect.Int64:
		return intCodec[int64]()
	case reflect.Uint:
		return uintCodec[uint]()
	case reflect.Uint8:
		return uintCodec[uint8]()
	case reflect.Uint16:
		return uintCodec[uint16]()
	case reflect.Uint32:
		return uintCodec[uint32]()
	case reflect.Uint64:
		return uintCodec[uint64]()
	case reflect.String:
		return func(p unsafe.Pointer, b []byte) []byte {
				s := *(*string)(p)
				b = binary.AppendUvarint(b, uint64(len(s)))
				return append(b, s...)
			}, func(p unsafe.Pointer, b []byte, _ *arena) ([]byte, error) {
				n, k := binary.Uvarint(b)
				if k <= 0 || uint64(len(b)-k) < n {
					return nil, errShort
				}
				s := (*string)(p)
				if *s != string(b[k:k+int(n)]) {
					*s = string(b[k : k+int(n)])
				}
				return b[k+int(n):], nil
			}, nil
	case reflect.Array:
		ee, ed, err := compileType(t.Elem(), where+"[]")
		if err != nil {
			return nil, nil, err
		}
		n, size := t.Len(), t.Elem().Size()
		return func(p unsafe.Pointer, b []byte) []byte {
				for i := 0; i < n; i++ {
					b = ee(unsafe.Add(p, uintptr(i)*size), b)
				}
				return b
			}, func(p unsafe.Pointer, b []byte, a *arena) ([]byte, error) {
				var err error
				for i := 0; i < n; i++ {
					if b, err = ed(unsafe.Add(p, uintptr(i)*size), b, a); err != nil {
						return nil, err
					}
				}
				return b, nil
			}, nil
	case reflect.Slice:
		return sliceCodec(t, where)
	case reflect.Struct:
		var encs []encFunc
		var decs []decFunc
		var offs []uintptr
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if isConst(f) {
				return nil, nil, fmt.Errorf("automaton: %s.%s: constant fields (`vacheck:\"-\"`) are allowed only at the top level of a process state", where, f.Name)
			}
			e, d, err := compileType(f.Type, where+"."+f.Name)
			if err != nil {
				return nil, nil, err
			}
			encs, decs, offs = append(encs, e), append(decs, d), append(offs, f.Offset)
		}
		e, d := structCodec(encs, decs, offs)
		return e, d, nil
	case reflect.Map:
		return nil, nil, fmt.Errorf("automaton: %s: maps are not supported in states (their order is random); use a sorted slice, or tag the field `vacheck:\"-\"` if it is constant", where)
	default:
		return nil, nil, fmt.Errorf("automaton: %s: %s values are not supported in states; use booleans, integers, strings, slices, arrays and structs, or tag the field `vacheck:\"-\"` if it is constant", where, t.Kind())
	}
}

func sliceCodec(t reflect.Type, where string) (encFunc, decFunc, error) {
	elem := t.Elem()
	ee, ed, err := compileType(elem, where+"[]")
	if err != nil {
		return nil, nil, err
	}
	size := elem.Size()
	flat := !hasPointers(elem)
	return func(p unsafe.Pointer, b []byte) []byte {
			h := (*sliceHeader)(p)
			b = binary.AppendUvarint(b, uint64(h.len))
			for i := 0; i < h.len; i++ {
				b = ee(unsafe.Add(h.data, uintptr(i)*size), b)
			}
			return b
		}, func(p unsafe.Pointer, b []byte, a *arena) ([]byte, error) {
			n, k := binary.Uvarint(b)
			// Every element takes at least one byte, except zero-size ones.
			if k <= 0 || (size > 0 && n > uint64(len(b))) || n > 1<<31 {
				return nil, errShort
			}
			b = b[k:]
			h := (*sliceHeader)(p)
			switch {
			case flat && a != nil:
				// Room for two more elements, so that an effect that appends
				// to the slice does not allocate; the arena memory belongs to
				// this value alone.
				*h = sliceHeader{data: a.alloc(uintptr(n+2) * size), len: int(n), cap: int(n + 2)}
			case n == 0:
				*h = sliceHeader{}
				return b, nil
			default:
				reflect.NewAt(t, p).Elem().Set(reflect.MakeSlice(t, int(n), int(n)))
			}
			var err error
			for i := 0; i < int(n); i++ {
				if b, err = ed(unsafe.Add(h.data, uintptr(i)*size), b, a); err != nil {
					return nil, err
				}
			}
			return b, nil
		}, nil
}

// hasPointers reports whether values of t hold pointers the garbage
// collector must see; slices of such values are never carved from an arena.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return false
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	default:
		return true
	}
}

type sliceHeader struct {
	data unsafe.Pointer
	len  int
	cap  int
}

type signed interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64
}

type unsigned interface {
	~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

func intCodec[T signed]() (encFunc, decFunc, error) {
	return func(p unsafe.Pointer, b []byte) []byte {
			v := int64(*(*T)(p))
			if v >= 0 && v < 64 {
				return append(b, byte(v<<1))
			}
			return binary.AppendVarint(b, v)
		}, func(p unsafe.Pointer, b []byte, _ *arena) ([]byte, error) {
			if len(b) > 0 && b[0] < 0x80 {
				x := b[0]
				*(*T)(p) = T(int64(x>>1) ^ -int64(x&1))
				return b[1:], nil
			}
			v, k := binary.Varint(b)
			if k <= 0 {
				return nil, errShort
			}
			*(*T)(p) = T(v)
			return b[k:], nil
		}, nil
}

func uintCodec[T unsigned]() (encFunc, decFunc, error) {
	return func(p unsafe.Pointer, b []byte) []byte {
			v := uint64(*(*T)(p))
			if v < 0x80 {
				return append(b, byte(v))
			}
			return binary.AppendUvarint(b, v)
		}, func(p unsafe.Pointer, b []byte, _ *arena) ([]byte, error) {
			if len(b) > 0 && b[0] < 0x80 {
				*(*T)(p) = T(b[0])
				return b[1:], nil
			}
			v, k := binary.Uvarint(b)
			if k <= 0 {
				return nil, errShort
			}
			*(*T)(p) = T(v)
			return b[k:], nil
		}, nil
}

// arena hands out pointer-free memory for decoded slices and takes it all
// back at once with reset. Memory from an arena must not outlive its next
// reset; the automaton package resets an arena only after everything decoded
// into it has been encoded again.
type arena struct {
	buf []uint64
	off int
	// chunk is the size in words of the buffers it allocates; 0 means
	// arenaChunk.
	chunk int
}

// arenaChunk is the default size in words of an arena's buffers.
const arenaChunk = 8192

func (a *arena) alloc(size uintptr) unsafe.Pointer {
	words := int((size + 7) / 8)
	if words == 0 {
		words = 1 // a distinct, valid address even for zero-size elements
	}
	if a.off+words > len(a.buf) {
		n := a.chunk
		if n == 0 {
			n = arenaChunk
		}
		for n < 2*words {
			n *= 2
		}
		a.buf = make([]uint64, n)
		a.off = 0
	}
	p := unsafe.Pointer(&a.buf[a.off])
	a.off += words
	return p
}

func (a *arena) reset() { a.off = 0 }
