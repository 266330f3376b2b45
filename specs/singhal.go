package specs

import (
	"fmt"
	"strings"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/mutex"
	"github.com/vacheck/vacheck/properties"
)

// sgBelief is a believed state in Singhal's SV and TSV: R requesting, E
// executing, H holding the idle token, N none.
type sgBelief = byte

const (
	sgR sgBelief = 'R'
	sgE sgBelief = 'E'
	sgH sgBelief = 'H'
	sgN sgBelief = 'N'
)

// sgBeliefs is an array of beliefs indexed by process (SV, TSV), a string
// so that a TOKEN stays comparable.
type sgBeliefs string

func (b sgBeliefs) set(j int, v sgBelief) sgBeliefs {
	s := []byte(b)
	s[j] = v
	return sgBeliefs(s)
}

func (b sgBeliefs) String() string {
	return "[" + strings.Join(strings.Split(string(b), ""), ",") + "]"
}

// sgMsg is REQUEST(j, sn) or TOKEN(TSV, TSN).
type sgMsg struct {
	Kind skKind // skRequest or skToken
	J    int    // REQUEST: the requester (0-based)
	SN   int    // REQUEST: its request number
	TSV  sgBeliefs
	TSN  skCounts
}

func (m sgMsg) String() string {
	if m.Kind == skRequest {
		return fmt.Sprintf("REQUEST(%d,%d)", m.J+1, m.SN)
	}
	return fmt.Sprintf("TOKEN(%v,%v)", m.TSV, m.TSN)
}

// sgNode is process P_i of Singhal's heuristic token algorithm
// (docs/algorithms/singhal.md; Singhal, "A heuristically-aided algorithm for
// mutual exclusion in distributed systems", IEEE Trans. Computers 38(5), 1989):
// the user part of 2.0, SV and SN (what i believes of every process and its
// request numbers) and, while it holds the token, the token's TSV and TSN
// (empty otherwise, so that states stay canonical).
//
// It follows the section's staircase initialisation and, with --choice
// round-robin (the default), its Choice of the next holder: the first
// requester from i+1 on. --choice any lets exit_i hand the token to any
// believed requester, the "arbitrary choice" 2.12 warns about. With bounded
// R the state graph is acyclic, so GA2' cannot fail by overtaking (the
// others run out of requests); --choice any only adds interleavings.
//
// These are the published rules: the section agrees line by line with
// Singhal and Shivaratri's presentation (1994) and with the independent
// implementations we found, and so does this model. As published, the
// algorithm is deadlock-free with one request per process (N ≤ 4 checked)
// but deadlocks once processes request again: N=3 with R=2 each (24 steps,
// TestSinghalTwoRequests), N=3 R=3, N=4 R=2. The story: 2 and 3 request, the
// idle holder 1 passes the token to 3 while 3's REQUEST to 2 and 2's to 1
// are still in transit; at exit_3 the merge overwrites 3's staircase SV[2]=R
// with the token's SV[2]=N (equal numbers, 0: the token's N only means "no
// request of 2 seen"), so neither 2 nor 3 marks the other R any more. 3
// passes the token to 1, which asked for it, and asks again, of 1 only; 1
// receives that REQUEST after it has used the token and handed it to 2
// (whose REQUEST came late), and in state N only records it. 2 learned
// SN[3]=1 from the token, so 3's first REQUEST is outdated when it arrives,
// and 2 stays the idle holder while 3 waits for ever. Two premises of the
// algorithm fail: exit_i does not keep the staircase (of any two processes
// one sends its requests to the other), and a REQUEST sent to a believed
// requester may arrive after it has passed the token on. GA1 and TOKEN-1
// hold. The claims stay the paper's (as for maekawa-basic): they hold with
// --requests 1, the default, and the checker refutes DLF, GA2 and GA2' from
// --requests 2 on.
type sgNode struct {
	Ust      mutex.State
	Done     int
	SV       sgBeliefs `vacheck:"SV"`
	SN       skCounts  `vacheck:"SN"`
	HasToken bool
	TSV      sgBeliefs `vacheck:"TSV"`
	TSN      skCounts  `vacheck:"TSN"`
	Requests int       `vacheck:"-"` // R for a requester, 0 otherwise
	Any      bool      `vacheck:"-"` // --choice any
	// Broken makes a requesting process that learns of another requester
	// j mark it R without sending j its own request: the bug of
	// singhal-broken.
	Broken bool `vacheck:"-"`
}

type sgView = automaton.View[sgNode, sgMsg]

func sgUser(p *sgNode) (mutex.State, int) { return p.Ust, p.Done }

