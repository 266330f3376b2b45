package specs

import (
	"fmt"
	"strings"

	"github.com/vacheck/vacheck/automaton"
)

// electionStory describes the states of an election for
// automaton.Config.Explain (see explain).
type electionStory[S any, M automaton.Message] struct {
	id    func(p *S) int  // the process's own ID
	leads func(p *S) bool // the process is in a leader state
	// knows, when set, returns the leader the process knows, 0 for ⊥.
	knows func(p *S) int
	// best returns the position of the process whose ID should win, or -1
	// while none is known to; bestOf says what its ID is the best of.
	best   func(v *automaton.View[S, M]) int
	bestOf string
	// one and many name the leader state: "chosen" and "chosen", "a
	// leader" and "leaders".
	one, many string
}

// explain says what a state of an election means: which processes are
// leaders and with which IDs; for one whose ID is not the ID that should
// win, which process holds that one; which processes know which leader;
// and how many messages are still in transit. It names the values that
// break uniqueness, validity and agreement, so that a counterexample ends
// with them in words: "p1 is chosen with ID 1, but p3 has ID 3, the best
// ID".
func (e electionStory[S, M]) explain(v *automaton.View[S, M]) []string {
	var lines, leaders []string
	b := e.best(v)
	for i := 0; i < v.N(); i++ {
		p := v.Proc(i)
		if !e.leads(p) {
			continue
		}
		leaders = append(leaders, fmt.Sprintf("p%d", i+1))
		line := fmt.Sprintf("p%d is %s with ID %d", i+1, e.one, e.id(p))
		if b >= 0 && b != i {
			line += fmt.Sprintf(", but p%d has ID %d, %s", b+1, e.id(v.Proc(b)), e.bestOf)
		}
		lines = append(lines, line)
	}
	switch len(leaders) {
	case 0:
		lines = append(lines, fmt.Sprintf("no process is %s", e.one))
	case 1:
	default:
		lines = append(lines, fmt.Sprintf("%d processes are %s (%s): at most one may be", len(leaders), e.many, strings.Join(leaders, ", ")))
	}
	if e.knows != nil {
		byLeader := map[int][]string{}
		var order []int
		for i := 0; i < v.N(); i++ {
			l := e.knows(v.Proc(i))
			if _, ok := byLeader[l]; !ok {
				order = append(order, l)
			}
			byLeader[l] = append(byLeader[l], fmt.Sprintf("p%d", i+1))
		}
		for _, l := range order {
			who, verb := strings.Join(byLeader[l], ", "), "knows"
			if len(byLeader[l]) > 1 {
				verb = "know"
			}
			if l == 0 {
				lines = append(lines, fmt.Sprintf("%s %s no leader yet (⊥)", who, verb))
			} else {
				lines = append(lines, fmt.Sprintf("%s %s the leader %d", who, verb, l))
			}
		}
	}
	switch k := v.InTransit(); k {
	case 0:
		lines = append(lines, "no message is in transit")
	case 1:
		lines = append(lines, "1 message is in transit")
	default:
		lines = append(lines, fmt.Sprintf("%d messages are in transit", k))
	}
	return lines
}

// bestAmong returns the position of the process with the best ID under o
// among those for which in holds, or -1 when there is none.
func bestAmong[S any, M automaton.Message](v *automaton.View[S, M], o objective, id func(p *S) int, in func(p *S) bool) int {
	b := -1
	for i := 0; i < v.N(); i++ {
		if p := v.Proc(i); in(p) && (b < 0 || o.beats(id(p), id(v.Proc(b)))) {
			b = i
		}
	}
	return b
}
