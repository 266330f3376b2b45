// Package mutex is the mutual-exclusion kit of vacheck: the user part of
// docs/properties.md (each process cycles idle → trying → critical → idle and
// makes a bounded number of requests), its properties GA1 (Exclusion), GA2
// (Progress, LiveProgress where processes crash), GA2' (Starvation) and
// FAIR-TS (TimestampOrder, for timestamped requests), the
// valid end state of section 0.8 (ValidEnd), and the wiring of the per-entry
// metrics messages-per-entry and sync-delay (Metrics, MetricsView).
//
// A process struct keeps its user part in two fields, a State and the number
// of requests served, and gives them to the kit through a User accessor:
//
//	type node struct {
//		Ust  mutex.State
//		Done int
//		...
//	}
//
//	func nodeUser(p *node) (mutex.State, int) { return p.Ust, p.Done }
//
//	automaton.Config[node, msg]{
//		Invariants: []automaton.Invariant[node, msg]{mutex.Exclusion[node, msg](nodeUser)},
//		Liveness:   mutex.Liveness[node, msg](nodeUser),
//		ValidEnd:   mutex.ValidEnd[node, msg](users, nodeUser, nil),
//		Mutex:      mutex.Metrics(users.R, nodeUser, serves),
//	}
//
// Every mutual-exclusion spec of the catalog (package specs) uses this kit.
package mutex

import (
	"strconv"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/properties"
)

// State is the user part of a mutual-exclusion process (docs/properties.md),
// which cycles Idle → Trying → Critical → Idle. The zero value is invalid,
// so a process left uninitialised is caught.
type State uint8

// The user states of docs/properties.md.
const (
	Idle State = 1 + iota
	Trying
	Critical
)

