package specs

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// lamportMaxRequests bounds --requests: each request adds a few clock values
// and 3(N-1) messages to every run, so the state space grows fast with it.
const lamportMaxRequests = 4

// lamportUst is the user status of a mutual-exclusion process
// (ALGORITHMS.md 2.0): idle → trying → critical → idle. The zero value is
// invalid.
type lamportUst uint8

const (
	lamportIdle lamportUst = 1 + iota
	lamportTrying
	lamportCritical
)

func (u lamportUst) String() string {
	switch u {
	case lamportIdle:
		return "idle"
	case lamportTrying:
		return "trying"
	case lamportCritical:
		return "critical"
	}
	return fmt.Sprintf("lamportUst(%d)", uint8(u))
}

// lamportKind is the type of a Lamport message. The zero value is invalid.
type lamportKind uint8

const (
	lamportRequest lamportKind = 1 + iota
	lamportAck
	lamportRelease
)

func (k lamportKind) String() string {
	switch k {
	case lamportRequest:
		return "REQUEST"
	case lamportAck:
		return "ACK"
	case lamportRelease:
		return "RELEASE"
	}
	return fmt.Sprintf("lamportKind(%d)", uint8(k))
}

// lamportMsg is a message of Lamport's algorithm: REQUEST(ts, i), ACK(ts, i)
// or RELEASE(ts, i), where i is the sender (0-based here, 1-based when
// shown).
type lamportMsg struct {
	Kind lamportKind
	TS   int
	From int
}

func (m lamportMsg) String() string { return fmt.Sprintf("%s(%d,%d)", m.Kind, m.TS, m.From+1) }

// lamportReq is a pending request (ts, j) in a process's queue, ordered
// lexicographically.
type lamportReq struct{ TS, ID int }

func (r lamportReq) String() string { return fmt.Sprintf("(%d,%d)", r.TS, r.ID+1) }

func (r lamportReq) less(o lamportReq) bool { return r.TS < o.TS || (r.TS == o.TS && r.ID < o.ID) }

func lamportCmp(a, b lamportReq) int {
	switch {
	case a.less(b):
		return -1
	case b.less(a):
		return 1
	}
	return 0
}

// lamportNode is process P_i of Lamport's mutual-exclusion algorithm
// (ALGORITHMS.md 2.2; Lamport, "Time, Clocks, and the Ordering of Events in
// a Distributed System", CACM 1978): the user part of 2.0 (ust, done), the
// Lamport clock C, the queue Q of pending requests sorted by (ts, ID) and
// myTs, the timestamp of the current request (0 for ⊥).
//
// Choice: ALGORITHMS.md keeps last[j], the timestamp of the latest message
// from j, and reads it only in the entry condition last[j] > myTs. The
// state keeps that comparison instead: late[j] = last[j] > myTs, updated on
// every receive while trying. At request_i every last[j] is below the new
// myTs (C exceeds every timestamp received), so late starts false; outside
// trying nobody reads it, and it is kept false. The two models are
// bisimilar under FIFO and unordered channels alike, and this one does not
// tell apart states that differ only in last values nobody will read
// (N=3, one request each: 470,392 states instead of 826,793).
type lamportNode struct {
	Ust  lamportUst
	Done int
	C    int          `vacheck:"C"`
	MyTs int          // 0: no current request
	Q    []lamportReq `vacheck:"Q"`
	Late []bool       // Late[j]: last[j] > myTs; Late[i] of i itself stays false
	// R is the number of requests the process makes if it is a requester.
	R         int  `vacheck:"-"`
	Requester bool `vacheck:"-"`
	// Broken drops the first part of the entry condition (a later-stamped
	// message from every other process): the bug of lamport-broken.
	Broken bool `vacheck:"-"`
}

type lamportView = automaton.View[lamportNode, lamportMsg]

// mine returns the process's current request.
func (p *lamportNode) mine(self int) lamportReq { return lamportReq{TS: p.MyTs, ID: self} }

// headOK is part (2) of the entry condition: the own request heads Q.
func (p *lamportNode) headOK(self int) bool { return len(p.Q) > 0 && p.Q[0] == p.mine(self) }

