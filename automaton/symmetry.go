package automaton

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/vacheck/vacheck/explorer"
)

// Symmetry is a group of permutations of the processes that a system
// declares (Config.Symmetry): every permutation g of the group maps the
// system onto itself. A state is permuted by moving process i's state to
// process g(i), the messages of channel (i,j) to channel (g(i),g(j)), and
// mapping every value of type Proc p to g(p); what else a permutation
// changes (a direction that a reflection reverses) a process or message type
// does itself by implementing Permuter.
//
// Declaring a symmetry promises that the system's transitions, invariants,
// valid end states and metrics do not depend on which process is which
// beyond that: in particular, a process's behaviour may depend on its index
// only through the topology (v.Self()+1 mod N on a ring), never by
// comparing it with a constant. The search under --symmetry checks this
// promise in every state it reaches (explorer.Config.Symmetry) and fails
// the run where it is broken.
type Symmetry uint8

const (
	// NoSymmetry declares none: --symmetry is refused.
	NoSymmetry Symmetry = iota
	// Rotations is the cyclic group of a ring of N processes: i ↦ i+k
	// mod N for k = 0 .. N-1 (N elements).
	Rotations
	// Dihedral is the group of a bidirectional ring: the rotations and the
	// reflections i ↦ k-i mod N (2N elements, for N ≥ 3; the rotations
	// alone for N ≤ 2, where a reflection is a rotation).
	Dihedral
)

func (s Symmetry) String() string {
	switch s {
	case NoSymmetry:
		return "none"
	case Rotations:
		return "rotations"
	case Dihedral:
		return "dihedral"
	}
	return fmt.Sprintf("Symmetry(%d)", uint8(s))
}

// Perm is one permutation of a system's symmetry group, as Permuter
// receives it.
type Perm struct {
	to         []int
	reflection bool
}

// Index returns the image g(i) of process index i.
func (g Perm) Index(i int) int { return g.to[i] }

// Proc returns the image of process p; NoProc (and any negative value)
// stays as it is.
func (g Perm) Proc(p Proc) Proc {
	if p < 0 {
		return p
	}
	if int(p) >= len(g.to) {
		panic(modelError{fmt.Sprintf("a Proc value %d is not a process (N = %d)", int(p)+1, len(g.to))})
	}
	return Proc(g.to[p])
}

// Reflection reports whether g reverses the orientation of the ring (a
// reflection of the dihedral group): what a process calls its left
// neighbour is then on its right.
func (g Perm) Reflection() bool { return g.reflection }

// Permuter is implemented (on the pointer) by a process or message type
// that holds something a permutation of the processes changes besides its
// Proc values, such as a direction of travel on a bidirectional ring that a
// reflection reverses. Permute is called on the moved value, after its Proc
// values have been mapped by g.
type Permuter interface {
	Permute(g Perm)
}

// symGroup is a system's symmetry group, compiled.
type symGroup struct {
	kind  Symmetry
	perms []Perm
	inv   [][]int // inv[g][k]: the process that g moves to k
	// chanFrom[g][c]: the channel whose messages g moves to channel c.
	chanFrom [][]int
	// slow is set when permuting a segment needs decoding it: the process
	// or message type holds Proc values or implements Permuter.
	slow                bool
	procRemap, msgRemap func(p unsafe.Pointer, g Perm)
	procPerm, msgPerm   bool
	crashes             bool // the environment segment holds the set of crashed processes
	constantsDiffer     string
	describe            string
}

