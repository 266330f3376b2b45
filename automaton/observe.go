package automaton

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/zeebo/xxh3"
)

// Layout implements explorer.Observable: the variables of a process as
// traces name them, and the channels in Links order.
func (sys *System[S, M, P]) Layout() explorer.Layout {
	l := explorer.Layout{N: sys.n, FIFO: sys.disc == channel.FIFO}
	for _, f := range sys.pc.fields {
		l.Vars = append(l.Vars, f.name)
	}
	if len(sys.pc.fields) == 0 {
		l.Vars = []string{"value"} // a process that is not a struct
	}
	for c, k := range sys.cfg.Links {
		l.Chans = append(l.Chans, explorer.ChanLayout{From: k.From, To: k.To, Port: sys.portOf(c)})
	}
	seen := map[reflect.Type]bool{}
	for _, f := range sys.pc.fields {
		l.Fields = structFields(reflect.TypeFor[S]().Field(f.index).Type, seen, l.Fields)
	}
	l.Fields = structFields(reflect.TypeFor[M](), seen, l.Fields)
	for _, name := range fielderNames(reflect.TypeFor[M]()) {
		if !slices.Contains(l.Fields, name) {
			l.Fields = append(l.Fields, name)
		}
	}
	return l
}

// structFields appends to names the names of the fields of every struct
// inside a value of type t (plainValue makes them maps), each type once.
func structFields(t reflect.Type, seen map[reflect.Type]bool, names []string) []string {
	if seen[t] {
		return names
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return structFields(t.Elem(), seen, names)
	case reflect.Struct:
		if t.Implements(reflect.TypeFor[fmt.Stringer]()) {
			return names // a string
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if isConst(f) {
				continue
			}
			if name := displayName(f); !slices.Contains(names, name) {
				names = append(names, name)
			}
			names = structFields(f.Type, seen, names)
		}
	}
	return names
}

// observer is what a System built by Observe keeps of its Observation.
type observer struct {
	o *explorer.Observation
	// base is the index, among Config.Assertions, of the first action
	// property: action k fails as assertion base+k.
	base int
}

// Observe implements explorer.Observable: a System whose Config has the
// invariants and reachability properties of o after its own invariants,
// its liveness properties after its own, and its action properties as
// assertions that every transition makes after its effect, so that a
// violation is the state the transition reached, with the transition as
// the trace's last step. The new System allows no partial-order reduction
// (an expression may read any variable), and its successors are not
// offered by keys when o has actions (each must be built to be judged).
func (sys *System[S, M, P]) Observe(o *explorer.Observation) (explorer.Model, error) {
	if sys.tracking() {
		return nil, fmt.Errorf("%w: observe the model before instrumenting it", ErrConfig)
	}
	cfg := sys.cfg
	cfg.Links = sys.userLinks // New appends Config.Chans again
	if sys.lazy {
		cfg.Initial = nil // New takes the first of InitialSeq again
	}
	// No partial-order reduction, nor the assumptions it relies on.
	cfg.PartialOrder = nil
	cfg.Assumptions = slices.DeleteFunc(slices.Clone(cfg.Assumptions), func(a Assumption[S, M]) bool { return a.Of == OfPartialOrder })
	cfg.Invariants = slices.Clone(cfg.Invariants)
	cfg.Assertions = slices.Clone(cfg.Assertions)
	cfg.Liveness = slices.Clone(cfg.Liveness)
	names := map[string]bool{}
	for _, p := range sys.props {
		names[p.Name] = true
	}
	for _, l := range sys.Liveness() {
		names[l.Name] = true
	}
	taken := func(name string) error {
		if names[name] {
			return fmt.Errorf("%w: the property %q is defined twice", ErrConfig, name)
		}
		names[name] = true
		return nil
	}
	var cp *System[S, M, P] // the new System, which the predicates read through
	for _, p := range o.Invariants {
		if err := taken(p.Name); err != nil {
			return nil, err
		}
		holds, reach := p.Holds, p.Kind == properties.Reachable
		if p.Kind != properties.Invariant && !reach {
			return nil, fmt.Errorf("%w: %q has kind %v; a state predicate is an invariant or a reachability property", ErrConfig, p.Name, p.Kind)
		}
		k, procsOnly := len(cfg.Invariants), p.ProcsOnly
		cfg.Invariants = append(cfg.Invariants, Invariant[S, M]{Name: p.Name, Doc: p.Doc, Kind: p.Kind, Holds: func(v *View[S, M]) bool {
			st := cp.observed(v)
			if !procsOnly {
				// A reachability property is "violated" (met) where it
				// holds.
				return must(holds(st)) != reach
			}
			return st.remember(k, func() bool { return must(holds(st)) != reach })
		}})
	}
	base := len(cfg.Assertions)
	for _, p := range o.Actions {
		if err := taken(p.Name); err != nil {
			return nil, err
		}
		cfg.Assertions = append(cfg.Assertions, Assertion{Name: p.Name, Doc: p.Doc})
	}
	for _, p := range o.Liveness {
		if err := taken(p.Name); err != nil {
			return nil, err
		}
		l := Liveness[S, M]{Name: p.Name, Doc: p.Doc}
		switch p.Kind {
		case properties.Eventually:
		case properties.Stable:
			l.Stable = true
		default:
			return nil, fmt.Errorf("%w: %q has kind %v; a liveness predicate is eventually or stable", ErrConfig, p.Name, p.Kind)
		}
		goal, when := p.Goal, p.When
		l.Goal = func(v *View[S, M], _ int) bool { return must(goal(cp.observed(v))) }
		if when != nil {
			l.When = func(v *View[S, M], _ int) bool { return must(when(cp.observed(v))) }
		}
		cfg.Liveness = append(cfg.Liveness, l)
	}
	// New reads Constraint and Bound as one (cfg.constraint), and sys.cfg
	// has both set to the model's own; the copy keeps only Bound.
	cfg.Constraint, cfg.ConstraintDoc = nil, ""
	if len(o.Constraints) > 0 {
		cfg.Bound, cfg.BoundDoc = sys.observedConstraint(o.Constraints, len(cfg.Invariants), &cp)
	}
	var err error
	if cp, err = New[S, M, P](cfg); err != nil {
		return nil, err
	}
	for k := range o.Actions {
		i := len(cfg.Invariants) + base + k
		cp.props[i].Kind = properties.Action
	}
	cp.obs = &observer{o: o, base: base}
	return cp, nil
}

