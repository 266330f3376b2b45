package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/vacheck/vacheck/stategraph"
)

// GraphAnswer is the answer of /api/graph: the whole state graph as an
// SVG picture whose nodes (data-node) the page makes clickable, with the
// shortest path to each; or, for a graph with more states than the
// server draws, status 422 and the error.
type GraphAnswer struct {
	States int         `json:"states"`
	Edges  int         `json:"edges,omitempty"`
	SVG    string      `json:"svg,omitempty"`
	Nodes  []GraphNode `json:"nodes,omitempty"`
	// TooLarge is the error of a graph too large to draw.
	TooLarge string `json:"error,omitempty"`
	Status   int    `json:"status,omitempty"`

	g *stategraph.Graph
}

// GraphNode is a node of the graph with a shortest path to it.
type GraphNode struct {
	ID   int   `json:"id"`
	Init int   `json:"init"`
	Path []int `json:"path"`
}

type graphAnswer = GraphAnswer

func buildGraph(ctx context.Context, m *served, limit int) (*GraphAnswer, error) {
	g, err := stategraph.Build(ctx, m.Model.Model, stategraph.Options{MaxStates: limit, CountUpTo: 200000})
	var tl *stategraph.TooLargeError
	switch {
	case errors.As(err, &tl):
		return &GraphAnswer{States: tl.States, Status: http.StatusUnprocessableEntity,
			TooLarge: fmt.Sprintf("%s %s: %v, so it is not drawn (vacheck explore --graph-states sets the limit)", m.Spec, m.ParamLine(), tl)}, nil
	case err != nil:
		return nil, fmt.Errorf("the state graph: %w", err)
	}
	var b strings.Builder
	if err := g.SVG(&b, stategraph.Title(m.Spec+" "+m.ParamLine())); err != nil {
		return nil, err
	}
	a := &GraphAnswer{States: len(g.Nodes), Edges: len(g.Edges), SVG: b.String(), g: g}
	for _, n := range g.Nodes {
		init, path := g.PathTo(n.ID)
		if path == nil {
			path = []int{}
		}
		a.Nodes = append(a.Nodes, GraphNode{ID: n.ID, Init: init, Path: path})
	}
	return a, nil
}
