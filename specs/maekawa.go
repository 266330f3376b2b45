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
	"github.com/vacheck/vacheck/quorum"
)

// mkKind is the type of a Maekawa message (docs/algorithms/maekawa.md).
type mkKind uint8

const (
	mkRequest mkKind = 1 + iota
	mkLocked
	mkRelease
	mkFailed
	mkInquire
	mkRelinquish
)

func (k mkKind) String() string {
	switch k {
	case mkRequest:
		return "REQUEST"
	case mkLocked:
		return "LOCKED"
	case mkRelease:
		return "RELEASE"
	case mkFailed:
		return "FAILED"
	case mkInquire:
		return "INQUIRE"
	case mkRelinquish:
		return "RELINQUISH"
	}
	return "mkKind(" + strconv.Itoa(int(k)) + ")"
}

// mkMsg is a Maekawa message. Only REQUEST(ts, i) carries data; the sender
// of the others is the channel they travel on.
type mkMsg struct {
	Kind mkKind
	Req  mkReq // REQUEST only
}

// String shows REQUEST(ts,i) with i 1-based, and the other messages by name.
func (m mkMsg) String() string {
	if m.Kind == mkRequest {
		return "REQUEST" + m.Req.String()
	}
	return m.Kind.String()
}

// mkServes: REQUEST, RELINQUISH and RELEASE serve the entry of their
// sender; LOCKED, FAILED and INQUIRE that of the process they are sent to.
func mkServes(from, to int, m mkMsg) int {
	switch m.Kind {
	case mkLocked, mkFailed, mkInquire:
		return to
	}
	return from
}

// mkReq is a request (ts, i) in the total order of Lamport timestamps with
// ties broken by process (docs/properties.md). Timestamps start at 1, so the
// zero value is ⊥.
type mkReq struct {
	Ts int
	ID int // the requester, 0-based
}

func (r mkReq) none() bool { return r.Ts == 0 }

func mkReqCmp(a, b mkReq) int {
	if a.Ts != b.Ts {
		return a.Ts - b.Ts
	}
	return a.ID - b.ID
}

// String shows the request as (ts,i) with i 1-based, or ⊥.
func (r mkReq) String() string {
	if r.none() {
		return "⊥"
	}
	return "(" + strconv.Itoa(r.Ts) + "," + strconv.Itoa(r.ID+1) + ")"
}

// mkVariant selects the algorithm: the basic one of 2.6, or the full one of
// 2.7 with yield rule A or B.
type mkVariant uint8

const (
	mkBasic mkVariant = 1 + iota
	mkYieldA
	mkYieldB
)

// mkNode is a Maekawa process (docs/algorithms/maekawa.md; Maekawa 1985,
// Singhal & Shivaratri 1994 for yield rule B). It plays three roles: the
// user part of 2.0, the requester that collects a LOCKED from every arbiter
// of its quorum S_i, and the arbiter for the processes whose quorums
// contain it. Its own REQUEST, LOCKED and RELEASE travel on the
// self-channel C_{i,i} (2.6 Choice) and are not counted as messages.
//
// The fields of 2.7 (failedFrom, inquiredBy, yielded, inquireSent) stay
// empty in the basic algorithm.
type mkNode struct {
	// User part (2.0).
	Ust  mutex.State
	Done int
	// Lamport clock, shared by both roles. It is only read to stamp a
	// request, so it is kept at 0 once the process has no request left
	// (its value could never be read again; forgetting it keeps
	// equivalent states equal).
	C int
	// Requester. MyTs is ⊥ (0) when idle: it is not read after exit, and
	// forgetting it keeps equivalent states equal.
	MyTs       int
	Granted    procSet // arbiters whose LOCKED arrived (the permission set)
	FailedFrom procSet // 2.7: arbiters whose FAILED is not yet superseded
	InquiredBy procSet // 2.7: remembered INQUIREs
	Yielded    procSet // 2.7: arbiters relinquished to, no LOCKED since
	// Arbiter.
	LockedFor   mkReq   // the request granted, or ⊥
	Reqs        []mkReq // pending requests including the granted one, ascending
	InquireSent bool    // 2.7: INQUIRE sent for the current grant

	Quorum   []int     `vacheck:"-"` // S_i, 0-based, ascending
	QSet     procSet   `vacheck:"-"` // S_i as a set
	Requests int       `vacheck:"-"` // R for a requester, 0 otherwise
	Variant  mkVariant `vacheck:"-"`
}

