package automaton

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// peekProc is a process on a ring whose Steps reads the view beyond Self
// and N, as Mode says: "proc" its successor's value (v.Proc), "chan" its
// outgoing channel (v.Chan), "none" nothing (a step that depends on its
// own value alone).
type peekProc struct {
	Mode string `vacheck:"-"`
	X    int
	Sent int
}

func (p *peekProc) Steps(v *View[peekProc, int], out []Step) []Step {
	next := (v.Self() + 1) % v.N()
	switch p.Mode {
	case "proc":
		if p.X < 2 && v.Proc(next).X <= p.X {
			out = append(out, Do("inc"))
		}
	case "chan":
		if p.X < 2 && len(v.Chan(v.Self(), next)) == 0 {
			out = append(out, Do("inc"))
		}
	default:
		if p.X < 2 {
			out = append(out, Do("inc"))
		}
	}
	if p.Sent < 1 && p.X > 0 {
		out = append(out, Out("send", next))
	}
	return out
}

func (p *peekProc) Do(s Step, fx *Effects[int]) {
	switch s.Name {
	case "inc":
		p.X++
	case "send":
		p.Sent++
		fx.Send(s.To, p.X)
	default:
		panic("unknown step " + s.Name)
	}
}

func (p *peekProc) Receive(_ int, m int, _ *Effects[int]) { p.X = max(p.X, m) }

// successorsOf returns the successors of s that w expands, each with its
// transition, as text.
func successorsOf(t *testing.T, w explorer.Worker, s []byte) []string {
	t.Helper()
	var out []string
	if _, err := explorer.Successors(w, s, func(tr explorer.Transition, next []byte) {
		out = append(out, fmt.Sprintf("%+v %x", tr, next))
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestStepsMemo: a worker remembers a process's Steps by its value only
// when Steps read nothing of the view but Self and N. On every reachable
// state of rings whose Steps reads the successor's value, the outgoing
// channel, or nothing, a worker with the memo expands the successors a
// worker without it expands, and the memo is kept exactly for the values
// whose Steps read nothing (for the first two rings, those whose X is 2). The mutant that remembers Steps although it read the
// view (a stale memo) expands other successors in some state, which the
// comparison catches.
func TestStepsMemo(t *testing.T) {
	const n = 3
	for _, mode := range []string{"proc", "chan", "none"} {
		t.Run(mode, func(t *testing.T) {
			protos := make([]peekProc, n)
			for i := range protos {
				protos[i].Mode = mode
			}
			sys, err := New[peekProc, int, *peekProc](Config[peekProc, int]{Initial: [][]peekProc{protos}, Links: Ring(n)})
			if err != nil {
				t.Fatal(err)
			}
			memo, mutant, plain := sys.newWorker(), sys.newWorker(), sys.newWorker()
			if !memo.memo {
				t.Fatal("the worker does not remember effects, nor Steps")
			}
			plain.memo, plain.v.memos = false, false
			init, _ := sys.Initial()
			mutantDiffers, remembered, peeked := false, 0, 0
			states := walk(init, 0, func(st []byte) (succ [][]byte) {
				want := successorsOf(t, plain, st)
				if got := successorsOf(t, memo, st); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("state %x: with the memo %v, without %v", st, got, want)
				}
				if got := successorsOf(t, mutant, st); fmt.Sprint(got) != fmt.Sprint(want) {
					mutantDiffers = true
				}
				// The mutant keeps what Steps answered once, peek or not.
				for k := range mutant.v.cache {
					if e := &mutant.v.cache[k]; e.used && e.peeks {
						e.peeks, e.stepsOK = false, true
					}
				}
				for k := range memo.v.cache {
					e := &memo.v.cache[k]
					switch {
					case e.used && e.stepsOK:
						remembered++
						// Steps reads the view unless X is 2.
						if mode != "none" && e.val.X != 2 {
							t.Fatalf("state %x: Steps of %+v remembered, though it reads the view", st, e.val)
						}
					case e.used && e.peeks:
						peeked++
					}
				}
				if _, err := explorer.Successors(plain, st, func(_ explorer.Transition, next []byte) {
					succ = append(succ, bytes.Clone(next))
				}); err != nil {
					t.Fatal(err)
				}
				return succ
			})
			t.Logf("%d states; entries remembered %d, peeked %d (summed over states)", states, remembered, peeked)
			if states < 20 {
				t.Errorf("%d states: too few to test anything", states)
			}
			if mode == "none" {
				if peeked != 0 || remembered == 0 {
					t.Errorf("Steps reads nothing: %d entries remembered, %d peeked; want some and none", remembered, peeked)
				}
				return
			}
			if peeked == 0 {
				t.Errorf("Steps reads the view: %d entries peeked; want some", peeked)
			}
			if !mutantDiffers {
				t.Error("the stale memo expands the same successors in every state: the comparison would not catch it")
			}
		})
	}
}
