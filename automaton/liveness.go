package automaton

import (
	"fmt"
	"strings"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// Liveness implements explorer.LiveModel: the configured liveness
// properties, then termination when the Config offers it.
func (sys *System[S, M, P]) Liveness() []explorer.LiveProperty {
	var out []explorer.LiveProperty
	for _, l := range sys.cfg.Liveness {
		p := explorer.LiveProperty{
			Info:      properties.Info{Name: l.Name, Kind: properties.Eventually, Doc: l.Doc},
			Instances: 1,
			LeadsTo:   l.When != nil,
		}
		if l.Stable {
			p.Kind, p.LeadsTo = properties.Stable, false
		}
		if l.PerProcess {
			p.Instances = sys.n
		}
		out = append(out, p)
	}
	if sys.cfg.Termination != nil {
		out = append(out, explorer.LiveProperty{
			Info: properties.Info{
				Name: properties.Termination, Kind: properties.Terminates,
				Doc: "every fair execution is finite and ends in a state where the goal holds",
			},
			Instances: 1,
		})
	}
	return out
}

// Tasks implements explorer.LiveModel: task i is process i's locally
// controlled actions, task N+c the deliveries of channel c.
func (sys *System[S, M, P]) Tasks() []string {
	var out []string
	for i := 0; i < sys.n; i++ {
		out = append(out, fmt.Sprintf("p%d", i+1))
	}
	for c := range sys.cfg.Links {
		out = append(out, "channel "+strings.Replace(sys.chanName(c), ",", "→", 1))
	}
	return out
}

// Live implements explorer.LiveWorker.
func (w *worker[S, M, P]) Live(s []byte, k, i int) (when, goal bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicError(r)
		}
	}()
	w.load(&w.cv, s)
	if k == len(w.sys.cfg.Liveness) {
		return false, w.sys.cfg.Termination(&w.cv), nil
	}
	l := w.sys.cfg.Liveness[k]
	if !l.PerProcess {
		i = -1
	}
	if l.When != nil {
		when = l.When(&w.cv, i)
	}
	return when, l.Goal(&w.cv, i), nil
}
