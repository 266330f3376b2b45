package cli

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// chromium returns the headless browser to test the HTML charts with. The
// test skips without one, except in CI (env CI set), where .ci/run
// installs it.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed, and CI is set: .ci/run installs it (apt-get install -y chromium)")
	}
	t.Skip("chromium is not installed: the browser test of the HTML charts is skipped (apt-get install -y chromium)")
	return ""
}

// headless runs the browser on a page with the given extra arguments and
// returns its standard output.
func headless(t *testing.T, browser, url string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--hide-scrollbars", "--user-data-dir=" + t.TempDir()}, args...)
	cmd := exec.CommandContext(ctx, browser, append(all, url)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", browser, args, err, errb.String())
	}
	return out.String()
}

// TestHTMLChartInBrowser opens the chart of maekawa-basic --n 3 in
// headless Chromium: the page renders an SVG with one lifeline per
// process, the buttons and arrow keys move the highlighted step, and a
// screenshot is a real picture.
func TestHTMLChartInBrowser(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a browser twice, ~10 s: skipped with -short (the full suite runs it)")
	}
	browser := chromium(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "maekawa-basic.html")
	if code, _, stderr := vacheck("check", "maekawa-basic", "--n", "3", "--workers", "2", "--html", file); code != exitViolated {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	url := "file://" + file

	// The page opens at the last step (a key it ignores records it); the
	// buttons and the arrow keys move the highlighted step; the page's
	// test hook records the step after each press.
	press := "key:Shift,first,next,next,key:ArrowRight,key:ArrowLeft,next,last,next,prev,key:Home,prev,key:End,first,key:ArrowDown,next"
	trail := "12,0,1,2,3,2,3,12,12,11,0,0,12,0,1,2"
	dom := headless(t, browser, url+"#press="+press, "--dump-dom", "--virtual-time-budget=2000")
	if !strings.Contains(dom, "<svg") {
		t.Fatalf("no SVG in the rendered page")
	}
	if n := strings.Count(dom, `<g class="proc">`); n != 3 {
		t.Errorf("%d lifelines, want 3 (one per process)", n)
	}
	if got := regexp.MustCompile(`data-trail="([^"]*)"`).FindStringSubmatch(dom); got == nil || got[1] != trail {
		t.Errorf("steps after the presses %s: %v, want %s", press, got, trail)
	}
	sec := regexp.MustCompile(`<section class="chart active" id="chart-0" data-step="(\d+)"`).FindStringSubmatch(dom)
	if sec == nil || sec[1] != "2" {
		t.Errorf("chart step %v, want 2", sec)
	}
	cur := regexp.MustCompile(`<rect class="row cur" data-step="(\d+)"`).FindAllStringSubmatch(dom, -1)
	if len(cur) != 1 || cur[0][1] != "2" {
		t.Errorf("highlighted rows %v, want the one of step 2", cur)
	}
	for _, want := range []string{`<span class="pos">step 2 / 12</span>`, "State after step 2: request_{2}", `chg"><td>p2.ust</td>`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page does not show %q after the presses", want)
		}
	}

	shot := filepath.Join(dir, "shot.png")
	headless(t, browser, url+"#press=first,next,next,next,next", "--screenshot="+shot, "--window-size=1400,1000", "--virtual-time-budget=2000")
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	b := img.Bounds()
	if b.Dx() < 800 || b.Dy() < 600 {
		t.Errorf("screenshot %v, want 1400x1000", b)
	}
	colours := map[[3]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
		}
	}
	if len(colours) < 8 {
		t.Errorf("the screenshot has %d colours: nothing rendered?", len(colours))
	}
	if out := os.Getenv("VACHECK_SCREENSHOT"); out != "" {
		os.WriteFile(out, data, 0o644)
	}
}

// TestHTMLLongChartInBrowser opens a long chart, the 30-step witness of
// chang-roberts --n 5 --ids decreasing --metric messages, in a 1400×1000
// window: the page opens at the verdicts (not scrolled to the chart's last
// step), the chart's own box scrolls so that the selected step's row is in
// view below the lifeline heads, and the heads stay at the top of the box
// however far it is scrolled. The page's test hook reports where things
// are (data-view).
func TestHTMLLongChartInBrowser(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a browser twice, ~5 s: skipped with -short (the full suite runs it)")
	}
	browser := chromium(t)
	file := filepath.Join(t.TempDir(), "long.html")
	if code, _, stderr := vacheck("check", "chang-roberts", "--n", "5", "--ids", "decreasing", "--property", "uniqueness", "--metric", "messages", "--workers", "2", "--html", file); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	view := regexp.MustCompile(`data-view="page=(\d+) verdicts=(\w+) box=(\w+) boxtop=(\d+) row=(\w+) heads=(-?\d+)"`)
	for _, tc := range []struct {
		press  string
		boxtop func(int) bool
	}{
		{"key:Shift", func(top int) bool { return top > 0 }}, // opens at the last step, 30: the box scrolled to it
		{"key:End,first,next", func(top int) bool { return top == 0 }},
	} {
		dom := headless(t, browser, "file://"+file+"#press="+tc.press, "--dump-dom", "--window-size=1400,1000", "--virtual-time-budget=2000")
		m := view.FindStringSubmatch(dom)
		if m == nil {
			t.Fatalf("%s: the page reports no view", tc.press)
		}
		page, _ := strconv.Atoi(m[1])
		top, _ := strconv.Atoi(m[4])
		heads, _ := strconv.Atoi(m[6])
		if page != 0 || m[2] != "in" {
			t.Errorf("%s: page scrolled to %d, verdicts %s; want the page at the top with the verdicts in view", tc.press, page, m[2])
		}
		if m[3] != "scrolls" || !tc.boxtop(top) {
			t.Errorf("%s: chart box %s, scrolled to %d", tc.press, m[3], top)
		}
		if m[5] != "in" {
			t.Errorf("%s: the selected step's row is not in view in the chart's box (scrolled to %d)", tc.press, top)
		}
		if heads < 0 || heads > 2 {
			t.Errorf("%s: the lifeline heads are %d px from the top of the chart's box; want them stuck there", tc.press, heads)
		}
	}
}
