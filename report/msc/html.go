package msc

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"sort"
	"strings"
)

//go:embed page.css
var pageCSS string

//go:embed page.js
var pageJS string

// Page is what the HTML page shows: the run and one chart per
// counterexample or witness.
type Page struct {
	Spec   string
	Params string // as on the command line: --n 3 --ids all
	Bug    string // for a broken twin
	Result string // the verdict line, e.g. "VIOLATED"
	// Properties are the verdict lines: name, verdict, doc.
	Properties [][3]string
	// Figures are drawn before the charts: the histograms and curves of a
	// simulation.
	Figures  []Figure
	Sections []Section
}

// Figure is a picture with what it shows: an SVG drawn by vacheck
// (package plot), inlined as it is.
type Figure struct {
	Title string
	Lines []string
	SVG   string
}

// Section is one chart with what it shows.
type Section struct {
	Title string   // e.g. "VIOLATED mutual-exclusion"
	Lines []string // what the trace shows, before the chart
	// Explanation says what the last state means.
	Explanation []string
	Chart       *Chart
}

// Geometry of the SVG chart, in pixels.
const (
	svgLabelW = 250 // the step numbers and actions on the left
	svgColW   = 150
	svgRowH   = 30
	svgTop    = 56
	// svgHeadH is the height of the band of lifeline heads that stays at
	// the top of a scrolled chart.
	svgHeadH = 36
	svgRight = 110
)

// HTML writes a self-contained page: inline CSS, JavaScript and SVG, no
// network. Each chart has step-by-step navigation (buttons, arrow keys,
// clicks on a row) that highlights the step in the chart and shows its
// state with the changed variables marked.
func HTML(w io.Writer, p Page) error {
	var b strings.Builder
	esc := html.EscapeString
	title := p.Spec
	if p.Params != "" {
		title += " " + p.Params
	}
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>vacheck: %s</title>\n<style>\n%s</style>\n</head>\n<body>\n", esc(title), pageCSS)
	fmt.Fprintf(&b, "<header>\n<h1><span class=\"spec\">%s</span> <span class=\"params\">%s</span></h1>\n", esc(p.Spec), esc(p.Params))
	if p.Bug != "" {
		fmt.Fprintf(&b, "<p class=\"bug\">broken on purpose: %s</p>\n", esc(p.Bug))
	}
	if len(p.Properties) > 0 {
		b.WriteString("<table class=\"props\">\n")
		for _, pr := range p.Properties {
			fmt.Fprintf(&b, "<tr class=\"%s\"><td>%s</td><td>%s</td><td>%s</td></tr>\n", esc(strings.ReplaceAll(pr[1], " ", "-")), esc(pr[0]), esc(pr[1]), esc(pr[2]))
		}
		b.WriteString("</table>\n")
	}
	if p.Result != "" {
		fmt.Fprintf(&b, "<p class=\"result\">result: %s</p>\n", esc(p.Result))
	}
	if len(p.Sections) > 1 {
		b.WriteString("<nav class=\"toc\">")
		for i, s := range p.Sections {
			fmt.Fprintf(&b, "<a href=\"#chart-%d\">%s</a> ", i, esc(s.Title))
		}
		b.WriteString("</nav>\n")
	}
	b.WriteString("</header>\n<main>\n")
	for _, f := range p.Figures {
		fmt.Fprintf(&b, "<section class=\"figure\">\n<h2>%s</h2>\n", esc(f.Title))
		for _, l := range f.Lines {
			fmt.Fprintf(&b, "<p>%s</p>\n", esc(l))
		}
		b.WriteString(f.SVG)
		b.WriteString("</section>\n")
	}
	for i, s := range p.Sections {
		if err := section(&b, i, s); err != nil {
			return err
		}
	}
	b.WriteString("</main>\n<footer>vacheck message sequence chart: ← → or the buttons move through the steps, Home and End jump; click a row to select it.</footer>\n")
	fmt.Fprintf(&b, "<script>\n%s</script>\n</body>\n</html>\n", pageJS)
	_, err := io.WriteString(w, b.String())
	return err
}

// stepData is what the script needs for one step.
type stepData struct {
	Action string      `json:"action"`
	Vars   [][3]string `json:"vars"` // name, value, old value ("" when unchanged)
	Notes  []string    `json:"notes"`
}

