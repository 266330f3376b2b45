package automatontest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/automaton/automatontest"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/specs"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.errors = append(r.errors, "fatal: "+fmt.Sprintf(format, args...))
}

func TestCheckPureChangRoberts(t *testing.T) {
	spec, _ := specs.Lookup("chang-roberts")
	m := model(t, "chang-roberts", map[string]string{"n": "3", "ids": "all"})
	// Cover the whole state space.
	r, err := explorer.Check(m, explorer.Config{Properties: spec.Claims})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.OK {
		t.Fatalf("chang-roberts n=3: %v %s", r.Status, r.Reason)
	}
	rec := &recorder{TB: t}
	automatontest.CheckPure(rec, m, int(r.States))
	if len(rec.errors) > 0 {
		t.Errorf("CheckPure reported a pure model: %s", strings.Join(rec.errors, "\n"))
	}
}

// shared is mutable memory that several states reach through a pointer.
type shared struct{ ticks int }

// leaky is impure: its effect counts in memory shared by every state, so
// the same transition from the same state gives a different successor each
// time it is computed.
type leaky struct {
	Count int
	Clock *shared `vacheck:"-"`
}

func (p *leaky) Steps(_ *automaton.View[leaky, int], out []automaton.Step) []automaton.Step {
	if p.Count < 3 {
		out = append(out, automaton.Do("tick"))
	}
	return out
}

func (p *leaky) Do(_ automaton.Step, _ *automaton.Effects[int]) {
	p.Clock.ticks++
	p.Count = p.Clock.ticks
}

func (p *leaky) Receive(int, int, *automaton.Effects[int]) {}

func TestCheckPureReportsImpurity(t *testing.T) {
	m, err := automaton.New(automaton.Config[leaky, int]{
		Initial: [][]leaky{{{Clock: &shared{}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{TB: t}
	automatontest.CheckPure(rec, m, 100)
	if len(rec.errors) != 1 {
		t.Fatalf("CheckPure reported %d problems, want 1: %q", len(rec.errors), rec.errors)
	}
	// The states are shown by their variables: the initial state's only
	// transition, tick, gives Count=1 on the first worker and Count=2 on
	// the second.
	for _, want := range []string{"state 0 (p1.count=0)", "two workers disagree", "action 0 (tick_{1})", "the successors differ: p1.count 1, then 2"} {
		if !strings.Contains(rec.errors[0], want) {
			t.Errorf("report %q does not mention %q", rec.errors[0], want)
		}
	}
}

// toy is a hand-made explorer.Model (not a Describer) whose states are
// {count, extra}, with one transition count -> count+1 up to 3. Each flag
// breaks purity in one way.
type toy struct {
	mutate     bool // Successors writes into its input
	leak       bool // the successor depends on the worker's previous state
	flakyCheck bool // Check answers differently each time
	flakyEnd   bool // ValidEnd answers differently each time
	checks     *int // calls to Check, shared by all workers
	ends       *int // calls to ValidEnd, shared by all workers
}

func (m toy) Initial() ([][]byte, error) { return [][]byte{{0, 0}}, nil }

func (m toy) Properties() []properties.Info {
	return []properties.Info{{Name: "p", Kind: properties.Invariant}}
}

func (m toy) NewWorker() explorer.Worker { return &toyWorker{m: m} }

type toyWorker struct {
	m    toy
	last byte // the count of the state expanded last
}

func (w *toyWorker) Successors(s []byte, emit func(explorer.Transition, []byte)) (int, error) {
	if s[0] >= 3 {
		return 0, nil
	}
	next := []byte{s[0] + 1, 0}
	if w.m.leak {
		next[1] = w.last
	}
	w.last = s[0]
	emit(explorer.Transition{Task: 0}, next)
	if w.m.mutate {
		s[1]++
	}
	return 1, nil
}

func (w *toyWorker) Check(s []byte, want uint64) (uint64, error) {
	*w.m.checks++
	if w.m.flakyCheck && *w.m.checks%2 == 0 {
		return 1, nil
	}
	return 0, nil
}

func (w *toyWorker) Expand(s []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	return explorer.ExpandBySuccessors(w, s, x)
}

func (w *toyWorker) ValidEnd(s []byte) (bool, error) {
	*w.m.ends++
	return !w.m.flakyEnd || *w.m.ends%2 == 0, nil
}

func TestCheckPureToys(t *testing.T) {
	tests := []struct {
		name string
		m    toy
		want string // "" when pure
	}{
		{"pure", toy{}, ""},
		{"mutates its input", toy{mutate: true}, "CheckPure: state 0 (00 00): Successors modified its input to 00 01"},
		{"leaks worker memory", toy{leak: true}, "CheckPure: state 0 (00 00): the same worker disagrees with itself after expanding another state: action 0: successor 01 00, then 01 01"},
		{"flaky Check", toy{flakyCheck: true}, "CheckPure: state 0 (00 00): Check answered 0x0 (<nil>), 0x1 (<nil>), 0x0 (<nil>)"},
		{"flaky ValidEnd", toy{flakyEnd: true}, "CheckPure: state 0 (00 00): ValidEnd answered false (<nil>), true (<nil>), false (<nil>)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.m.checks, tt.m.ends = new(int), new(int)
			rec := &recorder{TB: t}
			automatontest.CheckPure(rec, tt.m, 100)
			got := strings.Join(rec.errors, "\n")
			if got != tt.want {
				t.Errorf("CheckPure reported\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
