package cli

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vacheck/vacheck/explorer"
)

// TestProgressRateIsSmooth feeds the progress line a BFS on a fake clock
// (Progress.Elapsed): it expands 100,000 states a second, stores each
// level at once when the level is expanded (States jumps, and stays put in
// between), and spends one 3 s interval storing a wide level without
// expanding any state. Every rate printed stays within a factor of two of
// the true one: it neither reads 0/s between merges nor a burst at them
// (issue 34 item 7: chang-roberts --n 64 swung between 0/s and 254,128/s).
func TestProgressRateIsSmooth(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	line := progressLine(&b)
	const perSecond = 100_000
	var explored, states int64 = 0, 1
	level, left := 0, int64(1) // the level under way and its states not yet expanded
	next := int64(0)           // the states of the level after it, found so far
	for tick := 1; tick <= 40; tick++ {
		if tick != 20 { // tick 20: storing, nothing expanded
			work := int64(3 * perSecond)
			for work > 0 {
				n := min(work, left)
				work, left, explored = work-n, left-n, explored+n
				next += 4 * n // each state has four new successors
				if left == 0 {
					// The level is expanded: the next is stored at once.
					states += next
					level, left, next = level+1, next, 0
				}
			}
		}
		line(explorer.Progress{Strategy: explorer.BFS, States: states, Explored: explored, Depth: level, Queue: left,
			Elapsed: time.Duration(tick) * 3 * time.Second, Memory: 1 << 30})
	}
	re := regexp.MustCompile(`states \(([0-9,]+)/s\)`)
	rates := re.FindAllStringSubmatch(b.String(), -1)
	if len(rates) != 40 {
		t.Fatalf("%d rates in the lines, want 40:\n%s", len(rates), b.String())
	}
	for k, m := range rates {
		r, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		if err != nil {
			t.Fatal(err)
		}
		if r < perSecond/2 || r > 2*perSecond {
			t.Errorf("line %d: %d/s, want between %d and %d:\n%s", k+1, r, perSecond/2, 2*perSecond, b.String())
			break
		}
	}
}
