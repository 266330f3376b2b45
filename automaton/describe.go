package automaton

import (
	"fmt"
	"reflect"
	"strings"
	"unsafe"

	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
)

// Describe implements explorer.Describer: the variables of every process
// (p1.status, ...), then every channel (queue_{1,2} for a FIFO channel,
// bag_{1,2} for an unordered one, whose messages are listed in the canonical
// order of the state, not in the order they were sent; with mailboxes one
// mailbox_{2} per receiver instead, see mailbox.go), then the crashed
// processes when crashes are modelled. Processes are numbered from 1. A
// process that is a FieldUser shows only the fields its role uses; a field
// tagged `vacheck:",bottom"` shows its zero value as ⊥ (explorer.Bottom).
func (sys *System[S, M, P]) Describe(s []byte) (vars []explorer.Var, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError(r)
		}
	}()
	v := newView[S, M](sys)
	v.load(s, sys.decodeGlobals)
	for i := 0; i < sys.n; i++ {
		p := sys.protos[i]
		if _, err := sys.pc.dec(unsafe.Pointer(&p), v.seg(1+i), nil); err != nil {
			return nil, err
		}
		rv := reflect.ValueOf(&p).Elem()
		if len(sys.pc.fields) == 0 {
			vars = append(vars, explorer.Var{Name: fmt.Sprintf("p%d", i+1), Value: display(rv)})
			vars = sys.describeTrailer(vars, fmt.Sprintf("p%d.", i+1), v.seg(1+i))
			continue
		}
		uses, _ := any(&p).(FieldUser)
		for _, f := range sys.pc.fields {
			if f.omitEmpty && (rv.Field(f.index).IsZero() || (rv.Field(f.index).Kind() == reflect.Slice && rv.Field(f.index).Len() == 0)) {
				continue
			}
			if uses != nil && !uses.Uses(f.name) {
				continue
			}
			val := display(rv.Field(f.index))
			if f.bottom && rv.Field(f.index).IsZero() {
				val = explorer.Bottom{Raw: val}
			}
			vars = append(vars, explorer.Var{Name: fmt.Sprintf("p%d.%s", i+1, f.name), Value: val})
		}
		vars = sys.describeTrailer(vars, fmt.Sprintf("p%d.", i+1), v.seg(1+i))
	}
	kind := "queue"
	if sys.disc == channel.Unordered {
		kind = "bag"
	}
	if sys.mailbox() {
		vars = sys.describeMailboxes(vars, &v)
	}
	for c := range sys.cfg.Links {
		if sys.mailbox() {
			break
		}
		msgs := []any{}
		for _, m := range v.chanAt(c) {
			msgs = append(msgs, display(reflect.ValueOf(m)))
		}
		vars = append(vars, explorer.Var{Name: fmt.Sprintf("%s_{%s}", kind, sys.chanName(c)), Value: msgs})
	}
	for _, k := range sys.trackOrder() {
		t := sys.trk[k]
		vars = append(vars, t.run.DescribeEnv(v.g.env[t.envOff:t.envOff+t.lay.Env])...)
	}
	if f := v.g.failed; f != 0 {
		vars = append(vars, explorer.Var{Name: "failed-assertion", Value: sys.cfg.Assertions[f-1].Name})
	}
	if sys.cfg.Crashes > 0 || sys.down != 0 {
		crashed := []any{}
		for i := 0; i < sys.n; i++ {
			if !v.Up(i) {
				crashed = append(crashed, i+1)
			}
		}
		vars = append(vars, explorer.Var{Name: "crashed", Value: crashed}, explorer.Var{Name: "crashes-left", Value: v.CrashesLeft()})
	}
	if sys.cfg.Recoveries > 0 {
		vars = append(vars, explorer.Var{Name: "recoveries-left", Value: v.g.recoveries})
	}
	return vars, nil
}

// display converts a state value into something that prints well and
// marshals to JSON: Stringers become their string, slices and arrays lists,
// structs without a String method their %+v form.
func display(v reflect.Value) any {
	if !v.CanInterface() {
		if v.CanAddr() {
			v = reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
		} else {
			return fmt.Sprint(v)
		}
	}
	if s, ok := v.Interface().(fmt.Stringer); ok {
		return s.String()
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = display(v.Index(i))
		}
		return out
	case reflect.Struct:
		return fmt.Sprintf("%+v", v.Interface())
	}
	return v.Interface()
}

