package specs

import (
	"strings"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/election"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/internal/input"
	"github.com/vacheck/vacheck/properties"
)

// crbDir is a port of a bidirectional ring: CW to i+1, CCW to i−1.
type crbDir uint8

const (
	crbCW crbDir = iota
	crbCCW
)

// port returns the name of the port of direction d, for N = 2.
func (d crbDir) port() string {
	if d == crbCCW {
		return "ccw"
	}
	return "cw"
}

func (d crbDir) String() string {
	if d == crbCCW {
		return "CCW"
	}
	return "CW"
}

// crbNode is a process of Chang-Roberts on a bidirectional ring
// (docs/algorithms/chang-roberts-bidirectional.md): every process sends its own
// ID in a direction of its own; an ID travels on, away from the port it arrived
// on, while it beats the best ID the process has seen, and it is discarded
// otherwise. The Choice of 1.4 is followed: the "random" direction is a
// nondeterministic initial choice per process (2^N direction vectors per
// arrangement). All processes start (st = cand initially); start_i is the only
// locally controlled step. With N = 2 both neighbours are the same process:
// the two channels of each pair are told apart by their ports, cw and ccw
// (automaton.Chan), as the port a message arrives on is its direction.
type crbNode struct {
	U       int
	Dir     crbDir
	Best    int
	Chosen  bool // st: chosen, else cand
	Started bool
	Obj     objective `vacheck:"-"`
	// Broken forwards an ID back on the port it arrived on
	// (chang-roberts-bidirectional-broken), so it bounces home at once.
	Broken bool `vacheck:"-"`
}

type crbView = automaton.View[crbNode, int]

// port returns the neighbour on port d of process i.
func crbPort(i, n int, d crbDir) int {
	if d == crbCCW {
		return (i + n - 1) % n
	}
	return (i + 1) % n
}

// Steps: start_i, pre st = cand ∧ ¬started.
func (p *crbNode) Steps(v *crbView, out []automaton.Step) []automaton.Step {
	if !p.Chosen && !p.Started {
		out = append(out, automaton.Out(stepStart, crbPort(v.Self(), v.N(), p.Dir)))
	}
	return out
}

// Do performs start_i: started := true; send ELECT(u) on port dir.
func (p *crbNode) Do(s automaton.Step, fx *automaton.Effects[int]) {
	if s.Name != stepStart {
		panic(unknownStep("chang-roberts-bidirectional", s))
	}
	p.Started = true
	crbSend(fx, p.Dir, p.U)
}

// crbSend sends v from the effect's process on the port of direction d:
// to the neighbour on that side, over that side's channel when N = 2.
func crbSend(fx *automaton.Effects[int], d crbDir, v int) {
	i, n := fx.Self(), fx.N()
	if n == 2 {
		fx.SendPort(crbPort(i, n, d), d.port(), v)
		return
	}
	fx.Send(crbPort(i, n, d), v)
}

// Receive performs receive ELECT(v) on the port from: chosen on the own
// ID; forward a winning ID on the opposite port d; discard a losing one.
func (p *crbNode) Receive(from int, v int, fx *automaton.Effects[int]) {
	i, n := fx.Self(), fx.N()
	d := crbCW // the message travels away from from
	if n == 2 && fx.Port() == crbCCW.port() || n > 2 && from == (i+1)%n {
		d = crbCCW
	}
	if p.Broken {
		d = 1 - d // the bug: back where it came from
	}
	switch {
	case v == p.U:
		p.Chosen = true
	case p.Obj.beats(v, p.Best):
		p.Best = v
		crbSend(fx, d, v)
	default:
		// v = best ≠ u would mean an ID visits a process twice.
		fx.Assert(crbOnce, v != p.Best)
	}
}

// crbOnce is the assertion of 1.4: v = best ≠ u is unreachable.
const crbOnce = "visit-once"

// crbWinner returns the position of the winning ID.
func crbWinner(v *crbView) int {
	ids := make([]int, v.N())
	for i := range ids {
		ids[i] = v.Proc(i).U
	}
	return v.Proc(0).Obj.winner(ids)
}

