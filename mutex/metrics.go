package mutex

import (
	"fmt"
	"strings"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
)

// The metrics of mutual exclusion (docs/properties.md), which Tracker
// computes.
const (
	// MetricMessagesPerEntry is, for every critical-section entry, the
	// messages that serve it (automaton.Mutex says which), over the
	// complete executions in which it takes place.
	MetricMessagesPerEntry = "messages-per-entry"
	// MetricSyncDelay is the synchronisation delay: the message hops from
	// an exit to the next enter by a process that was waiting at it, a
	// sample at each such enter.
	MetricSyncDelay = "sync-delay"
)

// hopCap is the largest number of hops since an exit tracked (one byte); a
// value that reaches it stays there, and the metric reports it as
// unbounded.
const hopCap = 255

// Tracker returns the automaton.Tracker of the metrics messages-per-entry
// and sync-delay for the user part mx describes (its fields are read when
// a run starts). Metrics and its twins set it as mx.Tracker, so that
// automaton.Config.Mutex computes them; a Config may instead list it in
// Trackers.
//
// For messages-per-entry every message in transit carries the key of the
// entry it serves (see automaton.Mutex), so that a reply serves what it
// replies to. For sync-delay every process and message carries the hops
// since the last exit, and the environment the processes that were trying
// at it.
func Tracker[S any, M automaton.Message](mx *automaton.Mutex[S, M]) automaton.Tracker[S, M] {
	return tracker[S, M]{mx}
}

type tracker[S any, M automaton.Message] struct{ mx *automaton.Mutex[S, M] }

func (tracker[S, M]) Metrics() []string {
	return []string{MetricSyncDelay, MetricMessagesPerEntry}
}

func (t tracker[S, M]) Track(names []string, n int) (automaton.TrackRun[S, M], error) {
	mx := t.mx
	r := &run[S, M]{mx: mx, n: n, names: names, isSync: make([]bool, len(names))}
	for i, name := range names {
		r.isSync[i] = name == MetricSyncDelay
		if (mx.User == nil) == (mx.UserAt == nil) {
			return nil, fmt.Errorf("--metric %s: the spec's Mutex sets %s; set User or UserAt", name, map[bool]string{true: "neither User nor UserAt", false: "both User and UserAt"}[mx.User == nil])
		}
		if mx.Entries <= 0 {
			return nil, fmt.Errorf("--metric %s: the spec's Mutex.Entries is %d; it must be positive", name, mx.Entries)
		}
		if name == MetricSyncDelay {
			if n > 64 {
				return nil, fmt.Errorf("--metric %s: at most 64 processes", name)
			}
			r.sync = true
		}
	}
	return r, nil
}

// run is the tracker set up: sync says whether sync-delay is tracked; the
// entry keys always are (sync-delay needs them too).
type run[S any, M automaton.Message] struct {
	mx    *automaton.Mutex[S, M]
	n     int
	names []string
	// isSync[i] says whether metric i is sync-delay (the other is
	// messages-per-entry), for Values.
	isSync []bool
	sync   bool
}

// Layout: each message keeps its entry key (two bytes, key+1, 0 for none),
// then with sync-delay its hops; with sync-delay each process keeps its
// hops, and the environment the processes waiting at the last exit. Hops
// are kept as 0 for none (not causally after the exit) and h+1 for h hops.
func (r *run[S, M]) Layout() automaton.TrackLayout {
	if r.sync {
		return automaton.TrackLayout{Proc: 1, Msg: 3, Env: 1}
	}
	return automaton.TrackLayout{Msg: 2}
}

func (r *run[S, M]) Metrics() []explorer.TrackedMetric {
	out := make([]explorer.TrackedMetric, len(r.names))
	for i, name := range r.names {
		switch name {
		case MetricSyncDelay:
			out[i] = explorer.TrackedMetric{Name: name, Kind: explorer.Sample, Cap: hopCap,
				Doc: "the message hops from an exit to the next entry by a process waiting at it, one sample per such entry on the path, listed in order; the value is the last (docs/properties.md)"}
		case MetricMessagesPerEntry:
			out[i] = explorer.TrackedMetric{Name: name, Kind: explorer.PerKey, Cap: hopCap, Keys: r.n * r.mx.Entries, KeyName: r.entryName,
				Doc: "the messages serving each critical-section entry on the path (docs/properties.md); the value is the largest"}
		}
	}
	return out
}

// entryName says which entry a key is.
func (r *run[S, M]) entryName(key int) string {
	e := r.mx.Entries
	return fmt.Sprintf("critical section %d of process %d", key%e+1, key/e+1)
}