type mkView = automaton.View[mkNode, mkMsg]

// Steps: request_i, enter_i (every member of S_i has granted) and exit_i
// of the user part (2.0, mutex.State.Next).
func (p *mkNode) Steps(_ *mkView, out []automaton.Step) []automaton.Step {
	if step, ok := p.Ust.Next(p.Done, p.Requests, p.Granted == p.QSet); ok {
		out = append(out, automaton.Do(step))
	}
	return out
}

// Do performs request_i (send REQUEST to every member of S_i), enter_i, or
// exit_i (send RELEASE to every member of S_i and forget the request).
func (p *mkNode) Do(s automaton.Step, fx *automaton.Effects[mkMsg]) {
	switch s.Name {
	case mutex.StepRequest:
		p.Ust.Request()
		p.C++
		p.MyTs = p.C
		p.Granted = 0
		req := mkMsg{Kind: mkRequest, Req: mkReq{Ts: p.MyTs, ID: fx.Self()}}
		for _, j := range p.Quorum {
			fx.Send(j, req)
		}
	case mutex.StepEnter:
		p.Ust.Enter()
	case mutex.StepExit:
		p.Ust.Exit(&p.Done)
		p.MyTs = 0
		if !p.clockLive() {
			p.C = 0
		}
		p.Granted, p.FailedFrom, p.InquiredBy, p.Yielded = 0, 0, 0, 0
		for _, j := range p.Quorum {
			fx.Send(j, mkMsg{Kind: mkRelease})
		}
	default:
		panic(unknownStep("maekawa", s))
	}
}

// Receive dispatches a message to the arbiter (REQUEST, RELEASE,
// RELINQUISH) or the requester (LOCKED, FAILED, INQUIRE).
func (p *mkNode) Receive(from int, m mkMsg, fx *automaton.Effects[mkMsg]) {
	switch m.Kind {
	case mkRequest:
		p.arbiterRequest(m.Req, fx)
	case mkRelease:
		p.arbiterRelease(from, fx)
	case mkRelinquish:
		// 2.7: the relinquishing request stays in reqs; grant the oldest.
		p.LockedFor = p.Reqs[0]
		p.InquireSent = false
		fx.Send(p.LockedFor.ID, mkMsg{Kind: mkLocked})
	case mkLocked:
		p.Granted = p.Granted.with(from)
		p.Yielded = p.Yielded.without(from)
		p.FailedFrom = p.FailedFrom.without(from)
	case mkFailed:
		p.FailedFrom = p.FailedFrom.with(from)
		// Send the postponed RELINQUISHes.
		for _, k := range p.InquiredBy.members() {
			if p.Granted.has(k) {
				p.relinquish(k, fx)
			}
		}
		p.InquiredBy = 0
	case mkInquire:
		switch {
		case p.Ust != mutex.Trying || !p.Granted.has(from) || p.Granted == p.QSet:
			// In or entering the critical section, or stale: the
			// RELEASE will answer it.
		case p.yieldOK():
			p.relinquish(from, fx)
		default:
			p.InquiredBy = p.InquiredBy.with(from)
		}
	}
}

// clockLive reports whether the clock can still stamp a request of this
// process: it is idle with requests left, or will be after its exit.
func (p *mkNode) clockLive() bool {
	if p.Ust == mutex.Idle {
		return p.Done < p.Requests
	}
	return p.Done+1 < p.Requests
}