// Steps: request_i, enter_i (trying with SV[i] = E: the token is here),
// exit_i; with --choice any, one exit per believed requester the token may
// go to (exit(j), j = 0 when it is kept).
func (p *sgNode) Steps(v *sgView, out []automaton.Step) []automaton.Step {
	i := v.Self()
	switch {
	case p.Ust.CanRequest(p.Done, p.Requests):
		out = append(out, automaton.Broadcast(mutex.StepRequest))
	case p.Ust == mutex.Trying && p.SV[i] == sgE:
		out = append(out, automaton.Do(mutex.StepEnter))
	case p.Ust == mutex.Critical && p.Any:
		next, k0 := p.merged(i), len(out)
		for k := 1; k < v.N(); k++ {
			if j := (i + k) % v.N(); next[j] == sgR {
				out = append(out, automaton.Step{Name: mutex.StepExit, Kind: automaton.Output, Arg: j + 1, HasArg: true})
			}
		}
		if len(out) == k0 {
			out = append(out, automaton.Step{Name: mutex.StepExit, Kind: automaton.Output})
		}
	case p.Ust == mutex.Critical:
		out = append(out, automaton.Step{Name: mutex.StepExit, Kind: automaton.Output})
	}
	return out
}

// merged returns SV as exit_i will leave it, for Steps.
func (p *sgNode) merged(i int) sgBeliefs {
	q := *p
	q.exchange(i)
	return q.SV
}

// exchange is the first part of exit_i: SV[i] := N; TSV[i] := N, then for
// every j the newer of (SV[j], SN[j]) and (TSV[j], TSN[j]) wins, in both.
func (p *sgNode) exchange(i int) {
	p.SV, p.TSV = p.SV.set(i, sgN), p.TSV.set(i, sgN)
	for j := range len(p.SV) {
		if p.SN.at(j) > p.TSN.at(j) {
			p.TSV, p.TSN = p.TSV.set(j, p.SV[j]), p.TSN.set(j, p.SN.at(j))
		} else {
			p.SV, p.SN = p.SV.set(j, p.TSV[j]), p.SN.set(j, p.TSN.at(j))
		}
	}
}

// Do performs request_i, enter_i and exit_i.
func (p *sgNode) Do(s automaton.Step, fx *automaton.Effects[sgMsg]) {
	i := fx.Self()
	switch s.Name {
	case mutex.StepRequest:
		p.Ust.Request()
		if p.SV[i] == sgH {
			p.SV = p.SV.set(i, sgE) // enter at once, no message
			return
		}
		p.SV, p.SN = p.SV.set(i, sgR), p.SN.set(i, p.SN.at(i)+1)
		for j := 0; j < fx.N(); j++ {
			if j != i && p.SV[j] == sgR {
				fx.Send(j, sgMsg{Kind: skRequest, J: i, SN: p.SN.at(i)})
			}
		}
	case mutex.StepEnter:
		p.Ust.Enter()
	case mutex.StepExit:
		p.Ust.Exit(&p.Done)
		p.exchange(i)
		if !strings.ContainsRune(string(p.SV), rune(sgR)) {
			p.SV = p.SV.set(i, sgH) // ∀j: SV[j] = N
			return
		}
		j := s.Arg - 1
		if !p.Any {
			for k := 1; k < fx.N(); k++ { // round robin from i+1
				if j = (i + k) % fx.N(); p.SV[j] == sgR {
					break
				}
			}
		}
		p.sendToken(j, fx)
	default:
		panic(unknownStep("singhal", s))
	}
}

// sendToken sends TOKEN(TSV, TSN) to j.
func (p *sgNode) sendToken(j int, fx *automaton.Effects[sgMsg]) {
	fx.Send(j, sgMsg{Kind: skToken, TSV: p.TSV, TSN: p.TSN})
	p.HasToken, p.TSV, p.TSN = false, "", ""
}

// Receive performs receive REQUEST(j, sn), by the case of SV[i], and
// receive TOKEN (SV[i] := E: the trying receiver may enter).
func (p *sgNode) Receive(_ int, m sgMsg, fx *automaton.Effects[sgMsg]) {
	i := fx.Self()
	if m.Kind == skToken {
		p.HasToken, p.TSV, p.TSN = true, m.TSV, m.TSN
		p.SV = p.SV.set(i, sgE)
		return
	}
	j := m.J
	if m.SN <= p.SN.at(j) {
		return // outdated
	}
	p.SN = p.SN.set(j, m.SN)
	switch p.SV[i] {
	case sgN, sgE:
		p.SV = p.SV.set(j, sgR)
	case sgR:
		if p.SV[j] != sgR {
			p.SV = p.SV.set(j, sgR)
			if !p.Broken {
				fx.Send(j, sgMsg{Kind: skRequest, J: i, SN: p.SN.at(i)})
			}
		}
	case sgH:
		p.SV = p.SV.set(j, sgR)
		p.TSV, p.TSN = p.TSV.set(j, sgR), p.TSN.set(j, m.SN)
		p.SV = p.SV.set(i, sgN)
		p.sendToken(j, fx)
	}
}

