package stategraph

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"sort"
	"strings"
)

// Title says what a drawing is of, e.g. "chang-roberts --n 3".
type Title string

// DOT writes g in Graphviz's DOT language, in the spirit of TLC's -dump
// dot: one node per state labelled with its number and variables, initial
// states drawn bold, terminal states as double circles, deadlocks and
// violating states filled red (their tooltip names what they violate),
// and one edge per transition labelled with its action.
func (g *Graph) DOT(w io.Writer, title Title) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "digraph %s {\n", dotString(string(title)))
	fmt.Fprintf(b, "  label=%s; labelloc=t; fontname=\"monospace\";\n", dotString(string(title)+": "+g.summary()))
	b.WriteString("  node [shape=box, style=rounded, fontname=\"monospace\", fontsize=10];\n  edge [fontname=\"monospace\", fontsize=9];\n")
	for _, n := range g.Nodes {
		var attrs []string
		label := fmt.Sprintf("%d\\l", n.ID)
		for _, v := range n.Vars {
			label += dotEscape(v.Name+" = "+format(v.Value)) + "\\l"
		}
		attrs = append(attrs, "label=\""+label+"\"")
		var styles []string
		if n.Initial >= 0 {
			styles = append(styles, "bold")
		}
		if n.Terminal {
			attrs = append(attrs, "peripheries=2")
		}
		if n.Bad() {
			styles = append(styles, "filled")
			attrs = append(attrs, "fillcolor=\"#f8b4b4\"", "color=\"#b42318\"")
		}
		attrs = append(attrs, "style=\""+strings.Join(append([]string{"rounded"}, styles...), ",")+"\"")
		attrs = append(attrs, "tooltip="+dotString(n.describe()))
		fmt.Fprintf(b, "  s%d [%s];\n", n.ID, strings.Join(attrs, ", "))
	}
	for _, e := range g.Edges {
		style := ""
		if e.Fault {
			style = ", style=dashed"
		}
		fmt.Fprintf(b, "  s%d -> s%d [label=%s%s];\n", e.From, e.To, dotString(e.Label), style)
	}
	b.WriteString("}\n")
	return b.Flush()
}

func dotEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return r.Replace(s)
}

func dotString(s string) string { return "\"" + dotEscape(s) + "\"" }

func format(v any) string {
	if x, ok := v.([]any); ok {
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = format(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return fmt.Sprint(v)
}

// summary counts the states by kind, for titles.
func (g *Graph) summary() string {
	var init, term, dead, bad int
	for _, n := range g.Nodes {
		if n.Initial >= 0 {
			init++
		}
		if n.Terminal {
			term++
		}
		if n.Deadlock {
			dead++
		}
		if len(n.Violated) > 0 {
			bad++
		}
	}
	return fmt.Sprintf("%d states (%d initial, %d terminal, %d deadlocked, %d violating a property), %d transitions", len(g.Nodes), init, term, dead, bad, len(g.Edges))
}

// describe says what a node is, for tooltips.
func (n Node) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "state %d (depth %d)", n.ID, n.Depth)
	if n.Initial >= 0 {
		fmt.Fprintf(&b, ", initial state #%d", n.Initial+1)
	}
	if n.Deadlock {
		b.WriteString(", DEADLOCK")
	} else if n.Terminal {
		b.WriteString(", terminal")
	}
	if len(n.Violated) > 0 {
		b.WriteString(", VIOLATES " + strings.Join(n.Violated, ", "))
	}
	for _, v := range n.Vars {
		b.WriteString("\n" + v.Name + " = " + format(v.Value))
	}
	return b.String()
}

// Geometry of the SVG drawing, in pixels.
const (
	svgR      = 13  // node radius
	svgGapX   = 38  // between the centres of neighbours in a level
	svgGapY   = 74  // between levels
	svgMargin = 30  // around the drawing
	svgTop    = 64  // room for the title and the legend
	svgLeft   = 64  // room for the level numbers
	svgMinW   = 640 // so that the legend fits
)

