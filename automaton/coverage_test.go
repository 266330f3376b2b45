package automaton_test

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
)

// cvMsg is a message of the grant system: REQ(i) from client i, GRANT or
// DENY from the server.
type cvMsg struct {
	Kind string
	From int
}

func (m cvMsg) String() string {
	if m.Kind == "REQ" {
		return "REQ(" + strconv.Itoa(m.From+1) + ")"
	}
	return m.Kind
}

// cvProc is a client (processes 0 and 1), which asks once, or the server
// (process 2), which grants the first request and denies the others.
type cvProc struct {
	Server        bool `vacheck:"-"`
	Asked, Holder bool
	Busy          bool
}

func (p *cvProc) Steps(_ *automaton.View[cvProc, cvMsg], out []automaton.Step) []automaton.Step {
	if !p.Server && !p.Asked {
		out = append(out, automaton.Out("ask", 2))
	}
	return out
}

func (p *cvProc) Do(_ automaton.Step, fx *automaton.Effects[cvMsg]) {
	p.Asked = true
	fx.Send(2, cvMsg{Kind: "REQ", From: fx.Self()})
}

func (p *cvProc) Receive(from int, m cvMsg, fx *automaton.Effects[cvMsg]) {
	switch {
	case m.Kind == "REQ" && !p.Busy:
		p.Busy = true
		fx.Send(from, cvMsg{Kind: "GRANT"})
	case m.Kind == "REQ":
		fx.Send(from, cvMsg{Kind: "DENY"})
	case m.Kind == "GRANT":
		p.Holder = true
	}
}

// grantSystem is two clients and a server, with crashes crash-stop faults;
// it declares a step and a message type that never fire (release, NEVER).
func grantSystem(tb testing.TB, crashes int) *automaton.System[cvProc, cvMsg, *cvProc] {
	return mustNew[cvProc, cvMsg, *cvProc](tb, automaton.Config[cvProc, cvMsg]{
		Initial:      [][]cvProc{{{}, {}, {Server: true}}},
		Links:        automaton.Undirected([][]int{{2}, {2}, {0, 1}}),
		Crashes:      crashes,
		StepNames:    []string{"ask", "release"},
		MessageTypes: []string{"REQ", "GRANT", "DENY", "NEVER"},
		MayNotFire:   map[string]string{"release": "a client never gives its grant back in this system"},
	})
}

// TestDeclared: the system declares the Config's steps and the
// environment's it can take.
func TestDeclared(t *testing.T) {
	for crashes, want := range map[int]string{0: "[ask release receive]", 1: "[ask release receive crash]"} {
		d := grantSystem(t, crashes).Declared()
		if fmt.Sprint(d.Steps) != want || fmt.Sprint(d.Messages) != "[REQ GRANT DENY NEVER]" || len(d.MayNotFire) != 1 {
			t.Errorf("%d crashes: %+v", crashes, d)
		}
	}
	if d := pingPong(t).(explorer.Coverable).Declared(); d.Steps != nil || d.Messages != nil {
		t.Errorf("a Config that declares nothing: %+v", d)
	}
}

// TestCoverage checks the coverage of the grant system on every search
// path: breadth first (whose workers offer successors by keys and, without
// crashes, would replay remembered effects) and depth first, which must
// agree; without crashes, against a count by hand.
func TestCoverage(t *testing.T) {
	for _, crashes := range []int{0, 1} {
		sys := grantSystem(t, crashes)
		var want *explorer.Coverage
		for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}, {Strategy: explorer.DFS}} {
			cfg.Coverage = true
			r, err := explorer.Check(sys, cfg)
			if err != nil {
				t.Fatal(err)
			}
			c := r.Coverage
			if c.Transitions != r.Transitions {
				t.Errorf("%d crashes, %v: %d transitions covered of %d", crashes, cfg.Strategy, c.Transitions, r.Transitions)
			}
			if want == nil {
				want = c
				continue
			}
			if !reflect.DeepEqual(c, want) {
				t.Errorf("%d crashes: %v with %d workers gives\n%+v\nBFS on 1 worker\n%+v", crashes, cfg.Strategy, r.Workers, c, want)
			}
		}
		if fmt.Sprint(want.UnfiredSteps, want.UnfiredMessages, want.UndeclaredSteps, want.UndeclaredMessages) != "[release] [NEVER] [] []" {
			t.Errorf("%d crashes: unfired %v %v, undeclared %v %v", crashes, want.UnfiredSteps, want.UnfiredMessages, want.UndeclaredSteps, want.UndeclaredMessages)
		}
		cases := map[string]int64{}
		for _, rc := range want.ReceiveCases {
			cases[fmt.Sprintf("%s %v %v", rc.Received, rc.Sent, rc.Discarded)] = rc.Fired
		}
		if crashes == 0 {
			// Client i asks (a_i), the server takes its REQ (s_i) and
			// answers, the client takes the answer (c_i): a state is how
			// far each client got, p_i in 0..3, and when both were served,
			// which first: 12 + 4·2 = 20 states. The server takes REQ_1
			// where p_1 = 1: before client 2 was served (p_2 = 0, 1) it
			// grants, after it (p_2 = 2, 3) it denies; so 2 and 2, and as
			// many for REQ_2. Client 1 takes a GRANT where p_1 = 2 and
			// p_2 = 0, 1, or p_2 = 2, 3 with 1 served first, and a DENY in
			// the other two states: 4 and 2, and as many for client 2.
			if r := check(t, sys); r.States != 20 || want.Steps[0] != (explorer.StepCoverage{Name: "ask", Fired: 8, Declared: true}) {
				t.Errorf("%d states, want 20; %+v, want ask fired in the 4 states of each p_i = 0", r.States, want.Steps[0])
			}
			want := map[string]int64{"REQ [GRANT] false": 4, "REQ [DENY] false": 4, "GRANT [] false": 8, "DENY [] false": 4}
			if !reflect.DeepEqual(cases, want) {
				t.Errorf("receive cases %v, want %v", cases, want)
			}
		} else if cases["REQ [] true"] == 0 || cases["GRANT [] true"] == 0 {
			t.Errorf("with a crash: receive cases %v, want discarded REQs and GRANTs", cases)
		}
	}
}

// TestCoverageDeclarationErrors: a declaration that cannot be right is
// refused when the system is built.
func TestCoverageDeclarationErrors(t *testing.T) {
	for _, c := range []struct {
		steps, msgs []string
		why         map[string]string
	}{
		{steps: []string{"ask", "ask"}},
		{steps: []string{""}},
		{steps: []string{"receive"}},
		{msgs: []string{"REQ", "REQ"}},
		{steps: []string{"ask"}, why: map[string]string{"asking": "typo"}},
	} {
		_, err := automaton.New[cvProc, cvMsg, *cvProc](automaton.Config[cvProc, cvMsg]{
			Initial: [][]cvProc{{{}, {}, {Server: true}}}, Links: automaton.Undirected([][]int{{2}, {2}, {0, 1}}),
			StepNames: c.steps, MessageTypes: c.msgs, MayNotFire: c.why,
		})
		if !errors.Is(err, automaton.ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", c, err)
		}
	}
}
