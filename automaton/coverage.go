package automaton

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/vacheck/vacheck/explorer"
)

// The names of the environment's steps, in coverage (explorer.Fired).
const (
	StepReceive = "receive"
	StepCrash   = "crash"
	StepRecover = "recover"
)

// Declared implements explorer.Coverable: the steps of Config.StepNames
// (nil when the Config declares none), followed by the environment's that
// the system can take (receive with channels, crash with Crashes, recover
// with Recoveries), and the message types of Config.MessageTypes.
func (sys *System[S, M, P]) Declared() explorer.Declaration {
	d := explorer.Declaration{Messages: sys.cfg.MessageTypes, MayNotFire: sys.cfg.MayNotFire}
	if sys.cfg.StepNames != nil {
		d.Steps = append(append([]string{}, sys.cfg.StepNames...), sys.environmentSteps()...)
	}
	return d
}

// environmentSteps names the steps the environment takes in this system.
func (sys *System[S, M, P]) environmentSteps() []string {
	var out []string
	if len(sys.cfg.Links) > 0 {
		out = append(out, StepReceive)
	}
	if sys.cfg.Crashes > 0 {
		out = append(out, StepCrash)
	}
	if sys.cfg.Recoveries > 0 {
		out = append(out, StepRecover)
	}
	return out
}

// checkCoverage checks the declaration of a Config for coverage: names
// given once, not empty, not the environment's, and explanations only for
// declared names.
func checkCoverage[S any, M Message](cfg *Config[S, M]) error {
	env := []string{StepReceive, StepCrash, StepRecover}
	seen := map[string]bool{}
	for _, list := range []struct {
		what  string
		names []string
	}{{"StepNames", cfg.StepNames}, {"MessageTypes", cfg.MessageTypes}} {
		clear(seen)
		for _, name := range list.names {
			switch {
			case name == "":
				return fmt.Errorf("%w: %s has an empty name", ErrConfig, list.what)
			case seen[name]:
				return fmt.Errorf("%w: %s lists %q twice", ErrConfig, list.what, name)
			case list.what == "StepNames" && slices.Contains(env, name):
				return fmt.Errorf("%w: StepNames lists %q, a step of the environment, which the system declares itself", ErrConfig, name)
			}
			seen[name] = true
		}
	}
	for name := range cfg.MayNotFire {
		if !slices.Contains(cfg.StepNames, name) && !slices.Contains(cfg.MessageTypes, name) && !slices.Contains(env, name) {
			return fmt.Errorf("%w: MayNotFire explains %q, which is neither in StepNames nor in MessageTypes", ErrConfig, name)
		}
	}
	return nil
}

// TrackCoverage implements explorer.CoverWorker: on, the worker records
// the types of the messages each transition sends, for Fired. It does every
// effect then, rather than remember some (memo.go), so that it sees what
// each sends.
func (w *worker[S, M, P]) TrackCoverage(on bool) {
	w.coverOn = on
	w.memo = !on && w.sys.memoizable()
	w.v.memos = w.memo
}

// Fired implements explorer.CoverWorker: what transition t of the state
// being expanded does, asked while the worker emits or offers it.
func (w *worker[S, M, P]) Fired(t explorer.Transition) explorer.Fired {
	a := w.acts[t.Action]
	f := explorer.Fired{Sent: w.coverSent}
	switch a.kind {
	case Input:
		f.Step = StepReceive
		f.Received = w.typeOf(w.v.seg(1 + w.sys.n + a.ch)[a.start:a.end])
		f.Discarded = !w.v.Up(a.proc)
	case Fault:
		f.Step = StepCrash
		if a.recover {
			f.Step = StepRecover
		}
	default:
		f.Step = stepName(w.stepOf(&a).Name)
	}
	return f
}

// stepName is the name coverage counts a step by: its Step.Name before the
// first "(", so that a step whose name carries its arguments (join(1, links
// {2}, parent 2)) counts as the one step it is (join).
func stepName(name string) string {
	if i := strings.IndexByte(name, '('); i > 0 {
		return name[:i]
	}
	return name
}

// noteSent records the type of the message m just sent, encoded in
// w.msgBuf, for Fired.
func (w *worker[S, M, P]) noteSent(m M) {
	t, ok := w.typeNames[string(w.msgBuf)]
	if !ok {
		t = messageType(m)
		w.nameType(w.msgBuf, t)
	}
	w.coverSent = append(w.coverSent, t)
}

// typeOf returns the type of the message encoded in enc.
func (w *worker[S, M, P]) typeOf(enc []byte) string {
	if t, ok := w.typeNames[string(enc)]; ok {
		return t
	}
	var m M
	if _, err := w.sys.mc.dec(unsafe.Pointer(&m), enc, nil); err != nil {
		panic(err)
	}
	t := messageType(m)
	w.nameType(enc, t)
	return t
}

// nameType remembers that the message encoded in enc is of type t: the
// messages of a search are few, and printing one to find its type is slow.
func (w *worker[S, M, P]) nameType(enc []byte, t string) {
	if w.typeNames == nil {
		w.typeNames = map[string]string{}
	}
	w.typeNames[string(enc)] = t
}
