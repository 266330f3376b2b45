package automaton_test

import (
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
)

// trkPair is a process of a two-process system: process 1 sends two
// messages to process 2 in one step, and process 2 receives them.
type trkPair struct {
	Sent bool
	Got  int
}

func (p *trkPair) Steps(v *automaton.View[trkPair, int], out []automaton.Step) []automaton.Step {
	if v.Self() == 0 && !p.Sent {
		out = append(out, automaton.Out("send", 1))
	}
	return out
}

func (p *trkPair) Do(_ automaton.Step, fx *automaton.Effects[int]) {
	p.Sent = true
	fx.Send(1, 7)
	fx.Send(1, 8)
}

func (p *trkPair) Receive(_ int, _ int, _ *automaton.Effects[int]) { p.Got++ }

// restamp is a tracker that learns its stamps after the effect: its first
// stamps are wrong (0xEE), and After asks for the messages to be stamped
// again (Pass 1), with the index of each among the step's sends, plus one,
// and the message. Its metric "stamp" samples, at each receive, what the
// message carries: 10*index + message - 60.
type restamp struct{}

func (restamp) Metrics() []string { return []string{"stamp"} }

func (restamp) Track([]string, int) (automaton.TrackRun[trkPair, int], error) {
	return restampRun{}, nil
}

type restampRun struct{}

func (restampRun) Layout() automaton.TrackLayout { return automaton.TrackLayout{Msg: 1} }
func (restampRun) Metrics() []explorer.TrackedMetric {
	return []explorer.TrackedMetric{{Name: "stamp", Kind: explorer.Sample, Doc: "what a message received carries"}}
}
func (restampRun) Tracks() string                                   { return "a stamp on every message" }
func (restampRun) DescribeProc([]byte) []explorer.Var               { return nil }
func (restampRun) DescribeEnv([]uint64) []explorer.Var              { return nil }
func (restampRun) NewStepper() automaton.TrackStepper[trkPair, int] { return &restampStepper{} }

type restampStepper struct{ last int32 }

func (s *restampStepper) Before(st *automaton.TrackStep[trkPair, int]) {
	s.last = -1
	if st.MsgIn != nil {
		s.last = int32(st.MsgIn[0])
	}
}

func (s *restampStepper) Stamp(st *automaton.TrackStep[trkPair, int], _ int, m int, b []byte) {
	if b[0] != 0 {
		panic("a stamp starts at 0")
	}
	b[0] = 0xEE
	if st.Pass == 1 {
		b[0] = byte(10*(st.Sent+1) + m - 6)
	}
}

func (s *restampStepper) After(st *automaton.TrackStep[trkPair, int]) bool {
	return st.Pass == 0 && st.Kind == automaton.Output
}

func (s *restampStepper) Values(_ int, out []int32) []int32 { return append(out, s.last) }
func (s *restampStepper) Reached(int, *automaton.View[trkPair, int], int) bool {
	return false
}
func (s *restampStepper) ForgetProc([]byte) {}
func (s *restampStepper) ForgetMsg([]byte)  {}

// TestTrackerStampsAgain: when After asks for new stamps, every message
// the step sent carries its Pass 1 stamp, made from zeroed bytes, in the
// order sent, with TrackStep.Sent counting from 0 again: the first
// message (7) carries 10*1+7-6 = 11, the second (8) 10*2+8-6 = 22. The
// worker stamps its held sends again rather than running the effect
// again; a mutant that kept the first stamps would show 238 (0xEE), one
// that did not reset Sent 31 and 42. The states are the plain ones: not
// sent; both in transit; one received; both received.
func TestTrackerStampsAgain(t *testing.T) {
	sys, err := automaton.New(automaton.Config[trkPair, int]{
		Initial:  [][]trkPair{{{}, {}}},
		Links:    automaton.Ring(2),
		ValidEnd: func(v *automaton.View[trkPair, int]) bool { return v.Proc(1).Got == 2 },
		Trackers: []automaton.Tracker[trkPair, int]{restamp{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		r, err := explorer.Check(sys, explorer.Config{Workers: workers, Metrics: []string{"stamp"}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != explorer.OK || r.States != 4 {
			t.Errorf("%d workers: %v, %d states; want ok, 4", workers, r.Status, r.States)
		}
		if m := r.Metrics[0]; !m.Executions || m.Min != 11 || m.Max != 22 {
			t.Errorf("%d workers: %+v; want stamps 11 and 22", workers, m)
		}
	}
}
