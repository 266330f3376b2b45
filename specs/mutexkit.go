package specs

import (
	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/mutex"
)

// mutexModel is the end of a mutual-exclusion spec's Build: it reads the
// channel flags, the spec's last, with def and defCap the default
// discipline and capacity (Params.ChannelFlags), then, after the error of
// any parameter read so far (Params.Err), returns the model of cfg with
// those channels and its one initial state, initial(n) for the n
// processes of users (one per entry of users.Requesters). Unless cfg says
// otherwise, it wires
// what every such spec wires alike: the user part's step names
// (mutex.StepNames), a link between every two processes
// (automaton.Complete, without self-links) and the user part's liveness
// claims (mutex.Liveness of user).
func mutexModel[S any, M automaton.Message, P automaton.Process[S, M]](p *Params, users mutex.Users, user mutex.User[S], def channel.Discipline, defCap int, initial func(n int) []S, cfg automaton.Config[S, M]) (explorer.Model, error) {
	cfg.Channels, cfg.Capacity = p.ChannelFlags(def, defCap)
	if err := p.Err(); err != nil {
		return nil, err
	}
	n := len(users.Requesters)
	cfg.Initial = [][]S{initial(n)}
	if cfg.StepNames == nil {
		cfg.StepNames = mutex.StepNames()
	}
	if cfg.Links == nil {
		cfg.Links = automaton.Complete(n, false)
	}
	if cfg.Liveness == nil {
		cfg.Liveness = mutex.Liveness[S, M](user)
	}
	return automaton.New[S, M, P](cfg)
}

// eachProcess is the initial of mutexModel for processes that start
// apart: process i is proc(i).
func eachProcess[S any](proc func(i int) S) func(n int) []S {
	return func(n int) []S {
		procs := make([]S, n)
		for i := range procs {
			procs[i] = proc(i)
		}
		return procs
	}
}
