package specs

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
)

// vtMember holds the state variables of one process of 1.15: present,
// level (−1: not in the tree), parent (−1: ⊥; else a 0-based index, shown
// 1-based) and links, the processes it is connected to (an echoSet, shown
// 1-based).
type vtMember struct {
	Present bool
	Level   int
	Parent  int
	Links   echoSet
	// Detached: taken out of the tree by the correct repair, waiting to
	// rejoin (never set by the naive repair, nor without link failures).
	Detached bool `vacheck:",omitempty"`
}

func (m vtMember) String() string {
	if !m.Present {
		return "absent"
	}
	parent := "⊥"
	if m.Parent >= 0 {
		parent = fmt.Sprint(m.Parent + 1)
	}
	d := ""
	if m.Detached {
		d = " (detached)"
	}
	return fmt.Sprintf("(level %d, parent %s, links %v%s)", m.Level, parent, m.Links, d)
}

// vtRegistry is the model of "Building a virtual tree at system start"
// (docs/algorithms/virtual-tree.md). Processes join one at a time; the joining
// process reads the levels of the processes already present (an abstraction of
// a request/reply exchange, the section's Assumptions), tries to connect to
// each, and takes as parent a connected in-tree process closest to the root.
// Joins are atomic and touch both ends of every new link, and a broken link
// repairs one or both ends at once, so the system is written as a single
// automaton, the registry, whose state is every process's variables (Members[i]
// = present_i, level_i, parent_i, links_i); its steps name the process they are
// about, and every label ends in _{1}, the registry.
//
// The scanned process must itself be in the tree (level_n ≥ 0), the
// section's Choice; T3 then holds by construction and is checked as an
// assertion of join. Nondeterminism: any absent process may join next (all join orders);
// each connection attempt may fail (join enumerates every set of present
// processes it connects to); "in some order" lets any connected in-tree
// process of least level become the parent. A failed retry changes
// nothing and is left out (a stutter step). breakLink is a fault with the
// budget --link-failures; the engine models only crashes as faults, so it
// is an internal step here, never forced and harmless for the safety
// properties T1–T3.
//
// virtual-tree-broken repairs naively, as the section's REPAIR: a node
// that lost its parent re-attaches to its best remaining link, which may be
// its own child (T1 fails). virtual-tree repairs as the section says a
// correct repair must: it first detaches the whole subtree below the node
// (level −1, parent ⊥), then re-attaches the node; detached nodes come
// back through rejoin_i, which is REPAIR for a node out of the tree that
// is linked to one in it (our Choice: the section leaves open how the
// detached subtree re-attaches).
type vtRegistry struct {
	Members      []vtMember
	FailuresLeft int
	// Naive selects the section's REPAIR (virtual-tree-broken).
	Naive bool `vacheck:"-"`
}

type vtView = automaton.View[vtRegistry, vtNoMsg]

// vtNoMsg is the message type of a model without messages.
type vtNoMsg struct{}

// Properties of 1.15.
const (
	vtT1 = "t1-acyclic"    // T1: the parent pointers form no cycle
	vtT2 = "t2-levels"     // T2: level_x = level_{parent_x} + 1
	vtT3 = "t3-join-level" // T3: right after its join, level_x = 1 + least connected in-tree level
)

// Step kinds, in the low byte of Step.Arg; the choice follows in higher
// bytes: process, connected set or link partner, parent + 1.
const (
	vtJoin = iota
	vtRetry
	vtRejoin
	vtBreak
)

// vtStepWords are the names of the step kinds, as step names start.
var vtStepWords = []string{vtJoin: "join", vtRetry: "retry", vtRejoin: "rejoin", vtBreak: "breakLink"}

func vtArg(kind, i, set, parent int) int { return kind | i<<4 | (parent+1)<<12 | set<<20 }

// bestParents returns the processes of set with the least level ≥ 0, and
// that level (−1 if none is in the tree).
func (r *vtRegistry) bestParents(set echoSet) ([]int, int) {
	var best []int
	least := -1
	for s := uint64(set); s != 0; s &= s - 1 {
		n := bits.TrailingZeros64(s)
		switch l := r.Members[n].Level; {
		case l < 0:
		case least < 0 || l < least:
			best, least = []int{n}, l
		case l == least:
			best = append(best, n)
		}
	}
	return best, least
}

