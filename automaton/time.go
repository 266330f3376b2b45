package automaton

import (
	"fmt"

	"github.com/vacheck/vacheck/explorer"
)

// MetricTime is the metric time: the causal depth of an execution
// (docs/properties.md), the longest chain of messages each sent after the
// previous was received. Every System tracks it (timeTracker).
const MetricTime = "time"

// timeCap is the largest causal depth tracked (one byte); a depth that
// reaches it stays there, and the metric reports it as unbounded.
const timeCap = 255

// timeTracker is the Tracker of time: every process and every message in
// transit keeps a depth (one byte), and the environment the largest depth
// so far. Messages a process sends to itself carry its depth unchanged:
// like the message count, time does not count self-communication.
type timeTracker[S any, M Message] struct{}

func (timeTracker[S, M]) Metrics() []string { return []string{MetricTime} }

func (timeTracker[S, M]) Track(names []string, n int) (TrackRun[S, M], error) {
	return timeRun[S, M]{}, nil
}

// timeRun is time set up.
type timeRun[S any, M Message] struct{}

func (timeRun[S, M]) Layout() TrackLayout { return TrackLayout{Proc: 1, Msg: 1, Env: 1} }

func (timeRun[S, M]) Metrics() []explorer.TrackedMetric {
	return []explorer.TrackedMetric{{
		Name: MetricTime, Kind: explorer.PathSum, Cap: timeCap,
		Doc: "the largest causal depth on the path: the longest chain of messages, each sent after the previous was received (docs/properties.md)",
	}}
}

func (timeRun[S, M]) Tracks() string {
	return "the causal depth of every process and message (--metric time)"
}

func (timeRun[S, M]) DescribeProc(b []byte) []explorer.Var {
	return []explorer.Var{{Name: "depth", Value: int(b[0])}}
}

func (timeRun[S, M]) DescribeEnv([]uint64) []explorer.Var { return nil }

func (timeRun[S, M]) NewStepper() TrackStepper[S, M] { return &timeStepper[S, M]{} }

// timeStepper follows the depths in one worker.
type timeStepper[S any, M Message] struct {
	newD, stampD int   // the stepping process's depth after the step, and what its messages to others carry
	maxStamp     int   // the largest depth a message of the step carries
	last         int32 // what the step raised the largest depth by, -1 at the cap
}

// Before: the stepping process's depth after the step is the larger of
// its own and that of the message it receives; its messages to others
// carry one more.
func (t *timeStepper[S, M]) Before(st *TrackStep[S, M]) {
	d := int(st.ProcIn[0])
	if st.MsgIn != nil {
		d = max(d, int(st.MsgIn[0]))
	}
	t.newD, t.stampD, t.maxStamp = d, min(d+1, timeCap), 0
	st.ProcOut[0] = byte(d)
}

func (t *timeStepper[S, M]) Stamp(st *TrackStep[S, M], to int, _ M, b []byte) {
	d := t.stampD
	if to == st.Proc {
		d = t.newD
	}
	t.maxStamp = max(t.maxStamp, d)
	b[0] = byte(d)
}

// After updates the largest depth so far.
func (t *timeStepper[S, M]) After(st *TrackStep[S, M]) bool {
	top := int(st.EnvIn[0])
	next := top
	if st.ProcChanged {
		next = max(next, t.newD)
	}
	next = max(next, t.maxStamp)
	st.EnvOut[0] = uint64(next)
	t.last = int32(next - top)
	if next >= timeCap && top < timeCap {
		t.last = -1
	}
	return false
}

func (t *timeStepper[S, M]) Values(_ int, out []int32) []int32 { return append(out, t.last) }

func (t *timeStepper[S, M]) Reached(i int, _ *View[S, M], _ int) bool {
	panic(modelError{fmt.Sprintf("time has no keys (metric %d)", i)})
}

func (t *timeStepper[S, M]) ForgetProc([]byte) {}
func (t *timeStepper[S, M]) ForgetMsg([]byte)  {}
