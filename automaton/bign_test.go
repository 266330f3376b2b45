package automaton_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// Beyond 64 processes. The automaton keeps some per-process sets in 64-bit
// masks: the crashed processes (Config.Crashes, Config.Down), a shared
// step's partners (Step.With), the processes of a partial-order reduction's
// stubborn sets and the sync-delay metric's armed processes. New refuses
// each of them for more than 64 processes; everything else must work for
// any N, which the token ring below checks at N = 70 against figures
// worked out by hand.

// courier is a process of a token ring without shared actions: the holder
// may enter and leave its critical section, and sends the token to the
// next process over the channel.
type courier struct{ Token, Crit bool }

func (p *courier) Steps(v *automaton.View[courier, string], out []automaton.Step) []automaton.Step {
	switch {
	case p.Crit:
		out = append(out, automaton.Do("exit"))
	case p.Token:
		out = append(out, automaton.Do("enter"), automaton.Out("pass", (v.Self()+1)%v.N()))
	}
	return out
}

func (p *courier) Do(s automaton.Step, fx *automaton.Effects[string]) {
	switch s.Name {
	case "enter":
		p.Crit = true
	case "exit":
		p.Crit = false
	case "pass":
		p.Token = false
		fx.Send((fx.Self()+1)%fx.N(), "token")
	}
}

func (p *courier) Receive(int, string, *automaton.Effects[string]) { p.Token = true }

// courierRing is the ring of n couriers, the token at process 1, or at
// each process in turn (one initial state per rotation) under symmetry.
func courierRing(n int, sym automaton.Symmetry, crashes int) (*automaton.System[courier, string, *courier], error) {
	var initial [][]courier
	for k := 0; k < n; k++ {
		ps := make([]courier, n)
		ps[k].Token = true
		initial = append(initial, ps)
		if sym == automaton.NoSymmetry {
			break
		}
	}
	holds := func(v *automaton.View[courier, string]) bool {
		return properties.Count(v.N(), func(i int) bool { return v.Proc(i).Token })+v.InTransit() == 1
	}
	return automaton.New(automaton.Config[courier, string]{
		Name:       "courier ring",
		Initial:    initial,
		Links:      automaton.Ring(n),
		Symmetry:   sym,
		Crashes:    crashes,
		Invariants: []automaton.Invariant[courier, string]{{Name: properties.TokenUniqueness, Holds: holds}},
	})
}

// TestRingOf70Processes explores the courier ring of 70 processes. By hand:
// the token is held by one of n processes, critical or not, or is in one
// of the n channels: 3n states; a holder outside has enter and pass, one
// inside has exit, a token in a channel is received: 4n transitions, 210
// and 280 for n = 70. A mask truncated to 64 bits would lose the token at
// process 65 (its steps or its channel); the count would fall short.
func TestRingOf70Processes(t *testing.T) {
	const n = 70
	sys, err := courierRing(n, automaton.NoSymmetry, 0)
	if err != nil {
		t.Fatal(err)
	}
	r, err := explorer.Check(sys, explorer.Config{Properties: []string{properties.TokenUniqueness}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.OK || r.States != 3*n || r.Transitions != 4*n {
		t.Fatalf("n=%d: %v, %d states, %d transitions; want ok, %d and %d", n, r.Status, r.States, r.Transitions, 3*n, 4*n)
	}
}

// TestLassoUnderRotationsOf70 finds the lasso of the token going round
// forever under the rotations of a ring of 70, the witness that messages
// is unbounded: one cycle of the quotient (pass, receive) leads the real
// run to its rotation by one, so the real cycle repeats it 70 times, more
// than the 64 rounds the search tried before it asked the model for the
// order of its group (explorer.GroupOrderer).
func TestLassoUnderRotationsOf70(t *testing.T) {
	const n = 70
	sys, err := courierRing(n, automaton.Rotations, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := sys.GroupOrder(); got != n {
		t.Errorf("GroupOrder() = %d, want %d", got, n)
	}
	r, err := explorer.Check(sys, explorer.Config{Symmetry: true, Properties: []string{properties.TokenUniqueness}, Metrics: []string{"messages"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.OK || len(r.Metrics) != 1 || !r.Metrics[0].Unbounded || r.Metrics[0].MaxWitness == nil {
		t.Fatalf("%v (%v) %+v, want ok and unbounded messages with a lasso", r.Status, r.Err, r.Metrics)
	}
	passes := 0
	for _, a := range explorer.Actions(r.Metrics[0].MaxWitness.Cycle) {
		if strings.HasPrefix(a, "pass") {
			passes++
		}
	}
	if passes != n {
		t.Errorf("the real cycle passes the token %d times, want %d (once round the ring)", passes, n)
	}
}

// TestMasksRefusedBeyond64 checks that every construct kept in a 64-bit
// process mask is refused when New is given more than 64 processes, and
// accepted at 64.
func TestMasksRefusedBeyond64(t *testing.T) {
	for _, n := range []int{64, 65, 70} {
		refused := func(what string, err error, want string) {
			t.Helper()
			switch {
			case n <= 64 && err != nil:
				t.Errorf("n=%d: %s refused: %v", n, what, err)
			case n > 64 && (!errors.Is(err, automaton.ErrConfig) || !strings.Contains(err.Error(), want)):
				t.Errorf("n=%d: %s: %v, want ErrConfig saying %q", n, what, err, want)
			}
		}
		_, err := courierRing(n, automaton.NoSymmetry, 1)
		refused("crashes", err, "crashes are modelled for at most 64 processes")

		_, err = automaton.New(automaton.Config[courier, string]{
			Initial: [][]courier{make([]courier, n)}, Links: automaton.Ring(n), Down: []int{0},
		})
		refused("Down", err, "at most 64 processes")

		_, err = automaton.New(automaton.Config[courier, string]{
			Initial: [][]courier{make([]courier, n)}, Links: automaton.Ring(n),
			PartialOrder: &automaton.PartialOrder[courier]{Visible: func(a, b *courier) bool { return a.Crit != b.Crit }},
		})
		refused("PartialOrder", err, "at most 64 processes")

		procs := make([]holder, n)
		procs[0].Token = true
		_, err = automaton.New(automaton.Config[holder, string]{Initial: [][]holder{procs}, Links: automaton.Ring(n)})
		refused("Joiner", err, fmt.Sprintf("shared actions, Step.With), which are modelled for at most 64 processes; this model has %d", n))
	}
}
