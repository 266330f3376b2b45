package specs

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// TestCheckExpandIsCheckThenSuccessors: on every reachable state of small
// instances of every catalog spec and broken twin (up to 3,000 states
// each), a worker's CheckExpand, which evaluates the invariants on the view
// the expansion then reuses, returns what Check and Successors of another
// worker return: the same verdict or error, and unless the verdict is an
// assertion that stops the expansion, the same transitions and successors
// in the same order.
func TestCheckExpandIsCheckThenSuccessors(t *testing.T) {
	type succ struct {
		t    explorer.Transition
		next []byte
	}
	for _, spec := range Catalog() {
		t.Run(spec.Name, func(t *testing.T) {
			p, err := NewParams(spec, map[string]string{"n": "3"})
			if err != nil {
				p, err = NewParams(spec, nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			m, err := spec.Build(p)
			if err != nil {
				t.Fatal(err)
			}
			a, b := m.NewWorker(), m.NewWorker()
			ce, ok := b.(explorer.CheckExpander)
			if !ok {
				t.Skipf("%T is not a CheckExpander", b)
			}
			var want, stop uint64
			for k, info := range m.Properties() {
				want |= 1 << uint(k)
				if info.Kind == properties.Assertion {
					stop |= 1 << uint(k)
				}
			}
			queue, err := m.Initial()
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for len(queue) > 0 && len(seen) < 3000 {
				st := queue[0]
				queue = queue[1:]
				if seen[string(st)] {
					continue
				}
				seen[string(st)] = true
				p1, err1 := a.Check(st, want)
				var s1 []succ
				n1, errA := a.Successors(st, func(t explorer.Transition, next []byte) {
					s1 = append(s1, succ{t, bytes.Clone(next)})
				})
				var s2 []succ
				p2, err2, n2, errB := ce.CheckExpand(st, want, stop, func(t explorer.Transition, next []byte) {
					s2 = append(s2, succ{t, bytes.Clone(next)})
				})
				if p1 != p2 || fmt.Sprint(err1) != fmt.Sprint(err2) {
					t.Fatalf("state %x: Check gives %d %v, CheckExpand %d %v", st, p1, err1, p2, err2)
				}
				if err1 != nil || p1 >= 0 && stop&(1<<uint(p1)) != 0 {
					if n2 != 0 || len(s2) != 0 || errB != nil {
						t.Fatalf("state %x: CheckExpand expanded a state that breaks an assertion or whose check failed", st)
					}
					continue
				}
				if n1 != n2 || fmt.Sprint(errA) != fmt.Sprint(errB) || fmt.Sprint(s1) != fmt.Sprint(s2) {
					t.Fatalf("state %x: Successors gives %d %v\n%v\nCheckExpand %d %v\n%v", st, n1, errA, s1, n2, errB, s2)
				}
				for _, s := range s1 {
					queue = append(queue, s.next)
				}
			}
		})
	}
}
