package specs

import (
	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
)

// This file holds the plumbing the ring elections (chang-roberts and its
// variants, lelann, peterson) share: they read --n, --ids, --objective and
// the channel flags alike, build one initial state per ID arrangement (and
// flag vector, such as the initiators) one at a time, and run on a ring
// with its rotations as symmetry. A spec keeps in its Build only what is
// its own: its process's initial state, its extra flags and its
// properties.

// ringParams returns the parameters of a ring election with n processes
// by default: --n, --ids, then the spec's own (more), then --objective, in
// the order `vacheck list` and --help show them.
func ringParams(n string, more ...Param) []Param {
	ps := []Param{{Flag: "n", Default: n, Usage: "number of processes", Max: maxRingN}, idsParam}
	return append(append(ps, more...), objectiveParam)
}

// ring is what a ring election read from its parameters (Params.ring).
type ring struct {
	n   int
	ids choices[[]int]
	// flags are the flag vectors of the processes (the designated
	// initiators, a direction), one per initial state for each ID
	// arrangement; noFlags when the spec has none.
	flags    choices[[]bool]
	obj      objective
	disc     channel.Discipline
	capacity int
}

// ring reads the parameters of a ring election, with a sticky error
// (Params.Err), in the order its parameters list them (ringParams): --n
// from minN to maxRingN, --ids, then, when flags is not nil, the spec's
// own flags, which return the processes' flag vectors, then --objective
// and the channel flags, FIFO by default with capacity(n) messages per
// channel.
func (p *Params) ring(minN int, flags func(n int) choices[[]bool], capacity func(n int) int) ring {
	r := ring{n: p.IntFlag("n", minN, maxRingN)}
	r.ids = p.ids(r.n)
	if flags != nil {
		r.flags = flags(r.n)
	} else {
		r.flags = noFlags(r.n)
	}
	r.obj = p.objective()
	r.disc, r.capacity = p.ChannelFlags(channel.FIFO, capacity(r.n))
	return r
}

// ringModel is the end of a ring election's Build: after the error of
// any parameter read so far (Params.Err), it returns the model of cfg
// with r's initial states, built one at a time because --ids all has N!
// of them and a state or memory limit stops the search before they are
// all built, process i being proc(i, ids[i], flags[i]) and of reading its
// ID and flag back to name an initial state (initialStates). cfg gets r's
// channel flags, and the unidirectional ring with its rotations unless it
// declares links or channels and a symmetry of its own.
func ringModel[S any, M automaton.Message, P automaton.Process[S, M]](p *Params, r ring, proc func(i, id int, flag bool) S, of func(p *S) (id int, flag bool), cfg automaton.Config[S, M]) (explorer.Model, error) {
	if err := p.Err(); err != nil {
		return nil, err
	}
	initial := initialStates(r.ids, r.flags, proc, of)
	cfg.InitialSeq, cfg.InitialSample, cfg.InitialAt, cfg.InitialParams = initial.each, initial.sample, initial.indexed(), initial.params
	if cfg.Links == nil && cfg.Chans == nil {
		cfg.Links = automaton.Ring(r.n)
	}
	if cfg.Symmetry == automaton.NoSymmetry {
		cfg.Symmetry = automaton.Rotations
	}
	cfg.Channels, cfg.Capacity = r.disc, r.capacity
	return automaton.New[S, M, P](cfg)
}

// ringID is the of of ringModel for a spec whose processes differ only by
// their ID u: no flag.
func ringID[S any](u func(p *S) int) func(p *S) (int, bool) {
	return func(p *S) (int, bool) { return u(p), false }
}