// changRobertsBidirectional returns chang-roberts-bidirectional
// (docs/algorithms/chang-roberts-bidirectional.md), which declares its broken
// twin.
func changRobertsBidirectional() Spec {
	return Spec{
		Name:    "chang-roberts-bidirectional",
		Section: "1.4",
		Summary: "Chang-Roberts on a bidirectional ring: every ID goes in a direction of its own and is discarded by a process that has seen a better one",
		Params: []Param{
			{Flag: "n", Default: "4", Usage: "number of processes, at least 2 (with N = 2 each pair has a channel per port, cw and ccw)", Max: maxRingN},
			idsParam,
			objectiveParam,
			crbDirectionsParam,
		},
		Claims:   []string{properties.Uniqueness, properties.Validity, crbOnce, properties.Quiescence, properties.DeadlockFreedom},
		Symmetry: "dihedral",
		Broken: &Twin{
			Summary: "Chang-Roberts on a bidirectional ring with a port mix-up",
			Bug:     "a process forwards an ID on the port it arrived on instead of the opposite one, so the ID bounces back to its origin, which is chosen",
			Claims:  []string{properties.Uniqueness, properties.DeadlockFreedom},
		},
		Build: func(p *Params) (explorer.Model, error) {
			r := p.ring(2, nil, func(n int) int { return n })
			r.flags = sticky(p, func() (choices[[]bool], error) { return parseDirections(p, r.n) })
			return ringModel(p, r, func(_, id int, ccw bool) crbNode {
				dir := crbCW
				if ccw {
					dir = crbCCW
				}
				return crbNode{U: id, Best: id, Dir: dir, Obj: r.obj, Broken: p.Broken()}
			}, func(p *crbNode) (int, bool) { return p.U, p.Dir == crbCCW }, automaton.Config[crbNode, int]{
				StepNames:    []string{stepStart},
				MessageTypes: idTypes(r.ids),
				Links:        crbLinks(r.n),
				Chans:        crbChans(r.n),
				Symmetry:     automaton.Dihedral,
				Invariants: []automaton.Invariant[crbNode, int]{
					described(election.Uniqueness[crbNode, int](crbChosen), "never two processes chosen"),
					described(election.Validity(func(p *crbNode) (int, bool) { return p.U, p.Chosen }, func(v *crbView) int { return v.Proc(crbWinner(v)).U }), "a chosen process holds the winning ID"),
				},
				Assertions: []automaton.Assertion{{Name: crbOnce, Doc: "no ID reaches a process whose best it already is, other than its origin (v = best ≠ u is unreachable)"}},
				Liveness:   []automaton.Liveness[crbNode, int]{election.Quiescence(crbQuiet)},
				ValidEnd:   crbValidEnd,
				Explain:    crbExplain,
			})
		},
	}
}

// crbChosen reports whether a process is chosen.
func crbChosen(p *crbNode) bool { return p.Chosen }

// crbQuiet: every process started and every channel empty, so nothing is
// enabled.
func crbQuiet(v *crbView) bool {
	return v.ChannelsEmpty() && properties.Count(v.N(), func(i int) bool { return !v.Proc(i).Started }) == 0
}

// crbValidEnd is a valid end state: channels empty, exactly the winner
// chosen (0.8; non-leaders may be undecided).
func crbValidEnd(v *crbView) bool {
	w := crbWinner(v)
	return v.ChannelsEmpty() && properties.Count(v.N(), func(i int) bool { return v.Proc(i).Chosen != (i == w) }) == 0
}

// crbExplain says who is chosen with which ID, against the winning ID.
func crbExplain(v *crbView) []string {
	return electionStory[crbNode, int]{
		id: func(p *crbNode) int { return p.U }, leads: crbChosen,
		best: crbWinner, bestOf: "the winning ID", one: "chosen", many: "chosen",
	}.explain(v)
}

// crbLinks returns the channels of the ring for N ≥ 3, one per ordered
// pair of neighbours; crbChans those for N = 2, where each pair has two,
// one per port.
func crbLinks(n int) []automaton.Link {
	if n == 2 {
		return nil
	}
	return automaton.BiRing(n)
}

func crbChans(n int) []automaton.Chan[int] {
	if n != 2 {
		return nil
	}
	var chans []automaton.Chan[int]
	for i := 0; i < 2; i++ {
		for _, d := range []crbDir{crbCW, crbCCW} {
			chans = append(chans, automaton.Chan[int]{From: i, To: crbPort(i, 2, d), Port: d.port()})
		}
	}
	return chans
}

// Permute implements automaton.Permuter: a reflection of the ring swaps
// the two ports, so the direction a process chose is reversed.
func (p *crbNode) Permute(g automaton.Perm) {
	if g.Reflection() {
		p.Dir = 1 - p.Dir
	}
}

// crbDirectionsParam is --directions: the direction each process sends its
// ID in, or every direction vector.
var crbDirectionsParam = Param{
	Flag:    "directions",
	Default: "all",
	Usage:   "the direction each process sends its ID in: a list of cw and ccw, one per process (cw: towards process i+1), or all (every direction vector, as separate initial states)",
}

// parseDirections reads --directions for n processes and returns the
// direction vectors, one per initial state: set[i] tells that process i
// sends CCW. all is every vector, in the order of the masks whose bit i
// says that process i sends CCW; each is named by its list, as a
// counterexample's re-run command gives it.
func parseDirections(p *Params, n int) (choices[[]bool], error) {
	v := strings.TrimSpace(p.String("directions"))
	if v == "all" {
		p.Set("directions", v)
		c := subsetsOf(n, false)
		c.name = func(set []bool) map[string]string { return map[string]string{"directions": crbDirWords(set)} }
		return c, nil
	}
	const allowed = "give cw or ccw for each process, separated by commas (such as cw,ccw,cw), or all"
	parts := strings.Split(v, ",")
	if len(parts) != n {
		return choices[[]bool]{}, Usagef("directions", input.Clip(v), "%d directions given for --n %d; %s", len(parts), n, allowed)
	}
	set := make([]bool, n)
	for i, w := range parts {
		switch strings.ToLower(strings.TrimSpace(w)) {
		case "cw":
		case "ccw":
			set[i] = true
		default:
			return choices[[]bool]{}, Usagef("directions", input.Clip(v), "%q is not a direction; %s", input.Clip(strings.TrimSpace(w)), allowed)
		}
	}
	p.Set("directions", crbDirWords(set))
	return oneChoice(set, cloneSlice), nil
}

// crbDirWords writes a direction vector as --directions takes it.
func crbDirWords(set []bool) string {
	words := make([]string, len(set))
	for i, ccw := range set {
		words[i] = "cw"
		if ccw {
			words[i] = "ccw"
		}
	}
	return strings.Join(words, ",")
}
