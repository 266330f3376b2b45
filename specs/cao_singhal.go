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

// csKind is the type of a Cao–Singhal message (docs/algorithms/cao-singhal.md):
// those of Maekawa's full algorithm (2.7) and TRANSFER.
type csKind uint8

const (
	csRequest csKind = 1 + iota
	csLocked
	csRelease
	csFailed
	csInquire
	csRelinquish
	csTransfer
)

func (k csKind) String() string {
	return [...]string{"?", "REQUEST", "LOCKED", "RELEASE", "FAILED", "INQUIRE", "RELINQUISH", "TRANSFER"}[min(int(k), 7)]
}

// csMsg is a Cao–Singhal message. Req is the request of REQUEST(ts, i), the
// holder's request an INQUIRE or TRANSFER is about, or in RELEASE the
// request the permission was forwarded to (⊥ for a plain RELEASE). Arb is
// the arbiter whose permission a LOCKED carries (the sender, unless
// forwarded); Next is the request a TRANSFER says to pass the permission to.
type csMsg struct {
	Kind csKind
	Arb  int
	Req  mkReq
	Next mkReq
}

func (m csMsg) MessageType() string { return m.Kind.String() }

func (m csMsg) String() string {
	switch m.Kind {
	case csRequest, csInquire:
		return m.Kind.String() + m.Req.String()
	case csLocked:
		return "LOCKED(" + strconv.Itoa(m.Arb+1) + ")"
	case csRelease:
		if !m.Req.none() {
			return "RELEASE" + m.Req.String()
		}
	case csTransfer:
		return "TRANSFER(" + m.Req.String() + "→" + m.Next.String() + ")"
	}
	return m.Kind.String()
}

// csFwd records an accepted TRANSFER: on exit, pass arbiter Arb's
// permission to the request Next.
type csFwd struct {
	Arb  int
	Next mkReq
}

func (f csFwd) String() string { return strconv.Itoa(f.Arb+1) + "→" + f.Next.String() }