// compileSymmetry builds the group Config.Symmetry declares and checks
// that it maps every link onto a link.
func (sys *System[S, M, P]) compileSymmetry() error {
	kind := sys.cfg.Symmetry
	if kind == NoSymmetry {
		return nil
	}
	if kind != Rotations && kind != Dihedral {
		return fmt.Errorf("%w: unknown Symmetry %d", ErrConfig, kind)
	}
	n := sys.n
	g := &symGroup{kind: kind, crashes: sys.cfg.Crashes > 0 || sys.down != 0}
	add := func(to []int, refl bool) error {
		inv := make([]int, n)
		for i, j := range to {
			inv[j] = i
		}
		from := make([]int, len(sys.cfg.Links))
		for c, l := range sys.cfg.Links {
			if refl && sys.portOf(c) != "" {
				// A reflection turns a port such as clockwise into its
				// opposite, which a name cannot say.
				return fmt.Errorf("%w: Symmetry %s has reflections, which would map the channel %d->%d on port %q to a channel on the same port; use Rotations with ports", ErrConfig, kind, l.From+1, l.To+1, sys.portOf(c))
			}
			img := sys.portIndex(to[l.From], to[l.To], sys.portOf(c))
			if img < 0 {
				return fmt.Errorf("%w: Symmetry %s maps link %d->%d to %d->%d, which is not a link of the system", ErrConfig, kind, l.From+1, l.To+1, to[l.From]+1, to[l.To]+1)
			}
			from[img] = c
		}
		g.perms = append(g.perms, Perm{to: to, reflection: refl})
		g.inv = append(g.inv, inv)
		g.chanFrom = append(g.chanFrom, from)
		return nil
	}
	for k := 0; k < n; k++ {
		to := make([]int, n)
		for i := range to {
			to[i] = (i + k) % n
		}
		if err := add(to, false); err != nil {
			return err
		}
	}
	if kind == Dihedral && n >= 3 {
		for k := 0; k < n; k++ {
			to := make([]int, n)
			for i := range to {
				to[i] = (k - i + n) % n
			}
			if err := add(to, true); err != nil {
				return err
			}
		}
	}
	g.describe = fmt.Sprintf("%s of the ring, %d elements", map[Symmetry]string{Rotations: "rotations", Dihedral: "rotations and reflections"}[kind], len(g.perms))
	if kind == Dihedral && n < 3 {
		g.describe = fmt.Sprintf("rotations of the ring (no reflection for N = %d), %d elements", n, len(g.perms))
	}
	g.procRemap = procRemapper(reflect.TypeFor[S]())
	g.msgRemap = procRemapper(reflect.TypeFor[M]())
	_, g.procPerm = any(new(S)).(Permuter)
	_, g.msgPerm = any(new(M)).(Permuter)
	g.slow = g.procRemap != nil || g.msgRemap != nil || g.procPerm || g.msgPerm
	// Constant fields are not in the state: a permutation keeps each
	// process's own, so they must be the same for every process.
	a := reflect.ValueOf(&sys.protos[0]).Elem()
	for i := 1; i < n && g.constantsDiffer == ""; i++ {
		b := reflect.ValueOf(&sys.protos[i]).Elem()
		for _, c := range sys.pc.consts {
			fa, fb := a.Field(c.index), b.Field(c.index)
			va := reflect.NewAt(fa.Type(), unsafe.Pointer(fa.UnsafeAddr())).Elem().Interface()
			vb := reflect.NewAt(fb.Type(), unsafe.Pointer(fb.UnsafeAddr())).Elem().Interface()
			if !reflect.DeepEqual(va, vb) {
				g.constantsDiffer = fmt.Sprintf("the constant field %s differs between process 1 and process %d", c.name, i+1)
				break
			}
		}
	}
	sys.sym = g
	return nil
}

// procRemapper returns a function that maps every Proc value inside a value
// of type t by a permutation, or nil when t holds none. Constant fields
// (`vacheck:"-"`) are left alone: they are not part of the state.
func procRemapper(t reflect.Type) func(p unsafe.Pointer, g Perm) {
	if t == reflect.TypeFor[Proc]() {
		return func(p unsafe.Pointer, g Perm) {
			v := (*Proc)(p)
			*v = g.Proc(*v)
		}
	}
	switch t.Kind() {
	case reflect.Struct:
		type field struct {
			off uintptr
			fn  func(unsafe.Pointer, Perm)
		}
		var fs []field
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if isConst(f) {
				continue
			}
			if fn := procRemapper(f.Type); fn != nil {
				fs = append(fs, field{f.Offset, fn})
			}
		}
		if len(fs) == 0 {
			return nil
		}
		return func(p unsafe.Pointer, g Perm) {
			for _, f := range fs {
				f.fn(unsafe.Add(p, f.off), g)
			}
		}
	case reflect.Array:
		fn := procRemapper(t.Elem())
		if fn == nil {
			return nil
		}
		n, size := t.Len(), t.Elem().Size()
		return func(p unsafe.Pointer, g Perm) {
			for i := 0; i < n; i++ {
				fn(unsafe.Add(p, uintptr(i)*size), g)
			}
		}
	case reflect.Slice:
		fn := procRemapper(t.Elem())
		if fn == nil {
			return nil
		}
		size := t.Elem().Size()
		return func(p unsafe.Pointer, g Perm) {
			h := (*struct {
				data     unsafe.Pointer
				len, cap int
			})(p)
			for i := 0; i < h.len; i++ {
				fn(unsafe.Add(h.data, uintptr(i)*size), g)
			}
		}
	}
	return nil
}