func section(b *strings.Builder, i int, s Section) error {
	esc := html.EscapeString
	c := s.Chart
	h2 := "witness"
	for _, bad := range []string{"VIOLATED", "DEADLOCK", "MODEL ERROR"} {
		if strings.HasPrefix(s.Title, bad) {
			h2 = "bad"
		}
	}
	fmt.Fprintf(b, "<section class=\"chart\" id=\"chart-%d\" data-step=\"0\" data-steps=\"%d\">\n<h2 class=\"%s\">%s</h2>\n", i, len(c.Steps)-1, h2, esc(s.Title))
	for _, l := range s.Lines {
		fmt.Fprintf(b, "<p>%s</p>\n", esc(l))
	}
	if len(s.Explanation) > 0 {
		b.WriteString("<div class=\"explain\"><h3>What the last state means</h3>\n<ul>\n")
		for _, l := range s.Explanation {
			fmt.Fprintf(b, "<li>%s</li>\n", esc(l))
		}
		b.WriteString("</ul></div>\n")
	}
	b.WriteString("<div class=\"nav\"><button class=\"first\" title=\"first step (Home)\">« first</button><button class=\"prev\" title=\"previous step (←)\">◀ prev</button><button class=\"next\" title=\"next step (→)\">next ▶</button><button class=\"last\" title=\"last step (End)\">last »</button> <span class=\"pos\"></span> <span class=\"act\"></span></div>\n")
	b.WriteString("<p class=\"legend\"><span class=\"k recv\">──▶</span> received <span class=\"k transit\">╌╌▷</span> in transit at the end <span class=\"k over\">──▶</span> overtakes an earlier message of its channel <span class=\"k lost\">╌╌✕</span> lost (its receiver crashed) · hover an arrow for its message</p>\n")
	b.WriteString("<div class=\"body\">\n<div class=\"svgbox\">\n")
	writeSVG(b, c)
	b.WriteString("</div>\n<div class=\"state\"><h3 class=\"sthead\"></h3><div class=\"notes\"></div><table class=\"vars\"></table></div>\n</div>\n")
	var data []stepData
	t := textChart{c: c}
	for k, st := range c.Steps {
		d := stepData{Action: st.Action, Notes: t.notes(k, st)}
		if k == 0 {
			d.Action = "initial state"
		}
		old := map[string]string{}
		for _, ch := range st.Changes {
			old[ch.Name] = ch.Old
		}
		for _, v := range st.State {
			o, changed := old[v.Name]
			if changed && o == "" {
				o = "(none)"
			}
			d.Vars = append(d.Vars, [3]string{v.Name, Format(v.Value), o})
		}
		data = append(data, d)
	}
	js, err := json.Marshal(data) // escapes <, > and &: safe inside a script
	if err != nil {
		return err
	}
	fmt.Fprintf(b, "<script type=\"application/json\" class=\"data\">%s</script>\n</section>\n", js)
	return nil
}

// SVG writes c as the inline SVG chart of the HTML page, with the same
// classes, for a page of one's own that styles it with Stylesheet (the
// interactive explorer draws the path so far with it).
func SVG(w io.Writer, c *Chart) error {
	var b strings.Builder
	writeSVG(&b, c)
	_, err := io.WriteString(w, b.String())
	return err
}

// Stylesheet returns the CSS of the HTML page, which styles the charts SVG
// writes.
func Stylesheet() string { return pageCSS }

func svgX(p int) int { return svgLabelW + svgColW/2 + p*svgColW }
func svgY(k int) int { return svgTop + svgRowH/2 + k*svgRowH }