// csNode is a process of the Cao–Singhal algorithm
// (docs/algorithms/cao-singhal.md; G. Cao, M. Singhal, A delay-optimal
// quorum-based mutual exclusion algorithm for distributed systems, IEEE TPDS
// 12(12), 2001): Maekawa's full algorithm (2.7, yield rule B) where an arbiter
// locked for i tells i, by TRANSFER, which pending request to hand its
// permission to; on exit i sends that LOCKED directly to the next requester and
// a RELEASE naming it to the arbiter. The synchronisation delay drops from 2
// hops to 1.
//
// The section is an "idea" and leaves rules open. The paper was not at
// hand, so these Choices are ours: (1) and (2) as the section suggests,
// (3), (5), (6) and (7) forced by races the checker found in the plain reading
// (each breaks one-permission or DLF without it):
//   - (1) The forwarded request is always the best pending one other than
//     the holder's, min(reqs \ {lockedFor}); whenever it changes (a better
//     REQUEST, a new lock) the arbiter sends a new TRANSFER, which replaces
//     the old one at the holder (2.8: "a later, higher-priority arrival
//     replaces it").
//   - (2) Conflicts are Maekawa's 2.7 with yield rule B (the rule that is
//     deadlock-free there). A lock taken over by RELEASE(k) is a new grant:
//     if an older request is pending, the arbiter INQUIREs the new holder.
//   - (3) INQUIRE and TRANSFER name the holder's request; a process ignores
//     them for another request. It accepts a TRANSFER only while it holds
//     that arbiter's permission and has not relinquished it during the
//     current request (NoFwd): a TRANSFER sent before a RELINQUISH may
//     arrive after the permission came back, forwarded, and would name a
//     request already served. A TRANSFER dropped this way costs only the
//     delay: the holder's plain RELEASE lets the arbiter grant itself.
//   - (4) A process's requester part talks to its own arbiter part over the
//     self-channel, uncounted, as in 2.6.
//   - (5) The arbiter learns of a forward only from RELEASE(k), so the
//     next holder k may enter, exit and send its own (plain) RELEASE
//     first. A plain RELEASE from a process other than the holder is
//     such an early one: the arbiter drops k's request and waits; the
//     RELEASE(k) that then finds k's request gone acts as a plain one.
//     (Only one forward can be unconfirmed: TRANSFERs go to the holder
//     the arbiter knows.)
//   - (6) A FAILED overtaken by a forwarded LOCKED from the same arbiter
//     is stale and ignored (in 2.7 FIFO rules this out).
//   - (7) An INQUIRE for the current request from an arbiter whose
//     forwarded LOCKED has not arrived yet is kept (EarlyInq) and answered
//     when the LOCKED arrives; dropping it as 2.7 drops stale ones
//     deadlocks (grid N=4, requesters 1,4, two requests each).
type csNode struct {
	// User part (2.0) and Lamport clock (kept at 0 once the process has no
	// request left, as in maekawa).
	Ust  mutex.State
	Done int
	C    int
	// Requester: 2.7's variables, the accepted TRANSFERs and the arbiters
	// relinquished during the current request.
	MyTs       int
	Granted    procSet
	FailedFrom procSet
	InquiredBy procSet
	Yielded    procSet
	Fwd        []csFwd // by arbiter, ascending
	NoFwd      procSet
	EarlyInq   procSet // INQUIREs that overtook the forwarded LOCKED (Choice 7)
	// Arbiter: 2.7's variables and the request last named in a TRANSFER
	// to the current holder.
	LockedFor   mkReq
	Reqs        []mkReq
	InquireSent bool
	Forwarded   mkReq

	Quorum   []int   `vacheck:"-"`
	QSet     procSet `vacheck:"-"`
	Requests int     `vacheck:"-"`
	// Broken is the bug of cao-singhal-broken: the arbiter takes every
	// plain RELEASE as its holder's (no Choice 5).
	Broken bool `vacheck:"-"`
}

type csView = automaton.View[csNode, csMsg]

func csUser(p *csNode) (mutex.State, int) { return p.Ust, p.Done }

// Steps: request_i, enter_i (every member of S_i has granted) and exit_i
// of the user part (2.0, mutex.State.Next).
func (p *csNode) Steps(_ *csView, out []automaton.Step) []automaton.Step {
	if step, ok := p.Ust.Next(p.Done, p.Requests, p.Granted == p.QSet); ok {
		out = append(out, automaton.Do(step))
	}
	return out
}

// Do performs request_i (REQUEST to all of S_i), enter_i, and exit_i: for
// every arbiter j of S_i, LOCKED(j) to the request j forwarded and
// RELEASE(k_j) to j, or a plain RELEASE.
func (p *csNode) Do(s automaton.Step, fx *automaton.Effects[csMsg]) {
	switch s.Name {
	case mutex.StepRequest:
		p.Ust.Request()
		p.C++
		p.MyTs = p.C
		for _, j := range p.Quorum {
			fx.Send(j, csMsg{Kind: csRequest, Req: p.mine(fx)})
		}
	case mutex.StepEnter:
		p.Ust.Enter()
	case mutex.StepExit:
		p.Ust.Exit(&p.Done)
		for _, j := range p.Quorum {
			k := slices.IndexFunc(p.Fwd, func(f csFwd) bool { return f.Arb == j })
			if k < 0 {
				fx.Send(j, csMsg{Kind: csRelease})
				continue
			}
			next := p.Fwd[k].Next
			fx.Send(next.ID, csMsg{Kind: csLocked, Arb: j})
			fx.Send(j, csMsg{Kind: csRelease, Req: next})
		}
		p.MyTs = 0
		if p.Done >= p.Requests {
			p.C = 0
		}
		p.Granted, p.FailedFrom, p.InquiredBy, p.Yielded, p.NoFwd, p.EarlyInq, p.Fwd = 0, 0, 0, 0, 0, 0, nil
	default:
		panic(unknownStep("cao-singhal", s))
	}
}

