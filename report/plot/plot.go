// Package plot draws the figures of a simulation as self-contained SVG: a
// histogram of a metric over the runs, and curves of a metric against N
// next to the formulas a spec declares. The SVG has no script and no
// external reference, so it can be inlined into an HTML page or saved as
// a file.
package plot

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// Geometry of a figure, in pixels.
const (
	width   = 720
	height  = 360
	marginL = 70
	marginR = 20
	marginT = 34
	marginB = 50
)

// Bar is one bar of a histogram: the runs that measured Lo to Hi.
type Bar struct {
	Lo, Hi int64
	Count  int64
}

// Histogram returns an SVG bar chart of bars, titled title, with the
// measured values on the x axis (named xLabel) and the runs on the y axis.
func Histogram(title, xLabel string, bars []Bar) string {
	var b strings.Builder
	open(&b, title)
	if len(bars) == 0 {
		text(&b, width/2, height/2, "middle", "nothing to draw: no run was measured")
		b.WriteString("</svg>\n")
		return b.String()
	}
	top := int64(0)
	for _, bar := range bars {
		top = max(top, bar.Count)
	}
	ys := ticks(0, float64(top), 5)
	ymax := ys[len(ys)-1]
	pw, ph := float64(width-marginL-marginR), float64(height-marginT-marginB)
	bw := pw / float64(len(bars))
	y := func(v float64) float64 { return float64(marginT) + ph*(1-v/ymax) }
	yAxis(&b, ys, y, "runs")
	for i, bar := range bars {
		x := float64(marginL) + bw*float64(i)
		label := strconv.FormatInt(bar.Lo, 10)
		if bar.Hi != bar.Lo {
			label += "–" + strconv.FormatInt(bar.Hi, 10)
		}
		fmt.Fprintf(&b, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#1f6feb\"><title>%s: %d run%s</title></rect>\n",
			x+1, y(float64(bar.Count)), max(bw-2, 1), y(0)-y(float64(bar.Count)), html.EscapeString(label), bar.Count, plural(bar.Count))
		// Label every bar when they are few, else about eight of them.
		if every := max(1, len(bars)/8); i%every == 0 {
			text(&b, x+bw/2, float64(height-marginB+16), "middle", strconv.FormatInt(bar.Lo, 10))
		}
	}
	axisLine(&b)
	text(&b, float64(marginL)+pw/2, float64(height-10), "middle", xLabel)
	b.WriteString("</svg>\n")
	return b.String()
}

// Series is a curve through the points (X[i], Y[i]): measured figures, drawn
// with a marker at each point, or a formula, drawn dashed. A NaN Y leaves
// a gap.
type Series struct {
	Name    string
	X, Y    []float64
	Formula bool
}

// Band is a shaded range between Lo[i] and Hi[i] at X[i], such as the
// measured minimum and maximum.
type Band struct {
	Name      string
	X, Lo, Hi []float64
}

// palette colours the series in order.
var palette = []string{"#1f6feb", "#b42318", "#15803d", "#9a3412", "#6d28d9", "#0e7490", "#a16207"}

