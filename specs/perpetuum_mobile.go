package specs

import (
	"fmt"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/mutex"
	"github.com/vacheck/vacheck/properties"
)

// pmToken is the token message.
type pmToken struct{}

func (pmToken) String() string { return "TOKEN" }

// pmNode is a process of the perpetuum mobile
// (docs/algorithms/perpetuum-mobile.md): a token circulates on a ring for ever;
// the holder enters the critical section if it wants to, and passes the token
// on when it does not.
type pmNode struct {
	Ust      mutex.State
	Done     int
	HasToken bool
	R        int  `vacheck:"-"` // requests per process
	Anyone   bool `vacheck:"-"` // the bug of perpetuum-mobile-broken: pass to any process
}

type pmView = automaton.View[pmNode, pmToken]

// pmUser reads the user part of a process.
func pmUser(p *pmNode) (mutex.State, int) { return p.Ust, p.Done }

// pmPass is the step pass_i: hand the token on.
const pmPass = "pass"

// Steps: request, enter, exit, and pass (to the successor; in the broken
// twin to any other process).
func (p *pmNode) Steps(v *pmView, out []automaton.Step) []automaton.Step {
	switch {
	case p.Ust.CanRequest(p.Done, p.R):
		out = append(out, automaton.Do(mutex.StepRequest))
	case p.Ust == mutex.Trying && p.HasToken:
		out = append(out, automaton.Do(mutex.StepEnter))
	case p.Ust == mutex.Critical:
		out = append(out, automaton.Do(mutex.StepExit))
	}
	if p.HasToken && p.Ust == mutex.Idle {
		if !p.Anyone {
			return append(out, automaton.Out(pmPass, (v.Self()+1)%v.N()))
		}
		for j := 0; j < v.N(); j++ {
			if j != v.Self() {
				out = append(out, automaton.Out(pmPass, j))
			}
		}
	}
	return out
}

// Do applies the effect of a step.
func (p *pmNode) Do(s automaton.Step, fx *automaton.Effects[pmToken]) {
	switch s.Name {
	case mutex.StepRequest:
		p.Ust.Request()
	case mutex.StepEnter:
		p.Ust.Enter()
	case mutex.StepExit:
		p.Ust.Exit(&p.Done)
	case pmPass:
		p.HasToken = false
		fx.Send(s.To, pmToken{})
	default:
		panic(unknownStep("perpetuum-mobile", s))
	}
}

// Receive takes the token.
func (p *pmNode) Receive(_ int, _ pmToken, _ *automaton.Effects[pmToken]) { p.HasToken = true }

// pmServes: the token passed to a process serves its entry (the one it is
// trying for; for an idle process, the one it left last).
func pmServes(_, to int, _ pmToken) int { return to }

// pmExplain says where the token is and what each process that is not
// idle does: in a starvation lasso, that the token keeps passing a trying
// process by.
func pmExplain(v *pmView) []string {
	var lines []string
	for i := 0; i < v.N(); i++ {
		if v.Proc(i).HasToken {
			lines = append(lines, fmt.Sprintf("p%d holds the token", i+1))
		}
		for j := 0; j < v.N(); j++ {
			if i != j && len(v.Chan(i, j)) > 0 {
				lines = append(lines, fmt.Sprintf("the token is in transit from p%d to p%d", i+1, j+1))
			}
		}
	}
	for i := 0; i < v.N(); i++ {
		p := v.Proc(i)
		switch {
		case p.Ust == mutex.Critical:
			lines = append(lines, fmt.Sprintf("p%d is in the critical section (entry %d of %d)", i+1, p.Done+1, p.R))
		case p.Ust == mutex.Trying && !p.HasToken:
			lines = append(lines, fmt.Sprintf("p%d is trying (entry %d of %d) and waits for the token", i+1, p.Done+1, p.R))
		case p.Ust == mutex.Trying:
			lines = append(lines, fmt.Sprintf("p%d is trying (entry %d of %d) and holds the token: it may enter", i+1, p.Done+1, p.R))
		case p.Done == p.R:
			lines = append(lines, fmt.Sprintf("p%d has made all its entries (%d)", i+1, p.R))
		}
	}
	return lines
}

// perpetuumMobile returns perpetuum-mobile
// (docs/algorithms/perpetuum-mobile.md), which declares its broken twin.
func perpetuumMobile() Spec {
	s := Spec{
		Name:    "perpetuum-mobile",
		Section: "2.9",
		Summary: "perpetuum mobile: a token circulates on a ring for ever; its holder may enter the critical section",
		Params: []Param{
			{Flag: "n", Default: "3", Usage: "number of processes", Max: maxN},
			{Flag: "requests", Default: "1", Usage: "critical-section entries per process"},
		},
		Claims: []string{properties.MutualExclusion, properties.TokenUniqueness, properties.DeadlockFreedom, properties.StarvationFreedom},
		Broken: &Twin{
			Summary: "perpetuum mobile with a bug",
			Bug:     "the token may be handed to any process, not just the next on the ring, so a trying process can starve",
		},
	}
	s.Build = func(p *Params) (explorer.Model, error) {
		broken := p.Broken()
		n := p.IntFlag("n", 2, maxN)
		r := p.IntFlag("requests", 1, maxRequests)
		disc, capacity := p.ChannelFlags(channel.FIFO, 1)
		if err := p.Err(); err != nil {
			return nil, err
		}
		procs := make([]pmNode, n)
		for i := range procs {
			procs[i] = pmNode{Ust: mutex.Idle, R: r, Anyone: broken}
		}
		procs[0].HasToken = true
		links := automaton.Ring(n)
		if broken {
			links = automaton.Complete(n, false)
		}
		return automaton.New(automaton.Config[pmNode, pmToken]{
			StepNames:    mutex.StepNames(pmPass),
			MessageTypes: []string{"TOKEN"},

			Initial:  [][]pmNode{procs},
			Links:    links,
			Channels: disc,
			Capacity: capacity,
			Invariants: []automaton.Invariant[pmNode, pmToken]{
				mutex.Exclusion[pmNode, pmToken](pmUser),
				{Name: properties.TokenUniqueness, Doc: "exactly one token, held or in transit", Holds: func(v *pmView) bool {
					return properties.Count(v.N(), func(i int) bool { return v.Proc(i).HasToken })+v.InTransit() == 1
				}},
			},
			// The token never stops: any terminal state is a deadlock.
			ValidEnd: func(*pmView) bool { return false },
			Explain:  pmExplain,
			Liveness: []automaton.Liveness[pmNode, pmToken]{
				mutex.Starvation[pmNode, pmToken](pmUser),
			},
			Mutex: mutex.Metrics(r, pmUser, pmServes),
		})
	}
	return s
}