func (p *csNode) mine(fx *automaton.Effects[csMsg]) mkReq { return mkReq{Ts: p.MyTs, ID: fx.Self()} }

// Receive dispatches to the arbiter (REQUEST, RELEASE, RELINQUISH) or the
// requester (LOCKED, FAILED, INQUIRE, TRANSFER).
func (p *csNode) Receive(from int, m csMsg, fx *automaton.Effects[csMsg]) {
	switch m.Kind {
	case csRequest:
		if p.Ust == mutex.Idle && p.Done >= p.Requests || p.Ust != mutex.Idle && p.Done+1 >= p.Requests {
			// The clock can stamp no further request of this process.
		} else {
			p.C = max(p.C, m.Req.Ts)
		}
		k, _ := slices.BinarySearchFunc(p.Reqs, m.Req, mkReqCmp)
		p.Reqs = slices.Insert(slices.Clip(p.Reqs), k, m.Req)
		switch {
		case p.LockedFor.none():
			p.grant(m.Req, true, fx)
		case k == 0:
			if !p.InquireSent {
				fx.Send(p.LockedFor.ID, csMsg{Kind: csInquire, Req: p.LockedFor})
				p.InquireSent = true
			}
			p.transfer(fx)
		default:
			fx.Send(m.Req.ID, csMsg{Kind: csFailed})
			p.transfer(fx)
		}
	case csRelease:
		p.Reqs = slices.DeleteFunc(p.Reqs, func(r mkReq) bool { return r.ID == from })
		switch {
		case m.Req.none() && from != p.LockedFor.ID && !p.Broken:
			// Choice (5): an early RELEASE from the process the holder
			// forwarded the permission to; the holder's RELEASE(k) is
			// still on its way, and will find k's request gone.
		case !m.Req.none() && slices.Contains(p.Reqs, m.Req):
			p.grant(m.Req, false, fx)
		case len(p.Reqs) > 0:
			p.grant(p.Reqs[0], true, fx)
		default:
			p.LockedFor, p.InquireSent, p.Forwarded = mkReq{}, false, mkReq{}
		}
	case csRelinquish:
		p.grant(p.Reqs[0], true, fx)
	case csLocked:
		fx.Assert("locked-wanted", p.Ust == mutex.Trying && !p.Granted.has(m.Arb))
		p.Granted = p.Granted.with(m.Arb)
		p.Yielded = p.Yielded.without(m.Arb)
		p.FailedFrom = p.FailedFrom.without(m.Arb)
		if p.EarlyInq.has(m.Arb) {
			p.EarlyInq = p.EarlyInq.without(m.Arb)
			p.inquire(m.Arb, fx)
		}
	case csFailed:
		if p.Ust != mutex.Trying || p.Granted.has(from) {
			return // Choice (6): overtaken by a forwarded LOCKED
		}
		p.FailedFrom = p.FailedFrom.with(from)
		for _, k := range p.InquiredBy.members() {
			if p.Granted.has(k) {
				p.relinquish(k, fx)
			}
		}
		p.InquiredBy = 0
	case csInquire:
		switch {
		case p.Ust != mutex.Trying || m.Req != p.mine(fx):
			// Not about this request: the exit answered it.
		case !p.Granted.has(from):
			p.EarlyInq = p.EarlyInq.with(from) // Choice (7)
		default:
			p.inquire(from, fx)
		}
	case csTransfer:
		if p.Ust == mutex.Idle || m.Req != p.mine(fx) || !p.Granted.has(from) || p.NoFwd.has(from) {
			return // Choice (3)
		}
		p.Fwd = slices.DeleteFunc(slices.Clip(p.Fwd), func(f csFwd) bool { return f.Arb == from })
		k, _ := slices.BinarySearchFunc(p.Fwd, from, func(f csFwd, j int) int { return f.Arb - j })
		p.Fwd = slices.Insert(p.Fwd, k, csFwd{Arb: from, Next: m.Next})
	}
}