func writeSVG(b *strings.Builder, c *Chart) {
	esc := html.EscapeString
	last := len(c.Steps) - 1
	transit := 0
	for _, m := range c.Messages {
		if m.InTransit() {
			transit = 1
		}
	}
	width := svgLabelW + c.N*svgColW + svgRight
	height := svgY(last) + svgRowH/2 + transit*svgRowH + 16
	fmt.Fprintf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"msc\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"ui-monospace, Menlo, Consolas, monospace\" font-size=\"12\">\n", width, height, width, height)
	b.WriteString(`<defs>
<marker id="head" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="headfill"/></marker>
<marker id="headover" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="headover"/></marker>
<marker id="open" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="11" markerHeight="11" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="white" stroke="#555" stroke-width="1.2"/></marker>
<marker id="lost" viewBox="0 0 10 10" refX="5" refY="5" markerUnits="userSpaceOnUse" markerWidth="12" markerHeight="12"><path d="M1,1 L9,9 M9,1 L1,9" stroke="#c0392b" stroke-width="2"/></marker>
</defs>
`)
	// rows: the highlight and the click targets
	for k := range c.Steps {
		fmt.Fprintf(b, "<rect class=\"row\" data-step=\"%d\" x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", k, svgY(k)-svgRowH/2, width, svgRowH)
	}
	if c.CycleStart > 0 {
		y0, y1 := svgY(c.CycleStart)-svgRowH/2, svgY(last)+svgRowH/2
		fmt.Fprintf(b, "<rect class=\"cycle\" x=\"2\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"6\"/>\n", y0, width-4, y1-y0)
		xr := width - 24
		fmt.Fprintf(b, "<path class=\"cycleback\" d=\"M%d,%d C%d,%d %d,%d %d,%d\" marker-end=\"url(#head)\"/>\n", xr-20, y1-6, xr+16, y1-6, xr+16, y0+6, xr-20, y0+6)
		fmt.Fprintf(b, "<text class=\"cyclelabel\" x=\"%d\" y=\"%d\" text-anchor=\"end\">cycle, repeated forever</text>\n", width-8, y0-4)
	}
	// the step labels
	for k, st := range c.Steps {
		a := st.Action
		if k == 0 {
			a = "initial state"
		}
		fmt.Fprintf(b, "<text class=\"lbl\" data-step=\"%d\" x=\"8\" y=\"%d\"><tspan class=\"num\">%d</tspan><tspan x=\"40\">%s</tspan></text>\n", k, svgY(k)+4, k, esc(a))
	}
	// the lifelines: solid while up, dashed while crashed
	bottom := height - 8
	for p := 0; p < c.N; p++ {
		x := svgX(p)
		fmt.Fprintf(b, "<g class=\"proc\"><rect class=\"phead\" x=\"%d\" y=\"8\" width=\"56\" height=\"24\" rx=\"4\"/><text class=\"pname\" x=\"%d\" y=\"25\" text-anchor=\"middle\">p%d</text>\n", x-28, x, p+1)
		for k := 0; k <= last; k++ {
			y0, y1 := svgY(k), svgY(k+1)
			if k == 0 {
				y0 = 32
			}
			if k == last {
				y1 = bottom
			}
			cls := "life"
			if c.Crashed[k][p] {
				cls = "life down"
			}
			fmt.Fprintf(b, "<line class=\"%s\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", cls, x, y0, x, y1)
		}
		b.WriteString("</g>\n")
	}
	// The step names drawn beside the lifelines, which message labels
	// keep clear of, as of each other.
	var taken []box
	for k, st := range c.Steps {
		if k > 0 && st.Actor >= 0 && st.Actor < c.N && (st.Kind == Local || st.Kind == Recover) {
			x, y := svgX(st.Actor), svgY(k)
			w := textW(shorten(st.Name, 14))
			taken = append(taken, box{x - 9 - w, y - 7, x - 9, y + 6}, box{x - 6, y - 6, x + 6, y + 6})
		}
	}
	// the messages
	bends := loopBends(c, last)
	for i, m := range c.Messages {
		x1, y1 := svgX(m.From), svgY(m.Sent)
		x2, y2 := svgX(m.To), endY(m, last)
		cls, marker := "msg", "url(#head)"
		endStep := -1
		switch {
		case m.Received >= 0:
			endStep = m.Received
		case m.Lost >= 0:
			endStep, cls, marker = m.Lost, "msg lost", "url(#lost)"
			if m.From != m.To {
				// Its cross short of the lifeline, clear of the step's dot.
				f := 1 - 12/float64(abs(x2-x1))
				x2, y2 = x1+int(f*float64(x2-x1)), svgY(m.Sent)+int(f*float64(y2-svgY(m.Sent)))
			}
		default:
			// Below the last step, as far as its receiver's lifeline,
			// dashed and with an open head: on its way, not received.
			cls, marker = "msg transit", "url(#open)"
		}
		if len(m.Overtakes) > 0 {
			cls, marker = cls+" overtake", "url(#headover)"
		}
		if m.Counted {
			cls += " counted"
		}
		title := fmt.Sprintf("m%d %s from p%d to p%d: sent in step %d", m.ID, m.Value, m.From+1, m.To+1, m.Sent)
		switch {
		case m.Received >= 0:
			title += fmt.Sprintf(", received in step %d", m.Received)
		case m.Lost >= 0:
			title += fmt.Sprintf(", lost in step %d", m.Lost)
		default:
			title += ", still in transit at the end"
		}
		for k, o := range m.Overtakes {
			if k == 0 {
				title += "; it overtakes"
			}
			title += fmt.Sprintf(" m%d", c.Messages[o].ID)
		}
		if m.Counted {
			title += "; counted by the metric"
		}
		fmt.Fprintf(b, "<g class=\"%s\" data-msg=\"%d\" data-sent=\"%d\" data-end=\"%d\"><title>%s</title>\n", cls, i, m.Sent, endStep, esc(title))
		label := shorten(m.Value, 18)
		w := textW(label)
		var lx, ly int
		anchor := "middle"
		if m.From == m.To {
			bend := bends[i]
			fmt.Fprintf(b, "<path d=\"M%d,%d C%d,%d %d,%d %d,%d\" fill=\"none\" marker-end=\"%s\"/>\n", x1, y1, x1+bend, y1, x1+bend, y2, x1+6, y2, marker)
			anchor = "start"
			var cands [][2]int
			for _, dy := range []int{0, -12, 12, -24, 24} {
				cands = append(cands, [2]int{x1 + bend*3/4, (y1+y2)/2 + 4 + dy})
			}
			lx, ly, taken = pickLabel(cands, w, 0, taken)
		} else {
			fmt.Fprintf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" marker-end=\"%s\"/>\n", x1, y1, x2, y2, marker)
			lx, ly, taken = placeLabel(x1, y1, x2, y2, w, taken)
		}
		fmt.Fprintf(b, "<text class=\"mlabel\" x=\"%d\" y=\"%d\" text-anchor=\"%s\">%s</text>\n</g>\n", lx, ly, anchor, esc(label))
	}
	// the events on the lifelines
	for k, st := range c.Steps {
		if k == 0 || st.Actor < 0 || st.Actor >= c.N {
			continue
		}
		x, y := svgX(st.Actor), svgY(k)
		for _, p := range st.With { // a shared action: joined to each partner
			fmt.Fprintf(b, "<line class=\"sync\" data-step=\"%d\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"currentColor\" stroke-width=\"3\"/>\n", k, x, y, svgX(p), y)
			fmt.Fprintf(b, "<circle class=\"ev\" data-step=\"%d\" cx=\"%d\" cy=\"%d\" r=\"5\"/>\n", k, svgX(p), y)
		}
		switch st.Kind {
		case Crash:
			fmt.Fprintf(b, "<path class=\"ev crash\" data-step=\"%d\" d=\"M%d,%d L%d,%d M%d,%d L%d,%d\"/>\n", k, x-7, y-7, x+7, y+7, x+7, y-7, x-7, y+7)
		default:
			cls := "ev"
			if st.Kind == Recover {
				cls = "ev recover"
			}
			fmt.Fprintf(b, "<circle class=\"%s\" data-step=\"%d\" cx=\"%d\" cy=\"%d\" r=\"5\"/>\n", cls, k, x, y)
		}
		if st.Kind == Local || st.Kind == Recover {
			fmt.Fprintf(b, "<text class=\"evname\" data-step=\"%d\" x=\"%d\" y=\"%d\">%s</text>\n", k, x-9, y+4, esc(shorten(st.Name, 14)))
		}
	}
	// The lifeline heads again, over everything, on a white band: the
	// page's script keeps them at the top of the chart's scrolled box, so
	// that a long chart still says which lifeline is which.
	fmt.Fprintf(b, "<g class=\"heads\"><rect class=\"headbg\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\"/>\n", width, svgHeadH)
	for p := 0; p < c.N; p++ {
		x := svgX(p)
		fmt.Fprintf(b, "<rect class=\"phead\" x=\"%d\" y=\"8\" width=\"56\" height=\"24\" rx=\"4\"/><text class=\"pname\" x=\"%d\" y=\"25\" text-anchor=\"middle\">p%d</text>\n", x-28, x, p+1)
	}
	b.WriteString("</g>\n</svg>\n")
}

