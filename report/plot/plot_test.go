package plot

import (
	"encoding/xml"
	"math"
	"slices"
	"strings"
	"testing"
)

// wellFormed parses an SVG as XML, failing the test if it is not.
func wellFormed(t *testing.T, svg string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		_, err := d.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("not well-formed XML: %v\n%s", err, svg)
			}
			return
		}
	}
}

func TestHistogram(t *testing.T) {
	svg := Histogram("messages over 1,000 runs", "messages", []Bar{{1, 1, 10}, {2, 3, 500}, {4, 4, 490}})
	wellFormed(t, svg)
	if got := strings.Count(svg, `class="bar"`); got != 3 {
		t.Errorf("%d bars, want 3", got)
	}
	for _, want := range []string{"<title>2–3: 500 runs</title>", "<title>1: 10 runs</title>", ">messages over 1,000 runs<", ">runs<", ">500<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("no %q in\n%s", want, svg)
		}
	}
	wellFormed(t, Histogram("<none> & more", "x", nil))
}

func TestCurves(t *testing.T) {
	xs := []float64{4, 8, 16}
	svg := Curves("chang-roberts", "N", "messages", []Series{
		{Name: "mean", X: xs, Y: []float64{8.3, 21.7, 54}},
		{Name: "N·H_N", X: xs, Y: []float64{8.33, 21.74, 54.09}, Formula: true},
		{Name: "gap", X: xs, Y: []float64{1, math.NaN(), 3}, Formula: true},
	}, []Band{{Name: "min–max", X: xs, Lo: []float64{7, 15, 31}, Hi: []float64{10, 36, 136}}})
	wellFormed(t, svg)
	if got := strings.Count(svg, `class="series"`); got != 3 {
		t.Errorf("%d series, want 3", got)
	}
	if got := strings.Count(svg, "<circle"); got != 3 {
		t.Errorf("%d markers, want one per measured point", got)
	}
	if !strings.Contains(svg, `stroke-dasharray`) || !strings.Contains(svg, "N·H_N") || !strings.Contains(svg, `class="band"`) {
		t.Errorf("formula dashed, legend and band missing:\n%s", svg)
	}
	// The NaN splits the path in two.
	i := strings.Index(svg, "<title>gap</title>")
	path := svg[strings.LastIndex(svg[:i], "<path"):i]
	if strings.Count(path, "M") != 2 {
		t.Errorf("a NaN point does not break the curve: %s", path)
	}
	wellFormed(t, Curves("empty", "N", "y", nil, nil))
	// A formula far above what was measured does not set the y axis: it
	// is cut at the edge (ticks up to 2,000, not to 32,896).
	ns := []float64{4, 16, 64, 256}
	svg = Curves("wide", "N", "messages", []Series{
		{Name: "mean", X: ns, Y: []float64{8, 54, 304, 1568}},
		{Name: "max", X: ns, Y: []float64{10, 136, 2080, 32896}, Formula: true},
	}, nil)
	wellFormed(t, svg)
	if !strings.Contains(svg, ">2,000<") || strings.Contains(svg, ">30,000<") || !strings.Contains(svg, `clip-path="url(#area)"`) {
		t.Errorf("the y axis does not span what was measured:\n%s", svg)
	}
	// N from 4 to 256: a logarithmic x axis, ticks at powers of two.
	if !strings.Contains(svg, "N (logarithmic)") || !strings.Contains(svg, ">128<") || strings.Contains(svg, ">50<") {
		t.Errorf("no logarithmic x axis:\n%s", svg)
	}
}

func TestPowers(t *testing.T) {
	if got := powers(4, 256); !slices.Equal(got, []float64{4, 8, 16, 32, 64, 128, 256}) {
		t.Errorf("powers(4, 256) = %v", got)
	}
	if got := powers(3, 5000); !slices.Equal(got, []float64{2, 8, 32, 128, 512, 2048, 8192}) {
		t.Errorf("powers(3, 5000) = %v", got)
	}
}

func TestTicks(t *testing.T) {
	for _, tt := range []struct {
		lo, hi float64
		n      int
		want   []float64
	}{
		{0, 100, 5, []float64{0, 20, 40, 60, 80, 100}},
		{0, 9, 5, []float64{0, 2, 4, 6, 8, 10}},
		{4, 256, 8, []float64{0, 50, 100, 150, 200, 250, 300}},
		{0, 0.7, 6, []float64{0, 0.2, 0.4, 0.6000000000000001, 0.8}},
	} {
		if got := ticks(tt.lo, tt.hi, tt.n); !slices.Equal(got, tt.want) {
			t.Errorf("ticks(%v, %v, %d) = %v, want %v", tt.lo, tt.hi, tt.n, got, tt.want)
		}
	}
	for v, want := range map[float64]string{1200: "1,200", 0.6000000000000001: "0.6", 2.5: "2.5", 303.9412: "303.94", -4: "-4"} {
		if got := format(v); got != want {
			t.Errorf("format(%v) = %q, want %q", v, got, want)
		}
	}
}