// Layout places the nodes of g for SVG: level by level (the breadth-first
// depth), each level ordered by the mean position of the nodes of the
// level above that lead to it (the barycentre heuristic, one pass down,
// ties broken by number), which keeps most edges short and uncrossed. It
// returns the centre of each node and the size of the drawing.
func (g *Graph) Layout() (x, y []int, width, height int) {
	levels := map[int][]int{}
	depth := 0
	for _, n := range g.Nodes {
		levels[n.Depth] = append(levels[n.Depth], n.ID)
		depth = max(depth, n.Depth)
	}
	widest := 0
	for _, l := range levels {
		widest = max(widest, len(l))
	}
	preds := make([][]int, len(g.Nodes))
	for _, e := range g.Edges {
		if g.Nodes[e.From].Depth == g.Nodes[e.To].Depth-1 {
			preds[e.To] = append(preds[e.To], e.From)
		}
	}
	pos := make([]float64, len(g.Nodes))
	x, y = make([]int, len(g.Nodes)), make([]int, len(g.Nodes))
	width = max(svgMinW, svgLeft+widest*svgGapX+2*svgMargin)
	inner := width - svgLeft - 2*svgMargin
	for d := 0; d <= depth; d++ {
		l := levels[d]
		if d > 0 {
			bary := map[int]float64{}
			for _, id := range l {
				s := 0.0
				for _, p := range preds[id] {
					s += pos[p]
				}
				if len(preds[id]) > 0 {
					bary[id] = s / float64(len(preds[id]))
				}
			}
			sort.SliceStable(l, func(a, b int) bool { return bary[l[a]] < bary[l[b]] })
		}
		// Centred in the drawing, neighbours svgGapX apart.
		left := svgLeft + svgMargin + (inner-(len(l)-1)*svgGapX)/2
		for k, id := range l {
			x[id] = left + k*svgGapX
			y[id] = svgTop + svgMargin + d*svgGapY
			pos[id] = float64(x[id])
		}
	}
	height = svgTop + 2*svgMargin + depth*svgGapY + svgR
	return x, y, width, height
}