// observedConstraint returns the conjunction of the model's own
// constraint (Config.Bound, if any) and the Observation's constraints cs,
// which read the state through *cp, and what it is in words: the model's
// constraint, then each expression under its name, joined by "and". The
// verdict of a constraint that reads only the processes is remembered as
// an invariant's is, as the one of index base+k.
func (sys *System[S, M, P]) observedConstraint(cs []explorer.StatePredicate, base int, cp **System[S, M, P]) (func(v *View[S, M]) bool, string) {
	own := sys.cfg.Bound
	var docs []string
	if own != nil {
		docs = append(docs, sys.cfg.BoundDoc)
	}
	for _, c := range cs {
		if c.Doc != "" {
			docs = append(docs, c.Doc)
		} else {
			docs = append(docs, c.Name)
		}
	}
	cs = slices.Clone(cs)
	return func(v *View[S, M]) bool {
		if own != nil && !own(v) {
			return false
		}
		st := (*cp).observed(v)
		for k, c := range cs {
			var ok bool
			if c.ProcsOnly {
				ok = st.remember(base+k, func() bool { return must(c.Holds(st)) })
			} else {
				ok = must(c.Holds(st))
			}
			if !ok {
				return false
			}
		}
		return true
	}, strings.Join(docs, " and ")
}

// must returns ok, or panics with err as a model error, which the worker
// turns into an error of the state it checks.
func must(ok bool, err error) bool {
	if err != nil {
		panic(modelError{err.Error()})
	}
	return ok
}

// observedState is an explorer.State over a View.
type observedState[S any, M Message] struct {
	v    *View[S, M]
	sys  *observerSys[S, M]
	msgs [][]any // per channel, its messages as the Observation made them
	got  []bool  // per channel: msgs holds the channel of the state loaded
	// memo remembers the verdicts of the invariants that read only the
	// processes (StatePredicate.ProcsOnly), by the processes' encodings.
	memo []procsMemo
}

// procsMemo is an entry of observedState.memo: the processes' encodings
// (the state's segments 1..N with their lengths) and, for each invariant k
// in known, its verdict in ok.
type procsMemo struct {
	procs     []byte
	known, ok uint64
}

// memoBits is the number of bits of a hash of the processes' encodings
// that picks an entry of observedState.memo.
const memoBits = 12

