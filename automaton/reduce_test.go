package automaton_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
)

// rnode is a process of a random system that keeps the PartialOrder
// contract: its steps read nothing but its own state. X is what the
// invariants read; Y is scratch that decides where messages go.
//
// A loose node also sends notes, messages 3 to 5, on every other tick;
// receiving one leaves X and Y alone and changes at most Flags, which only
// the valid-end predicate reads, by operations that commute (note 4 sets
// bit 0, note 5 flips bit 1). So it declares their receives commuting.
type rnode struct {
	X, Y, Budget, Replies int
	Z                     int   // toggled forever by a spinner, read by nobody
	Flags                 int   // set by notes
	Spin                  bool  `vacheck:"-"`
	Loose                 bool  `vacheck:"-"`
	Salt                  int   `vacheck:"-"`
	Out                   []int `vacheck:"-"` // the processes it has channels to
	In                    []int `vacheck:"-"` // the processes that have channels to it
}

// Silent implements automaton.Silencer for loose nodes: a node with no
// ticks left sends only replies, each to a 0 it receives; none can come
// if every process with a channel to it is frozen and has no 0 on its way.
func (p *rnode) Silent(_, _ int, frozen func(int) bool, inTransit func(int) []int) bool {
	if !p.Loose || p.Budget > 0 {
		return false
	}
	for _, j := range p.In {
		if p.Replies > 0 && (!frozen(j) || slices.Contains(inTransit(j), 0)) {
			return false
		}
	}
	return true
}

// Commutes implements automaton.Commuter: notes commute.
func (p *rnode) Commutes(_ int, m int) bool { return p.Loose && m >= 3 }

func (p *rnode) Steps(_ *automaton.View[rnode, int], out []automaton.Step) []automaton.Step {
	if p.Budget > 0 {
		out = append(out, automaton.Broadcast("tick"))
	}
	if p.Y == 2 && p.X < 2 {
		out = append(out, automaton.Do("bump"))
	}
	if p.Spin {
		out = append(out, automaton.Do("spin"))
	}
	return out
}

func (p *rnode) Do(s automaton.Step, fx *automaton.Effects[int]) {
	switch s.Name {
	case "tick":
		p.Budget--
		p.Y = (p.Y + 1 + p.Salt) % 3
		m := p.Y
		if p.Loose && p.Budget%2 == 0 {
			m += 3 // a note
		}
		fx.Send(p.Out[(p.Y+p.Salt)%len(p.Out)], m)
	case "bump":
		p.X++
		p.Y = 0
	case "spin":
		p.Z = 1 - p.Z
	}
}

func (p *rnode) Receive(from int, m int, fx *automaton.Effects[int]) {
	switch m {
	case 3:
		return
	case 4:
		p.Flags |= 1
		return
	case 5:
		p.Flags ^= 2
		return
	}
	p.Y = (p.Y*2 + m + from + p.Salt) % 3
	if m == 0 && p.Replies > 0 {
		p.Replies--
		fx.Send(p.Out[(from+p.Salt)%len(p.Out)], p.Y)
	}
}

// randomSystem builds a random system of n processes from seed: a ring of
// channels with random chords, budgets, salts, spinners that loop forever,
// a valid-end predicate that reads X and Y, and an invariant that records
// in seen every vector of X it is shown.
func randomSystem(tb testing.TB, seed uint64, n int, disc channel.Discipline, seen map[string]bool) *automaton.System[rnode, int, *rnode] {
	tb.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	links := automaton.Ring(n)
	if n == 2 {
		links = automaton.Complete(2, false)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if j != i && j != (i+1)%n && rng.IntN(4) == 0 {
				links = append(links, automaton.Link{From: i, To: j})
			}
		}
	}
	procs := make([]rnode, n)
	for i := range procs {
		procs[i] = rnode{Budget: 1 + rng.IntN(2), Replies: rng.IntN(2), Salt: rng.IntN(5), Spin: rng.IntN(3*n) == 0, Loose: seed%2 == 1}
		for _, l := range links {
			if l.From == i {
				procs[i].Out = append(procs[i].Out, l.To)
			}
			if l.To == i {
				procs[i].In = append(procs[i].In, l.From)
			}
		}
	}
	parity := rng.IntN(2)
	var mu sync.Mutex // two BFS workers check states at once
	return mustNew[rnode, int, *rnode](tb, automaton.Config[rnode, int]{
		Initial:  [][]rnode{procs},
		Links:    links,
		Channels: disc,
		Capacity: 64,
		Invariants: []automaton.Invariant[rnode, int]{
			// Always true; it records what the invariants can see of every
			// state it is asked about: the vector of X.
			{Name: "observe", Holds: func(v *automaton.View[rnode, int]) bool {
				if seen != nil {
					key := make([]byte, v.N())
					for i := range key {
						key[i] = byte('0' + v.Proc(i).X)
					}
					mu.Lock()
					seen[string(key)] = true
					mu.Unlock()
				}
				return true
			}},
		},
		ValidEnd: func(v *automaton.View[rnode, int]) bool {
			sum := 0
			for i := 0; i < v.N(); i++ {
				sum += v.Proc(i).X + v.Proc(i).Y + v.Proc(i).Flags
			}
			return sum%2 == parity
		},
		PartialOrder: &automaton.PartialOrder[rnode]{Visible: func(before, after *rnode) bool { return before.X != after.X }},
	})
}