// inquire answers arbiter j's INQUIRE, as in 2.7 with rule B: not while
// entering (the exit answers it); relinquish if YIELD_OK; else remember it.
func (p *csNode) inquire(j int, fx *automaton.Effects[csMsg]) {
	switch {
	case p.Granted == p.QSet:
	case p.FailedFrom != 0 || p.Yielded != 0:
		p.relinquish(j, fx)
	default:
		p.InquiredBy = p.InquiredBy.with(j)
	}
}

// grant locks the arbiter for r, sending the LOCKED unless a holder has
// forwarded it; an older pending request makes it INQUIRE the new holder
// (Choice 2), and the best other pending request is forwarded (Choice 1).
func (p *csNode) grant(r mkReq, send bool, fx *automaton.Effects[csMsg]) {
	p.LockedFor, p.InquireSent, p.Forwarded = r, false, mkReq{}
	if send {
		fx.Send(r.ID, csMsg{Kind: csLocked, Arb: fx.Self()})
	}
	if p.Reqs[0] != r {
		fx.Send(r.ID, csMsg{Kind: csInquire, Req: r})
		p.InquireSent = true
	}
	p.transfer(fx)
}

// transfer sends TRANSFER(lockedFor → best) to the holder when the best
// pending request other than the holder's has changed.
func (p *csNode) transfer(fx *automaton.Effects[csMsg]) {
	best := mkReq{}
	for _, r := range p.Reqs {
		if r != p.LockedFor {
			best = r
			break
		}
	}
	if best != p.Forwarded && !best.none() {
		fx.Send(p.LockedFor.ID, csMsg{Kind: csTransfer, Req: p.LockedFor, Next: best})
		p.Forwarded = best
	}
}

// relinquish gives arbiter j's permission back and forgets its TRANSFER.
func (p *csNode) relinquish(j int, fx *automaton.Effects[csMsg]) {
	fx.Send(j, csMsg{Kind: csRelinquish})
	p.Granted = p.Granted.without(j)
	p.Yielded = p.Yielded.with(j)
	p.NoFwd = p.NoFwd.with(j)
	p.Fwd = slices.DeleteFunc(slices.Clip(p.Fwd), func(f csFwd) bool { return f.Arb == j })
}

// csOnePermission: for every arbiter j exactly one permission exists: at j
// (unlocked, or back early and awaiting the RELEASE(k) of Choice 5), held by
// a requester, or in transit as a LOCKED(j) (direct or forwarded), a plain
// RELEASE or a RELINQUISH to j.
func csOnePermission(v *csView) bool {
	n := v.N()
	for j := 0; j < n; j++ {
		a := v.Proc(j)
		k := 0
		if a.LockedFor.none() {
			k++
		}
		for i := 0; i < n; i++ {
			if v.Proc(i).Granted.has(j) {
				k++
			}
			for to := 0; to < n; to++ {
				for _, m := range v.Chan(i, to) {
					switch {
					case m.Kind == csLocked && m.Arb == j:
						k++
					case to != j:
					case m.Kind == csRelinquish, m.Kind == csRelease && m.Req.none():
						k++
					case m.Kind == csRelease && !slices.Contains(a.Reqs, m.Req):
						k++ // back early (Choice 5)
					}
				}
			}
		}
		if k != 1 {
			return false
		}
	}
	return true
}