func (r *run[S, M]) Tracks() string {
	var parts []string
	if r.sync {
		parts = append(parts, "the message hops since the last exit of every process and message, and who waited at it (--metric sync-delay)")
	}
	parts = append(parts, "the critical-section entry every message in transit serves (--metric messages-per-entry, sync-delay)")
	return strings.Join(parts, "; ")
}

// DescribeProc shows the hops since the last exit ("-" when the process is
// not causally after it).
func (r *run[S, M]) DescribeProc(b []byte) []explorer.Var {
	if !r.sync {
		return nil
	}
	var hops any = "-"
	if b[0] > 0 {
		hops = int(b[0]) - 1
	}
	return []explorer.Var{{Name: "hops", Value: hops}}
}

// DescribeEnv shows the processes waiting at the last exit.
func (r *run[S, M]) DescribeEnv(env []uint64) []explorer.Var {
	if !r.sync {
		return nil
	}
	waiting := []any{}
	for i := 0; i < r.n; i++ {
		if env[0]&(1<<uint(i)) != 0 {
			waiting = append(waiting, i+1)
		}
	}
	return []explorer.Var{{Name: "waiting-at-exit", Value: waiting}}
}

func (r *run[S, M]) NewStepper() automaton.TrackStepper[S, M] { return &stepper[S, M]{r: r} }

// user reads the user state of process i, p, through UserAt or User.
func (r *run[S, M]) user(i int, p *S) (trying, critical bool, done int) {
	if r.mx.UserAt != nil {
		return r.mx.UserAt(i, p)
	}
	return r.mx.User(p)
}

// stepper follows the entries and the hops in one worker.
type stepper[S any, M automaton.Message] struct {
	r            *run[S, M]
	newS, stampS int     // the stepping process's hops after the step, and what its messages to others carry
	servedBy     []int32 // the process each message to another serves
	served       []int32 // and the key of the entry it serves, or -1
	keysKnown    bool    // served is computed: the effect runs again to stamp it
	lastSync     int32
	enterSteps   []automaton.Step
}

// msgKey reads the entry key a message keeps, or -1.
func msgKey(b []byte) int { return int(b[0]) | int(b[1])<<8 - 1 }

func (s *stepper[S, M]) Before(st *automaton.TrackStep[S, M]) {
	s.servedBy, s.keysKnown, s.lastSync = s.servedBy[:0], false, -1
	if !s.r.sync || st.Kind == automaton.Fault {
		return
	}
	h := int(st.ProcIn[0])
	if st.MsgIn != nil {
		h = max(h, int(st.MsgIn[2]))
	}
	s.newS, s.stampS = h, 0
	if h > 0 {
		s.stampS = min(h+1, hopCap)
	}
	st.ProcOut[0] = byte(h)
}

// Stamp: a message to another process carries the key of the entry it
// serves (known once the effect has run: see After), and its hops; a
// message to itself serves no entry and carries the process's hops.
func (s *stepper[S, M]) Stamp(st *automaton.TrackStep[S, M], to int, m M, b []byte) {
	key := -1
	self := to == st.Proc
	if !self {
		if s.keysKnown {
			key = int(s.served[st.Sent])
		}
		if st.Pass == 0 {
			s.servedBy = append(s.servedBy, int32(s.r.mx.Serves(st.View, st.Proc, to, m)))
		}
	}
	b[0], b[1] = byte(key+1), byte((key+1)>>8)
	if s.r.sync {
		h := s.stampS
		if self {
			h = s.newS
		}
		b[2] = byte(h)
	}
}

// After follows the synchronisation delay, then computes the keys of the
// entries the messages sent serve.
func (s *stepper[S, M]) After(st *automaton.TrackStep[S, M]) bool {
	again := false
	if s.r.sync && s.syncStep(st) {
		again = true
	}
	s.entryKeys(st)
	if len(s.servedBy) > 0 {
		// Run the effect again with the keys known, to stamp them on the
		// messages (so that a reply serves what it replies to).
		s.keysKnown, again = true, true
	}
	if s.r.sync {
		st.ProcOut[0] = byte(s.newS)
	}
	return again
}