// SVG writes g as a standalone SVG picture: one row per breadth-first
// level, each state a numbered circle (initial states with a thick blue
// ring, terminal ones grey, deadlocks and violating states red), each
// transition an arrow, straight to the next level and curved otherwise.
// Every node and edge has a tooltip (its state's variables, its action)
// and data attributes (data-node, data-from, data-to) for a page to make
// them clickable.
func (g *Graph) SVG(w io.Writer, title Title) error {
	b := bufio.NewWriter(w)
	esc := html.EscapeString
	x, y, width, height := g.Layout()
	fmt.Fprintf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"stategraph\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"ui-monospace, Menlo, Consolas, monospace\" font-size=\"11\">\n", width, height, width, height)
	b.WriteString(`<style>
.stategraph .edge { stroke: #8792a2; stroke-width: 1.1; fill: none; }
.stategraph .edge.fault { stroke-dasharray: 4 3; }
.stategraph .edge:hover { stroke: #1f6feb; stroke-width: 2.5; }
.stategraph .node circle { fill: #eef2f8; stroke: #5b6576; stroke-width: 1.2; }
.stategraph .node.initial circle { stroke: #1f6feb; stroke-width: 3.5; }
.stategraph .node.terminal circle { fill: #d7dbe2; }
.stategraph .node.bad circle { fill: #f8b4b4; stroke: #b42318; }
.stategraph .node.initial.bad circle { stroke: #1f6feb; }
.stategraph .node.cur circle { fill: #fff3b0; stroke: #d97706; stroke-width: 3.5; }
.stategraph .node text { text-anchor: middle; pointer-events: none; font-size: 10px; fill: #1d2330; }
.stategraph .node:hover circle { stroke: #1f6feb; stroke-width: 3; }
.stategraph .title { font: 600 13px system-ui, sans-serif; fill: #1d2330; }
.stategraph .legend, .stategraph .lvl { fill: #6b7280; }
</style>
<defs><marker id="sg-head" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="8" markerHeight="8" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#8792a2"/></marker></defs>
<rect x="0" y="0" width="100%" height="100%" fill="white"/>
`)
	fmt.Fprintf(b, "<text class=\"title\" x=\"%d\" y=\"22\">%s</text>\n", svgMargin, esc(string(title)))
	fmt.Fprintf(b, "<text class=\"legend\" x=\"%d\" y=\"40\">%s</text>\n", svgMargin, esc(g.summary()))
	lx := svgMargin
	for _, item := range []struct{ cls, text string }{{"initial", "initial"}, {"terminal", "terminal (valid end)"}, {"bad", "deadlock or violation"}} {
		fmt.Fprintf(b, "<g class=\"node %s\"><circle cx=\"%d\" cy=\"54\" r=\"6\"/></g><text class=\"legend\" x=\"%d\" y=\"58\">%s</text>\n", item.cls, lx+6, lx+16, esc(item.text))
		lx += 30 + 7*len(item.text)
	}
	depth := 0
	for _, n := range g.Nodes {
		depth = max(depth, n.Depth)
	}
	for d := 0; d <= depth; d++ {
		fmt.Fprintf(b, "<text class=\"lvl\" x=\"%d\" y=\"%d\">%d</text>\n", svgMargin-10, svgTop+svgMargin+d*svgGapY+4, d)
	}
	for _, e := range g.Edges {
		cls := "edge"
		if e.Fault {
			cls += " fault"
		}
		fmt.Fprintf(b, "<path class=\"%s\" data-from=\"%d\" data-to=\"%d\" data-action=\"%d\" d=\"%s\" marker-end=\"url(#sg-head)\"><title>%s</title></path>\n",
			cls, e.From, e.To, e.Action, edgePath(x[e.From], y[e.From], x[e.To], y[e.To]), esc(fmt.Sprintf("%d → %d: %s", e.From, e.To, e.Label)))
	}
	for _, n := range g.Nodes {
		cls := "node"
		if n.Initial >= 0 {
			cls += " initial"
		}
		if n.Terminal {
			cls += " terminal"
		}
		if n.Bad() {
			cls += " bad"
		}
		fmt.Fprintf(b, "<g class=\"%s\" data-node=\"%d\"><title>%s</title><circle cx=\"%d\" cy=\"%d\" r=\"%d\"/><text x=\"%d\" y=\"%d\">%d</text></g>\n",
			cls, n.ID, esc(n.describe()), x[n.ID], y[n.ID], svgR, x[n.ID], y[n.ID]+3, n.ID)
	}
	b.WriteString("</svg>\n")
	return b.Flush()
}

// edgePath draws an edge between node centres, ending at the target's
// rim: a straight line down to a lower level, a curve to the side for an
// edge within a level or back up, and a small loop for a self-loop.
func edgePath(x1, y1, x2, y2 int) string {
	if x1 == x2 && y1 == y2 {
		return fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", x1+svgR-3, y1-svgR+4, x1+svgR+22, y1-svgR-20, x1+svgR+26, y1+8, x1+svgR, y1+3)
	}
	dx, dy := float64(x2-x1), float64(y2-y1)
	if y2 > y1 {
		l := hypot(dx, dy)
		sx, sy := float64(x1)+dx*svgR/l, float64(y1)+dy*svgR/l
		ex, ey := float64(x2)-dx*(svgR+1)/l, float64(y2)-dy*(svgR+1)/l
		return fmt.Sprintf("M%.1f,%.1f L%.1f,%.1f", sx, sy, ex, ey)
	}
	// Within a level or back up: bow out to the right of the direction
	// of travel, so that edges both ways between two nodes stay apart.
	l := hypot(dx, dy)
	nx, ny := -dy/l, dx/l
	bow := 18 + l/6
	cx, cy := (float64(x1+x2))/2+nx*bow, (float64(y1+y2))/2+ny*bow
	ex, ey := float64(x2)-cx, float64(y2)-cy
	el := hypot(ex, ey)
	return fmt.Sprintf("M%d,%d Q%.1f,%.1f %.1f,%.1f", x1, y1, cx, cy, float64(x2)-ex*(svgR+1)/el, float64(y2)-ey*(svgR+1)/el)
}

func hypot(a, b float64) float64 {
	if a == 0 && b == 0 {
		return 1 // a zero-length edge: any direction will do
	}
	return math.Hypot(a, b)
}
