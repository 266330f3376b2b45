package specs

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/vacheck/vacheck/internal/input"
	"github.com/vacheck/vacheck/mutex"
)

// This file holds what the mutual-exclusion specs (docs/algorithms) share
// beyond the kit in package mutex (the user part, GA1, GA2, GA2', the valid
// end and the per-entry metrics): the flags of the user part
// (--requests and --requesters, read into a mutex.Users), a small process set
// type and the wait-for cycle search.
//
// A mutual-exclusion spec offers --metric messages-per-entry and
// --metric sync-delay with one line in its automaton.Config,
//
//	Mutex: mutex.Metrics(users.R, xxUser, xxServes),
//
// where xxUser is its mutex.User and xxServes(from, to, m) names the process
// whose critical-section entry the message m from process from to process
// to serves (a REQUEST from i serves i, an ACK, REPLY, LOCKED or token sent
// to i serves i, a RELEASE from i serves i), or -1 for none. A message sent
// while receiving one for the same process serves the entry of the message
// it answers. A spec whose messages do not say whom they serve uses
// mutex.MetricsView, whose serves also reads the state before the step.

// maxRequests bounds --requests (R of docs/properties.md), which bounds the
// state space, logical clocks and sequence numbers.
const maxRequests = 5

// requestsParam and requestersParam are the parameters of the user part
// (docs/properties.md).
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

// parseMutexUsers reads --requests (1 to maxRequests) and --requesters (all,
// or a list of distinct process numbers in 1..n) for n processes.
func parseMutexUsers(p *Params, n int) (mutex.Users, error) {
	return parseMutexUsersUpTo(p, n, maxRequests)
}

// parseMutexUsersUpTo is parseMutexUsers with --requests bounded by maxR
// instead, for a spec whose state space allows fewer requests.
func parseMutexUsersUpTo(p *Params, n, maxR int) (mutex.Users, error) {
	r, err := p.Int("requests", 1, maxR)
	if err != nil {
		return mutex.Users{}, err
	}
	reqs, canon, err := parseRequesters(p.String("requesters"), n)
	if err != nil {
		return mutex.Users{}, err
	}
	p.Set("requesters", canon)
	return mutex.Users{R: r, Requesters: reqs}, nil
}

// parseRequesters parses a --requesters value for n processes and returns
// the requesters (0-based flags) and the canonical value: "all" or the
// process numbers in ascending order.
func parseRequesters(v string, n int) ([]bool, string, error) {
	if strings.TrimSpace(v) == "all" {
		reqs := make([]bool, n)
		for i := range reqs {
			reqs[i] = true
		}
		return reqs, "all", nil
	}
	if strings.TrimSpace(v) == "" {
		return nil, "", Usagef("requesters", strconv.Quote(input.Clip(v)), "no process given; give all or distinct process numbers 1..%d such as 1,3", n)
	}
	reqs, err := parseProcList("requesters", v, n, procListWhy{
		notNumber: func(elem string) string {
			return fmt.Sprintf("%q is not a process number; give all or distinct process numbers 1..%d such as 1,3", input.Clip(elem), n)
		},
		outside: func(i int) string { return fmt.Sprintf("process %d is outside 1..%d (--n is %d)", i, n, n) },
		twice:   func(i int) string { return fmt.Sprintf("process %d is listed twice; give distinct process numbers", i) },
	})
	if err != nil {
		return nil, "", err
	}
	return reqs, procListCanon(reqs), nil
}

// mutexUsers is parseMutexUsers with a sticky error (Params.Err).
func (p *Params) mutexUsers(n int) mutex.Users {
	return p.mutexUsersUpTo(n, maxRequests)
}

// mutexUsersUpTo is parseMutexUsersUpTo with a sticky error (Params.Err).
func (p *Params) mutexUsersUpTo(n, maxR int) mutex.Users {
	return sticky(p, func() (mutex.Users, error) { return parseMutexUsersUpTo(p, n, maxR) })
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
