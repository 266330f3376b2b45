package specs

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/properties"
)

// This file holds what the mutual-exclusion specs of ALGORITHMS.md chapter 2
// share: the user part of 2.0 (request/enter/exit, --requests and
// --requesters), the property builders (GA1, GA2, GA2'), the wiring of the
// metrics messages-per-entry and sync-delay (mutexMetrics), and a small
// process set type.
//
// A mutual-exclusion spec offers --metric messages-per-entry and
// --metric sync-delay with one line in its automaton.Config,
//
//	Mutex: mutexMetrics(users.R, xxUser, xxServes),
//
// where xxUser is its userPart and xxServes(from, to, m) names the process
// whose critical-section entry the message m from process from to process
// to serves (a REQUEST from i serves i, an ACK, REPLY, LOCKED or token sent
// to i serves i, a RELEASE from i serves i), or -1 for none. The message
// serves the entry that is current for that process after the step that
// sends it: the one it is trying for or in, or, when it is idle, the one it
// left last (automaton.Mutex); a message sent while receiving one for the
// same process serves the entry of the message it answers. A spec whose
// messages do not say whom they serve uses mutexMetricsView, whose serves
// also reads the state before the step.

// userState is the user part of a mutual-exclusion process (ALGORITHMS.md
// 2.0), which cycles idle → trying → critical → idle. The zero value is
// invalid, so a process left uninitialised is caught.
type userState uint8

const (
	userIdle userState = 1 + iota
	userTrying
	userCritical
)

func (u userState) String() string {
	switch u {
	case userIdle:
		return "idle"
	case userTrying:
		return "trying"
	case userCritical:
		return "critical"
	}
	return "userState(" + strconv.Itoa(int(u)) + ")"
}

// maxRequests bounds --requests (R of ALGORITHMS.md 2.0), which bounds the
// state space, logical clocks and sequence numbers.
const maxRequests = 5

// requestsParam and requestersParam are the parameters of the user part
// (ALGORITHMS.md 2.0 and 4).
var (
	requestsParam = Param{
		Flag:    "requests",
		Default: "1",
		Usage:   "requests per requester (R): 1 to 5",
	}
	requestersParam = Param{
		Flag:    "requesters",
		Default: "all",
		Usage:   "processes that request the critical section: all, or distinct process numbers such as 7,8,11",
	}
)

// mutexUsers is the configuration of the user part: every requester makes
// R requests, the other processes none.
type mutexUsers struct {
	R          int
	Requesters []bool // 0-based: Requesters[i] says whether process i+1 requests
}

// Requests returns the number of requests process i (0-based) makes: R for
// a requester, 0 otherwise.
func (u mutexUsers) Requests(i int) int {
	if u.Requesters[i] {
		return u.R
	}
	return 0
}

// parseMutexUsers reads --requests (1 to maxRequests) and --requesters (all,
// or a list of distinct process numbers in 1..n) for n processes.
func parseMutexUsers(p *Params, n int) (mutexUsers, error) {
	return parseMutexUsersUpTo(p, n, maxRequests)
}

// parseMutexUsersUpTo is parseMutexUsers with --requests bounded by maxR
// instead, for a spec whose state space allows fewer requests.
func parseMutexUsersUpTo(p *Params, n, maxR int) (mutexUsers, error) {
	r, err := p.Int("requests", 1, maxR)
	if err != nil {
		return mutexUsers{}, err
	}
	reqs, canon, err := parseRequesters(p.String("requesters"), n)
	if err != nil {
		return mutexUsers{}, err
	}
	p.Set("requesters", canon)
	return mutexUsers{R: r, Requesters: reqs}, nil
}

// parseRequesters parses a --requesters value for n processes and returns
// the requesters (0-based flags) and the canonical value: "all" or the
// process numbers in ascending order.
func parseRequesters(v string, n int) ([]bool, string, error) {
	reqs := make([]bool, n)
	quoted := clipValue(v)
	if strings.TrimSpace(v) == "all" {
		for i := range reqs {
			reqs[i] = true
		}
		return reqs, "all", nil
	}
	if strings.TrimSpace(v) == "" {
		return nil, "", Usagef("requesters", strconv.Quote(v), "no process given; give all or distinct process numbers 1..%d such as 1,3", n)
	}
	for f := range strings.SplitSeq(v, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, "", Usagef("requesters", quoted, "%q is not a process number; give all or distinct process numbers 1..%d such as 1,3", clipValue(f), n)
		}
		if i < 1 || i > n {
			return nil, "", Usagef("requesters", quoted, "process %d is outside 1..%d (--n is %d)", i, n, n)
		}
		if reqs[i-1] {
			return nil, "", Usagef("requesters", quoted, "process %d is listed twice; give distinct process numbers", i)
		}
		reqs[i-1] = true
	}
	var canon []string
	for i, r := range reqs {
		if r {
			canon = append(canon, strconv.Itoa(i+1))
		}
	}
	return reqs, strings.Join(canon, ","), nil
}