// String returns "idle", "trying" or "critical".
func (s State) String() string {
	switch s {
	case Idle:
		return "idle"
	case Trying:
		return "trying"
	case Critical:
		return "critical"
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// User reads the user part of a process state: its user state and the
// number of requests it has served (critical sections it has left).
type User[S any] func(p *S) (st State, done int)

// UserAt is User told the process's number i (0-based), for a user part
// that depends on which process it is. Each function of the kit that
// takes a User has a twin with the suffix At that takes a UserAt
// (ExclusionAt, LivenessAt, ...).
type UserAt[S any] func(i int, p *S) (st State, done int)

// at returns u as a UserAt that ignores the process's number.
func (u User[S]) at() UserAt[S] {
	return func(_ int, p *S) (State, int) { return u(p) }
}

// Users is the configuration of the user part: every requester makes R
// requests, the other processes none.
type Users struct {
	R          int
	Requesters []bool // 0-based: Requesters[i] says whether process i+1 requests
}

// Requests returns the number of requests process i (0-based) makes: R for
// a requester, 0 otherwise.
func (u Users) Requests(i int) int {
	if u.Requesters[i] {
		return u.R
	}
	return 0
}

// In reports whether process i (0-based) has user state want.
func In[S any, M automaton.Message](v *automaton.View[S, M], user User[S], i int, want State) bool {
	return InAt(v, user.at(), i, want)
}

// Count returns how many processes have user state want.
func Count[S any, M automaton.Message](v *automaton.View[S, M], user User[S], want State) int {
	return CountAt(v, user.at(), want)
}

// Exclusion returns GA1 (docs/properties.md), named
// properties.MutualExclusion: at no time is more than one process critical.
func Exclusion[S any, M automaton.Message](user User[S]) automaton.Invariant[S, M] {
	return ExclusionAt[S, M](user.at())
}

// TimestampOrder returns FAIR-TS (docs/properties.md) in state form, named
// properties.TimestampOrder, for an algorithm that stamps its requests with
// a logical clock: a critical process's request (ts, i) is older than the
// request of every trying process, comparing timestamps first and process
// numbers on ties. stamp returns the timestamp of a process's current
// request and true, or false when it has none (⊥), which the property skips.
// The state form is at least as strict as the event form (when j enters, no
// trying process has an older request); the two agree when a request issued
// while j is critical is always younger than j's.
func TimestampOrder[S any, M automaton.Message](user User[S], stamp func(p *S) (ts int, ok bool)) automaton.Invariant[S, M] {
	return TimestampOrderAt[S, M](user.at(), stamp)
}

// Served reports whether every process is idle with all its requests
// served, the user part of a valid end state of mutual exclusion
// (docs/properties.md).
func Served[S any, M automaton.Message](v *automaton.View[S, M], u Users, user User[S]) bool {
	return ServedAt(v, u, user.at())
}

// ValidEnd returns the valid end state of mutual exclusion (docs/properties.md)
// for automaton.Config.ValidEnd: every channel empty, every process
// idle with all its requests served, and released(p) for every process (its
// algorithm's queues empty, its locks given back); a nil released accepts
// every process.
func ValidEnd[S any, M automaton.Message](u Users, user User[S], released func(p *S) bool) func(v *automaton.View[S, M]) bool {
	return ValidEndAt[S, M](u, user.at(), released)
}

// Liveness returns the liveness properties of docs/properties.md: Progress
// (GA2) and Starvation (GA2'), in that order.
func Liveness[S any, M automaton.Message](user User[S]) []automaton.Liveness[S, M] {
	return LivenessAt[S, M](user.at())
}

// Progress returns GA2 (docs/properties.md), named properties.Progress: if
// no process is critical and some process is trying, some process
// eventually enters.
func Progress[S any, M automaton.Message](user User[S]) automaton.Liveness[S, M] {
	return ProgressAt[S, M](user.at())
}

// LiveProgress returns GA2 where processes may crash (docs/properties.md),
// named properties.Progress: if no live process is critical and some live
// process is trying, some live process eventually enters. Without crashes it
// is Progress; with them a crashed trying process alone does not make it
// fail, so a counterexample shows a live process blocked.
func LiveProgress[S any, M automaton.Message](user User[S]) automaton.Liveness[S, M] {
	return LiveProgressAt[S, M](user.at())
}

// Starvation returns GA2' (docs/properties.md), named
// properties.StarvationFreedom: trying_i leads to critical_i, for every
// process i.
func Starvation[S any, M automaton.Message](user User[S]) automaton.Liveness[S, M] {
	return StarvationAt[S, M](user.at())
}

// Metrics returns the description of the user part that the metrics
// messages-per-entry and sync-delay need (automaton.Config.Mutex): r is the
// most critical sections a process enters (R), user the process's user
// part, and serves(from, to, m) names the process whose critical-section
// entry the message m from process from to process to serves (a REQUEST
// from i serves i, a REPLY or token sent to i serves i), or -1 for none.
// The message serves the entry that is current for that process after the
// step that sends it: the one it is trying for or in, or, when it is idle,
// the one it left last (automaton.Mutex).
func Metrics[S any, M automaton.Message](r int, user User[S], serves func(from, to int, m M) int) *automaton.Mutex[S, M] {
	mx := &automaton.Mutex[S, M]{
		User: func(p *S) (trying, critical bool, done int) {
			st, done := user(p)
			return st == Trying, st == Critical, done
		},
		Serves:  func(_ *automaton.View[S, M], from, to int, m M) int { return serves(from, to, m) },
		Entries: max(r, 1),
	}
	mx.Tracker = Tracker(mx)
	return mx
}

// MetricsView is Metrics for a system whose messages do not say whose entry
// they serve (a REQUEST forwarded along a tree on behalf of another
// process): serves also reads the state before the step.
func MetricsView[S any, M automaton.Message](r int, user User[S], serves func(v *automaton.View[S, M], from, to int, m M) int) *automaton.Mutex[S, M] {
	mx := Metrics(r, user, func(int, int, M) int { return -1 })
	mx.Serves = serves
	return mx
}

// InAt is In for a UserAt: it reports whether process i (0-based) has user state want.
func InAt[S any, M automaton.Message](v *automaton.View[S, M], user UserAt[S], i int, want State) bool {
	st, _ := user(i, v.Proc(i))
	return st == want
}

// CountAt is Count for a UserAt: it returns how many processes have user state want.
func CountAt[S any, M automaton.Message](v *automaton.View[S, M], user UserAt[S], want State) int {
	return properties.Count(v.N(), func(i int) bool { return InAt(v, user, i, want) })
}

// ExclusionAt is Exclusion for a UserAt: it returns GA1 (docs/properties.md), named
// properties.MutualExclusion: at no time is more than one process critical.
func ExclusionAt[S any, M automaton.Message](user UserAt[S]) automaton.Invariant[S, M] {
	return automaton.Invariant[S, M]{
		Name:  properties.MutualExclusion,
		Doc:   "GA1: at no time is more than one process in the critical section",
		Holds: func(v *automaton.View[S, M]) bool { return CountAt(v, user, Critical) <= 1 },
	}
}

// TimestampOrderAt is TimestampOrder for a UserAt: it returns FAIR-TS (docs/properties.md) in state form, named
// properties.TimestampOrder, for an algorithm that stamps its requests with
// a logical clock: a critical process's request (ts, i) is older than the
// request of every trying process, comparing timestamps first and process
// numbers on ties. stamp returns the timestamp of a process's current
// request and true, or false when it has none (⊥), which the property skips.
// The state form is at least as strict as the event form (when j enters, no
// trying process has an older request); the two agree when a request issued
// while j is critical is always younger than j's.
func TimestampOrderAt[S any, M automaton.Message](user UserAt[S], stamp func(p *S) (ts int, ok bool)) automaton.Invariant[S, M] {
	return automaton.Invariant[S, M]{
		Name: properties.TimestampOrder,
		Doc:  "FAIR-TS: a process in the critical section has an older request (ts, ID) than every trying process",
		Holds: func(v *automaton.View[S, M]) bool {
			for j := 0; j < v.N(); j++ {
				tj, ok := stamp(v.Proc(j))
				if !ok || !InAt(v, user, j, Critical) {
					continue
				}
				for i := 0; i < v.N(); i++ {
					if i == j || !InAt(v, user, i, Trying) {
						continue
					}
					if ti, ok := stamp(v.Proc(i)); ok && (ti < tj || ti == tj && i < j) {
						return false
					}
				}
			}
			return true
		},
	}
}

// ServedAt is Served for a UserAt: it reports whether every process is idle with all its requests
// served, the user part of a valid end state of mutual exclusion
// (docs/properties.md).
func ServedAt[S any, M automaton.Message](v *automaton.View[S, M], u Users, user UserAt[S]) bool {
	for i := 0; i < v.N(); i++ {
		if st, done := user(i, v.Proc(i)); st != Idle || done != u.Requests(i) {
			return false
		}
	}
	return true
}

// ValidEndAt is ValidEnd for a UserAt: it returns the valid end state of mutual exclusion (docs/properties.md)
// for automaton.Config.ValidEnd: every channel empty, every process
// idle with all its requests served, and released(p) for every process (its
// algorithm's queues empty, its locks given back); a nil released accepts
// every process.
func ValidEndAt[S any, M automaton.Message](u Users, user UserAt[S], released func(p *S) bool) func(v *automaton.View[S, M]) bool {
	return func(v *automaton.View[S, M]) bool {
		if !v.ChannelsEmpty() || !ServedAt(v, u, user) {
			return false
		}
		if released == nil {
			return true
		}
		for i := 0; i < v.N(); i++ {
			if !released(v.Proc(i)) {
				return false
			}
		}
		return true
	}
}

// LivenessAt is Liveness for a UserAt: it returns the liveness properties of docs/properties.md: Progress
// (GA2) and Starvation (GA2'), in that order.
func LivenessAt[S any, M automaton.Message](user UserAt[S]) []automaton.Liveness[S, M] {
	return []automaton.Liveness[S, M]{ProgressAt[S, M](user), StarvationAt[S, M](user)}
}

// ProgressAt is Progress for a UserAt: it returns GA2 (docs/properties.md), named properties.Progress: if
// no process is critical and some process is trying, some process
// eventually enters.
func ProgressAt[S any, M automaton.Message](user UserAt[S]) automaton.Liveness[S, M] {
	return automaton.Liveness[S, M]{
		Name: properties.Progress,
		Doc:  "GA2: if no process is critical and some process is trying, some process eventually enters",
		When: func(v *automaton.View[S, M], _ int) bool {
			return CountAt(v, user, Critical) == 0 && CountAt(v, user, Trying) > 0
		},
		Goal: func(v *automaton.View[S, M], _ int) bool { return CountAt(v, user, Critical) > 0 },
	}
}

// LiveProgressAt is LiveProgress for a UserAt: it returns GA2 where processes may crash (docs/properties.md),
// named properties.Progress: if no live process is critical and some live
// process is trying, some live process eventually enters. Without crashes it
// is Progress; with them a crashed trying process alone does not make it
// fail, so a counterexample shows a live process blocked.
func LiveProgressAt[S any, M automaton.Message](user UserAt[S]) automaton.Liveness[S, M] {
	liveIn := func(v *automaton.View[S, M], want State) bool {
		for i := 0; i < v.N(); i++ {
			if v.Up(i) && InAt(v, user, i, want) {
				return true
			}
		}
		return false
	}
	return automaton.Liveness[S, M]{
		Name: properties.Progress,
		Doc:  "GA2: if no live process is critical and some live process is trying, some live process eventually enters",
		When: func(v *automaton.View[S, M], _ int) bool {
			return !liveIn(v, Critical) && liveIn(v, Trying)
		},
		Goal: func(v *automaton.View[S, M], _ int) bool { return liveIn(v, Critical) },
	}
}

// StarvationAt is Starvation for a UserAt: it returns GA2' (docs/properties.md), named
// properties.StarvationFreedom: trying_i leads to critical_i, for every
// process i.
func StarvationAt[S any, M automaton.Message](user UserAt[S]) automaton.Liveness[S, M] {
	return automaton.Liveness[S, M]{
		Name:       properties.StarvationFreedom,
		Doc:        "GA2': every trying process eventually enters the critical section",
		PerProcess: true,
		When:       func(v *automaton.View[S, M], i int) bool { return InAt(v, user, i, Trying) },
		Goal:       func(v *automaton.View[S, M], i int) bool { return InAt(v, user, i, Critical) },
	}
}

// MetricsAt is Metrics for a UserAt: it returns the description of the user part that the metrics
// messages-per-entry and sync-delay need (automaton.Config.Mutex): r is the
// most critical sections a process enters (R), user the process's user
// part, and serves(from, to, m) names the process whose critical-section
// entry the message m from process from to process to serves (a REQUEST
// from i serves i, a REPLY or token sent to i serves i), or -1 for none.
// The message serves the entry that is current for that process after the
// step that sends it: the one it is trying for or in, or, when it is idle,
// the one it left last (automaton.Mutex).
func MetricsAt[S any, M automaton.Message](r int, user UserAt[S], serves func(from, to int, m M) int) *automaton.Mutex[S, M] {
	mx := &automaton.Mutex[S, M]{
		UserAt: func(i int, p *S) (trying, critical bool, done int) {
			st, done := user(i, p)
			return st == Trying, st == Critical, done
		},
		Serves:  func(_ *automaton.View[S, M], from, to int, m M) int { return serves(from, to, m) },
		Entries: max(r, 1),
	}
	mx.Tracker = Tracker(mx)
	return mx
}

// MetricsViewAt is MetricsView for a UserAt: it is Metrics for a system whose messages do not say whose entry
// they serve (a REQUEST forwarded along a tree on behalf of another
// process): serves also reads the state before the step.
func MetricsViewAt[S any, M automaton.Message](r int, user UserAt[S], serves func(v *automaton.View[S, M], from, to int, m M) int) *automaton.Mutex[S, M] {
	mx := MetricsAt(r, user, func(int, int, M) int { return -1 })
	mx.Serves = serves
	return mx
}