// lateOK is part (1): a message stamped later than the request has arrived
// from every other process (last[j] > myTs), so by FIFO no older request is
// still on its way.
func (p *lamportNode) lateOK(self int) bool {
	for j, ok := range p.Late {
		if j != self && !ok {
			return false
		}
	}
	return true
}

// canEnter is the precondition of enter_i.
func (p *lamportNode) canEnter(self int) bool {
	return p.Ust == lamportTrying && p.headOK(self) && (p.Broken || p.lateOK(self))
}

// Steps: request_i (idle with requests left), enter_i (the entry
// condition), exit_i (critical).
func (p *lamportNode) Steps(v *lamportView, out []automaton.Step) []automaton.Step {
	self := v.Self()
	switch {
	case p.Ust == lamportIdle && p.Requester && p.Done < p.R:
		out = append(out, automaton.Step{Name: "request", Kind: automaton.Output})
	case p.canEnter(self):
		out = append(out, automaton.Do("enter"))
	case p.Ust == lamportCritical:
		out = append(out, automaton.Step{Name: "exit", Kind: automaton.Output})
	}
	return out
}

// Do performs request_i, enter_i or exit_i. The self part of "send REQUEST
// to all including itself" is the local insertion into Q (ALGORITHMS.md
// 0.3, self-messages).
func (p *lamportNode) Do(s automaton.Step, fx *automaton.Effects[lamportMsg]) {
	self := fx.Self()
	switch s.Name {
	case "request":
		p.Ust = lamportTrying
		p.C++
		p.MyTs = p.C
		p.insert(p.mine(self))
		p.sendAll(fx, lamportMsg{Kind: lamportRequest, TS: p.MyTs, From: self})
	case "enter":
		p.Ust = lamportCritical
	case "exit":
		p.Ust = lamportIdle
		p.Done++
		p.Q = slices.DeleteFunc(p.Q, func(r lamportReq) bool { return r == p.mine(self) })
		// myTs is dead until the next request; resetting it to ⊥ keeps
		// states canonical without changing any transition.
		p.MyTs = 0
		p.C++
		clear(p.Late)
		p.sendAll(fx, lamportMsg{Kind: lamportRelease, TS: p.C, From: self})
	}
}

func (p *lamportNode) sendAll(fx *automaton.Effects[lamportMsg], m lamportMsg) {
	for j := 0; j < fx.N(); j++ {
		if j != fx.Self() {
			fx.Send(j, m)
		}
	}
}

// insert adds r to Q, keeping Q sorted.
func (p *lamportNode) insert(r lamportReq) {
	k, _ := slices.BinarySearchFunc(p.Q, r, lamportCmp)
	p.Q = slices.Insert(p.Q, k, r)
}

// Receive performs receive(m)_{j,i}: the clock rule C := max(C, t) + 1,
// last[j] := t (kept as late[j], see lamportNode), then REQUEST joins Q and
// is acknowledged, RELEASE removes j's request from Q.
func (p *lamportNode) Receive(from int, m lamportMsg, fx *automaton.Effects[lamportMsg]) {
	p.C = max(p.C, m.TS) + 1
	if p.Ust == lamportTrying {
		p.Late[from] = m.TS > p.MyTs
	}
	switch m.Kind {
	case lamportRequest:
		p.insert(lamportReq{TS: m.TS, ID: from})
		fx.Send(from, lamportMsg{Kind: lamportAck, TS: p.C, From: fx.Self()})
	case lamportRelease:
		// With FIFO channels j has at most one request in Q. Under
		// unordered channels a RELEASE may overtake its REQUEST or follow
		// j's next REQUEST; it then removes j's oldest request, if any.
		if k := slices.IndexFunc(p.Q, func(r lamportReq) bool { return r.ID == from }); k >= 0 {
			p.Q = slices.Delete(p.Q, k, k+1)
		}
	}
}

// lamportMutualExclusion is GA1: at most one process is critical.
func lamportMutualExclusion(v *lamportView) bool {
	return properties.Count(v.N(), func(i int) bool { return v.Proc(i).Ust == lamportCritical }) <= 1
}