// Symmetry implements explorer.Symmetric: it describes the group the
// system declares, or says why the search cannot be reduced by it.
func (sys *System[S, M, P]) Symmetry() (string, error) {
	g := sys.sym
	switch {
	case g == nil:
		return "", fmt.Errorf("%s declares no symmetry", sys.describeName())
	case g.constantsDiffer != "":
		return "", fmt.Errorf("%s declares %s symmetry, but %s", sys.describeName(), g.kind, g.constantsDiffer)
	case sys.tracking():
		return "", fmt.Errorf("symmetry reduction cannot be combined with tracked metrics (--metric time and the like)")
	case sys.obs != nil:
		// The search would judge them on representatives only.
		return "", fmt.Errorf("symmetry reduction cannot check properties written as expressions (--invariant and the like): an expression may tell processes apart (procs[0], id), which the group does not leave unchanged")
	}
	// The initial states must be a union of whole orbits: otherwise the
	// reduced search would also explore the runs of the permuted initial
	// states, and its counts would not be those of the system. The
	// explorer checks it as it streams them (explorer.Symmetric).
	return g.describe, nil
}

func (sys *System[S, M, P]) describeName() string {
	if sys.cfg.Name != "" {
		return sys.cfg.Name
	}
	return "the system"
}

// NewCanonicalizer implements explorer.Symmetric.
// GroupOrder implements explorer.GroupOrderer: the number of elements of
// the declared group (N for Rotations, 2N for Dihedral from N = 3 on), or
// 0 when there is none.
func (sys *System[S, M, P]) GroupOrder() int {
	if sys.sym == nil {
		return 0
	}
	return len(sys.sym.perms)
}

func (sys *System[S, M, P]) NewCanonicalizer() explorer.Canonicalizer {
	return sys.newCanonicalizer()
}

func (sys *System[S, M, P]) newCanonicalizer() *canonicalizer[S, M, P] {
	n := 1 + sys.n + len(sys.cfg.Links)
	// Each worker has its own: their memory keeps cache lines of its own
	// (see ownLines).
	c := &canonicalizer[S, M, P]{sys: sys, g: sys.sym, units: ownLines[[2]int](n), gunits: ownLines[[]byte](len(sys.sym.perms))}
	for _, b := range []*[]byte{&c.out, &c.best, &c.cand, &c.seg, &c.chseg, &c.alt, &c.mbuf} {
		*b = ownLines[byte](256)[:0]
	}
	return c
}

// canonicalizer computes representatives for one goroutine, with memory
// of its own that it reuses from state to state.
type canonicalizer[S any, M Message, P Process[S, M]] struct {
	_      [cacheLine]byte
	sys    *System[S, M, P]
	g      *symGroup
	s      []byte
	units  [][2]int // each segment of s with its length prefix
	gunits [][]byte // per permutation: the environment segment it gives (crashes)
	out    []byte
	// The slow path: each permuted state in full.
	best, cand []byte
	work       S
	msg        M
	arena      arena
	seg, chseg []byte
	alt, mbuf  []byte
	_          [cacheLine]byte
}