// userPart reads the user part of a process state: its user state and the
// number of requests it has served.
type userPart[S any] func(p *S) (ust userState, done int)

// userIn reports whether process i has user state want.
func userIn[S any, M automaton.Message](v *automaton.View[S, M], user userPart[S], i int, want userState) bool {
	ust, _ := user(v.Proc(i))
	return ust == want
}

// usersIn returns how many processes have user state want.
func usersIn[S any, M automaton.Message](v *automaton.View[S, M], user userPart[S], want userState) int {
	return properties.Count(v.N(), func(i int) bool { return userIn(v, user, i, want) })
}

// mutualExclusion returns GA1 (ALGORITHMS.md 2.0): at no time is more than
// one process critical.
func mutualExclusion[S any, M automaton.Message](user userPart[S]) automaton.Invariant[S, M] {
	return exclusionInvariant[S, M](user, "GA1: at no time is more than one process in the critical section")
}

// exclusionInvariant returns GA1, as mutualExclusion does, described by doc.
func exclusionInvariant[S any, M automaton.Message](user userPart[S], doc string) automaton.Invariant[S, M] {
	return automaton.Invariant[S, M]{
		Name:  properties.MutualExclusion,
		Doc:   doc,
		Holds: func(v *automaton.View[S, M]) bool { return usersIn(v, user, userCritical) <= 1 },
	}
}

// usersServed reports whether every process is idle with all its requests
// served, the user part of a valid end state of mutual exclusion
// (ALGORITHMS.md 0.8).
func usersServed[S any, M automaton.Message](v *automaton.View[S, M], u mutexUsers, user userPart[S]) bool {
	for i := 0; i < v.N(); i++ {
		if ust, done := user(v.Proc(i)); ust != userIdle || done != u.Requests(i) {
			return false
		}
	}
	return true
}

// mutexValidEnd returns the valid end state of mutual exclusion
// (ALGORITHMS.md 0.8): every channel empty, every process idle with all its
// requests served, and released(p) for every process (its algorithm's
// queues empty, its locks given back).
func mutexValidEnd[S any, M automaton.Message](u mutexUsers, user userPart[S], released func(p *S) bool) func(v *automaton.View[S, M]) bool {
	return func(v *automaton.View[S, M]) bool {
		if !v.ChannelsEmpty() || !usersServed(v, u, user) {
			return false
		}
		for i := 0; i < v.N(); i++ {
			if !released(v.Proc(i)) {
				return false
			}
		}
		return true
	}
}

// mutexLiveness returns the liveness properties of ALGORITHMS.md 2.0:
// progress (GA2: when nobody is critical and somebody is trying, somebody
// eventually enters) and starvation freedom (GA2': trying_i leads to
// critical_i, for every process i).
func mutexLiveness[S any, M automaton.Message](user userPart[S]) []automaton.Liveness[S, M] {
	return []automaton.Liveness[S, M]{
		progressLiveness[S, M](user, "GA2: if no process is critical and some process is trying, some process eventually enters"),
		starvationLiveness[S, M](user, "GA2': every trying process eventually enters the critical section"),
	}
}

// progressLiveness returns GA2 of mutexLiveness, described by doc.
func progressLiveness[S any, M automaton.Message](user userPart[S], doc string) automaton.Liveness[S, M] {
	return automaton.Liveness[S, M]{
		Name: properties.Progress,
		Doc:  doc,
		When: func(v *automaton.View[S, M], _ int) bool {
			return usersIn(v, user, userCritical) == 0 && usersIn(v, user, userTrying) > 0
		},
		Goal: func(v *automaton.View[S, M], _ int) bool { return usersIn(v, user, userCritical) > 0 },
	}
}