// lamportTimestampOrder is FAIR-TS in state form: a critical process's
// request (myTs, j) is smaller than the request of every trying process.
//
// ALGORITHMS.md 2.0 states it on the enter event: when j enters, no trying
// process i has a smaller (ts, i). The state after enter_j is checked here,
// so every violation of the event form is caught. The state form is
// stricter only for a request issued while j is critical; for Lamport such
// a request is always larger, because j entered only after a message from i
// stamped later than myTs_j, and i's clock never goes back. So the two
// forms agree on lamport, and a pass of the state form proves the event
// form in any case.
func lamportTimestampOrder(v *lamportView) bool {
	for j := 0; j < v.N(); j++ {
		pj := v.Proc(j)
		if pj.Ust != lamportCritical {
			continue
		}
		for i := 0; i < v.N(); i++ {
			if pi := v.Proc(i); i != j && pi.Ust == lamportTrying && pi.mine(i).less(pj.mine(j)) {
				return false
			}
		}
	}
	return true
}

// lamportValidEnd is the valid end state of ALGORITHMS.md 0.8 for mutual
// exclusion: every process idle with all its requests served, every queue
// empty and every channel empty.
func lamportValidEnd(v *lamportView) bool {
	if !v.ChannelsEmpty() {
		return false
	}
	for i := 0; i < v.N(); i++ {
		p := v.Proc(i)
		want := 0
		if p.Requester {
			want = p.R
		}
		if p.Ust != lamportIdle || p.Done != want || len(p.Q) > 0 {
			return false
		}
	}
	return true
}

// lamportExplain says what every process that is not idle waits for.
func lamportExplain(v *lamportView) []string {
	var lines []string
	for i := 0; i < v.N(); i++ {
		p := v.Proc(i)
		switch p.Ust {
		case lamportCritical:
			lines = append(lines, fmt.Sprintf("process %d is in the critical section with request %v", i+1, p.mine(i)))
		case lamportTrying:
			var why []string
			if !p.headOK(i) && len(p.Q) > 0 {
				why = append(why, fmt.Sprintf("its request is behind %v in its queue", p.Q[0]))
			}
			var from []string
			for j, ok := range p.Late {
				if j != i && !ok {
					from = append(from, strconv.Itoa(j+1))
				}
			}
			switch len(from) {
			case 0:
			case 1:
				why = append(why, fmt.Sprintf("it has no message stamped above %d from process %s", p.MyTs, from[0]))
			default:
				why = append(why, fmt.Sprintf("it has no message stamped above %d from processes %s", p.MyTs, strings.Join(from, ", ")))
			}
			if len(why) == 0 {
				why = append(why, "it may enter")
			}
			lines = append(lines, fmt.Sprintf("process %d is trying with request %v: %s", i+1, p.mine(i), strings.Join(why, "; ")))
		default:
			if len(p.Q) > 0 {
				lines = append(lines, fmt.Sprintf("process %d is idle and still queues %v", i+1, p.Q))
			}
		}
	}
	if n := v.InTransit(); n > 0 {
		lines = append(lines, fmt.Sprintf("%d messages in transit", n))
	}
	return lines
}

// lamportRequesters reads --requesters: "all" or a list of distinct
// process numbers 1..n. It returns who requests, 0-based.
func lamportRequesters(p *Params, n int) ([]bool, error) {
	v := strings.TrimSpace(p.String("requesters"))
	req := make([]bool, n)
	if v == "all" {
		for i := range req {
			req[i] = true
		}
		p.Set("requesters", v)
		return req, nil
	}
	var list []int
	for _, s := range strings.Split(v, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || k < 1 || k > n {
			return nil, Usagef("requesters", v, "%q is not a process number; allowed: all, or distinct process numbers 1 to %d separated by commas", s, n)
		}
		if req[k-1] {
			return nil, Usagef("requesters", v, "process %d appears twice; allowed: all, or distinct process numbers 1 to %d", k, n)
		}
		req[k-1] = true
		list = append(list, k)
	}
	sort.Ints(list)
	parts := make([]string, len(list))
	for i, k := range list {
		parts[i] = strconv.Itoa(k)
	}
	p.Set("requesters", strings.Join(parts, ","))
	return req, nil
}

// lamportSpecs returns lamport and its broken twin lamport-broken
// (ALGORITHMS.md 2.2).
func lamportSpecs() []Spec { return []Spec{lamport(false), lamport(true)} }