// csExplain says whom every arbiter is locked for and what every trying
// process holds.
func csExplain(v *csView) []string {
	var lines []string
	for j := 0; j < v.N(); j++ {
		if a := v.Proc(j); !a.LockedFor.none() {
			line := fmt.Sprintf("arbiter %d is locked for %v, pending %v", j+1, a.LockedFor, a.Reqs)
			if !a.Forwarded.none() {
				line += fmt.Sprintf(", forwarded %v", a.Forwarded)
			}
			lines = append(lines, line)
		}
	}
	for i := 0; i < v.N(); i++ {
		if p := v.Proc(i); p.Ust != mutex.Idle {
			fwd := make([]string, len(p.Fwd))
			for k, f := range p.Fwd {
				fwd[k] = f.String()
			}
			lines = append(lines, fmt.Sprintf("process %d is %v with request %v, holds %v of %v, transfers [%s]", i+1, p.Ust, mkReq{Ts: p.MyTs, ID: i}, p.Granted, p.QSet, strings.Join(fwd, " ")))
		}
	}
	if k := v.InTransit(); k > 0 {
		lines = append(lines, inTransit(k))
	}
	return lines
}

// caoSinghal returns cao-singhal (docs/algorithms/cao-singhal.md), which
// declares its broken twin.
func caoSinghal() Spec {
	s := Spec{
		Name:    "cao-singhal",
		Section: "2.8",
		Summary: "Cao–Singhal delay-optimal quorum mutual exclusion: the holder hands each arbiter's permission on directly (TRANSFER)",
		Params: []Param{
			{Flag: "n", Default: "3", Usage: "number of processes", Max: maxN},
			quorumsParam, requestsParam, requestersParam,
		},
		Claims: []string{properties.MutualExclusion, "one-permission", properties.DeadlockFreedom, properties.Progress},
		Broken: &Twin{
			Summary: "Cao–Singhal with a bug",
			Bug:     "the arbiter takes every plain RELEASE as its holder's: when the process a permission was forwarded to releases before the forwarder's RELEASE(k) arrives, the arbiter grants the permission a second time",
		},
	}
	s.Build = func(p *Params) (explorer.Model, error) {
		n := p.IntFlag("n", 1, maxN)
		qs := p.quorums(n)
		users := p.mutexUsers(n)
		return mutexModel(p, users, csUser, channel.FIFO, 8, eachProcess(func(i int) csNode {
			return csNode{Ust: mutex.Idle, Quorum: qs.Quorums[i], QSet: setOf(qs.Quorums[i]), Requests: users.Requests(i), Broken: p.Broken()}
		}), automaton.Config[csNode, csMsg]{
			MessageTypes: []string{"REQUEST", "LOCKED", "RELEASE", "FAILED", "INQUIRE", "RELINQUISH", "TRANSFER"},
			Mutex:        mutex.Metrics(users.R, csUser, csServes),
			Links:        automaton.Complete(n, true),
			Invariants: []automaton.Invariant[csNode, csMsg]{
				mutex.Exclusion[csNode, csMsg](csUser),
				{Name: "one-permission", Doc: "every arbiter's permission exists exactly once: at the arbiter, held, or in transit as a LOCKED (forwarded ones included), a plain RELEASE or a RELINQUISH", Holds: csOnePermission},
			},
			Assertions: []automaton.Assertion{{Name: "locked-wanted", Doc: "a LOCKED, direct or forwarded, reaches a trying process that lacks it"}},
			ValidEnd:   mutex.ValidEnd[csNode, csMsg](users, csUser, func(p *csNode) bool { return p.LockedFor.none() && len(p.Reqs) == 0 }),
			Explain:    csExplain,
		})
	}
	return s
}

// csServes attributes a message to the entry it serves (the metrics
// messages-per-entry and sync-delay): a TRANSFER serves the request it
// forwards the permission to, a LOCKED, FAILED or INQUIRE its receiver, a
// REQUEST, RELEASE or RELINQUISH its sender.
func csServes(from, to int, m csMsg) int {
	switch m.Kind {
	case csTransfer:
		return m.Next.ID
	case csLocked, csFailed, csInquire:
		return to
	}
	return from
}