// Canonical implements explorer.Canonicalizer: the representative of s's
// orbit is the permutation of s with the smallest encoding (bytewise), and
// the orbit has |G|/|Stab(s)| states, where the stabilizer Stab(s) is the
// set of permutations that leave s as it is. rep is s itself when s is
// its own representative, else memory of the canonicalizer valid until
// its next call.
func (c *canonicalizer[S, M, P]) Canonical(s []byte) (rep []byte, orbit int, err error) {
	rep, orbit, _, err = c.CanonicalPerm(s)
	return rep, orbit, err
}

// CanonicalPerm implements explorer.Permuting: Canonical, with the index
// of a permutation of the group that maps s to rep.
func (c *canonicalizer[S, M, P]) CanonicalPerm(s []byte) (rep []byte, orbit, g int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("permuting a state: %w", panicError(r))
		}
	}()
	if c.g.slow {
		return c.canonicalSlow(s)
	}
	c.parse(s)
	best, same := 0, 1
	for k := 1; k < len(c.g.perms); k++ {
		switch cmp := c.compare(k, best); {
		case cmp < 0:
			best, same = k, 1
		case cmp == 0:
			same++
		}
	}
	orbit = len(c.g.perms) / same
	if best == 0 {
		return s, orbit, 0, nil
	}
	return c.permuted(best), orbit, best, nil
}

// permuted returns the permutation k of the parsed state, in c.out: the
// fast path's segments moved, or the slow path's encoded in full.
func (c *canonicalizer[S, M, P]) permuted(k int) []byte {
	c.out = c.out[:0]
	if c.g.slow {
		c.out, _ = c.permute(k, c.out, nil)
		return c.out
	}
	for u := range c.units {
		c.out = append(c.out, c.unit(k, u)...)
	}
	return c.out
}

// Permute implements explorer.Permuting: the permutation g of s, valid
// until the next call.
func (c *canonicalizer[S, M, P]) Permute(s []byte, g int) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("permuting a state: %w", panicError(r))
		}
	}()
	if g < 0 || g >= len(c.g.perms) {
		return nil, fmt.Errorf("permuting a state: no permutation %d in a group of %d", g, len(c.g.perms))
	}
	c.parse(s)
	return c.permuted(g), nil
}

// parse finds the segments of s, and with crashes the environment segment
// of every permutation.
func (c *canonicalizer[S, M, P]) parse(s []byte) {
	c.s = s
	off := 0
	for k := range c.units {
		l, m := binary.Uvarint(s[off:])
		if m <= 0 || off+m+int(l) > len(s) {
			panic(errShort)
		}
		c.units[k] = [2]int{off, off + m + int(l)}
		off += m + int(l)
	}
	if c.g.crashes {
		l, m := binary.Uvarint(s)
		gl := c.sys.decodeGlobals(s[m : m+int(l)])
		for k, p := range c.g.perms {
			down := gl.down
			gl.down = 0
			for i, j := range p.to {
				if down&(1<<uint(i)) != 0 {
					gl.down |= 1 << uint(j)
				}
			}
			c.seg = c.sys.encodeGlobals(c.seg[:0], gl)
			c.gunits[k] = appendSeg(c.gunits[k][:0], c.seg)
			gl.down = down
		}
	}
}

// unit returns segment u (with its length prefix) of the permutation k of
// the parsed state.
func (c *canonicalizer[S, M, P]) unit(k, u int) []byte {
	n := c.sys.n
	src := u
	switch {
	case u == 0:
		if c.g.crashes {
			return c.gunits[k]
		}
	case u <= n:
		src = 1 + c.g.inv[k][u-1]
	default:
		src = 1 + n + c.g.chanFrom[k][u-1-n]
	}
	b := c.units[src]
	return c.s[b[0]:b[1]]
}

// compare compares the encodings of the permutations a and b of the parsed
// state, segment by segment: a length prefix is a prefix-free code, so the
// first segment that differs decides, as it would on the whole encodings.
func (c *canonicalizer[S, M, P]) compare(a, b int) int {
	for u := range c.units {
		if cmp := bytes.Compare(c.unit(a, u), c.unit(b, u)); cmp != 0 {
			return cmp
		}
	}
	return 0
}

