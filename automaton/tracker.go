package automaton

import (
	"fmt"

	"github.com/vacheck/vacheck/channel"

	"github.com/vacheck/vacheck/explorer"
)

// Tracker is a metric that a System follows through every transition by
// keeping values of its own in the state: some bytes per process, some per
// message in transit, and some words of the environment. The System tells
// it about every transition (the process, the message received, the
// messages sent, the states before and after) and asks it, per transition,
// the values the explorer aggregates by the metric's kind
// (explorer.MetricKind). Time (causal depth) is one, built in; package
// mutex defines sync-delay and messages-per-entry as one. Adding a metric
// is writing a Tracker and listing it in Config.Trackers.
//
// What a tracker keeps is part of the state, so a run that tracks a metric
// may have more states than a plain one. Every tracked byte and word is 0
// in the initial states, and in the messages of Chan.Initial.
type Tracker[S any, M Message] interface {
	// Metrics lists the names of the metrics the tracker computes.
	Metrics() []string
	// Track sets the tracker up for the metrics asked for (some of
	// Metrics, in the order asked) in a system of n processes, or says
	// why it cannot.
	Track(names []string, n int) (TrackRun[S, M], error)
}

// TrackLayout is what a tracker keeps in the state: Proc bytes per process,
// Msg bytes per message in transit, and Env words of the environment
// (uvarints; at most MaxTrackEnv for all the trackers of a run).
type TrackLayout struct {
	Proc, Msg, Env int
}

// MaxTrackEnv bounds the environment words of all the trackers of a run.
const MaxTrackEnv = 4

// TrackRun is a Tracker set up for some of its metrics.
type TrackRun[S any, M Message] interface {
	Layout() TrackLayout
	// Metrics describes the metrics, in the order they were asked for.
	Metrics() []explorer.TrackedMetric
	// Tracks says what the tracker adds to the states, for reports.
	Tracks() string
	// DescribeProc shows what it keeps for a process, whose bytes are b
	// (the System prefixes the names with the process's, "p1.").
	DescribeProc(b []byte) []explorer.Var
	// DescribeEnv shows what it keeps in the environment.
	DescribeEnv(env []uint64) []explorer.Var
	// NewStepper returns the tracker's part of one worker (one goroutine).
	NewStepper() TrackStepper[S, M]
}

// TrackStepper follows the transitions one worker performs. For each
// transition the System calls Before, then Stamp for every message the
// effect sends, then After; when After asks for it (its stamps changed, or
// it set TrackStep.Forget), Stamp is called again for every message, in
// the order sent, on bytes set to 0 again (TrackStep.Pass 1). The System
// keeps the messages of a step until then, so that new stamps alone do not
// run the effect again; Forget, which rewrites every channel, does.
type TrackStepper[S any, M Message] interface {
	// Before is told the transition before its effect: it reads
	// TrackStep.ProcIn and MsgIn and may set ProcOut.
	Before(st *TrackStep[S, M])
	// Stamp fills b (Layout().Msg bytes) with what the message m, which
	// the stepping process sends to process to, carries.
	Stamp(st *TrackStep[S, M], to int, m M, b []byte)
	// After is told the transition after its effect (TrackStep.Post): it
	// may set ProcOut, EnvOut and Forget, and reports whether the
	// messages must be stamped anew (Pass 1).
	After(st *TrackStep[S, M]) (again bool)
	// Values appends the values metric i gives the transition last
	// performed (one for explorer.PathSum and Sample, the keys for PerKey).
	Values(i int, out []int32) []int32
	// Reached reports, for a PerKey metric i, whether key is reached in
	// the state v.
	Reached(i int, v *View[S, M], key int) bool
	// ForgetProc and ForgetMsg reset what the tracker keeps for a process
	// or a message, in place, when After set TrackStep.Forget.
	ForgetProc(b []byte)
	ForgetMsg(b []byte)
}

