package automaton_test

import (
	"fmt"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
)

// EWD840 is Dijkstra's termination detection on a ring (EWD 840, and the
// TLA+ specification EWD840.tla of the tlaplus/Examples repository): a
// token travels from node N-1 down to node 0, which starts each probe,
// and a node that activates a node above it turns black. Its two joint
// steps change two nodes at once: PassToken moves the token from i to
// i-1, and SendMsg(i) makes node j active. It is written here twice: with
// shared actions, and with the workaround issue 29 found in use before
// them, messages pushed into their receivers by Config.Normalize. Both
// must count exactly as the literal model of the TLA+ specification.

// ewdShared is a node of EWD840 with shared actions.
type ewdShared struct {
	Active, Black bool
	Token, TBlack bool // the token is here, and its colour
}

func (p *ewdShared) Steps(v *automaton.View[ewdShared, int], out []automaton.Step) []automaton.Step {
	i, n := v.Self(), v.N()
	if p.Active {
		for j := 0; j < n; j++ {
			if j != i {
				out = append(out, automaton.Shared("activate", j)) // SendMsg(i) to j
			}
		}
		out = append(out, automaton.Do("deactivate"))
	}
	switch {
	case p.Token && i == 0 && (p.TBlack || p.Black):
		out = append(out, automaton.Shared("probe", n-1)) // InitiateProbe
	case p.Token && i > 0 && (!p.Active || p.Black || p.TBlack):
		black := 0
		if p.Black || p.TBlack {
			black = 1
		}
		out = append(out, automaton.SharedArg("pass", black, i-1)) // PassToken(i)
	}
	return out
}

func (p *ewdShared) Do(s automaton.Step, fx *automaton.Effects[int]) {
	switch s.Name {
	case "activate":
		p.Black = p.Black || s.Partner() > fx.Self()
	case "deactivate":
		p.Active = false
	case "probe", "pass":
		p.Token, p.TBlack, p.Black = false, false, false
	default:
		panic("unknown step " + s.Name)
	}
}

func (p *ewdShared) Join(s automaton.Step, from int, fx *automaton.Effects[int]) {
	switch s.Name {
	case "activate":
		p.Active = true
	case "probe", "pass":
		p.Token, p.TBlack = true, s.Arg == 1
	default:
		panic("unknown step " + s.Name)
	}
}

func (p *ewdShared) Receive(int, int, *automaton.Effects[int]) { panic("EWD840 sends no messages") }

// ewdSharedSystem is EWD840 of n nodes with shared actions, from every
// initial state of the TLA+ specification.
func ewdSharedSystem(n int) (*automaton.System[ewdShared, int, *ewdShared], error) {
	var initial [][]ewdShared
	for _, s := range ewdInitial(n) {
		procs := make([]ewdShared, n)
		for i := range procs {
			procs[i] = ewdShared{Active: s.active&(1<<i) != 0, Black: s.black&(1<<i) != 0, Token: s.tpos == i, TBlack: s.tpos == i}
		}
		initial = append(initial, procs)
	}
	return automaton.New(automaton.Config[ewdShared, int]{
		Initial: initial,
		Invariants: []automaton.Invariant[ewdShared, int]{{
			Name: "termination-detection", Doc: "when node 0 detects termination, every node is inactive",
			Holds: func(v *automaton.View[ewdShared, int]) bool {
				p := v.Proc(0)
				if !p.Token || p.TBlack || p.Black || p.Active {
					return true
				}
				for i := 0; i < v.N(); i++ {
					if v.Proc(i).Active {
						return false
					}
				}
				return true
			},
		}},
	})
}

// ewdPushed is a node of EWD840 written with the former workaround: the
// joint steps send a message, and Normalize applies every message to its
// receiver at once, so that no state keeps one in a channel.
type ewdPushed struct {
	Active, Black bool
	Token, TBlack bool
}

// The messages of ewdPushed.
const (
	ewdActivate = 1 + iota
	ewdWhite
	ewdBlack
)

func (p *ewdPushed) Steps(v *automaton.View[ewdPushed, int], out []automaton.Step) []automaton.Step {
	i, n := v.Self(), v.N()
	if p.Active {
		for j := 0; j < n; j++ {
			if j != i {
				out = append(out, automaton.Out("activate", j))
			}
		}
		out = append(out, automaton.Do("deactivate"))
	}
	switch {
	case p.Token && i == 0 && (p.TBlack || p.Black):
		out = append(out, automaton.Out("probe", n-1))
	case p.Token && i > 0 && (!p.Active || p.Black || p.TBlack):
		out = append(out, automaton.Out("pass", i-1))
	}
	return out
}

func (p *ewdPushed) Do(s automaton.Step, fx *automaton.Effects[int]) {
	switch s.Name {
	case "activate":
		p.Black = p.Black || s.To > fx.Self()
		fx.Send(s.To, ewdActivate)
	case "deactivate":
		p.Active = false
	case "probe":
		p.Token, p.TBlack, p.Black = false, false, false
		fx.Send(s.To, ewdWhite)
	case "pass":
		m := ewdWhite
		if p.Black || p.TBlack {
			m = ewdBlack
		}
		p.Token, p.TBlack, p.Black = false, false, false
		fx.Send(s.To, m)
	default:
		panic("unknown step " + s.Name)
	}
}

