package automaton_test

import (
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
)

// trkBurst is a process of a two-process system: process 1 sends Left
// messages to process 2, one step each, and process 2 receives them.
type trkBurst struct {
	Left, Got int
}

func (p *trkBurst) Steps(v *automaton.View[trkBurst, string], out []automaton.Step) []automaton.Step {
	if p.Left > 0 {
		out = append(out, automaton.Out("send", 1))
	}
	return out
}

func (p *trkBurst) Do(_ automaton.Step, fx *automaton.Effects[string]) {
	p.Left--
	fx.Send(1, "m")
}

func (p *trkBurst) Receive(_ int, _ string, _ *automaton.Effects[string]) { p.Got++ }

// inFlight is a metric defined here and nowhere else: the most messages in
// transit at once. It keeps one environment word, the most so far; a
// transition weighs what it raises it by, so that the sum along a complete
// execution (explorer.PathSum) is the execution's most messages in transit.
type inFlight struct{}

func (inFlight) Metrics() []string { return []string{"in-flight"} }

func (inFlight) Track([]string, int) (automaton.TrackRun[trkBurst, string], error) {
	return inFlightRun{}, nil
}

type inFlightRun struct{}

func (inFlightRun) Layout() automaton.TrackLayout { return automaton.TrackLayout{Env: 1} }
func (inFlightRun) Metrics() []explorer.TrackedMetric {
	return []explorer.TrackedMetric{{Name: "in-flight", Kind: explorer.PathSum, Doc: "the most messages in transit at once"}}
}
func (inFlightRun) Tracks() string                     { return "the most messages in transit so far (--metric in-flight)" }
func (inFlightRun) DescribeProc([]byte) []explorer.Var { return nil }
func (inFlightRun) DescribeEnv(env []uint64) []explorer.Var {
	return []explorer.Var{{Name: "in-flight", Value: env[0]}}
}
func (inFlightRun) NewStepper() automaton.TrackStepper[trkBurst, string] { return &inFlightStepper{} }

type inFlightStepper struct {
	now  int // messages in transit after the step
	last int32
}

func (s *inFlightStepper) Before(st *automaton.TrackStep[trkBurst, string]) {
	s.now = 0
	st.InTransit(func([]byte) { s.now++ })
	if st.Kind == automaton.Input {
		s.now--
	}
}

func (s *inFlightStepper) Stamp(st *automaton.TrackStep[trkBurst, string], _ int, _ string, _ []byte) {
	if st.Pass == 0 {
		s.now++
	}
}

func (s *inFlightStepper) After(st *automaton.TrackStep[trkBurst, string]) bool {
	top := st.EnvIn[0]
	st.EnvOut[0] = max(top, uint64(s.now))
	s.last = int32(st.EnvOut[0] - top)
	return false
}

func (s *inFlightStepper) Values(_ int, out []int32) []int32 { return append(out, s.last) }
func (s *inFlightStepper) Reached(int, *automaton.View[trkBurst, string], int) bool {
	return false
}
func (s *inFlightStepper) ForgetProc([]byte) {}
func (s *inFlightStepper) ForgetMsg([]byte)  {}

// TestTrackerDefinedOutside: a metric written as a Tracker in this file
// alone, listed in Config.Trackers, is computed by explorer.Check with its
// witnesses, and by no other change. Three messages from process 1 to
// process 2 (FIFO): the fewest in transit at once is 1 (send, receive,
// send, ...), the most 3 (every send first). The plain system has the 10
// states (s, r), 0 ≤ r ≤ s ≤ 3 (s sent, r received); tracking the most in
// transit so far, h, splits them into the triples (s, r, h) with
// max(1, s−r) ≤ h ≤ s (h = 0 only at s = 0): 1 + 2 + 5 + 9 = 17 states,
// counted by s.
func TestTrackerDefinedOutside(t *testing.T) {
	sys, err := automaton.New(automaton.Config[trkBurst, string]{
		Initial:  [][]trkBurst{{{Left: 3}, {}}},
		Links:    automaton.Ring(2),
		ValidEnd: func(v *automaton.View[trkBurst, string]) bool { return v.Proc(1).Got == 3 },
		Trackers: []automaton.Tracker[trkBurst, string]{inFlight{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := explorer.Check(sys, explorer.Config{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Status != explorer.OK || plain.States != 10 {
		t.Fatalf("plain: %v, %d states; want ok, 10", plain.Status, plain.States)
	}
	for _, workers := range []int{1, 2} {
		r, err := explorer.Check(sys, explorer.Config{Workers: workers, Metrics: []string{"in-flight", "messages"}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != explorer.OK || r.States != 17 {
			t.Errorf("%d workers: %v, %d states; want ok, 17", workers, r.Status, r.States)
		}
		m := r.Metrics[0]
		if m.Name != "in-flight" || !m.Executions || m.Min != 1 || m.Max != 3 || m.Unbounded {
			t.Errorf("%d workers: %+v; want in-flight min 1, max 3", workers, m)
		}
		if m.MaxWitness == nil || len(m.MaxWitness.Steps) != 6 || !strings.HasPrefix(m.MaxWitness.Steps[2].Action, "send") {
			t.Errorf("%d workers: max witness %+v; want the three sends first, then the receives", workers, m.MaxWitness)
		}
		if r.Tracked != "the most messages in transit so far (--metric in-flight)" {
			t.Errorf("tracked %q", r.Tracked)
		}
		if r.Metrics[1].Min != 3 || r.Metrics[1].Max != 3 {
			t.Errorf("messages %+v; want 3", r.Metrics[1])
		}
	}
	// A metric no tracker computes is refused, naming those it can.
	_, err = explorer.Check(sys, explorer.Config{Metrics: []string{"latency"}})
	if err == nil || !strings.Contains(err.Error(), "latency") || !strings.Contains(err.Error(), "time, in-flight") {
		t.Errorf("unknown metric: %v; want an error naming in-flight and time", err)
	}
}
