package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/report"
)

// defaultProgressEvery is how often a running check prints a progress
// line on stderr, whether or not stderr is a terminal.
const defaultProgressEvery = 3 * time.Second

// progressEveryKey is the context key of another interval between
// progress lines (withProgressEvery).
type progressEveryKey struct{}

// withProgressEvery returns a copy of ctx under which a run prints a
// progress line every d instead of defaultProgressEvery: tests shorten it
// to see lines at once, or lengthen it so that no line spoils a comparison
// of stderr. A context value rather than a package variable, so that tests
// running in parallel each have their own.
func withProgressEvery(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, progressEveryKey{}, d)
}

// progressEvery returns how often a run under ctx prints a progress line.
func progressEvery(ctx context.Context) time.Duration {
	if d, ok := ctx.Value(progressEveryKey{}).(time.Duration); ok {
		return d
	}
	return defaultProgressEvery
}

// rateWindow is the time constant of the rate a progress line shows: an
// average of the rates since the lines before, weighted down by e every
// rateWindow, so that one interval without a new state (a level being
// stored) does not read as 0/s, nor the next as a burst.
const rateWindow = 10 * time.Second

// progressLine returns the explorer's Progress callback: one line per call
// with the states, the rate, the BFS level (with how much of it is
// expanded) or DFS depth, the queue of states waiting, the memory and the
// fingerprint collision estimate, e.g.
//
//	vacheck: 6s  1,234,567 states (205,761/s)  level 14, 40% expanded  queue 45,678  512.3 MiB  collision 4.1e-08
//
// After the search, while the state graph for liveness is built and
// checked, it says so instead:
//
//	vacheck: 9s  2,345,678 states searched; building the state graph for liveness  1.2 GiB
//
// and while it looks for a counterexample without overtaking (a model
// with unordered channels), how far that search of the model with ordered
// channels is:
//
//	vacheck: 4s  1,954,120 states searched; looking for a counterexample without overtaking: 812,345 states with ordered channels, level 11 of 16  410.2 MiB
//
// The rate is of the states expanded (Progress.Explored), which grows as
// the search works, smoothed over about rateWindow: a BFS stores a level's
// states all at once, so a rate of States swung between 0/s while a wide
// level was expanded and hundreds of thousands per second as it merged.
func progressLine(w io.Writer) func(explorer.Progress) {
	var last explorer.Progress
	rate, rated := 0.0, false
	return func(p explorer.Progress) {
		if p.Phase == explorer.FindingInOrder && p.InOrder != nil {
			in := p.InOrder
			fmt.Fprintf(w, "vacheck: %.0fs  %s states searched; %s: %s states with ordered channels, level %d of %d  %s\n",
				p.Elapsed.Seconds(), report.Group(p.States), p.Phase, report.Group(in.States), in.Depth, in.MaxDepth, report.FormatBytes(p.Memory))
			return
		}
		if p.Phase != explorer.Searching {
			fmt.Fprintf(w, "vacheck: %.0fs  %s states searched; %s  %s\n",
				p.Elapsed.Seconds(), report.Group(p.States), p.Phase, report.FormatBytes(p.Memory))
			return
		}
		// Never backwards: a report read as a level begins may undercount.
		p.Explored = max(p.Explored, last.Explored)
		if dt := (p.Elapsed - last.Elapsed).Seconds(); dt > 0 {
			now := float64(p.Explored-last.Explored) / dt
			if !rated {
				rate, rated = now, true // the first: the average since the start
			} else {
				rate += (1 - math.Exp(-dt/rateWindow.Seconds())) * (now - rate)
			}
		}
		last = p
		where := fmt.Sprintf("level %d", p.Depth)
		if p.Strategy == explorer.DFS {
			where = fmt.Sprintf("depth %d", p.Depth)
		} else if p.Queue > 0 {
			// States grow a level at a time: how far the level is says
			// that a wide one is under way.
			where += fmt.Sprintf(", %d%% expanded", min(99, 100*p.Expanded/p.Queue))
		}
		collision := (&explorer.Result{States: p.States}).CollisionProbability()
		fmt.Fprintf(w, "vacheck: %.0fs  %s states (%s/s)  %s  queue %s  %s  collision %.1e\n",
			p.Elapsed.Seconds(), report.Group(p.States), report.Group(int64(rate)), where, report.Group(p.Queue), report.FormatBytes(p.Memory), collision)
	}
}

// signalEcho is how long after a first interrupt another one counts as the
// same: a second signal to quit at once must come later than that.
const signalEcho = time.Second

// interruptible returns a context that SIGINT or SIGTERM cancels with the
// cause "interrupted by SIGINT" (or SIGTERM), so that the explorer stops
// as on a timeout and the report of what was explored is printed. A second
// signal, more than signalEcho after the first, ends the process at once
// with exit code 3 and no report. stop releases the signals.
func interruptible(parent context.Context, stderr io.Writer) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			name := "SIGTERM"
			if sig == syscall.SIGINT {
				name = "SIGINT"
			}
			fmt.Fprintf(stderr, "vacheck: %s, stopping and writing the report of what was explored (again, a second later, to quit at once)\n", name)
			cancel(fmt.Errorf("interrupted by %s", name))
			first, echoed := time.Now(), false
			for {
				select {
				case <-ch:
					if time.Since(first) < signalEcho {
						// The same interrupt delivered twice: timeout(1)
						// signals its child, then the child's process group.
						if !echoed {
							fmt.Fprintln(stderr, "vacheck: a second signal at once, taken as the same interrupt (again, a second later, to quit at once)")
							echoed = true
						}
						continue
					}
					// A second signal: quit at once, still with a documented
					// exit code (incomplete), not the shell's 130.
					fmt.Fprintln(stderr, "vacheck: quitting at once; no report")
					os.Exit(exitIncomplete)
				case <-done:
					return
				}
			}
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}