// Steps enumerates join_i, retry_i, rejoin_i and breakLink with every
// nondeterministic outcome.
func (r *vtRegistry) Steps(_ *vtView, out []automaton.Step) []automaton.Step {
	n := len(r.Members)
	var present echoSet
	for i, m := range r.Members {
		if m.Present {
			present |= 1 << uint(i)
		}
	}
	for i, m := range r.Members {
		if !m.Present { // join_i: connect to every subset of the present processes
			for set := uint64(present); ; set = (set - 1) & uint64(present) {
				parents, _ := r.bestParents(echoSet(set))
				if len(parents) == 0 {
					parents = []int{-1}
				}
				for _, p := range parents {
					out = append(out, automaton.Step{Kind: automaton.Internal, Arg: vtArg(vtJoin, i, int(set), p),
						Name: fmt.Sprintf("join(%d, links %v, parent %s)", i+1, echoSet(set), vtName(p))})
				}
				if set == 0 {
					break
				}
			}
			continue
		}
		if m.Level >= 0 {
			continue
		}
		for k := 0; k < n; k++ { // retry_i: a successful attempt to one more process
			if k != i && r.Members[k].Present && !m.Links.has(k) {
				out = append(out, automaton.Step{Kind: automaton.Internal, Arg: vtArg(vtRetry, i, k, -1),
					Name: fmt.Sprintf("retry(%d, link %d)", i+1, k+1)})
			}
		}
		if m.Detached { // rejoin_i: a detached node re-attaches over a link it has
			parents, _ := r.bestParents(m.Links)
			for _, p := range parents {
				out = append(out, automaton.Step{Kind: automaton.Internal, Arg: vtArg(vtRejoin, i, 0, p),
					Name: fmt.Sprintf("rejoin(%d, parent %d)", i+1, p+1)})
			}
		}
	}
	if r.FailuresLeft > 0 {
		for x := 0; x < n; x++ {
			for y := x + 1; y < n; y++ {
				if !r.Members[x].Links.has(y) {
					continue
				}
				// The parent REPAIR picks for the first end it repairs:
				// any link of least level ("in some order").
				c := vtRegistry{Members: slices.Clone(r.Members), Naive: r.Naive}
				first, _ := c.cut(x, y)
				parents := []int{-1}
				if first >= 0 {
					if best, _ := c.bestParents(c.Members[first].Links); len(best) > 0 {
						parents = best
					}
				}
				for _, p := range parents {
					name := fmt.Sprintf("breakLink(%d,%d)", x+1, y+1)
					if first >= 0 {
						name = fmt.Sprintf("breakLink(%d,%d, %d re-attaches to %s)", x+1, y+1, first+1, vtName(p))
					}
					out = append(out, automaton.Step{Kind: automaton.Internal, Arg: vtArg(vtBreak, x, y, p), Name: name})
				}
			}
		}
	}
	return out
}

func vtName(p int) string {
	if p < 0 {
		return "⊥"
	}
	return fmt.Sprint(p + 1)
}

// Do applies the step s.
func (r *vtRegistry) Do(s automaton.Step, fx *automaton.Effects[vtNoMsg]) {
	kind, i, parent, set := s.Arg&15, s.Arg>>4&255, s.Arg>>12&255-1, s.Arg>>20
	if kind < len(vtStepWords) && !strings.HasPrefix(s.Name, vtStepWords[kind]+"(") {
		// The name says what Steps meant: a step whose name is not
		// that of its kind is not one of Steps'.
		panic(unknownStep("virtual-tree", s))
	}
	switch kind {
	case vtJoin:
		root := true
		for _, m := range r.Members {
			root = root && !m.Present
		}
		me := vtMember{Present: true, Level: -1, Parent: -1, Links: echoSet(set)}
		if root {
			me.Level = 0
		}
		for s := uint64(set); s != 0; s &= s - 1 {
			r.Members[bits.TrailingZeros64(s)].Links |= 1 << uint(i)
		}
		_, least := r.bestParents(echoSet(set))
		if parent >= 0 {
			me.Level, me.Parent = r.Members[parent].Level+1, parent
		}
		r.Members[i] = me
		// T3: right after its join, level = 1 + the least level among the
		// in-tree processes it connected to (0 for the root, −1 if none).
		want := least + 1
		if least < 0 && !root {
			want = -1
		}
		fx.Assert(vtT3, me.Level == want)
	case vtRetry:
		k := set
		r.Members[i].Links |= 1 << uint(k)
		r.Members[k].Links |= 1 << uint(i)
		if r.Members[k].Level >= 0 {
			r.attach(i, k)
		}
	case vtRejoin:
		r.attach(i, parent)
	case vtBreak:
		r.FailuresLeft--
		first, second := r.cut(i, set)
		if first >= 0 {
			r.attach(first, parent)
		}
		if second >= 0 { // only after a cycle formed (naive): the lowest best link
			if best, _ := r.bestParents(r.Members[second].Links); len(best) > 0 {
				r.attach(second, best[0])
			}
		}
	default:
		panic(unknownStep("virtual-tree", s))
	}
}

// cut removes the link {x, y} and detaches the ends that had their parent
// over it (both only if the pointers already formed a 2-cycle), returning
// them (−1: none) for REPAIR to re-attach. The naive REPAIR resets only the
// end itself; the correct one also detaches the whole subtree below it.
func (r *vtRegistry) cut(x, y int) (first, second int) {
	r.Members[x].Links &^= 1 << uint(y)
	r.Members[y].Links &^= 1 << uint(x)
	first, second = -1, -1
	if r.Members[x].Parent == y {
		first = x
	}
	if r.Members[y].Parent == x {
		if first < 0 {
			first = y
		} else {
			second = y
		}
	}
	for _, e := range []int{first, second} {
		if e >= 0 {
			r.detach(e)
		}
	}
	return first, second
}

