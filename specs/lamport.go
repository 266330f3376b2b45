package specs

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/mutex"
	"github.com/vacheck/vacheck/properties"
)

// lamportMaxRequests bounds --requests: each request adds a few clock values
// and 3(N-1) messages to every run, so the state space grows fast with it.
const lamportMaxRequests = 4

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

// lamportServes: an ACK serves the entry whose REQUEST it acknowledges, a
// REQUEST or RELEASE that of its sender.
func lamportServes(from, to int, m lamportMsg) int {
	if m.Kind == lamportAck {
		return automaton.InheritEntry // the request it acknowledges, even if its sender has moved on
	}
	return from
}

// lamportReq is a pending request (ts, j) in a process's queue, ordered
// lexicographically.
type lamportReq struct{ TS, ID int }

func (r lamportReq) String() string {
	if r.TS < 0 {
		// --clocks minimal: an erased stamp, below the own request.
		return fmt.Sprintf("(_,%d)", r.ID+1)
	}
	return fmt.Sprintf("(%d,%d)", r.TS, r.ID+1)
}

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
// (docs/algorithms/lamport.md; Lamport, "Time, Clocks, and the Ordering of
// Events in a Distributed System", CACM 1978): the user part of 2.0 (ust,
// done), the Lamport clock C, the queue Q of pending requests sorted by (ts,
// ID) and myTs, the timestamp of the current request (0 for ⊥).
//
// Choice: the usual formulation keeps last[j], the timestamp of the latest
// message from j, and reads it only in the entry condition last[j] > myTs. The
// state keeps that comparison instead: late[j] = last[j] > myTs, updated on
// every receive while trying. At request_i every last[j] is below the new
// myTs (C exceeds every timestamp received), so late starts false; outside
// trying nobody reads it, and it is kept false. The two models are
// bisimilar under FIFO and unordered channels alike, and this one does not
// tell apart states that differ only in last values nobody will read
// (N=3, one request each: 470,392 states instead of 826,793).
type lamportNode struct {
	Ust  mutex.State
	Done int
	C    int          `vacheck:"C"`
	MyTs int          // 0: no current request
	Q    []lamportReq `vacheck:"Q"`
	Late []bool       // Late[j]: last[j] > myTs; Late[i] of i itself stays false
	// Requests is the number of requests the process makes: R for a
	// requester, 0 otherwise.
	Requests int `vacheck:"-"`
	// Broken drops the first part of the entry condition (a later-stamped
	// message from every other process): the bug of lamport-broken.
	Broken bool `vacheck:"-"`
	// mutant seeds a bug for the tests of the reductions' assumptions
	// (lamportMutant); 0 in the catalog.
	mutant lamportMutant `vacheck:"-"`
}

// lamportMutant is a deliberate change of the algorithm, made only by tests
// (lamportWith), to check that every reduction either keeps its verdict or
// refuses it through an assumption (lamport_clocks.go).
type lamportMutant uint8

const (
	// lamportTiesByArrival orders Q by timestamp only, ties in arrival
	// order (insert after every request with the same stamp).
	lamportTiesByArrival lamportMutant = 1 + iota
	// lamportAckEcho stamps an ACK with the stamp of the REQUEST it
	// answers instead of the clock.
	lamportAckEcho
	// lamportNoTick makes receive set C := max(C, t), without the tick.
	lamportNoTick
	// lamportKeepLate forgets to clear late[] on exit, so the next
	// request starts with every late[j] of the last one.
	lamportKeepLate
)

type lamportView = automaton.View[lamportNode, lamportMsg]

// lamportUser reads the user part of a process.
func lamportUser(p *lamportNode) (mutex.State, int) { return p.Ust, p.Done }

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
	return p.Ust == mutex.Trying && p.headOK(self) && (p.Broken || p.lateOK(self))
}

// Steps: request_i (idle with requests left), enter_i (the entry
// condition), exit_i (critical).
func (p *lamportNode) Steps(v *lamportView, out []automaton.Step) []automaton.Step {
	self := v.Self()
	switch {
	case p.Ust.CanRequest(p.Done, p.Requests):
		out = append(out, automaton.Step{Name: mutex.StepRequest, Kind: automaton.Output})
	case p.canEnter(self):
		out = append(out, automaton.Do(mutex.StepEnter))
	case p.Ust == mutex.Critical:
		out = append(out, automaton.Step{Name: mutex.StepExit, Kind: automaton.Output})
	}
	return out
}