// yieldOK is YIELD_OK of 2.7: rule A yields after a FAILED, rule B also
// after having yielded already.
func (p *mkNode) yieldOK() bool {
	if p.Variant == mkYieldB {
		return p.FailedFrom != 0 || p.Yielded != 0
	}
	return p.FailedFrom != 0
}

// relinquish gives arbiter j's grant back.
func (p *mkNode) relinquish(j int, fx *automaton.Effects[mkMsg]) {
	fx.Send(j, mkMsg{Kind: mkRelinquish})
	p.Granted = p.Granted.without(j)
	p.Yielded = p.Yielded.with(j)
}

// arbiterRequest is the arbiter's receive REQUEST(t, i): grant when
// unlocked; otherwise the basic algorithm defers, and the full one sends
// INQUIRE (at most once per grant) for the oldest request or FAILED.
func (p *mkNode) arbiterRequest(r mkReq, fx *automaton.Effects[mkMsg]) {
	if p.clockLive() {
		p.C = max(p.C, r.Ts)
	}
	k, _ := slices.BinarySearchFunc(p.Reqs, r, mkReqCmp)
	p.Reqs = slices.Insert(slices.Clip(p.Reqs), k, r)
	switch {
	case p.LockedFor.none():
		p.LockedFor = r
		fx.Send(r.ID, mkMsg{Kind: mkLocked})
	case p.Variant == mkBasic:
		// The LOCKED is deferred.
	case k == 0:
		if !p.InquireSent {
			fx.Send(p.LockedFor.ID, mkMsg{Kind: mkInquire})
			p.InquireSent = true
		}
	default:
		fx.Send(r.ID, mkMsg{Kind: mkFailed})
	}
}

// arbiterRelease is the arbiter's receive RELEASE from i: drop i's request
// and grant the oldest pending one.
func (p *mkNode) arbiterRelease(i int, fx *automaton.Effects[mkMsg]) {
	p.Reqs = slices.DeleteFunc(p.Reqs, func(r mkReq) bool { return r.ID == i })
	p.LockedFor = mkReq{}
	p.InquireSent = false
	if len(p.Reqs) > 0 {
		p.LockedFor = p.Reqs[0]
		fx.Send(p.LockedFor.ID, mkMsg{Kind: mkLocked})
	}
}

func mkUser(p *mkNode) (mutex.State, int) { return p.Ust, p.Done }

// mkSingleGrant says that every arbiter's permission is held by, or
// travelling to, at most one process, the one it is locked for: the reason
// GA1 holds (2.6).
func mkSingleGrant(v *mkView) bool {
	n := v.N()
	for j := 0; j < n; j++ {
		a, holders := v.Proc(j), 0
		for i := 0; i < n; i++ {
			k := 0
			if v.Proc(i).Granted.has(j) {
				k++
			}
			for _, m := range v.Chan(j, i) {
				if m.Kind == mkLocked {
					k++
				}
			}
			if k > 0 && (a.LockedFor.none() || a.LockedFor.ID != i) {
				return false
			}
			holders += k
		}
		if holders > 1 {
			return false
		}
	}
	return true
}

// mkValidEnd is a valid end state of mutual exclusion (docs/properties.md):
// every process idle with its R requests served, channels empty, every
// arbiter unlocked with an empty request set.
func mkValidEnd(u mutex.Users) func(v *mkView) bool {
	return mutex.ValidEnd[mkNode, mkMsg](u, mkUser, func(p *mkNode) bool { return p.LockedFor.none() && len(p.Reqs) == 0 })
}