func (p *ewdPushed) Receive(_ int, m int, _ *automaton.Effects[int]) {
	if m == ewdActivate {
		p.Active = true
		return
	}
	p.Token, p.TBlack = true, m == ewdBlack
}

func ewdPushedSystem(n int) (*automaton.System[ewdPushed, int, *ewdPushed], error) {
	var initial [][]ewdPushed
	for _, s := range ewdInitial(n) {
		procs := make([]ewdPushed, n)
		for i := range procs {
			procs[i] = ewdPushed{Active: s.active&(1<<i) != 0, Black: s.black&(1<<i) != 0, Token: s.tpos == i, TBlack: s.tpos == i}
		}
		initial = append(initial, procs)
	}
	links := automaton.Complete(n, false)
	return automaton.New(automaton.Config[ewdPushed, int]{
		Initial: initial,
		Links:   links,
		// The workaround: every message is received the moment it is
		// sent, by its receiver's Receive applied here.
		Normalize: func(procs []ewdPushed, chans [][]int) {
			for c, msgs := range chans {
				for _, m := range msgs {
					procs[links[c].To].Receive(links[c].From, m, nil)
				}
				chans[c] = chans[c][:0]
			}
		},
		Invariants: []automaton.Invariant[ewdPushed, int]{{
			Name: "termination-detection", Doc: "when node 0 detects termination, every node is inactive",
			Holds: func(v *automaton.View[ewdPushed, int]) bool {
				p := v.Proc(0)
				if !p.Token || p.TBlack || p.Black || p.Active {
					return true
				}
				for i := 0; i < v.N(); i++ {
					if v.Proc(i).Active {
						return false
					}
				}
				return true
			},
		}},
	})
}

// ewdState is a state of the literal model, the variables of EWD840.tla:
// active and color as bit sets, tpos and tcolor.
type ewdState struct {
	active, black uint8
	tpos          int
	tblack        bool
}

// ewdInitial is Init of EWD840.tla: any active and color, the token
// anywhere, and black.
func ewdInitial(n int) []ewdState {
	var out []ewdState
	for a := uint8(0); a < 1<<n; a++ {
		for b := uint8(0); b < 1<<n; b++ {
			for t := 0; t < n; t++ {
				out = append(out, ewdState{active: a, black: b, tpos: t, tblack: true})
			}
		}
	}
	return out
}

// ewdNext is Next of EWD840.tla: InitiateProbe, PassToken(i), SendMsg(i)
// to each j, Deactivate(i).
func ewdNext(n int) func(ewdState) []ewdState {
	return func(s ewdState) []ewdState {
		var out []ewdState
		if s.tpos == 0 && (s.tblack || s.black&1 != 0) {
			out = append(out, ewdState{active: s.active, black: s.black &^ 1, tpos: n - 1})
		}
		if i := s.tpos; i > 0 && (s.active&(1<<i) == 0 || s.black&(1<<i) != 0 || s.tblack) {
			out = append(out, ewdState{active: s.active, black: s.black &^ (1 << i), tpos: i - 1, tblack: s.tblack || s.black&(1<<i) != 0})
		}
		for i := 0; i < n; i++ {
			if s.active&(1<<i) == 0 {
				continue
			}
			for j := 0; j < n; j++ {
				if j != i {
					t := s
					t.active |= 1 << j
					if j > i {
						t.black |= 1 << i
					}
					out = append(out, t)
				}
			}
			t := s
			t.active &^= 1 << i
			out = append(out, t)
		}
		return out
	}
}

// TestEWD840BothWays checks EWD840 for 3 and 4 nodes written with shared
// actions and with the Normalize workaround against the literal model of
// EWD840.tla (ewdNext), which counts 302 states and 1,625 transitions, and 1,566 and 13,938
// for 4 nodes:
// of the 2^N·2^N·N·2 valuations, those with a white token that no probe
// can produce are unreachable.
func TestEWD840BothWays(t *testing.T) {
	for _, c := range []struct{ n, states, transitions int }{{3, 302, 1625}, {4, 1566, 13938}} {
		n := c.n
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			states, trans := literalBFSFrom(ewdInitial(n), ewdNext(n))
			if states != c.states || trans != c.transitions {
				t.Fatalf("literal model: %d states and %d transitions, want %d and %d", states, trans, c.states, c.transitions)
			}
			shared, err := ewdSharedSystem(n)
			if err != nil {
				t.Fatal(err)
			}
			pushed, err := ewdPushedSystem(n)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range []explorer.Model{shared, pushed} {
				if r := checkCounts(t, m, explorer.Config{}, int64(states), int64(trans)); r.Status != explorer.OK {
					t.Errorf("status %v, want ok: %s", r.Status, r.Reason)
				}
			}
		})
	}
}

// BenchmarkEWD840 searches EWD840 of 6 nodes with shared
// actions and with the Normalize workaround, on one worker.
func BenchmarkEWD840(b *testing.B) {
	const n = 6
	shared, err := ewdSharedSystem(n)
	if err != nil {
		b.Fatal(err)
	}
	pushed, err := ewdPushedSystem(n)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		m    explorer.Model
	}{{"shared", shared}, {"normalize", pushed}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				r, err := explorer.Check(c.m, explorer.Config{Workers: 1})
				if err != nil || r.Status != explorer.OK {
					b.Fatal(err, r.Status)
				}
				b.ReportMetric(float64(r.States), "states")
				b.ReportMetric(float64(r.Transitions), "transitions")
			}
		})
	}
}