// Do performs request_i, enter_i or exit_i. The self part of "send REQUEST
// to all including itself" is the local insertion into Q (docs/properties.md,
// self-messages).
func (p *lamportNode) Do(s automaton.Step, fx *automaton.Effects[lamportMsg]) {
	self := fx.Self()
	switch s.Name {
	case mutex.StepRequest:
		p.Ust.Request()
		p.C++
		p.MyTs = p.C
		p.insert(p.mine(self))
		p.sendAll(fx, lamportMsg{Kind: lamportRequest, TS: p.MyTs, From: self})
	case mutex.StepEnter:
		p.Ust.Enter()
	case mutex.StepExit:
		p.Ust.Exit(&p.Done)
		p.Q = slices.DeleteFunc(p.Q, func(r lamportReq) bool { return r == p.mine(self) })
		// myTs is dead until the next request; resetting it to ⊥ keeps
		// states canonical without changing any transition.
		p.MyTs = 0
		p.C++
		if p.mutant != lamportKeepLate {
			clear(p.Late)
		}
		p.sendAll(fx, lamportMsg{Kind: lamportRelease, TS: p.C, From: self})
	default:
		panic(unknownStep("lamport", s))
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
	if p.mutant == lamportTiesByArrival {
		k = len(p.Q)
		for k > 0 && p.Q[k-1].TS > r.TS {
			k--
		}
	}
	p.Q = slices.Insert(p.Q, k, r)
}

// Receive performs receive(m)_{j,i}: the clock rule C := max(C, t) + 1,
// last[j] := t (kept as late[j], see lamportNode), then REQUEST joins Q and
// is acknowledged, RELEASE removes j's request from Q.
func (p *lamportNode) Receive(from int, m lamportMsg, fx *automaton.Effects[lamportMsg]) {
	p.C = max(p.C, m.TS) + 1
	if p.mutant == lamportNoTick {
		p.C--
	}
	if p.Ust == mutex.Trying {
		p.Late[from] = m.TS > p.MyTs
	}
	switch m.Kind {
	case lamportRequest:
		p.insert(lamportReq{TS: m.TS, ID: from})
		ack := lamportMsg{Kind: lamportAck, TS: p.C, From: fx.Self()}
		if p.mutant == lamportAckEcho {
			ack.TS = m.TS
		}
		fx.Send(from, ack)
	case lamportRelease:
		// With FIFO channels j has at most one request in Q. Under
		// unordered channels a RELEASE may overtake its REQUEST or follow
		// j's next REQUEST; it then removes j's oldest request, if any.
		if k := slices.IndexFunc(p.Q, func(r lamportReq) bool { return r.ID == from }); k >= 0 {
			p.Q = slices.Delete(p.Q, k, k+1)
		}
	}
}

// Silent implements automaton.Silencer, for partial-order reduction: a
// process sends to j on request and exit (to everyone) and when it
// acknowledges j's REQUEST. So it cannot send to j while the frozen
// processes send nothing new if it cannot request, is not critical, has
// no REQUEST of j on its way, and, if trying, cannot enter: some frozen
// process k has not yet sent it a message stamped after its request
// (last[k] > myTs: late[k], or one in transit), or has a request ahead of
// its own in Q and no RELEASE on its way. Anything the other processes
// might send is assumed to arrive.
func (p *lamportNode) Silent(self, to int, frozen func(int) bool, inTransit func(int) []lamportMsg) bool {
	if p.Ust == mutex.Critical || p.Ust.CanRequest(p.Done, p.Requests) {
		return false
	}
	if slices.ContainsFunc(inTransit(to), func(m lamportMsg) bool { return m.Kind == lamportRequest }) {
		return false
	}
	if p.Ust != mutex.Trying {
		return true // it only answers REQUESTs from now on
	}
	for k := range p.Late {
		if k == self || !frozen(k) {
			continue
		}
		msgs := inTransit(k)
		if !p.Broken && !p.Late[k] && !slices.ContainsFunc(msgs, func(m lamportMsg) bool { return m.TS > p.MyTs }) {
			return true
		}
		ahead := slices.ContainsFunc(p.Q, func(r lamportReq) bool { return r.ID == k && r.less(p.mine(self)) })
		if ahead && !slices.ContainsFunc(msgs, func(m lamportMsg) bool { return m.Kind == lamportRelease }) {
			return true
		}
	}
	return false
}

// lamportStamp is the timestamp of a process's request, for FAIR-TS
// (mutex.TimestampOrder) in state form: a critical process's request
// (myTs, j) is smaller than the request of every trying process.
//
// docs/properties.md states it on the enter event: when j enters, no trying
// process i has a smaller (ts, i). The state after enter_j is checked here,
// so every violation of the event form is caught. The state form is
// stricter only for a request issued while j is critical; for Lamport such
// a request is always larger, because j entered only after a message from i
// stamped later than myTs_j, and i's clock never goes back. So the two
// forms agree on lamport, and a pass of the state form proves the event
// form in any case.
func lamportStamp(p *lamportNode) (int, bool) { return p.MyTs, true }

// lamportValidEnd returns the valid end state of docs/properties.md for
// mutual exclusion: every process idle with all its requests served, every
// queue empty and every channel empty.
func lamportValidEnd(u mutex.Users) func(v *lamportView) bool {
	return mutex.ValidEnd[lamportNode, lamportMsg](u, lamportUser, func(p *lamportNode) bool { return len(p.Q) == 0 })
}

// lamportExplain says what every process that is not idle waits for.
func lamportExplain(v *lamportView) []string {
	var lines []string
	for i := 0; i < v.N(); i++ {
		p := v.Proc(i)
		if !v.Up(i) {
			lines = append(lines, fmt.Sprintf("process %d has crashed", i+1))
		}
		switch p.Ust {
		case mutex.Critical:
			lines = append(lines, fmt.Sprintf("process %d is in the critical section with request %v", i+1, p.mine(i)))
		case mutex.Trying:
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
		lines = append(lines, inTransit(n))
	}
	return lines
}

// lamport returns the spec lamport of docs/algorithms/lamport.md, which
// declares its broken twin lamport-broken.
func lamport() Spec { return lamportWith(0) }

// lamportWith is lamport with the processes' bug seeded by mutant (tests
// only: lamportMutant).
func lamportWith(mutant lamportMutant) Spec {
	s := Spec{
		Name:    "lamport",
		Section: "2.2",
		Summary: "Lamport's mutual exclusion with logical clocks over FIFO channels: REQUEST to all, ACK, RELEASE",
		Params: []Param{
			{Flag: "n", Default: "3", Usage: "number of processes (N=3 with one request each has 470,392 states, 22,109 with --clocks minimal --reduction por; N=3 with two requests each takes both and 24 minutes, N=4 with one 2 hours and 17 GiB; beyond that, see --clock-limit)", Max: maxN},
			{Flag: "requests", Default: "1", Usage: fmt.Sprintf("critical-section entries per requester, 1 to %d", lamportMaxRequests)},
			{Flag: "requesters", Default: "all", Usage: "processes that request the critical section: all, or a list such as 1,3"},
			{Flag: "clocks", Default: "absolute", Usage: "absolute; relative: store each state with all its timestamps shifted so that the smallest is 0 (exact: the algorithm only compares timestamps and takes max+1); or minimal: relative, with the timestamps no later step reads erased and, once nobody will request again, each kept only as its distance to the current requests (exact; N=3: 36,481 states against 407,854 relative). Traces then show normalized values"},
			{Flag: "clock-limit", Default: "0", Usage: "state bound: states where a clock exceeds this value are checked but not expanded, and reported as cut (0: no bound; the model is finite without it)"},
			{Flag: "crashes", Default: "0", Usage: "crash-stop faults the environment may inject, 0 to N-1 (one crash blocks every entry: progress fails); not with --clocks minimal or --reduction por"},
		},
		Claims: []string{properties.MutualExclusion, properties.TimestampOrder, properties.DeadlockFreedom},
		Broken: &Twin{
			Summary: "Lamport's mutual exclusion with a bug",
			Bug:     "the entry condition checks only that the own request heads the local queue and forgets to wait for a later-stamped message from every other process",
			Claims:  []string{properties.MutualExclusion, properties.DeadlockFreedom},
		},
	}
	s.Hint = func(p *Params) string {
		if p.String("clocks") == "minimal" {
			return ""
		}
		return "--clocks minimal stores only the timestamps a later step can still tell apart, exactly: N=3 has 36,481 states instead of 470,392 (22,109 with --reduction por)"
	}
	s.Build = func(p *Params) (explorer.Model, error) {
		broken := p.Broken()
		n := p.IntFlag("n", 1, maxN)
		users := p.mutexUsersUpTo(n, lamportMaxRequests)
		limit := p.IntFlag("clock-limit", 0, 1<<20)
		crashes := p.IntFlag("crashes", 0, n-1)
		// A channel i→j holds at most R REQUESTs, R RELEASEs and the ACKs
		// of j's R requests.
		disc, capacity := p.ChannelFlags(channel.FIFO, 3*users.R)
		if err := p.Err(); err != nil {
			return nil, err
		}
		procs := make([]lamportNode, n)
		for i := range procs {
			procs[i] = lamportNode{Ust: mutex.Idle, Late: make([]bool, n), Requests: users.Requests(i), Broken: broken, mutant: mutant}
		}
		cfg := automaton.Config[lamportNode, lamportMsg]{
			StepNames:    mutex.StepNames(),
			MessageTypes: []string{"REQUEST", "ACK", "RELEASE"},

			Initial:  [][]lamportNode{procs},
			Links:    automaton.Complete(n, false),
			Channels: disc,
			Capacity: capacity,
			Crashes:  crashes,
			Invariants: []automaton.Invariant[lamportNode, lamportMsg]{
				mutex.Exclusion[lamportNode, lamportMsg](lamportUser),
				mutex.TimestampOrder[lamportNode, lamportMsg](lamportUser, lamportStamp),
			},
			ValidEnd: lamportValidEnd(users),
			Explain:  lamportExplain,
			Liveness: []automaton.Liveness[lamportNode, lamportMsg]{
				mutex.Starvation[lamportNode, lamportMsg](lamportUser),
				mutex.Progress[lamportNode, lamportMsg](lamportUser),
			},
			Mutex: mutex.Metrics(users.R, lamportUser, lamportServes),
		}
		if crashes > 0 {
			// GA2 for a system with crashes (docs/properties.md): a
			// crashed trying process alone does not refute it.
			cfg.Liveness[1] = mutex.LiveProgress[lamportNode, lamportMsg](lamportUser)
		}
		switch c := p.String("clocks"); c {
		case "absolute":
		case "relative", "minimal":
			if limit > 0 {
				return nil, Usagef("clocks", c, "%s clocks cannot be combined with --clock-limit, which bounds absolute values", c)
			}
			cfg.Normalize = lamportShift
			if c == "minimal" && crashes > 0 {
				return nil, Usagef("clocks", c, "minimal clocks are shown exact without crashes only; use absolute or relative with --crashes %d", crashes)
			}
			if c == "minimal" {
				cfg.Normalize = lamportMinimize(cfg.Links)
			}
		default:
			return nil, Usagef("clocks", c, "allowed values are absolute, relative and minimal")
		}
		p.Set("clocks", p.String("clocks"))
		// Processes interact only by messages, and the invariants read
		// the user state and myTs: request, enter and exit are visible,
		// receives are not. (The framework has no partial-order reduction
		// with crashes.)
		if crashes == 0 {
			cfg.PartialOrder = &automaton.PartialOrder[lamportNode]{
				Visible: func(before, after *lamportNode) bool {
					return before.Ust != after.Ust || before.MyTs != after.MyTs
				},
			}
		}
		cfg.Assumptions = lamportAssumptions(p.String("clocks"), cfg.PartialOrder != nil)
		if limit > 0 {
			cfg.Constraint = func(v *lamportView) bool {
				for i := 0; i < v.N(); i++ {
					if v.Proc(i).C > limit {
						return false
					}
				}
				return true
			}
			cfg.ConstraintDoc = fmt.Sprintf("every Lamport clock at most %d (--clock-limit)", limit)
		}
		return automaton.New(cfg)
	}
	return s
}