// starvationLiveness returns GA2' of mutexLiveness, described by doc.
func starvationLiveness[S any, M automaton.Message](user userPart[S], doc string) automaton.Liveness[S, M] {
	return automaton.Liveness[S, M]{
		Name:       properties.StarvationFreedom,
		Doc:        doc,
		PerProcess: true,
		When:       func(v *automaton.View[S, M], i int) bool { return userIn(v, user, i, userTrying) },
		Goal:       func(v *automaton.View[S, M], i int) bool { return userIn(v, user, i, userCritical) },
	}
}

// mutexMetrics returns the description of the user part that the metrics
// messages-per-entry and sync-delay need (automaton.Mutex): r is the most
// critical sections a process enters (R), user the spec's user part, and
// serves names the process whose entry a message serves, or -1.
func mutexMetrics[S any, M automaton.Message](r int, user userPart[S], serves func(from, to int, m M) int) *automaton.Mutex[S, M] {
	return &automaton.Mutex[S, M]{
		User: func(p *S) (trying, critical bool, done int) {
			ust, done := user(p)
			return ust == userTrying, ust == userCritical, done
		},
		Serves:  func(_ *automaton.View[S, M], from, to int, m M) int { return serves(from, to, m) },
		Entries: max(r, 1),
	}
}

// mutexMetricsView is mutexMetrics for a spec whose messages do not say
// whose entry they serve (a REQUEST forwarded along a tree on behalf of
// another process): serves also reads the state before the step.
func mutexMetricsView[S any, M automaton.Message](r int, user userPart[S], serves func(v *automaton.View[S, M], from, to int, m M) int) *automaton.Mutex[S, M] {
	mx := mutexMetrics(r, user, func(int, int, M) int { return -1 })
	mx.Serves = serves
	return mx
}

// procSet is a set of processes (0-based, at most 64 = maxN) as a bit mask:
// canonical, compact, and shown 1-based in traces ("{1,3}").
type procSet uint64

func (s procSet) has(i int) bool        { return s&(1<<uint(i)) != 0 }
func (s procSet) with(i int) procSet    { return s | 1<<uint(i) }
func (s procSet) without(i int) procSet { return s &^ (1 << uint(i)) }
func (s procSet) members() []int        { return s.appendTo(nil) }

// setOf returns the set of the given processes.
func setOf(ms []int) procSet {
	var s procSet
	for _, m := range ms {
		s = s.with(m)
	}
	return s
}

// appendTo appends the members of s in ascending order.
func (s procSet) appendTo(out []int) []int {
	for x := uint64(s); x != 0; x &= x - 1 {
		out = append(out, bits.TrailingZeros64(x))
	}
	return out
}

// String lists the members 1-based, e.g. "{1,3}".
func (s procSet) String() string { return "{" + joinOneBased(s.members(), ",") + "}" }

// joinOneBased formats 0-based process numbers 1-based, joined by sep.
func joinOneBased(ps []int, sep string) string {
	parts := make([]string, len(ps))
	for k, p := range ps {
		parts[k] = strconv.Itoa(p + 1)
	}
	return strings.Join(parts, sep)
}

// waitCycle returns a cycle of the wait-for graph given by waits (waits[i]
// lists the processes i waits for), starting and ending at its smallest
// process, or nil. Among the cycles through the smallest possible start it
// returns the first found following the edges in the order given.
func waitCycle(waits [][]int) []int {
	n := len(waits)
	for start := 0; start < n; start++ {
		// Search only among processes ≥ start, so the cycle found starts
		// at its smallest member.
		onPath := make([]bool, n)
		done := make([]bool, n)
		var path []int
		var dfs func(i int) []int
		dfs = func(i int) []int {
			path = append(path, i)
			onPath[i] = true
			for _, j := range waits[i] {
				if j < start || done[j] {
					continue
				}
				if j == start {
					return append(slices.Clone(path), start)
				}
				if !onPath[j] {
					if c := dfs(j); c != nil {
						return c
					}
				}
			}
			onPath[i] = false
			done[i] = true
			path = path[:len(path)-1]
			return nil
		}
		if c := dfs(start); c != nil {
			return c
		}
	}
	return nil
}

// inTransit says how many messages are in transit, for an explanation.
func inTransit(k int) string {
	if k == 1 {
		return "1 message in transit"
	}
	return fmt.Sprintf("%d messages in transit", k)
}