// lamport returns the spec lamport of ALGORITHMS.md 2.2 or, when broken is
// set, its broken twin lamport-broken.
func lamport(broken bool) Spec {
	s := Spec{
		Name:    "lamport",
		Section: "2.2",
		Summary: "Lamport's mutual exclusion with logical clocks over FIFO channels: REQUEST to all, ACK, RELEASE",
		Params: []Param{
			{Flag: "n", Default: "3", Usage: "number of processes (N=3 with one request each has 470,392 states; N=4, or N=3 with two requests each, is beyond an exhaustive search: use --clock-limit)"},
			{Flag: "requests", Default: "1", Usage: fmt.Sprintf("critical-section entries per requester, 1 to %d", lamportMaxRequests)},
			{Flag: "requesters", Default: "all", Usage: "processes that request the critical section: all, or a list such as 1,3"},
			{Flag: "clock-limit", Default: "0", Usage: "state bound: states where a clock exceeds this value are checked but not expanded, and reported as cut (0: no bound; the model is finite without it)"},
		},
		Claims: []string{properties.MutualExclusion, properties.TimestampOrder, properties.DeadlockFreedom},
	}
	if broken {
		s.Name = "lamport-broken"
		s.Summary = "Lamport's mutual exclusion with a bug"
		s.Bug = "the entry condition checks only that the own request heads the local queue and forgets to wait for a later-stamped message from every other process"
		s.Claims = []string{properties.MutualExclusion, properties.DeadlockFreedom}
	}
	s.Build = func(p *Params) (explorer.Model, error) {
		n, err := p.Int("n", 1, maxN)
		if err != nil {
			return nil, err
		}
		r, err := p.Int("requests", 1, lamportMaxRequests)
		if err != nil {
			return nil, err
		}
		req, err := lamportRequesters(p, n)
		if err != nil {
			return nil, err
		}
		limit, err := p.Int("clock-limit", 0, 1<<20)
		if err != nil {
			return nil, err
		}
		// A channel i→j holds at most R REQUESTs, R RELEASEs and the ACKs
		// of j's R requests.
		disc, capacity, err := channelParams(p, channel.FIFO, 3*r)
		if err != nil {
			return nil, err
		}
		procs := make([]lamportNode, n)
		for i := range procs {
			procs[i] = lamportNode{Ust: lamportIdle, Late: make([]bool, n), R: r, Requester: req[i], Broken: broken}
		}
		cfg := automaton.Config[lamportNode, lamportMsg]{
			Initial:  [][]lamportNode{procs},
			Links:    automaton.Complete(n, false),
			Channels: disc,
			Capacity: capacity,
			Invariants: []automaton.Invariant[lamportNode, lamportMsg]{
				{Name: properties.MutualExclusion, Doc: "GA1: never two processes in the critical section", Holds: lamportMutualExclusion},
				{Name: properties.TimestampOrder, Doc: "FAIR-TS: a process in the critical section has a smaller request (ts, ID) than every trying process", Holds: lamportTimestampOrder},
			},
			ValidEnd: lamportValidEnd,
			Explain:  lamportExplain,
			Liveness: []automaton.Liveness[lamportNode, lamportMsg]{
				{
					Name: properties.StarvationFreedom, Doc: "GA2': every trying process eventually enters", PerProcess: true,
					When: func(v *lamportView, i int) bool { return v.Proc(i).Ust == lamportTrying },
					Goal: func(v *lamportView, i int) bool { return v.Proc(i).Ust == lamportCritical },
				},
				{
					Name: properties.Progress, Doc: "GA2: when nobody is critical and someone is trying, some process eventually enters",
					When: func(v *lamportView, _ int) bool {
						return lamportCount(v, lamportCritical) == 0 && lamportCount(v, lamportTrying) > 0
					},
					Goal: func(v *lamportView, _ int) bool { return lamportCount(v, lamportCritical) > 0 },
				},
			},
		}
		if limit > 0 {
			cfg.Bound = func(v *lamportView) bool {
				for i := 0; i < v.N(); i++ {
					if v.Proc(i).C > limit {
						return false
					}
				}
				return true
			}
			cfg.BoundDoc = fmt.Sprintf("every Lamport clock at most %d (--clock-limit)", limit)
		}
		return automaton.New(cfg)
	}
	return s
}

// lamportCount returns how many processes have user status u.
func lamportCount(v *lamportView, u lamportUst) int {
	return properties.Count(v.N(), func(i int) bool { return v.Proc(i).Ust == u })
}
