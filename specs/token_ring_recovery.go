package specs

import (
	"fmt"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// trMsg is a message of the token ring with recovery: TOKEN, or ELECT(v).
type trMsg struct {
	Elect bool
	V     int // ELECT(v): the candidate; 0 for TOKEN
}

func (m trMsg) String() string {
	if m.Elect {
		return fmt.Sprintf("ELECT(%d)", m.V)
	}
	return "TOKEN"
}

// trNode is a process of the token ring with a token-loss timer and
// Chang-Roberts regeneration (docs/algorithms/token-ring-recovery.md): a token
// circulates on a unidirectional ring; a process whose timer (TVT) expires
// suspects the token lost and starts a Chang-Roberts election, whose winner
// creates a new token. The state variables are the section's: u, mode (normal
// or election; Election below) and hasToken, initially held by process 1.
//
// Token loss (fault `lose`, budget --losses, 0.4) is a step of the sender:
// lose_i is pass_i whose TOKEN the channel loses at once. The framework's
// Fault kind is reserved for crashes and effects cannot take a message out
// of a channel, so the loss cannot remove a TOKEN later; it does not need
// to, because the two give the same reachable states. A TOKEN in a channel
// enables nothing but its own delivery, and disables only the PERFECT
// timeouts (which a loss enables, never disables) and the deliveries
// behind it on its link. So a run that loses a TOKEN some steps after
// pass_i is matched, state for state after the loss, by the run that takes
// lose_i instead of pass_i and then the same steps; before the loss the
// states are those of a run without it. lose_i is enabled exactly when
// pass_i is (and budget remains), so it changes no task's enabledness for
// fairness, and it cannot lie on a cycle (it spends the budget). The budget
// is global: Lost counts the losses on i's link, and their sum stays at
// most --losses (like bully's premature timeouts).
//
// Timeouts are internal steps whose precondition is a global oracle read
// through the View (0.4): with --timeouts perfect, TIMEOUT_OK holds when no
// process has the token and no TOKEN is in any channel; with unrestricted,
// a timeout also fires while the token exists, spending the global budget
// --premature (Early counts this process's). Two TOKENs that meet at a
// process merge (hasToken is a boolean); by then at-most-one-token has
// failed anyway.
type trNode struct {
	U        int
	Election bool // mode: false normal, true election
	HasToken bool
	Lost     int // fault bookkeeping: TOKENs lost on the link i→i+1
	Early    int // fault bookkeeping: premature timeouts of i

	Losses    int  `vacheck:"-"` // --losses
	Perfect   bool `vacheck:"-"` // --timeouts perfect
	Premature int  `vacheck:"-"` // --premature
	// Sticky makes a process stay in election mode when the token reaches
	// it: the bug of token-ring-recovery-broken.
	Sticky bool `vacheck:"-"`
	// Obj is --objective: which of two IDs wins the regeneration race.
	Obj objective `vacheck:"-"`
}

type trView = automaton.View[trNode, trMsg]

// trTokens counts the tokens: held, and TOKENs in channels.
func trTokens(v *trView) int {
	k := properties.Count(v.N(), func(i int) bool { return v.Proc(i).HasToken })
	for i := 0; i < v.N(); i++ {
		for _, m := range v.Chan(i, (i+1)%v.N()) {
			if !m.Elect {
				k++
			}
		}
	}
	return k
}

// The steps of a token-ring process: pass the token, pass it into a
// channel that loses it, and the token-loss timer's expiry.
const (
	trPass      = "pass"
	trLose      = "lose"
	trTvtExpire = "tvtExpire"
)

// Steps: pass_i and lose_i when holding the token, tvtExpire_i in normal
// mode when TIMEOUT_OK.
func (p *trNode) Steps(v *trView, out []automaton.Step) []automaton.Step {
	if p.HasToken {
		out = append(out, automaton.Out(trPass, (v.Self()+1)%v.N()))
		lost := 0
		for j := 0; j < v.N(); j++ {
			lost += v.Proc(j).Lost
		}
		if lost < p.Losses {
			out = append(out, automaton.Do(trLose))
		}
	}
	if !p.Election {
		s := automaton.Do(trTvtExpire)
		if trTokens(v) == 0 {
			out = append(out, s)
		} else if !p.Perfect {
			early := 0
			for j := 0; j < v.N(); j++ {
				early += v.Proc(j).Early
			}
			if early < p.Premature {
				s.Arg = 1 // premature: spends the budget
				out = append(out, s)
			}
		}
	}
	return out
}

// Do performs pass_i, lose_i and tvtExpire_i.
func (p *trNode) Do(s automaton.Step, fx *automaton.Effects[trMsg]) {
	next := (fx.Self() + 1) % fx.N()
	switch s.Name {
	case trPass: // the TVT restarts (implicit)
		p.HasToken = false
		fx.Send(next, trMsg{})
	case trLose: // pass, and the channel loses the TOKEN
		p.HasToken = false
		p.Lost++
	case trTvtExpire:
		p.Early += s.Arg
		p.Election = true
		fx.Send(next, trMsg{Elect: true, V: p.U})
	default:
		panic(unknownStep("token-ring-recovery", s))
	}
}

// Receive performs receive TOKEN and receive ELECT(v) of 1.7.
func (p *trNode) Receive(_ int, m trMsg, fx *automaton.Effects[trMsg]) {
	next := (fx.Self() + 1) % fx.N()
	if !m.Elect {
		p.HasToken = true
		if !p.Sticky {
			p.Election = false
		}
		return
	}
	v := m.V
	switch {
	case !p.Election:
		p.Election = true
		fx.Send(next, trMsg{Elect: true, V: p.Obj.best(p.U, v)}) // own ID enters the race if better
	case p.Obj.beats(v, p.U): // Chang-Roberts rule
		fx.Send(next, m)
	case v == p.U: // the winner creates the new token
		p.HasToken, p.Election = true, false
	}
}

// trRecovered: exactly one token, every process normal, no ELECT in
// transit.
func trRecovered(v *trView) bool {
	for i := 0; i < v.N(); i++ {
		if v.Proc(i).Election {
			return false
		}
		for _, m := range v.Chan(i, (i+1)%v.N()) {
			if m.Elect {
				return false
			}
		}
	}
	return trTokens(v) == 1
}

func trExplain(v *trView) []string {
	var out []string
	for i := 0; i < v.N(); i++ {
		p := v.Proc(i)
		s := fmt.Sprintf("p%d (ID %d): normal", i+1, p.U)
		if p.Election {
			s = fmt.Sprintf("p%d (ID %d): election", i+1, p.U)
		}
		if p.HasToken {
			s += ", holds the token"
		}
		out = append(out, s)
	}
	return append(out, fmt.Sprintf("%d token(s) in all", trTokens(v)))
}

// tokenRingRecovery returns token-ring-recovery
// (docs/algorithms/token-ring-recovery.md), which declares its broken twin.
func tokenRingRecovery() Spec {
	s := Spec{
		Name:    "token-ring-recovery",
		Section: "1.7",
		Summary: "a token ring whose token-loss timer starts a Chang-Roberts election; the winner creates a new token",
		Params: []Param{
			{Flag: "n", Default: "3", Usage: "number of processes", Max: maxN},
			idsParam,
			{Flag: "losses", Default: "1", Usage: "budget of token losses (fault)"},
			{Flag: "timeouts", Default: "perfect", Usage: "perfect (the timer expires only when no token exists) or unrestricted (also while it exists, with a budget of premature timeouts)"},
			{Flag: "premature", Default: "1", Usage: "budget of premature timeouts, with --timeouts unrestricted"},
			objectiveParam,
		},
		Claims: []string{properties.TokenUniqueness, properties.DeadlockFreedom, "recovery"},
		Broken: &Twin{
			Summary: "token ring with recovery, with a bug",
			Bug:     "receiving the token does not end a process's election mode, so after a recovery some processes stay in election for ever (their timer never runs again)",
		},
	}
	s.Build = func(p *Params) (explorer.Model, error) {
		broken := p.Broken()
		n, err := p.Int("n", 1, maxN)
		if err != nil {
			return nil, err
		}
		idsets, err := parseIDs(p, n)
		if err != nil {
			return nil, err
		}
		losses, err := p.Int("losses", 0, 8)
		if err != nil {
			return nil, err
		}
		mode := p.String("timeouts")
		if mode != "perfect" && mode != "unrestricted" {
			return nil, Usagef("timeouts", mode, "allowed: perfect or unrestricted")
		}
		p.Set("timeouts", mode)
		premature := 0
		if mode == "unrestricted" {
			if premature, err = p.Int("premature", 0, 8); err != nil {
				return nil, err
			}
		} else if p.Given("premature") {
			return nil, Usagef("premature", p.String("premature"), "applies only with --timeouts unrestricted")
		}
		obj, err := parseObjective(p)
		if err != nil {
			return nil, err
		}
		disc, capacity, err := p.Channels(channel.FIFO, n+2)
		if err != nil {
			return nil, err
		}
		initial := initialStates(idsets, noFlags(n), func(i, id int, _ bool) trNode {
			return trNode{U: id, HasToken: i == 0, Losses: losses, Perfect: mode == "perfect", Premature: premature, Sticky: broken, Obj: obj}
		}, func(p *trNode) (int, bool) { return p.U, false })
		return automaton.New(automaton.Config[trNode, trMsg]{
			StepNames:    append([]string{trPass, trTvtExpire}, when(losses > 0, trLose)...),
			MessageTypes: []string{"TOKEN", "ELECT"},

			InitialSeq:    initial.each,
			InitialSample: initial.sample,
			InitialAt:     initial.indexed(),
			InitialParams: initial.params,
			Links:         automaton.Ring(n),
			Channels:      disc,
			Capacity:      capacity,
			Invariants: []automaton.Invariant[trNode, trMsg]{
				{Name: properties.TokenUniqueness, Doc: "TOKEN-1a: at most one token (held, or TOKEN in a channel)", Holds: func(v *trView) bool {
					return trTokens(v) <= 1
				}},
			},
			// The token never stops (0.8): any terminal state is a deadlock.
			ValidEnd: func(*trView) bool { return false },
			Liveness: []automaton.Liveness[trNode, trMsg]{{
				Name: "recovery",
				Doc:  "from every reachable state, every fair run reaches exactly one token, every process normal, no ELECT in transit",
				When: func(*trView, int) bool { return true },
				Goal: func(v *trView, _ int) bool { return trRecovered(v) },
			}},
			Explain: trExplain,
		})
	}
	return s
}