// TrackStep is a transition as a TrackStepper sees it. The System owns it;
// the tracker reads its fields and writes ProcOut, EnvOut and Forget.
type TrackStep[S any, M Message] struct {
	Kind    Kind // Output, Internal, Input or Fault
	Proc    int  // the process that steps (0-based)
	Recover bool // Fault: a recovery rather than a crash
	N       int  // the number of processes
	// View is the state before the transition.
	View *View[S, M]
	// Post is the stepping process's state after the effect, and
	// ProcChanged says whether the effect ran on it (After only).
	Post        *S
	ProcChanged bool
	// Pass is 0 for the first stamps of the step's messages, 1 when
	// After asked for them anew.
	Pass int
	// Sent is the number of messages to other processes the effect has
	// sent so far in this pass (in Stamp: the index of this one among them).
	Sent int
	// ProcIn is what the tracker keeps for the stepping process before
	// the transition, MsgIn for the message it receives (Input), and
	// ProcOut what it keeps after (ProcIn unless the tracker changes it).
	ProcIn, MsgIn, ProcOut []byte
	// EnvIn are the tracker's environment words before the transition,
	// EnvOut after (EnvIn unless the tracker changes them).
	EnvIn, EnvOut []uint64
	// Forget, set by After, resets what the tracker keeps for every other
	// process and every message in transit (ForgetProc, ForgetMsg); the
	// effect then runs again.
	Forget bool

	w trackHost // the worker, for PostSteps
	// msgBack and msgLen locate the tracker's bytes in a message's
	// encoding: msgLen bytes from msgBack before its end.
	msgBack, msgLen int
	// Where the tracker's values sit (trackSlot), as slice bounds: in
	// the trailer of a process (procOff:procEnd), in that of a message
	// (msgOff:msgEnd), among the environment's words (envOff:envEnd).
	procOff, procEnd, msgOff, msgEnd, envOff, envEnd int
}

// trackHost is what a TrackStep asks of the worker it belongs to.
type trackHost interface {
	postSteps(out []Step) []Step
}

// InTransit calls f with what the tracker keeps for every message in
// transit before the transition. It reads the state directly, so that f,
// which does not escape, costs no allocation.
func (st *TrackStep[S, M]) InTransit(f func(b []byte)) {
	for _, seg := range st.View.segs[1+st.N:] {
		channel.Each(seg, func(msg []byte) {
			at := len(msg) - st.msgBack
			f(msg[at : at+st.msgLen])
		})
	}
}

// PostSteps appends the locally controlled steps the stepping process has
// enabled after the effect (Post) to out.
func (st *TrackStep[S, M]) PostSteps(out []Step) []Step { return st.w.postSteps(out) }

// Fail stops the check with a model error (a modelling mistake the tracker
// found, such as a callback's result out of range).
func (st *TrackStep[S, M]) Fail(format string, args ...any) {
	panic(modelError{fmt.Sprintf(format, args...)})
}

// trackSlot is a tracker of a run with where its values sit: at procOff
// in the trailer of every process encoding, msgOff in that of every
// message, envOff among the environment's words.
type trackSlot[S any, M Message] struct {
	run                     TrackRun[S, M]
	lay                     TrackLayout
	procOff, msgOff, envOff int
}

// trackedMetric maps metric i asked for to its tracker k and its index j
// among that tracker's.
type trackedMetric struct{ k, j int }

// trackWorker is a worker's part of tracking: each tracker's stepper and
// transition.
type trackWorker[S any, M Message] struct {
	steppers []TrackStepper[S, M]
	steps    []TrackStep[S, M]
	procBuf  []byte              // the ProcOut of every tracker, back to back: the stepping process's trailer
	forget   bool                // some tracker set Forget in the current transition
	env      [MaxTrackEnv]uint64 // the environment's words the trackers write in After
	scratch  []byte              // forgetSeg's message
	scratch2 []byte              // a receive's channel, before forgetSeg
	// holding: the transition's sends are held here, stamped, until
	// After has run (trackRestamp, releaseHeld), so that new stamps do
	// not need the effect to run again. held[i] is a send of heldMsgs[i]
	// (a Message is comparable, so a copy holds no slice the process
	// could change since), encoded with its trailer in heldBuf.
	holding  bool
	held     []heldSend
	heldMsgs []M
	heldBuf  []byte
}

// heldSend is a send held until the trackers have stamped it: channel c,
// receiver to, the message's encoding heldBuf[start:end].
type heldSend struct{ c, to, start, end int }