// remember returns the verdict of invariant k in the state loaded, which
// depends on the processes only: the one remembered for the processes'
// encodings, or eval's, which it remembers. The entry is picked by a hash
// and kept with the encodings, which a hit compares byte for byte.
func (st *observedState[S, M]) remember(k int, eval func() bool) bool {
	if k >= 64 {
		return eval()
	}
	v := st.v
	procs := v.state[v.bounds[0][1]:v.bounds[len(v.procs)][1]]
	if st.memo == nil {
		st.memo = make([]procsMemo, 1<<memoBits)
	}
	e := &st.memo[xxh3.Hash(procs)>>(64-memoBits)]
	bit := uint64(1) << uint(k)
	if !bytes.Equal(e.procs, procs) {
		e.procs, e.known, e.ok = append(e.procs[:0], procs...), 0, 0
	} else if e.known&bit != 0 {
		return e.ok&bit != 0
	}
	ok := eval()
	e.known |= bit
	if ok {
		e.ok |= bit
	}
	return ok
}

// observerSys is what an observedState needs of its System.
type observerSys[S any, M Message] struct {
	o      *explorer.Observation
	fields []fieldInfo
	links  []Link
}

// observed returns v as an explorer.State, made once per view.
func (sys *System[S, M, P]) observed(v *View[S, M]) *observedState[S, M] {
	if v.obs == nil {
		c := len(sys.cfg.Links)
		v.obs = &observedState[S, M]{v: v, sys: &observerSys[S, M]{o: sys.obs.o, fields: sys.pc.fields, links: sys.cfg.Links},
			msgs: make([][]any, c), got: make([]bool, c)}
	}
	return v.obs
}

// Proc implements explorer.State. The value is made once for each value
// the process takes that the view's cache remembers.
func (st *observedState[S, M]) Proc(i int) any {
	p := st.v.Proc(i)
	e := st.v.ents[i]
	if e != nil && e.obsOK {
		return e.obs
	}
	val := st.sys.o.Proc(i, st.sys.vars(p))
	if e != nil {
		e.obs, e.obsOK = val, true
	}
	return val
}

// vars returns the variables of p as plain values, in field order.
func (s *observerSys[S, M]) vars(p *S) []any {
	rv := reflect.ValueOf(p).Elem()
	if len(s.fields) == 0 {
		return []any{plainValue(rv)}
	}
	out := make([]any, len(s.fields))
	for k, f := range s.fields {
		out[k] = plainValue(rv.Field(f.index))
	}
	return out
}

// Chan implements explorer.State.
func (st *observedState[S, M]) Chan(c int) []any {
	if st.got[c] {
		return st.msgs[c]
	}
	out := st.msgs[c][:0]
	for _, m := range st.v.chanAt(c) {
		out = append(out, st.sys.o.Msg(plainValue(reflect.ValueOf(m))))
	}
	st.msgs[c], st.got[c] = out, true
	return out
}

// plainValue converts a state value for an Observation
// (explorer.Observation.Proc): integers to int, Stringers and strings to
// string, lists to []any, structs to maps of their fields named as traces
// name them.
func plainValue(v reflect.Value) any {
	if !v.CanInterface() {
		if !v.CanAddr() {
			return fmt.Sprint(v)
		}
		v = reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
	}
	if f, ok := v.Interface().(Fielder); ok {
		return fielderValue(f)
	}
	if s, ok := v.Interface().(fmt.Stringer); ok {
		return s.String()
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return int(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return int(v.Uint())
	case reflect.Bool:
		return v.Bool()
	case reflect.String:
		return v.String()
	case reflect.Float32, reflect.Float64:
		return v.Float()
	case reflect.Slice, reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = plainValue(v.Index(i))
		}
		return out
	case reflect.Struct:
		out := make(map[string]any, v.NumField())
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if isConst(f) {
				continue
			}
			out[displayName(f)] = plainValue(v.Field(i))
		}
		return out
	}
	return fmt.Sprint(v.Interface())
}

// checkActions judges the transition a, whose successor apply left in
// w.out, by the action properties of the Observation, and when one fails
// applies a again with that assertion failed, so that the successor is the
// violating state; it returns the transition as apply does.
func (w *worker[S, M, P]) checkActions(a action, t explorer.Transition) explorer.Transition {
	sys := w.sys
	if w.lastFailed != 0 {
		return t // the successor is a violation already
	}
	if w.av.sys == nil {
		w.av = newView[S, M](sys)
	}
	w.load(&w.av, w.out)
	old, next := sys.observed(&w.v), sys.observed(&w.av)
	for k, p := range sys.obs.o.Actions {
		if !must(p.Holds(old, next)) {
			w.failed = sys.obs.base + k + 1
			return w.apply(a)
		}
	}
	return t
}
