package specs

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/mutex"
	"github.com/vacheck/vacheck/properties"
)

// skKind is the type of a Suzuki-Kasami message. The zero value is invalid.
type skKind uint8

const (
	skRequest skKind = 1 + iota
	skToken
)

// skCounts is an array of small counters indexed by process (RN, and the
// token's LN), kept as a string of bytes so that a TOKEN message stays
// comparable. Counters are at most R.
type skCounts string

func (c skCounts) at(j int) int { return int(c[j]) }

// set returns c with entry j set to v.
func (c skCounts) set(j, v int) skCounts {
	b := []byte(c)
	b[j] = byte(v)
	return skCounts(b)
}

func (c skCounts) String() string {
	parts := make([]string, len(c))
	for j := range parts {
		parts[j] = strconv.Itoa(c.at(j))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// skQueue is a FIFO of process numbers (the token's queue), a string of
// bytes for the same reason; shown 1-based.
type skQueue string

func (q skQueue) has(j int) bool { return strings.IndexByte(string(q), byte(j)) >= 0 }

func (q skQueue) String() string {
	ps := make([]int, len(q))
	for k := range ps {
		ps[k] = int(q[k])
	}
	return "[" + joinOneBased(ps, ",") + "]"
}

// skMsg is REQUEST(j, sn) or TOKEN(LN, queue).
type skMsg struct {
	Kind skKind
	J    int // REQUEST: the requester (0-based)
	SN   int // REQUEST: its request number
	LN   skCounts
	Q    skQueue
}

func (m skMsg) String() string {
	if m.Kind == skRequest {
		return fmt.Sprintf("REQUEST(%d,%d)", m.J+1, m.SN)
	}
	return fmt.Sprintf("TOKEN(%v,%v)", m.LN, m.Q)
}

// skNode is process P_i of Suzuki and Kasami's broadcast algorithm
// (docs/algorithms/suzuki-kasami.md; Suzuki & Kasami, "A distributed mutual
// exclusion algorithm", ACM TOCS 3(4), 1985): the user part of 2.0, RN (the
// highest request number known of every process) and hasToken; while it holds
// the token, also the token's LN (the last served request of every process) and
// queue. A process that does not hold the token keeps LN and queue empty, so
// that states stay canonical.
//
// It follows both Choices of 2.10: a process holding an idle token enters
// without a message and without incrementing RN[i], and exit_i appends the
// waiting processes in the order i+1, i+2, ... mod N.
type skNode struct {
	Ust      mutex.State
	Done     int
	RN       skCounts `vacheck:"RN"`
	HasToken bool
	LN       skCounts `vacheck:"LN"`
	Q        skQueue  `vacheck:"queue"`
	Requests int      `vacheck:"-"` // R for a requester, 0 otherwise
	// Broken forgets LN[i] := RN[i] at exit: the bug of
	// suzuki-kasami-broken.
	Broken bool `vacheck:"-"`
}

type skView = automaton.View[skNode, skMsg]

// skUser reads the user part of a process.
func skUser(p *skNode) (mutex.State, int) { return p.Ust, p.Done }

// outstanding reports whether, by what this holder knows, j has a request
// the token has not served: RN[j] = LN[j] + 1 (RN[j] ≤ LN[j] is outdated).
func (p *skNode) outstanding(j int) bool { return p.RN.at(j) == p.LN.at(j)+1 }

// Steps: request_i (an output when it broadcasts, internal when the process
// holds the token), enter_i (trying and holding the token), exit_i.
func (p *skNode) Steps(_ *skView, out []automaton.Step) []automaton.Step {
	switch {
	case p.Ust.CanRequest(p.Done, p.Requests) && p.HasToken:
		out = append(out, automaton.Do(mutex.StepRequest))
	case p.Ust.CanRequest(p.Done, p.Requests):
		out = append(out, automaton.Broadcast(mutex.StepRequest))
	case p.Ust == mutex.Trying && p.HasToken:
		out = append(out, automaton.Do(mutex.StepEnter))
	case p.Ust == mutex.Critical:
		out = append(out, automaton.Step{Name: mutex.StepExit, Kind: automaton.Output})
	}
	return out
}

// Do performs request_i, enter_i and exit_i.
func (p *skNode) Do(s automaton.Step, fx *automaton.Effects[skMsg]) {
	i := fx.Self()
	switch s.Name {
	case mutex.StepRequest:
		p.Ust.Request()
		if p.HasToken {
			return // enter is enabled at once; no message
		}
		p.RN = p.RN.set(i, p.RN.at(i)+1)
		for j := 0; j < fx.N(); j++ {
			if j != i {
				fx.Send(j, skMsg{Kind: skRequest, J: i, SN: p.RN.at(i)})
			}
		}
	case mutex.StepEnter:
		p.Ust.Enter()
	case mutex.StepExit:
		p.Ust.Exit(&p.Done)
		if !p.Broken {
			p.LN = p.LN.set(i, p.RN.at(i))
		}
		for k := 1; k < fx.N(); k++ {
			if j := (i + k) % fx.N(); !p.Q.has(j) && p.outstanding(j) {
				p.Q += skQueue([]byte{byte(j)})
			}
		}
		// Only the broken twin's stale LN puts a process in its own queue
		// (its served request still looks outstanding to the others); it
		// has no channel to itself, and keeps the token rather than send
		// it there.
		for len(p.Q) > 0 && int(p.Q[0]) == i {
			p.Q = p.Q[1:]
		}
		if len(p.Q) > 0 {
			j := int(p.Q[0])
			p.Q = p.Q[1:]
			p.sendToken(j, fx)
		}
	default:
		panic(unknownStep("suzuki-kasami", s))
	}
}

// sendToken performs send TOKEN(LN, queue) to j; hasToken := false.
func (p *skNode) sendToken(j int, fx *automaton.Effects[skMsg]) {
	fx.Send(j, skMsg{Kind: skToken, LN: p.LN, Q: p.Q})
	p.HasToken, p.LN, p.Q = false, "", ""
}

// Receive performs receive REQUEST(j, sn) (RN[j] := max(RN[j], sn); an idle
// holder hands the token to j if the request is outstanding) and receive
// TOKEN(LN, queue) (hasToken := true; the receiver is trying, which the
// invariant token-to-trying checks already when the token is sent).
func (p *skNode) Receive(_ int, m skMsg, fx *automaton.Effects[skMsg]) {
	switch m.Kind {
	case skRequest:
		p.RN = p.RN.set(m.J, max(p.RN.at(m.J), m.SN))
		if p.HasToken && p.Ust == mutex.Idle && p.outstanding(m.J) {
			p.sendToken(m.J, fx)
		}
	case skToken:
		p.HasToken, p.LN, p.Q = true, m.LN, m.Q
	}
}

// skTokens counts the tokens: holders and TOKEN messages in transit.
func skTokens(v *skView) int {
	k := properties.Count(v.N(), func(i int) bool { return v.Proc(i).HasToken })
	for i := 0; i < v.N(); i++ {
		for j := 0; j < v.N(); j++ {
			for _, m := range v.Chan(i, j) {
				if m.Kind == skToken {
					k++
				}
			}
		}
	}
	return k
}

// skTokenTo reports whether a TOKEN is in transit to j.
func skTokenTo(v *skView, j int) bool {
	for i := 0; i < v.N(); i++ {
		for _, m := range v.Chan(i, j) {
			if m.Kind == skToken {
				return true
			}
		}
	}
	return false
}

// skTokenToTrying is "the token is only ever sent to a trying process"
// (2.10, an assert on receipt) as an invariant: every TOKEN in transit is
// addressed to a trying process. A trying process stays trying until it
// holds the token, so this is the assertion, checked from the send on.
func skTokenToTrying(v *skView) bool {
	for j := 0; j < v.N(); j++ {
		if v.Proc(j).Ust != mutex.Trying && skTokenTo(v, j) {
			return false
		}
	}
	return true
}

// skExplain says who holds the token and what every trying process waits
// for.
func skExplain(v *skView) []string {
	var lines []string
	for i := 0; i < v.N(); i++ {
		p := v.Proc(i)
		var s string
		switch {
		case !v.Up(i):
			s = "crashed"
		case p.HasToken:
			s = fmt.Sprintf("holds the token (LN %v, queue %v)", p.LN, p.Q)
		case skTokenTo(v, i):
			s = "a TOKEN is on its way to it"
		case p.Ust == mutex.Trying:
			s = "waits for the token"
		}
		if s != "" {
			lines = append(lines, fmt.Sprintf("process %d is %v and %s", i+1, p.Ust, s))
		}
	}
	if n := v.InTransit(); n > 0 {
		lines = append(lines, inTransit(n))
	}
	return lines
}

// skTokenToTryingName is the spec-specific property of 2.10.
const skTokenToTryingName = "token-to-trying"

// suzukiKasami returns suzuki-kasami (docs/algorithms/suzuki-kasami.md), which
// declares its broken twin.
func suzukiKasami() Spec {
	s := Spec{
		Name:    "suzuki-kasami",
		Section: "2.10",
		Summary: "Suzuki-Kasami: a requester broadcasts REQUEST(i, sn); the token carries LN and a queue of waiting processes",
		Params: []Param{
			{Flag: "n", Default: "3", Usage: "number of processes; the token starts at process 1", Max: maxN},
			requestsParam,
			requestersParam,
			{Flag: "crashes", Default: "0", Usage: "crash-stop faults the environment may inject, 0 to N-1 (the holder and requesters must not crash: progress fails)"},
		},
		Claims: []string{properties.MutualExclusion, properties.TokenUniqueness, skTokenToTryingName,
			properties.DeadlockFreedom, properties.Progress, properties.StarvationFreedom},
		Broken: &Twin{
			Summary: "Suzuki-Kasami with a bug",
			Bug:     "exit_i forgets LN[i] := RN[i], so a served request still looks outstanding and the token is later sent to an idle process",
		},
	}
	s.Build = func(p *Params) (explorer.Model, error) {
		n := p.IntFlag("n", 1, maxN)
		users := p.mutexUsers(n)
		crashes := p.IntFlag("crashes", 0, n-1)
		// A channel i→j holds at most R REQUESTs of i and the token.
		return mutexModel(p, users, skUser, channel.Unordered, users.R+1, func(n int) []skNode {
			procs := eachProcess(func(i int) skNode {
				return skNode{Ust: mutex.Idle, RN: skCounts(make([]byte, n)), Requests: users.Requests(i), Broken: p.Broken()}
			})(n)
			procs[0].HasToken, procs[0].LN = true, skCounts(make([]byte, n))
			return procs
		}, automaton.Config[skNode, skMsg]{
			MessageTypes: []string{"REQUEST", "TOKEN"},
			Mutex:        mutex.Metrics(users.R, skUser, skServes),
			Crashes:      crashes,
			Invariants: []automaton.Invariant[skNode, skMsg]{
				mutex.Exclusion[skNode, skMsg](skUser),
				{Name: properties.TokenUniqueness, Doc: "TOKEN-1: exactly one token, held or in transit", Holds: func(v *skView) bool { return skTokens(v) == 1 }},
				{Name: skTokenToTryingName, Doc: "the token is only ever sent to a trying process", Holds: skTokenToTrying},
			},
			// 0.8, token-based: all served, channels empty, and (with
			// TOKEN-1) the one token held by a process, its queue empty.
			ValidEnd: mutex.ValidEnd[skNode, skMsg](users, skUser, func(p *skNode) bool { return len(p.Q) == 0 }),
			Explain:  skExplain,
		})
	}
	return s
}

// skServes attributes a message to the entry it serves (the metrics
// messages-per-entry and sync-delay): the TOKEN serves its receiver, a
// REQUEST its sender. singhal uses it too.
func skServes(from, to int, m skMsg) int {
	if m.Kind == skToken {
		return to
	}
	return from
}