// Curves returns an SVG line chart of series over bands, titled title, with
// the x axis named xLabel and the y axis yLabel, and a legend. The y axis
// spans what was measured (the series that are not formulas, and the
// bands): a formula that leaves it, such as a worst case far above the
// average, is cut at the edge. When the x values span a factor of 16 or
// more, such as N = 4, 8, ..., 256, the x axis is logarithmic (base 2).
func Curves(title, xLabel, yLabel string, series []Series, bands []Band) string {
	var b strings.Builder
	open(&b, title)
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), 0.0, math.Inf(-1)
	measured := false
	see := func(x, y float64, formula bool) {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return
		}
		xlo, xhi = min(xlo, x), max(xhi, x)
		if !formula || !measured {
			ylo, yhi = min(ylo, y), max(yhi, y)
		}
	}
	for _, s := range series {
		measured = measured || !s.Formula && len(s.X) > 0
	}
	for _, bd := range bands {
		measured = measured || len(bd.X) > 0
	}
	for _, s := range series {
		for i := range s.X {
			see(s.X[i], s.Y[i], s.Formula)
		}
	}
	for _, bd := range bands {
		for i := range bd.X {
			see(bd.X[i], bd.Lo[i], false)
			see(bd.X[i], bd.Hi[i], false)
		}
	}
	if math.IsInf(xlo, 1) {
		text(&b, width/2, height/2, "middle", "nothing to draw")
		b.WriteString("</svg>\n")
		return b.String()
	}
	if xhi == xlo {
		xlo, xhi = xlo-1, xhi+1
	}
	logX := xlo > 0 && xhi/xlo >= 16
	var xs []float64
	scale := func(v float64) float64 { return v }
	if logX {
		scale = math.Log2
		xs = powers(xlo, xhi)
		xLabel += " (logarithmic)"
	} else {
		xs = ticks(xlo, xhi, 8)
	}
	ys := ticks(ylo, yhi, 6)
	xlo, xhi, ylo, yhi = xs[0], xs[len(xs)-1], ys[0], ys[len(ys)-1]
	pw, ph := float64(width-marginL-marginR), float64(height-marginT-marginB)
	x := func(v float64) float64 { return float64(marginL) + pw*(scale(v)-scale(xlo))/(scale(xhi)-scale(xlo)) }
	y := func(v float64) float64 { return float64(marginT) + ph*(1-(v-ylo)/(yhi-ylo)) }
	// Formulas that leave the y axis are cut at the plot's edge.
	fmt.Fprintf(&b, "<defs><clipPath id=\"area\"><rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\"/></clipPath></defs>\n", marginL, marginT, pw, ph)
	yAxis(&b, ys, y, yLabel)
	for _, t := range xs {
		fmt.Fprintf(&b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e5e7eb\"/>\n", x(t), marginT, x(t), height-marginB)
		text(&b, x(t), float64(height-marginB+16), "middle", format(t))
	}
	for k, bd := range bands {
		var pts []string
		for i := range bd.X {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(bd.X[i]), y(bd.Hi[i])))
		}
		for i := len(bd.X) - 1; i >= 0; i-- {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(bd.X[i]), y(bd.Lo[i])))
		}
		fmt.Fprintf(&b, "<polygon class=\"band\" points=\"%s\" fill=\"%s\" fill-opacity=\"0.15\" stroke=\"none\"><title>%s</title></polygon>\n",
			strings.Join(pts, " "), palette[k%len(palette)], html.EscapeString(bd.Name))
	}
	for k, s := range series {
		colour := palette[k%len(palette)]
		dash := ""
		if s.Formula {
			dash = " stroke-dasharray=\"6 4\""
		}
		var path strings.Builder
		pen := "M"
		for i := range s.X {
			if math.IsNaN(s.Y[i]) || math.IsInf(s.Y[i], 0) {
				pen = "M"
				continue
			}
			fmt.Fprintf(&path, "%s%.1f,%.1f ", pen, x(s.X[i]), y(s.Y[i]))
			pen = "L"
		}
		fmt.Fprintf(&b, "<path class=\"series\" d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s clip-path=\"url(#area)\"><title>%s</title></path>\n",
			strings.TrimSpace(path.String()), colour, dash, html.EscapeString(s.Name))
		if !s.Formula {
			for i := range s.X {
				if !math.IsNaN(s.Y[i]) && !math.IsInf(s.Y[i], 0) {
					fmt.Fprintf(&b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s at %s: %s</title></circle>\n",
						x(s.X[i]), y(s.Y[i]), colour, html.EscapeString(s.Name), format(s.X[i]), format(s.Y[i]))
				}
			}
		}
		// The legend, top left.
		ly := float64(marginT + 14 + 18*k)
		fmt.Fprintf(&b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/>\n", marginL+10, ly-4, marginL+34, ly-4, colour, dash)
		text(&b, marginL+40, ly, "start", s.Name)
	}
	for k, bd := range bands {
		ly := float64(marginT + 14 + 18*(len(series)+k))
		fmt.Fprintf(&b, "<rect x=\"%d\" y=\"%.1f\" width=\"24\" height=\"10\" fill=\"%s\" fill-opacity=\"0.15\"/>\n", marginL+10, ly-10, palette[k%len(palette)])
		text(&b, marginL+40, ly, "start", bd.Name)
	}
	axisLine(&b)
	text(&b, float64(marginL)+pw/2, float64(height-10), "middle", xLabel)
	b.WriteString("</svg>\n")
	return b.String()
}

// powers returns the powers of two from at most lo to at least hi, every
// other one when there would be more than ten.
func powers(lo, hi float64) []float64 {
	a, z := math.Floor(math.Log2(lo)), math.Ceil(math.Log2(hi))
	step := 1.0
	if z-a > 10 {
		step = 2
	}
	var out []float64
	for e := a; ; e += step {
		out = append(out, math.Exp2(e))
		if e >= z {
			return out
		}
	}
}

func open(b *strings.Builder, title string) {
	fmt.Fprintf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"system-ui, sans-serif\" font-size=\"12\">\n", width, height, width, height)
	fmt.Fprintf(b, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height)
	text(b, width/2, 20, "middle", title)
}

func yAxis(b *strings.Builder, ys []float64, y func(float64) float64, label string) {
	for _, t := range ys {
		fmt.Fprintf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e5e7eb\"/>\n", marginL, y(t), width-marginR, y(t))
		text(b, marginL-6, y(t)+4, "end", format(t))
	}
	fmt.Fprintf(b, "<text x=\"16\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 16 %d)\">%s</text>\n", (marginT+height-marginB)/2, (marginT+height-marginB)/2, html.EscapeString(label))
}

func axisLine(b *strings.Builder) {
	fmt.Fprintf(b, "<path d=\"M%d,%d V%d H%d\" fill=\"none\" stroke=\"#374151\"/>\n", marginL, marginT, height-marginB, width-marginR)
}

func text[N int | float64](b *strings.Builder, x, y N, anchor, s string) {
	fmt.Fprintf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n", float64(x), float64(y), anchor, html.EscapeString(s))
}

// ticks returns about n round values (1, 2 or 5 times a power of ten
// apart) from at most lo to at least hi.
func ticks(lo, hi float64, n int) []float64 {
	if hi <= lo {
		hi = lo + 1
	}
	raw := (hi - lo) / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * p
	for _, m := range []float64{1, 2, 5} {
		if m*p >= raw {
			step = m * p
			break
		}
	}
	var out []float64
	for k := math.Floor(lo / step); ; k++ {
		t := k * step
		out = append(out, t)
		if t >= hi-step*1e-9 {
			return out
		}
	}
}

// format writes a tick or value with at most two decimals and no
// trailing zeros: 2, 2.5, 0.25, 1,200.
func format(v float64) string {
	r := math.Round(v*100) / 100
	if r == math.Trunc(r) && math.Abs(r) < 1e15 {
		return group(int64(r))
	}
	return strings.TrimRight(strconv.FormatFloat(r, 'f', 2, 64), "0")
}

func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}
