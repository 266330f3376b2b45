// Package automatontest holds test helpers for models built with the
// automaton package, or any other explorer.Model.
package automatontest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// successor is one transition emitted by Successors, with a copy of its
// target state.
type successor struct {
	t    explorer.Transition
	next []byte
}

// expansion is the result of one call to Successors.
type expansion struct {
	succ []successor
	n    int
	err  error
}

func expand(w explorer.Worker, s []byte) expansion {
	var e expansion
	e.n, e.err = explorer.Successors(w, s, func(t explorer.Transition, next []byte) {
		e.succ = append(e.succ, successor{t: t, next: bytes.Clone(next)})
	})
	return e
}

// CheckPure verifies that the model's transitions are pure: that the
// successors of a state, and the answers of Check and ValidEnd, depend on
// nothing but the state. It explores up to maxStates states breadth-first
// from m.Initial() and, for every state, computes its successors three
// times: on one worker, on a second worker, and on the first worker again
// after it has expanded another state in between. The three lists must
// agree byte for byte: the same number of transitions, in the same order,
// with the same Transition values and the same successor states. It also
// checks that Successors leaves its input untouched and that Check (with
// every property selected) and ValidEnd give the same answer twice.
//
// Impurity shows up as states that depend on which worker or in which order
// they were computed: shared mutable state reached through a constant
// field, a package-level variable, scratch memory that leaks between calls.
// Such a model makes counts depend on scheduling and counterexamples fail
// to replay.
//
// CheckPure reports the first difference with t.Errorf, naming the state
// (its BFS index), the action index and, when m is an explorer.Describer,
// the action's label, and then stops.
func CheckPure(t testing.TB, m explorer.Model, maxStates int) {
	t.Helper()
	initial, err := m.Initial()
	if err != nil {
		t.Errorf("CheckPure: initial states: %v", err)
		return
	}
	var want uint64
	if np := len(m.Properties()); np >= 64 {
		want = ^uint64(0)
	} else {
		want = 1<<uint(np) - 1
	}
	d, _ := m.(explorer.Describer)
	label := func(s []byte, a int) string {
		if d == nil {
			return fmt.Sprintf("action %d", a)
		}
		l, err := d.Label(s, a)
		if err != nil {
			return fmt.Sprintf("action %d (no label: %v)", a, err)
		}
		return fmt.Sprintf("action %d (%s)", a, l)
	}

	// show gives a state as its variables where the model describes its
	// states, and as bytes otherwise.
	show := func(s []byte) string {
		if d != nil {
			if vars, err := d.Describe(s); err == nil {
				parts := make([]string, len(vars))
				for i, v := range vars {
					parts[i] = fmt.Sprintf("%s=%v", v.Name, v.Value)
				}
				return strings.Join(parts, " ")
			}
		}
		return fmt.Sprintf("% x", s)
	}
	// diff gives what differs between two successors that should be equal:
	// the variables that differ, where the model describes its states.
	diff := func(x, y []byte) string {
		if d != nil {
			vx, errx := d.Describe(x)
			vy, erry := d.Describe(y)
			if errx == nil && erry == nil && len(vx) == len(vy) {
				var parts []string
				for i := range vx {
					a, b := fmt.Sprint(vx[i].Value), fmt.Sprint(vy[i].Value)
					switch {
					case vx[i].Name != vy[i].Name:
						parts = append(parts, fmt.Sprintf("%s=%s, then %s=%s", vx[i].Name, a, vy[i].Name, b))
					case a != b:
						parts = append(parts, fmt.Sprintf("%s %s, then %s", vx[i].Name, a, b))
					}
				}
				if len(parts) > 0 {
					return "the successors differ: " + strings.Join(parts, "; ")
				}
			}
		}
		return fmt.Sprintf("successor % x, then % x", x, y)
	}

	w1, w2 := m.NewWorker(), m.NewWorker()
	seen := map[string]bool{}
	var queue [][]byte
	for _, s := range initial {
		if !seen[string(s)] {
			seen[string(s)] = true
			queue = append(queue, bytes.Clone(s))
		}
	}
	var prev []byte // the state expanded before the current one
	for i := 0; i < len(queue) && i < maxStates; i++ {
		s := queue[i]
		orig := bytes.Clone(s)
		// Described only for a report: Describe costs more than the checks.
		where := func() string { return fmt.Sprintf("state %d (%s)", i, show(orig)) }

		first := expand(w1, s)
		if !bytes.Equal(s, orig) {
			t.Errorf("CheckPure: %s: Successors modified its input to %s", where(), show(s))
			return
		}
		second := expand(w2, s)
		// Expand another state on w1 in between, so that its scratch
		// memory holds something else.
		other := prev
		if other == nil && len(first.succ) > 0 {
			other = first.succ[0].next
		}
		if other != nil {
			expand(w1, other)
		}
		third := expand(w1, s)
		if !bytes.Equal(s, orig) {
			t.Errorf("CheckPure: %s: Successors modified its input to %s", where(), show(s))
			return
		}
		if msg := compare(first, second, s, label, diff); msg != "" {
			t.Errorf("CheckPure: %s: two workers disagree: %s", where(), msg)
			return
		}
		if msg := compare(first, third, s, label, diff); msg != "" {
			t.Errorf("CheckPure: %s: the same worker disagrees with itself after expanding another state: %s", where(), msg)
			return
		}

		k1, err1 := w1.Check(s, want)
		k2, err2 := w2.Check(s, want)
		k3, err3 := w1.Check(s, want)
		if k1 != k2 || k1 != k3 || errString(err1) != errString(err2) || errString(err1) != errString(err3) {
			t.Errorf("CheckPure: %s: Check answered %#x (%v), %#x (%v), %#x (%v)", where(), k1, err1, k2, err2, k3, err3)
			return
		}
		v1, err1 := w1.ValidEnd(s)
		v2, err2 := w1.ValidEnd(s)
		v3, err3 := w2.ValidEnd(s)
		if v1 != v2 || v1 != v3 || errString(err1) != errString(err2) || errString(err1) != errString(err3) {
			t.Errorf("CheckPure: %s: ValidEnd answered %v (%v), %v (%v), %v (%v)", where(), v1, err1, v2, err2, v3, err3)
			return
		}
		if !bytes.Equal(s, orig) {
			t.Errorf("CheckPure: %s: Check or ValidEnd modified the state to %s", where(), show(s))
			return
		}

		for _, sc := range first.succ {
			if !seen[string(sc.next)] {
				seen[string(sc.next)] = true
				queue = append(queue, sc.next)
			}
		}
		prev = s
	}
}

// compare describes the first difference between two expansions of s, or
// returns "".
func compare(a, b expansion, s []byte, label func([]byte, int) string, diff func(x, y []byte) string) string {
	if errString(a.err) != errString(b.err) {
		return fmt.Sprintf("Successors returned %v, then %v", a.err, b.err)
	}
	if a.n != b.n || len(a.succ) != len(b.succ) {
		return fmt.Sprintf("%d transitions (%d emitted), then %d (%d emitted)", a.n, len(a.succ), b.n, len(b.succ))
	}
	for k := range a.succ {
		x, y := a.succ[k], b.succ[k]
		if x.t != y.t {
			return fmt.Sprintf("%s: transition %+v, then %+v", label(s, k), x.t, y.t)
		}
		if !bytes.Equal(x.next, y.next) {
			return fmt.Sprintf("%s: %s", label(s, k), diff(x.next, y.next))
		}
	}
	return ""
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