// detach takes x out of the tree (level −1, parent ⊥) and, for the correct
// repair, every process whose parent chain leads to x.
func (r *vtRegistry) detach(x int) {
	below := echoSet(1) << uint(x)
	if !r.Naive {
		for changed := true; changed; {
			changed = false
			for k, m := range r.Members {
				if m.Parent >= 0 && below.has(m.Parent) && !below.has(k) {
					below, changed = below|1<<uint(k), true
				}
			}
		}
	}
	for k := range r.Members {
		if below.has(k) {
			r.Members[k].Level, r.Members[k].Parent, r.Members[k].Detached = -1, -1, !r.Naive
		}
	}
}

// attach ends REPAIR(x): x takes parent p (−1: none in the tree), one of
// its links of least level.
func (r *vtRegistry) attach(x, p int) {
	if p >= 0 {
		r.Members[x].Level, r.Members[x].Parent, r.Members[x].Detached = r.Members[p].Level+1, p, false
	}
}

// Receive: the model has no messages.
func (r *vtRegistry) Receive(int, vtNoMsg, *automaton.Effects[vtNoMsg]) {}

// vtExplain shows every process's variables.
func vtExplain(v *vtView) []string {
	var lines []string
	for i, m := range v.Proc(0).Members {
		lines = append(lines, fmt.Sprintf("process %d: %v", i+1, m))
	}
	return lines
}

// virtualTree returns virtual-tree (docs/algorithms/virtual-tree.md), which
// declares its broken twin.
func virtualTree() Spec {
	s := Spec{
		Name:    "virtual-tree",
		Section: "1.15",
		Summary: "Building a virtual tree at system start: atomic joins pick a connected parent closest to the root; a broken link detaches the subtree before re-attaching",
		Params: []Param{
			{Flag: "n", Default: "3", Usage: "number of processes (every join order is explored)", Max: 6},
			{Flag: "link-failures", Default: "0", Usage: "budget of breakLink faults (each removes one link and repairs its ends)"},
		},
		Claims: []string{vtT1, vtT2, vtT3},
		Broken: &Twin{
			Summary: "Building a virtual tree at system start, with the naive REPAIR after a broken link",
			Bug:     "REPAIR re-attaches a node that lost its parent without detaching its subtree, so it may pick its own child and form a cycle",
		},
	}
	s.Broken.Params = withParams(s.Params, Param{Flag: "link-failures", Default: "1", Usage: s.Params[1].Usage})
	s.Build = func(p *Params) (explorer.Model, error) {
		naive := p.Broken()
		n, err := p.Int("n", 1, 6)
		if err != nil {
			return nil, err
		}
		k, err := p.Int("link-failures", 0, n*(n-1)/2)
		if err != nil {
			return nil, err
		}
		if _, _, err := p.Channels(channel.FIFO, 1); err != nil { // no channels: accepted, unused
			return nil, err
		}
		members := make([]vtMember, n)
		for i := range members {
			members[i] = vtMember{Level: -1, Parent: -1}
		}
		invariants := []automaton.Invariant[vtRegistry, vtNoMsg]{
			{Name: vtT1, Doc: "T1: the parent pointers form no cycle (those of the processes in the tree form a tree rooted at the root)", Holds: func(v *vtView) bool {
				ms := v.Proc(0).Members
				for x := range ms {
					for steps, y := 0, x; y >= 0; y = ms[y].Parent {
						if steps++; steps > len(ms) {
							return false
						}
					}
				}
				return true
			}},
			{Name: vtT2, Doc: "T2: every process with a parent has level = the parent's level + 1", Holds: func(v *vtView) bool {
				ms := v.Proc(0).Members
				for _, m := range ms {
					if m.Parent >= 0 && m.Level != ms[m.Parent].Level+1 {
						return false
					}
				}
				return true
			}},
		}
		return automaton.New(automaton.Config[vtRegistry, vtNoMsg]{
			StepNames:    append(append([]string{vtStepWords[vtJoin], vtStepWords[vtRetry]}, when(k > 0, vtStepWords[vtBreak])...), when(k > 0 && !naive, vtStepWords[vtRejoin])...),
			MessageTypes: []string{}, // the registry is one process: no messages

			Initial:    [][]vtRegistry{{{Members: members, FailuresLeft: k, Naive: naive}}},
			Invariants: invariants,
			Assertions: []automaton.Assertion{{Name: vtT3,
				Doc: "T3: right after its join, a process's level is one plus the least level among the in-tree processes it connected to"}},
			ValidEnd: func(v *vtView) bool {
				for _, m := range v.Proc(0).Members {
					if !m.Present || m.Level < 0 {
						return false
					}
				}
				return true
			},
			Explain: vtExplain,
		})
	}
	return s
}