// TestPartialOrderPreserves checks partial-order reduction against the full
// search on random systems. What the invariants see (the vector of every
// process's X) must take the same values in the reduced search, so every
// invariant over it has the same verdict; the same terminal states must be
// found, so deadlock verdicts agree; and the reduced search must give the
// same figures on one and two workers.
func TestPartialOrderPreserves(t *testing.T) {
	runs := 25 // 1.5 s; 80 take 10 s, run with -long
	if *long && !testing.Short() {
		runs = 80
	}
	var full, reduced int64
	for k := 0; k < runs; k++ {
		n := 2 + k%3
		disc := channel.FIFO
		if k%5 == 4 {
			disc = channel.Unordered
		}
		name := fmt.Sprintf("seed %d, n=%d, %v", k, n, disc)
		run := func(cfg explorer.Config) (*explorer.Result, map[string]bool) {
			seen := map[string]bool{}
			cfg.Continue = true
			r, err := explorer.Check(randomSystem(t, uint64(k), n, disc, seen), cfg)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if r.Status == explorer.Incomplete || r.Status == explorer.Failed || r.Err != nil {
				t.Fatalf("%s: %v %s %v", name, r.Status, r.Reason, r.Err)
			}
			return r, seen
		}
		f, fseen := run(explorer.Config{Workers: 1})
		for _, strat := range []explorer.Strategy{explorer.BFS, explorer.DFS} {
			r, rseen := run(explorer.Config{Workers: 1, Strategy: strat, Reduction: explorer.PartialOrder})
			if !maps.Equal(fseen, rseen) {
				t.Errorf("%s, %v: the invariants see %d vectors of X with reduction, %d without", name, strat, len(rseen), len(fseen))
			}
			if r.Terminal != f.Terminal || r.Status != f.Status {
				t.Errorf("%s, %v: %v with %d terminal states with reduction, %v with %d without", name, strat, r.Status, r.Terminal, f.Status, f.Terminal)
			}
			if r.States > f.States {
				t.Errorf("%s, %v: %d states with reduction, more than %d without", name, strat, r.States, f.States)
			}
			if strat == explorer.BFS {
				full, reduced = full+f.States, reduced+r.States
				r2, _ := run(explorer.Config{Workers: 2, Reduction: explorer.PartialOrder})
				if r2.States != r.States || r2.Transitions != r.Transitions || r2.Reduced != r.Reduced {
					t.Errorf("%s: 2 workers give %d states, %d transitions, %d reduced; 1 worker %d, %d, %d",
						name, r2.States, r2.Transitions, r2.Reduced, r.States, r.Transitions, r.Reduced)
				}
			}
		}
	}
	if reduced >= full {
		t.Errorf("the reduction stored %d states in all, the full searches %d", reduced, full)
	}
	t.Logf("%d random systems: %d states with reduction (BFS), %d without", runs, reduced, full)
}

// TestPartialOrderRefused checks what the reduction refuses: a model that
// does not allow it, metrics, liveness properties, and a PartialOrder
// without Visible or with crashes.
func TestPartialOrderRefused(t *testing.T) {
	sys := randomSystem(t, 1, 3, channel.FIFO, nil)
	if _, err := explorer.Check(sys, explorer.Config{Reduction: explorer.PartialOrder, Metrics: []string{"messages"}}); err == nil {
		t.Error("metrics with partial-order reduction: no error")
	}
	plain := mustNew[rnode, int, *rnode](t, automaton.Config[rnode, int]{Initial: [][]rnode{{{Budget: 1}, {}}}, Links: automaton.Complete(2, false)})
	if _, err := explorer.Check(plain, explorer.Config{Reduction: explorer.PartialOrder}); err == nil {
		t.Error("partial-order reduction of a model without PartialOrder: no error")
	}
	for _, cfg := range []automaton.Config[rnode, int]{
		{Initial: [][]rnode{{{}, {}}}, Links: automaton.Complete(2, false), PartialOrder: &automaton.PartialOrder[rnode]{}},
		{Initial: [][]rnode{{{}, {}}}, Links: automaton.Complete(2, false), Crashes: 1,
			PartialOrder: &automaton.PartialOrder[rnode]{Visible: func(_, _ *rnode) bool { return true }}},
	} {
		if _, err := automaton.New[rnode, int, *rnode](cfg); err == nil {
			t.Error("automaton.New accepted a PartialOrder without Visible or with crashes")
		}
	}
}

// TestPartialOrderTargeted checks the two conditions random systems rarely
// exercise: a visible transition is never deferred (else X = (0,1) is
// missed when process 1's bump is always taken first), and the cycle
// proviso (else process 2's bump is ignored while process 1 spins).
func TestPartialOrderTargeted(t *testing.T) {
	type tc struct {
		name  string
		procs []rnode
		bad   func(v *automaton.View[rnode, int]) bool
	}
	for _, c := range []tc{
		{"visible", []rnode{{Y: 2}, {Y: 2}}, func(v *automaton.View[rnode, int]) bool { return v.Proc(0).X == 0 && v.Proc(1).X == 1 }},
		{"proviso", []rnode{{Spin: true}, {Y: 2}}, func(v *automaton.View[rnode, int]) bool { return v.Proc(1).X == 1 }},
	} {
		sys := mustNew[rnode, int, *rnode](t, automaton.Config[rnode, int]{
			Initial:      [][]rnode{c.procs},
			Invariants:   []automaton.Invariant[rnode, int]{{Name: "never", Holds: func(v *automaton.View[rnode, int]) bool { return !c.bad(v) }}},
			PartialOrder: &automaton.PartialOrder[rnode]{Visible: func(before, after *rnode) bool { return before.X != after.X }},
		})
		for _, strat := range []explorer.Strategy{explorer.BFS, explorer.DFS} {
			r, err := explorer.Check(sys, explorer.Config{Strategy: strat, Reduction: explorer.PartialOrder, Properties: []string{"never"}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != explorer.Violated {
				t.Errorf("%s, %v: %v, want the violation the full search finds", c.name, strat, r.Status)
			}
		}
	}
}
