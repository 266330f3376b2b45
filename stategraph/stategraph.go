// Package stategraph builds the whole reachable state graph of a small
// model, with its initial, terminal, deadlocked and violating states
// marked, and draws it as Graphviz DOT or as an SVG picture of its own
// (a layered layout by breadth-first level, so no Graphviz is needed):
// `vacheck graph` and the interactive explorer's graph view. It is meant
// for tiny instances, a few hundred states; Build refuses larger graphs
// and says how many states they have.
package stategraph

import (
	"context"
	"errors"
	"fmt"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// Node is one reachable state.
type Node struct {
	// ID is the state's number: states are numbered in breadth-first
	// order, the initial states first.
	ID int
	// Initial is the index of the initial state this node is (its place
	// among Model.Initial), or -1.
	Initial int
	// Parent is the node that first reached this one in the breadth-first
	// search, or -1 for an initial state; Action is the action index of
	// that edge. Following Parent up gives a shortest path from an initial
	// state.
	Parent, Action int
	// Depth is the breadth-first level: 0 for the initial states.
	Depth int
	// Terminal: no transition but faults (crashes) is enabled.
	Terminal bool
	// Deadlock: terminal, and not a valid end state of the spec.
	Deadlock bool
	// Violated names the invariants and assertions the state violates, in
	// the order of Model.Properties.
	Violated []string
	// Vars are the state's variables, when the model is a Describer.
	Vars []explorer.Var
}

// Bad reports whether the node is a deadlock or violates a property.
func (n Node) Bad() bool { return n.Deadlock || len(n.Violated) > 0 }

// Edge is one transition.
type Edge struct {
	From, To int
	Action   int    // the action index in From
	Label    string // as traces show it, e.g. receive(3)_{3,1}; #k without a Describer
	Fault    bool
}

// Graph is the reachable state graph of a model.
type Graph struct {
	Nodes []Node
	Edges []Edge // grouped by From, in action order
	// Properties are the invariants and assertions checked in every state.
	Properties []properties.Info

	index map[string]int // state encoding -> node
}

// Find returns the node of state st (an encoding of the model's), if the
// graph has it.
func (g *Graph) Find(st []byte) (int, bool) {
	id, ok := g.index[string(st)]
	return id, ok
}

// Options bound a Build.
type Options struct {
	// MaxStates is the most states a graph may have; a larger one is
	// refused with a *TooLargeError. Zero means 300.
	MaxStates int
	// CountUpTo is how far Build goes on counting the states of a graph
	// past MaxStates, keeping only their encodings, so that the refusal
	// can say how many there are; beyond it, it says "more than". Zero
	// means 1,000,000.
	CountUpTo int
}

// TooLargeError refuses a graph with more states than Options.MaxStates.
type TooLargeError struct {
	MaxStates int
	// States is the number of states counted: all of them when Exact,
	// else the count at which counting stopped (Options.CountUpTo).
	States int
	Exact  bool
}

func (e *TooLargeError) Error() string {
	if e.Exact {
		return fmt.Sprintf("the state graph has %d states, more than the limit of %d", e.States, e.MaxStates)
	}
	return fmt.Sprintf("the state graph has more than %d states (counting stopped there), more than the limit of %d", e.States, e.MaxStates)
}

// ErrTooLarge is matched by every *TooLargeError (errors.Is).
var ErrTooLarge = errors.New("stategraph: graph too large")

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// Build explores every reachable state of m breadth first and returns its
// graph, or a *TooLargeError when it has more than opt.MaxStates states.
// Cancelling ctx stops it with ctx's error.
func Build(ctx context.Context, m explorer.Model, opt Options) (*Graph, error) {
	if opt.MaxStates <= 0 {
		opt.MaxStates = 300
	}
	if opt.CountUpTo <= 0 {
		opt.CountUpTo = 1_000_000
	}
	g := &Graph{}
	var want uint64
	for k, p := range m.Properties() {
		if (p.Kind == properties.Invariant || p.Kind == properties.Assertion) && k < 64 {
			want |= 1 << uint(k)
			g.Properties = append(g.Properties, p)
		}
	}
	names := m.Properties()
	d, _ := m.(explorer.Describer)
	w := m.NewWorker()
	index := map[string]int{}
	g.index = index
	var states [][]byte
	add := func(st []byte, init, parent, action, depth int) int {
		if id, ok := index[string(st)]; ok {
			return id
		}
		id := len(states)
		index[string(st)] = id
		states = append(states, st)
		g.Nodes = append(g.Nodes, Node{ID: id, Initial: init, Parent: parent, Action: action, Depth: depth})
		return id
	}
	init := 0
	var stop error
	err := explorer.EachInitial(m, func(st []byte) bool {
		if len(states) >= opt.MaxStates {
			stop = errTooMany
			return false
		}
		add(append([]byte(nil), st...), init, -1, -1, 0)
		init++
		return true
	})
	if err == nil {
		err = stop
	}
	for id := 0; err == nil && id < len(states); id++ {
		if id&63 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		st, n := states[id], &g.Nodes[id]
		faults := 0
		var fail error
		x := explorer.Expansion{Want: want, Emit: func(t explorer.Transition, next []byte) {
			if fail != nil {
				return
			}
			if _, seen := index[string(next)]; !seen && len(states) >= opt.MaxStates {
				fail = errTooMany
				return
			}
			to := add(append([]byte(nil), next...), -1, id, int(t.Action), n.Depth+1)
			n = &g.Nodes[id] // add may have moved the slice
			if t.Fault {
				faults++
			}
			g.Edges = append(g.Edges, Edge{From: id, To: to, Action: int(t.Action), Fault: t.Fault})
		}}
		r, xerr := w.Expand(st, &x)
		switch {
		case xerr != nil:
			return nil, fmt.Errorf("stategraph: expanding state %d: %w", id, xerr)
		case r.CheckErr != nil:
			return nil, fmt.Errorf("stategraph: checking state %d: %w", id, r.CheckErr)
		case fail != nil:
			err = fail
			continue
		}
		for k := range names {
			if r.Violated&(1<<uint(k)) != 0 {
				n.Violated = append(n.Violated, names[k].Name)
			}
		}
		if r.Enabled == faults {
			n.Terminal = true
			valid, verr := w.ValidEnd(st)
			if verr != nil {
				return nil, fmt.Errorf("stategraph: state %d: %w", id, verr)
			}
			n.Deadlock = !valid
		}
	}
	if errors.Is(err, errTooMany) {
		return nil, count(ctx, m, opt)
	}
	if err != nil {
		return nil, fmt.Errorf("stategraph: %w", err)
	}
	if d != nil {
		for i := range g.Nodes {
			if g.Nodes[i].Vars, err = d.Describe(states[i]); err != nil {
				return nil, fmt.Errorf("stategraph: describing state %d: %w", i, err)
			}
		}
	}
	for i := range g.Edges {
		e := &g.Edges[i]
		e.Label = fmt.Sprintf("#%d", e.Action)
		if d != nil {
			if e.Label, err = d.Label(states[e.From], e.Action); err != nil {
				return nil, fmt.Errorf("stategraph: labelling action %d of state %d: %w", e.Action, e.From, err)
			}
		}
	}
	return g, nil
}

var errTooMany = errors.New("too many states")

// count counts the reachable states of m up to opt.CountUpTo, keeping only
// their encodings, for the TooLargeError of a graph past opt.MaxStates.
func count(ctx context.Context, m explorer.Model, opt Options) error {
	seen := map[string]struct{}{}
	var queue [][]byte
	full := false
	add := func(st []byte) {
		if _, ok := seen[string(st)]; ok {
			return
		}
		if len(seen) >= opt.CountUpTo {
			full = true
			return
		}
		seen[string(st)] = struct{}{}
		queue = append(queue, append([]byte(nil), st...))
	}
	if err := explorer.EachInitial(m, func(st []byte) bool { add(st); return !full }); err != nil {
		return fmt.Errorf("stategraph: %w", err)
	}
	w := m.NewWorker()
	for k := 0; k < len(queue) && !full; k++ {
		if k&1023 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if _, err := explorer.Successors(w, queue[k], func(_ explorer.Transition, next []byte) { add(next) }); err != nil {
			return fmt.Errorf("stategraph: %w", err)
		}
		queue[k] = nil
	}
	return &TooLargeError{MaxStates: opt.MaxStates, States: len(seen), Exact: !full}
}

// PathTo returns the initial-state index and the action indices of a
// shortest path to node id, along the breadth-first tree.
func (g *Graph) PathTo(id int) (init int, actions []int) {
	for g.Nodes[id].Parent >= 0 {
		actions = append(actions, g.Nodes[id].Action)
		id = g.Nodes[id].Parent
	}
	for i, j := 0, len(actions)-1; i < j; i, j = i+1, j-1 {
		actions[i], actions[j] = actions[j], actions[i]
	}
	return g.Nodes[id].Initial, actions
}