// sgTokens counts the tokens: holders and TOKEN messages in transit.
func sgTokens(v *sgView) int {
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

// sgExplain says who holds the token and what each process believes.
func sgExplain(v *sgView) []string {
	var lines []string
	for i := 0; i < v.N(); i++ {
		p := v.Proc(i)
		s := fmt.Sprintf("process %d is %v, SV %v", i+1, p.Ust, p.SV)
		if p.HasToken {
			s += fmt.Sprintf(", holds the token (TSV %v, TSN %v)", p.TSV, p.TSN)
		}
		lines = append(lines, s)
	}
	if n := v.InTransit(); n > 0 {
		lines = append(lines, inTransit(n))
	}
	return lines
}

// sgInitial is the initial state of n processes: process 1 holds the
// token, and the beliefs form the staircase (process i believes every
// process below it requesting, R, and the others not, N).
func sgInitial(n int, users mutex.Users, any, broken bool) []sgNode {
	procs := make([]sgNode, n)
	for i := range procs {
		sv := []byte(strings.Repeat(string(sgN), n))
		for j := 0; j < i; j++ {
			sv[j] = sgR // the staircase: R below i, N from i on
		}
		procs[i] = sgNode{Ust: mutex.Idle, SV: sgBeliefs(sv), SN: skCounts(make([]byte, n)),
			Requests: users.Requests(i), Any: any, Broken: broken}
	}
	procs[0].SV = procs[0].SV.set(0, sgH)
	procs[0].HasToken = true
	procs[0].TSV, procs[0].TSN = sgBeliefs(strings.Repeat(string(sgN), n)), skCounts(make([]byte, n))
	return procs
}

// singhal returns singhal (docs/algorithms/singhal.md), which declares its
// broken twin.
func singhal() Spec {
	s := Spec{
		Name:    "singhal",
		Section: "2.12",
		Summary: "Singhal's heuristic token algorithm: REQUESTs go only to the processes believed to be requesting (staircase); as published it deadlocks with --requests 2 at N=3",
		Params: []Param{
			{Flag: "n", Default: "3", Usage: "number of processes; the token starts at process 1", Max: maxN},
			requestsParam,
			requestersParam,
			{Flag: "choice", Default: "round-robin", Usage: "next holder at exit: round-robin (the first believed requester from i+1 on) or any (every believed requester)"},
		},
		Claims: []string{properties.MutualExclusion, properties.TokenUniqueness, properties.DeadlockFreedom,
			properties.Progress, properties.StarvationFreedom},
		Broken: &Twin{
			Summary: "Singhal's algorithm with a bug",
			Bug:     "a requesting process that learns of another requester j (case R of receive REQUEST) marks j as requesting but does not send j its own request, so a request can miss the token holder for good",
		},
	}
	s.Build = func(p *Params) (explorer.Model, error) {
		users := p.mutexUsers(p.IntFlag("n", 1, maxN))
		choice := p.oneOf("choice", "allowed values are round-robin and any", "round-robin", "any")
		// A channel i→j holds at most R REQUESTs of i, R forwarded
		// REQUESTs and the token.
		return mutexModel(p, users, sgUser, channel.FIFO, 2*users.R+1, func(n int) []sgNode {
			return sgInitial(n, users, choice == "any", p.Broken())
		}, automaton.Config[sgNode, sgMsg]{
			MessageTypes: []string{"REQUEST", "TOKEN"},
			Mutex:        mutex.Metrics(users.R, sgUser, sgServes),
			Invariants: []automaton.Invariant[sgNode, sgMsg]{
				mutex.Exclusion[sgNode, sgMsg](sgUser),
				{Name: properties.TokenUniqueness, Doc: "TOKEN-1: exactly one token, held or in transit", Holds: func(v *sgView) bool { return sgTokens(v) == 1 }},
			},
			ValidEnd: mutex.ValidEnd[sgNode, sgMsg](users, sgUser, nil),
			Explain:  sgExplain,
		})
	}
	return s
}

// sgServes attributes a message to the entry it serves (the metrics
// messages-per-entry and sync-delay): the TOKEN serves its receiver, a
// REQUEST the request it carries (its sender's).
func sgServes(_, to int, m sgMsg) int {
	if m.Kind == skToken {
		return to
	}
	return m.J
}