// mkExplain tells the story of a state: whom every arbiter is locked for,
// which LOCKEDs every trying requester holds and whom it waits for, and the
// wait-for cycle if there is one.
func mkExplain(v *mkView) []string {
	n := v.N()
	var lines []string
	var unlocked []int
	for j := 0; j < n; j++ {
		a := v.Proc(j)
		if a.LockedFor.none() {
			unlocked = append(unlocked, j)
			continue
		}
		line := fmt.Sprintf("arbiter %d is locked for process %d (request %v)", j+1, a.LockedFor.ID+1, a.LockedFor)
		var queued []string
		for _, r := range a.Reqs {
			if r != a.LockedFor {
				queued = append(queued, r.String())
			}
		}
		if len(queued) > 0 {
			line += ", queued " + strings.Join(queued, " ")
		}
		if a.InquireSent {
			line += ", INQUIRE sent"
		}
		lines = append(lines, line)
	}
	if len(unlocked) > 0 {
		lines = append(lines, "unlocked arbiters: "+joinOneBased(unlocked, ", "))
	}
	waits := make([][]int, n)
	for i := 0; i < n; i++ {
		p := v.Proc(i)
		switch {
		case p.Ust == mutex.Critical:
			lines = append(lines, fmt.Sprintf("process %d is in the critical section", i+1))
			continue
		case p.Ust == mutex.Idle && p.Requests > 0:
			lines = append(lines, fmt.Sprintf("process %d is idle, %d of %d requests served", i+1, p.Done, p.Requests))
			continue
		case p.Ust != mutex.Trying:
			continue
		}
		line := fmt.Sprintf("process %d", i+1)
		if p.Granted == 0 {
			line += " holds no LOCKED"
		} else {
			line += " holds LOCKED from " + joinOneBased(p.Granted.members(), ", ")
		}
		var why []string
		for _, j := range p.Quorum {
			if p.Granted.has(j) {
				continue
			}
			a := v.Proc(j)
			switch {
			case a.LockedFor.none():
				why = append(why, fmt.Sprintf("%d (unlocked)", j+1))
			case a.LockedFor.ID != i:
				why = append(why, fmt.Sprintf("%d (locked for process %d)", j+1, a.LockedFor.ID+1))
				if !slices.Contains(waits[i], a.LockedFor.ID) {
					waits[i] = append(waits[i], a.LockedFor.ID)
				}
			case slices.ContainsFunc(v.Chan(j, i), func(m mkMsg) bool { return m.Kind == mkLocked }):
				why = append(why, fmt.Sprintf("%d (LOCKED in transit)", j+1))
			default:
				why = append(why, fmt.Sprintf("%d (locked for it, RELINQUISH in transit)", j+1))
			}
		}
		if len(why) > 0 {
			line += ", waits for " + strings.Join(why, ", ")
		}
		line += fmt.Sprintf("; its request is %v", mkReq{Ts: p.MyTs, ID: i})
		if p.FailedFrom != 0 {
			line += "; FAILED from " + joinOneBased(p.FailedFrom.members(), ", ")
		}
		if p.InquiredBy != 0 {
			line += "; remembers INQUIRE from " + joinOneBased(p.InquiredBy.members(), ", ")
		}
		if p.Yielded != 0 {
			line += "; has yielded to " + joinOneBased(p.Yielded.members(), ", ")
		}
		lines = append(lines, line)
	}
	if c := waitCycle(waits); c != nil {
		lines = append(lines, "wait-for cycle: "+joinOneBased(c, " → "))
	}
	if k := v.InTransit(); k > 0 {
		lines = append(lines, inTransit(k))
	}
	return lines
}

// quorumsParam is the --quorums flag of the quorum-based specs
// (docs/algorithms/maekawa.md and docs/properties.md).
var quorumsParam = Param{
	Flag:    "quorums",
	Default: "",
	Usage:   "quorum system: fpp, grid, majority, weighted:W1,W2,..., tree, wall:ROWS, single, all, or a quorum file (default: fpp where a projective plane exists, else grid)",
}

// parseQuorums reads --quorums for n processes and checks that the system
// suits Maekawa's algorithm (quorums intersect, i ∈ S_i).
// quorums is parseQuorums with a sticky error (Params.Err).
func (p *Params) quorums(n int) quorum.System {
	return sticky(p, func() (quorum.System, error) { return parseQuorums(p, n) })
}