// Label implements explorer.Describer: the name of transition a of state s,
// with processes numbered from 1, e.g. send(5)_{1,2}, receive(5)_{1,2},
// enter_{3}, crash_{2}, recover_{2}, and pass_{1,2} for the shared action
// pass of process 1 with process 2.
func (sys *System[S, M, P]) Label(s []byte, a int) (label string, err error) {
	w := sys.labelWorker()
	defer func() {
		if r := recover(); r != nil {
			err = panicError(r)
			return // not reused: the panic may have left it half-way
		}
		sys.labelers.Put(w)
	}()
	w.captureTo, w.captured = -1, nil
	w.load(&w.v, s)
	w.enumerate()
	if a < 0 || a >= len(w.acts) {
		return "", fmt.Errorf("action %d: the state has %d transitions", a, len(w.acts))
	}
	act := w.acts[a]
	switch act.kind {
	case Input:
		var m M
		seg := w.v.seg(1 + sys.n + act.ch)
		if _, err := sys.mc.dec(unsafe.Pointer(&m), seg[act.start:act.end], nil); err != nil {
			return "", err
		}
		return fmt.Sprintf("receive(%s)_{%s}", msgString(m), sys.chanName(act.ch)), nil
	case Fault:
		if act.recover {
			return fmt.Sprintf("recover_{%d}", act.proc+1), nil
		}
		return fmt.Sprintf("crash_{%d}", act.proc+1), nil
	}
	st := *w.stepOf(&act)
	if st.HasTo {
		w.captureTo = st.To
		w.apply(act)
		if w.captured != nil {
			return fmt.Sprintf("%s(%s)_{%s}", st.Name, msgString(*w.captured), sys.chanName(w.capturedCh)), nil
		}
		return fmt.Sprintf("%s_{%d,%d}", st.Name, act.proc+1, st.To+1), nil
	}
	return stepLabel(st, act.proc), nil
}

// stepLabel is the label of step st of process i that does not show a
// message: name_{i} or name(arg)_{i}, and for a shared action its partners
// after i: name_{i,j,k}.
func stepLabel(st Step, i int) string {
	procs := fmt.Sprint(i + 1)
	for _, j := range st.Partners() {
		procs += fmt.Sprintf(",%d", j+1)
	}
	if st.HasArg {
		return fmt.Sprintf("%s(%d)_{%s}", st.Name, st.Arg, procs)
	}
	return fmt.Sprintf("%s_{%s}", st.Name, procs)
}

// labelWorker returns a worker for Label: one an earlier Label left in
// sys.labelers, or a new one. Building a worker takes tens of allocations
// (the cache of decoded processes above all), far more than labelling a
// transition, and a simulation labels the steps of every trace it shrinks
// (shrinking a counterexample of chang-roberts-broken --n 8 replays 93,601
// steps: 7.3 s of CPU with a worker per label, 0.44 s with them reused).
func (sys *System[S, M, P]) labelWorker() *worker[S, M, P] {
	if w, ok := sys.labelers.Get().(*worker[S, M, P]); ok && w.sys == sys {
		return w
	}
	w := sys.newWorker()
	w.memo, w.v.memos = false, false // one state at a time: no room for effects
	return w
}

func msgString(m any) string {
	s := fmt.Sprint(display(reflect.ValueOf(m)))
	return strings.TrimSpace(s)
}

// describeTrailer shows what the trackers of an instrumented system keep
// for a process (Instrument), such as its causal depth.
func (sys *System[S, M, P]) describeTrailer(vars []explorer.Var, prefix string, seg []byte) []explorer.Var {
	for _, k := range sys.trackOrder() {
		for _, x := range sys.trk[k].run.DescribeProc(sys.procTrail(seg, k)) {
			x.Name = prefix + x.Name
			vars = append(vars, x)
		}
	}
	return vars
}

// FieldUser is an optional interface of a process type whose processes
// play different roles, of which some never use some fields: a
// coordinator's queue on a client, an initiator's count on a process that
// only relays. Uses reports whether the process uses the field of the given
// trace name (a `vacheck:"name"` tag, or the field name as traces show it);
// traces, charts and the HTML page do not show the fields a process does
// not use. The role must not change along a run (it is a constant field,
// say), so that a field never appears or disappears in a trace.
type FieldUser interface {
	Uses(field string) bool
}