// canonicalSlow is Canonical for a system whose segments must be decoded
// to be permuted: every permutation of s is encoded in full.
func (c *canonicalizer[S, M, P]) canonicalSlow(s []byte) ([]byte, int, int, error) {
	c.parse(s)
	c.best = append(c.best[:0], s...)
	same, g := 1, 0
	for k := 1; k < len(c.g.perms); k++ {
		var cmp int
		c.cand, cmp = c.permute(k, c.cand[:0], c.best)
		switch {
		case cmp < 0:
			c.best, c.cand = c.cand, c.best
			same, g = 1, k
		case cmp == 0:
			same++
		}
	}
	// The identity keeps s as it is only if decoding and encoding again
	// gives the same bytes, which the codec guarantees for a canonical
	// encoding.
	return c.best, len(c.g.perms) / same, g, nil
}

// permute appends the encoding of permutation k of the parsed state to out
// (empty) and compares it with best, the smallest encoding so far. It
// stops as soon as the segments it has encoded make the permutation
// greater than best (most permutations lose at their first process
// segment), and then returns a part of the encoding only; otherwise the
// whole encoding and how it compares. With best nil it compares nothing
// and encodes the whole permutation.
func (c *canonicalizer[S, M, P]) permute(k int, out, best []byte) ([]byte, int) {
	sys, g := c.sys, c.g
	p := g.perms[k]
	// decided is the comparison of out with best once a byte differs.
	decided := 0
	// behind reports whether out, as far as it goes, is greater than best:
	// the segments are prefix-free, so the first byte that differs
	// decides, as on the whole encodings.
	behind := func() bool {
		if best == nil {
			return false
		}
		if decided == 0 {
			decided = bytes.Compare(out, best[:min(len(out), len(best))])
		}
		return decided > 0
	}
	out = append(out, c.unit(k, 0)...)
	if behind() {
		return out, 1
	}
	for u := 1; u <= sys.n; u++ {
		seg := c.payload(c.unit(k, u))
		c.arena.reset()
		c.work = sys.protos[0]
		if _, err := sys.pc.dec(unsafe.Pointer(&c.work), seg, &c.arena); err != nil {
			panic(err)
		}
		if g.procRemap != nil {
			g.procRemap(unsafe.Pointer(&c.work), p)
		}
		if g.procPerm {
			any(&c.work).(Permuter).Permute(p)
		}
		c.seg = sys.pc.enc(unsafe.Pointer(&c.work), c.seg[:0])
		out = appendSeg(out, c.seg)
		if behind() {
			return out, 1
		}
	}
	for u := 1 + sys.n; u < len(c.units); u++ {
		seg := c.payload(c.unit(k, u))
		c.chseg = c.chseg[:0]
		for off := 0; off < len(seg); {
			start, end := nextMsg(seg, off)
			c.arena.reset()
			if _, err := sys.mc.dec(unsafe.Pointer(&c.msg), seg[start:end], &c.arena); err != nil {
				panic(err)
			}
			if g.msgRemap != nil {
				g.msgRemap(unsafe.Pointer(&c.msg), p)
			}
			if g.msgPerm {
				any(&c.msg).(Permuter).Permute(p)
			}
			c.mbuf = sys.mc.enc(unsafe.Pointer(&c.msg), c.mbuf[:0])
			c.alt = sys.disc.Append(c.alt[:0], c.chseg, c.mbuf)
			c.chseg, c.alt = c.alt, c.chseg
			off = end
		}
		out = appendSeg(out, c.chseg)
		if behind() {
			return out, 1
		}
	}
	if decided == 0 {
		decided = bytes.Compare(out, best)
	}
	return out, decided
}

// payload strips the length prefix of a segment.
func (c *canonicalizer[S, M, P]) payload(unit []byte) []byte {
	_, m := binary.Uvarint(unit)
	return unit[m:]
}

// nextMsg returns the payload bounds of the message at off in a channel
// segment.
func nextMsg(seg []byte, off int) (start, end int) {
	l, m := binary.Uvarint(seg[off:])
	return off + m, off + m + int(l)
}