// syncStep follows the synchronisation delay (docs/properties.md): the
// message hops from an exit to the next enter by a process that was waiting
// at the exit. It recognises an exit (critical to not critical) and an
// enter (trying to critical) of the stepping process, and a step of a
// waiting process that enables its enter step, which closes the delay:
// what follows until the process takes the step adds nothing to it. It
// reports whether the effect must run again because the hops since the
// exit are reset (and sets Forget). The processes waiting at an exit are
// those trying with no message that serves their entry in transit: their
// requests have been dealt with, and they wait for the critical section
// only (the heavy load of the classical figures).
func (s *stepper[S, M]) syncStep(st *automaton.TrackStep[S, M]) bool {
	if st.Kind == automaton.Fault {
		return false
	}
	r, v, i := s.r, st.View, st.Proc
	armed := st.EnvIn[0]
	preTry, preCrit, _ := r.user(i, v.Proc(i))
	postTry, postCrit, _ := r.user(i, st.Post)
	local := st.Kind == automaton.Output || st.Kind == automaton.Internal
	switch {
	case local && preCrit && !postCrit: // exit
		var now uint64
		for j := 0; j < r.n; j++ {
			if j != i && v.Up(j) {
				if try, _, done := r.user(j, v.Proc(j)); try && !s.inTransitFor(st, j*r.mx.Entries+done) {
					now |= 1 << uint(j)
				}
			}
		}
		if now == 0 && armed == 0 {
			return false
		}
		st.EnvOut[0] = now
		s.newS, s.stampS = 0, 0
		if now != 0 {
			s.newS, s.stampS = 1, 2
		}
	case local && preTry && postCrit: // enter
		if armed == 0 {
			return false
		}
		st.EnvOut[0] = 0
		s.newS, s.stampS = 0, 0
	case armed&(1<<uint(i)) != 0 && postTry && s.enterEnabled(st):
		s.lastSync = int32(max(s.newS-1, 0))
		if s.newS >= hopCap {
			s.lastSync = -2
		}
		armed &^= 1 << uint(i)
		st.EnvOut[0] = armed
		if armed != 0 {
			return false
		}
		s.newS, s.stampS = 0, 0
	default:
		return false
	}
	st.Forget = true
	return true
}

// enterEnabled reports whether the stepping process, in its state after
// the step, has its step named enter enabled.
func (s *stepper[S, M]) enterEnabled(st *automaton.TrackStep[S, M]) bool {
	s.enterSteps = st.PostSteps(s.enterSteps[:0])
	for _, x := range s.enterSteps {
		if x.Name == "enter" {
			return true
		}
	}
	return false
}

// inTransitFor reports whether a message in transit before the step serves
// the entry of key.
func (s *stepper[S, M]) inTransitFor(st *automaton.TrackStep[S, M], key int) bool {
	found := false
	st.InTransit(func(b []byte) { found = found || msgKey(b) == key })
	return found
}

// entryKeys computes the entry keys of the messages the step sent to
// others, in s.served, -1 for none. A message for which Serves says
// InheritEntry serves the entry of the message the step receives (an ACK
// serves the request it acknowledges, even when the requester has moved on
// since); any other message serves the entry that is current for its
// process after the step (a REPLY that a coordinator sends on a RELEASE
// serves the next request of its receiver, not the entry the RELEASE
// ended).
func (s *stepper[S, M]) entryKeys(st *automaton.TrackStep[S, M]) {
	r := s.r
	s.served = s.served[:0]
	inKey := -1
	if st.MsgIn != nil {
		inKey = msgKey(st.MsgIn)
	}
	for _, p := range s.servedBy {
		if p == automaton.InheritEntry {
			if inKey >= 0 {
				s.served = append(s.served, int32(inKey))
				continue
			}
			p = int32(st.Proc)
		}
		if p < 0 {
			s.served = append(s.served, -1)
			continue
		}
		if int(p) >= r.n {
			st.Fail("Mutex.Serves returned process %d; there are %d", p+1, r.n)
		}
		var ps *S
		if int(p) == st.Proc && st.ProcChanged {
			ps = st.Post
		} else {
			ps = st.View.Proc(int(p))
		}
		try, crit, done := r.user(int(p), ps)
		k := done
		if !try && !crit {
			k--
		}
		if k < 0 {
			s.served = append(s.served, -1)
			continue
		}
		if k >= r.mx.Entries {
			st.Fail("process %d is at critical section %d, beyond Mutex.Entries %d", p+1, k+1, r.mx.Entries)
		}
		s.served = append(s.served, p*int32(r.mx.Entries)+int32(k))
	}
}

func (s *stepper[S, M]) Values(i int, out []int32) []int32 {
	if s.r.isSync[i] {
		return append(out, s.lastSync)
	}
	for _, k := range s.served {
		if k >= 0 {
			out = append(out, k)
		}
	}
	return out
}

// Reached reports whether process key/R has entered its critical section
// key%R in the state v.
func (s *stepper[S, M]) Reached(_ int, v *automaton.View[S, M], key int) bool {
	e := s.r.mx.Entries
	_, crit, done := s.r.user(key/e, v.Proc(key/e))
	return done > key%e || (done == key%e && crit)
}

// ForgetProc and ForgetMsg forget the hops since the previous exit.
func (s *stepper[S, M]) ForgetProc(b []byte) { b[0] = 0 }
func (s *stepper[S, M]) ForgetMsg(b []byte)  { b[2] = 0 }
