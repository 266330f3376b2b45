package props_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/props"
)

// TestMessageFields: messages whose type implements automaton.Fielder
// read as records in expressions. In ricart-agrawala every REQUEST on the
// channel from process i names i as its sender (.from), and its
// timestamp (.ts) is at least 1; the negation is violated, so the
// invariant is not vacuous; .text is the printed form, and a REPLY is
// reachable by it. In chang-roberts-announce an ELECTED(3) is reachable
// with --ids all, and an ELECTED(1) is not.
func TestMessageFields(t *testing.T) {
	const sender = `all(chans, {let f = .from; all(.msgs, .type != "REQUEST" || .from == f && .ts >= 1)})`
	const lie = `all(chans, {let f = .from; all(.msgs, .type != "REQUEST" || .from != f)})`
	const reply = `any(chans, any(.msgs, .text == "REPLY" && .type == "REPLY"))`
	r := check(t, "ricart-agrawala", map[string]string{"n": "3"}, explorer.Config{Continue: true},
		inv(sender), inv(lie), props.Property{Kind: props.Reach, Expr: reply})
	if verdict(r, sender) != explorer.Holds || verdict(r, lie) != explorer.ViolatedVerdict || verdict(r, reply) != explorer.Holds {
		t.Errorf("ricart-agrawala: %v, %v, %v; want holds, violated, holds", verdict(r, sender), verdict(r, lie), verdict(r, reply))
	}
	const elected3 = `any(chans, any(.msgs, .type == "ELECTED" && .id == 3))`
	const elected1 = `any(chans, any(.msgs, .type == "ELECTED" && .id == 1))`
	r = check(t, "chang-roberts-announce", map[string]string{"n": "3", "ids": "all"}, explorer.Config{Continue: true},
		props.Property{Kind: props.Reach, Expr: elected3}, props.Property{Kind: props.Reach, Expr: elected1})
	if verdict(r, elected3) != explorer.Holds || verdict(r, elected1) != explorer.ViolatedVerdict {
		t.Errorf("chang-roberts-announce: %v, %v; want holds, violated", verdict(r, elected3), verdict(r, elected1))
	}
}

// ping is a message printed as PING(n); fping is the same message with
// its fields named (automaton.Fielder).
type ping struct{ N int }

func (m ping) String() string { return fmt.Sprintf("PING(%d)", m.N) }

type fping struct{ N int }

func (m fping) String() string         { return fmt.Sprintf("PING(%d)", m.N) }
func (m fping) Fields() map[string]any { return map[string]any{"type": "PING", "n": m.N} }

// pinger sends PING(5) from process 1 to process 2, once.
type pinger[M automaton.Message] struct{ Sent bool }

func (p *pinger[M]) Steps(v *automaton.View[pinger[M], M], out []automaton.Step) []automaton.Step {
	if v.Self() == 0 && !p.Sent {
		out = append(out, automaton.Out("ping", 1))
	}
	return out
}

func (p *pinger[M]) Do(_ automaton.Step, fx *automaton.Effects[M]) {
	p.Sent = true
	var m M
	switch x := any(&m).(type) {
	case *ping:
		x.N = 5
	case *fping:
		x.N = 5
	}
	fx.Send(1, m)
}

func (p *pinger[M]) Receive(int, M, *automaton.Effects[M]) {}

func pingSystem[M automaton.Message](t *testing.T) explorer.Model {
	t.Helper()
	sys, err := automaton.New(automaton.Config[pinger[M], M]{
		Initial: [][]pinger[M]{{{}, {}}},
		Links:   []automaton.Link{{From: 0, To: 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

// TestFielderOnly: without Fielder a message printed by String stays that
// string (as before), and naming a field is a usage error with a "did you
// mean"; with it, the fields and text are read, and .n == 6 is
// violated: a Fielder that gave a wrong value would be caught.
func TestFielderOnly(t *testing.T) {
	attach := func(m explorer.Model, e string) (*explorer.Result, error) {
		m, err := props.Attach(m, nil, inv(e))
		if err != nil {
			return nil, err
		}
		return explorer.Check(m, explorer.Config{Properties: []string{e}})
	}
	r, err := attach(pingSystem[ping](t), `all(chans, all(.msgs, # == "PING(5)"))`)
	if err != nil || r.Status != explorer.OK {
		t.Errorf("a Stringer message as a string: %v %v; want ok", r, err)
	}
	_, err = attach(pingSystem[ping](t), `all(chans, all(.msgs, .n == 5))`)
	var pe *props.Error
	if !errors.As(err, &pe) || pe.Unknown != "n" {
		t.Errorf("a field of a message without Fielder: %v; want an unknown variable n", err)
	}
	for e, want := range map[string]explorer.Status{
		`all(chans, all(.msgs, .n == 5 && .type == "PING" && .text == "PING(5)"))`: explorer.OK,
		`all(chans, all(.msgs, .n == 6))`:                                          explorer.Violated,
	} {
		r, err := attach(pingSystem[fping](t), e)
		if err != nil || r.Status != want {
			t.Errorf("%s with Fielder: %v %v; want %v", e, r.Status, err, want)
		}
	}
	_, err = attach(pingSystem[fping](t), `all(chans, all(.msgs, .nn == 5))`)
	if !errors.As(err, &pe) || pe.Suggestion != "n" {
		t.Errorf("a misspelt field: %v; want did you mean n", err)
	}
}

// TestMisspeltFieldSuggestsTheField: in ricart-agrawala, whose REQUEST is
// a Fielder (.type, .ts), .tz suggests ts. It suggested to (a channel's
// receiver), the first of the names at one edit: z is a neighbour of s on
// the keyboard, not of o. The names it lists as known include ts, which
// it left out.
func TestMisspeltFieldSuggestsTheField(t *testing.T) {
	m, _ := buildSpec(t, "ricart-agrawala", map[string]string{"n": "2"})
	_, err := props.Attach(m, nil, inv(`all(chans, all(.msgs, .tz >= 0))`))
	var pe *props.Error
	if !errors.As(err, &pe) || pe.Unknown != "tz" || pe.Suggestion != "ts" || !slices.Contains(pe.Known, "ts") {
		t.Errorf("a misspelt .ts: %v; want unknown tz, did you mean ts, among the names known", err)
	}
}