func parseQuorums(p *Params, n int) (quorum.System, error) {
	if p.Given("quorums") && p.String("quorums") == "" {
		// Not the default: that is --quorums left out.
		return quorum.System{}, fmt.Errorf("%w: --quorums '': empty; allowed: fpp, grid, majority, weighted:W1,W2,..., tree, wall:ROWS, single, all or the path of a quorum file, or leave --quorums out for the default", ErrUsage)
	}
	s, err := quorum.Parse(p.String("quorums"), n)
	if err == nil {
		err = s.Validate(true)
	}
	if err != nil {
		return quorum.System{}, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	p.Set("quorums", s.Name)
	return s, nil
}

// maekawa returns the spec of Maekawa's algorithm (docs/algorithms/maekawa.md;
// Maekawa 1985), whose broken twin is the basic algorithm of 2.6, its
// deadlocking form maekawa-basic.
//
// A finding, as 2.7 asks: rule B is deadlock-free on the reference quorum
// systems (fpp, majority), but with choice (3), no late FAILED to a
// request an older one overtakes, it deadlocks at N=3 with the tree, grid
// and all quorums: a process that got INQUIRE and no FAILED keeps its
// grants while it waits for an arbiter locked for the older request
// (TestMaekawaRuleBWithoutLateFailed).
func maekawa() Spec {
	s := Spec{
		Name:    "maekawa",
		Section: "2.7",
		Summary: "Maekawa's quorum-based mutual exclusion with FAILED, INQUIRE and RELINQUISH",
		Params: []Param{
			{Flag: "n", Default: "3", Usage: "number of processes", Max: maxN},
			quorumsParam, requestsParam, requestersParam,
			{Flag: "yield", Default: "b", Usage: "when a requester gives a grant back on INQUIRE: a (after a FAILED) or b (also after having yielded)"},
		},
		Claims: []string{properties.MutualExclusion, properties.DeadlockFreedom},
		Broken: &Twin{
			Name:    "maekawa-basic",
			Section: "2.6",
			Summary: "Maekawa's basic quorum-based mutual exclusion (REQUEST, LOCKED, RELEASE)",
			Bug:     "basic Maekawa without FAILED/INQUIRE/RELINQUISH: requesters can wait for each other in a cycle",
		},
	}
	s.Broken.Params = withoutParams(s.Params, "yield")
	s.Build = func(p *Params) (explorer.Model, error) {
		n := p.IntFlag("n", 1, maxN)
		qs := p.quorums(n)
		users := p.mutexUsers(n)
		variant := mkBasic
		if !p.Broken() {
			variant = map[string]mkVariant{"a": mkYieldA, "b": mkYieldB}[p.oneOf("yield", "allowed values are a and b", "a", "b")]
		}
		return mutexModel(p, users, mkUser, channel.FIFO, 8, eachProcess(func(i int) mkNode {
			return mkNode{Ust: mutex.Idle, Quorum: qs.Quorums[i], QSet: setOf(qs.Quorums[i]), Requests: users.Requests(i), Variant: variant}
		}), automaton.Config[mkNode, mkMsg]{
			MessageTypes: append([]string{"REQUEST", "LOCKED", "RELEASE"}, when(variant != mkBasic, "FAILED", "INQUIRE", "RELINQUISH")...),
			Links:        automaton.Complete(n, true),
			Invariants: []automaton.Invariant[mkNode, mkMsg]{
				mutex.Exclusion[mkNode, mkMsg](mkUser),
				{Name: "single-grant", Doc: "every arbiter's LOCKED is held by or travelling to at most one process, the one it is locked for", Holds: mkSingleGrant},
			},
			ValidEnd: mkValidEnd(users),
			Explain:  mkExplain,
			Mutex:    mutex.Metrics(users.R, mkUser, mkServes),
		})
	}
	return s
}
