package automaton

import (
	"sync"

	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
)

// InOrder implements explorer.InOrderer: for a System with unordered
// channels, the same System with FIFO channels, whose runs are, label for
// label, the runs of sys in which no message overtakes one sent before it
// on its channel. The explorer uses it to prefer, among the shortest
// counterexamples, one without overtaking. ok is false when the channels
// of sys are FIFO already.
func (sys *System[S, M, P]) InOrder() (explorer.Model, bool) {
	if sys.disc != channel.Unordered {
		return nil, false
	}
	cp := *sys
	cp.disc = channel.FIFO
	cp.labelers = &sync.Pool{}
	return &cp, true
}