// endY returns the height at which the arrow of m ends: the row of the
// step that received or lost it, or below the last step (row last) while
// it is in transit.
func endY(m Message, last int) int {
	switch {
	case m.Received >= 0:
		return svgY(m.Received)
	case m.Lost >= 0:
		return svgY(m.Lost)
	}
	return svgY(last) + svgRowH*3/4
}

// loopBends returns the width of each loop to oneself (by message index):
// loops of one process that overlap in time are nested, each wider than
// every shorter one it overlaps, so that a loop drawn inside another stays
// inside it.
func loopBends(c *Chart, last int) map[int]int {
	type loop struct{ i, proc, y1, y2 int }
	var loops []loop
	for i, m := range c.Messages {
		if m.From != m.To {
			continue
		}
		loops = append(loops, loop{i, m.From, svgY(m.Sent), endY(m, last)})
	}
	sort.SliceStable(loops, func(a, b int) bool { return loops[a].y2-loops[a].y1 < loops[b].y2-loops[b].y1 })
	bends := map[int]int{}
	for k, l := range loops {
		bend := 46
		for _, o := range loops[:k] {
			if o.proc == l.proc && o.y1 <= l.y2 && l.y1 <= o.y2 && bends[o.i]+14 > bend {
				bend = bends[o.i] + 14
			}
		}
		bends[l.i] = bend
	}
	return bends
}

// box is a rectangle of the chart, for keeping labels apart.
type box struct{ x0, y0, x1, y1 int }

func (a box) overlaps(b box) bool { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 }

// textW estimates the width of a label in the chart's small monospace
// font (10.5 px, about 6.3 px a character).
func textW(s string) int { return len([]rune(s))*63/10 + 2 }

// placeLabel places the label, w wide, of the arrow from (x1,y1) to
// (x2,y2) on the arrow, clear of the boxes taken: halfway to the next
// lifeline if there is room, else halfway between two later lifelines,
// else a quarter of a column before or after those points, else at one of
// those points below the arrow, else where it overlaps least. It returns the label's position (its middle, on the
// baseline) and taken with the label's box added.
func placeLabel(x1, y1, x2, y2, w int, taken []box) (int, int, []box) {
	span, dir := abs(x2-x1), 1
	if x2 < x1 {
		dir = -1
	}
	var ds []int
	for _, shift := range []int{0, -svgColW / 4, svgColW / 4} {
		for d := svgColW / 2; d < span; d += svgColW {
			if d+shift > 12 && d+shift < span-12 {
				ds = append(ds, d+shift)
			}
		}
	}
	if len(ds) == 0 {
		ds = []int{span / 2}
	}
	var cands [][2]int
	for _, below := range []int{0, 14} { // above the arrow, else below it
		for _, d := range ds {
			cands = append(cands, [2]int{x1 + dir*d, y1 + (y2-y1)*d/span - 4 + below})
		}
	}
	return pickLabel(cands, w, w/2, taken)
}

// pickLabel returns the first of the candidate positions cands (x, y of
// the baseline) of a label w wide, starting left of x, whose box is
// clear of those taken, or else the one that overlaps fewest; and taken
// with that box added.
func pickLabel(cands [][2]int, w, left int, taken []box) (int, int, []box) {
	best, bestN := 0, -1
	var bb box
	for k, c := range cands {
		b := box{c[0] - left, c[1] - 10, c[0] - left + w, c[1] + 3}
		n := 0
		for _, t := range taken {
			if b.overlaps(t) {
				n++
			}
		}
		if bestN < 0 || n < bestN {
			best, bestN, bb = k, n, b
		}
		if n == 0 {
			break
		}
	}
	return cands[best][0], cands[best][1], append(taken, bb)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
