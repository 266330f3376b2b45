package specs

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// TestSinghalMessages pins total messages over complete executions:
// docs/algorithms/singhal.md says 0 ... N per entry. A lone requester k sends
// its REQUEST to the processes j < k of its staircase (SV[j] = R), and the
// token comes back in one message: k messages, from 0 (process 1, the holder)
// to N (process N: N-1 REQUESTs + 1 TOKEN). With everyone requesting once: 2
// ... 4 at N=2, 5 ... 9 at N=3, 9 ... 16 at N=4 (regression values; the maximum
// N·N is N per entry).
func TestSinghalMessages(t *testing.T) {
	t.Parallel()
	type span struct {
		flags    map[string]string
		min, max int
	}
	var cases []span
	for n := 2; n <= 4; n++ {
		ns := fmt.Sprint(n)
		for k := 1; k <= n; k++ {
			cases = append(cases, span{map[string]string{"n": ns, "requesters": fmt.Sprint(k)}, k, k})
		}
		cases[len(cases)-n].min, cases[len(cases)-n].max = 0, 0 // process 1 holds the token
		cases = append(cases, span{map[string]string{"n": ns, "requesters": "1", "requests": "3"}, 0, 0})
	}
	cases = append(cases,
		span{map[string]string{"n": "2"}, 2, 4},
		span{map[string]string{"n": "3"}, 5, 9},
		span{map[string]string{"n": "4"}, 9, 16})
	for _, c := range cases {
		t.Run(fmt.Sprint(c.flags), func(t *testing.T) {
			r := check(t, "singhal", c.flags, explorer.Config{Metrics: []string{"messages"}, Properties: []string{}})
			if m := r.Metrics[0]; m.Min != int64(c.min) || m.Max != int64(c.max) || m.Unbounded {
				t.Errorf("messages min %d max %d; want %d, %d", m.Min, m.Max, c.min, c.max)
			}
		})
	}
}

// TestSinghalTwoRequests pins the finding that Singhal's algorithm as
// published (the section's rules, which are those of Singhal & Shivaratri
// 1994) deadlocks when processes request more than once. At N=3 with two
// requests each: process 3's staircase SV[2]=R is overwritten at its exit
// by the token's SV[2]=N (equal numbers), its second REQUEST goes only to
// process 1, which gets it after it has passed the token to 2 and, in state
// N, only records it; 2 ends as the idle holder knowing nothing of it (its
// late copy of 3's first REQUEST is outdated). The same happens with three
// requests each at N=3 and with two at N=4 (found depth first). GA1 and
// TOKEN-1 still hold over the whole graph (testdata/counts/singhal.txt);
// GA2 and GA2' fail with the deadlock.
func TestSinghalTwoRequests(t *testing.T) {
	t.Parallel()
	dlf := []string{properties.DeadlockFreedom}
	for _, cfg := range []explorer.Config{{Workers: 1, Properties: dlf}, {Workers: 2, Properties: dlf}} {
		r := check(t, "singhal", map[string]string{"n": "3", "requests": "2"}, cfg)
		if r.Status != explorer.Violated || len(r.Violations[0].Trace.Steps) != 24 {
			t.Fatalf("workers=%d: status %v %v; want a deadlock in 24 steps", cfg.Workers, r.Status, r.Violations)
		}
		expl := strings.Join(r.Violations[0].Trace.Explanation, "\n")
		for _, line := range []string{"process 2 is idle, SV [N,H,N], holds the token", "process 3 is trying, SV [R,N,R]"} {
			if !strings.Contains(expl, line) {
				t.Errorf("explanation %q lacks %q", expl, line)
			}
		}
	}
	r := check(t, "singhal", map[string]string{"n": "3", "requests": "3"}, explorer.Config{Workers: 1, Properties: dlf})
	if r.Status != explorer.Violated || len(r.Violations[0].Trace.Steps) != 30 {
		t.Errorf("N=3 R=3: status %v %v; want a deadlock in 30 steps", r.Status, r.Violations)
	}
	r = check(t, "singhal", map[string]string{"n": "4", "requests": "2"}, explorer.Config{Strategy: explorer.DFS, Properties: dlf})
	if r.Status != explorer.Violated {
		t.Errorf("N=4 R=2: status %v; want a deadlock", r.Status)
	}
	for _, p := range []string{properties.Progress, properties.StarvationFreedom} {
		r := check(t, "singhal", map[string]string{"n": "3", "requests": "2"}, explorer.Config{Workers: 1, Properties: []string{p}})
		if r.Status != explorer.Violated || r.Violations[0].Property != p {
			t.Errorf("%s: status %v %v; want violated", p, r.Status, r.Violations)
		}
	}
}

// TestSinghalBroken: without forwarding its own request in case R, process
// 2 learns of process 3's request but never tells process 3, which ends up
// as the idle holder while process 2 waits for ever.
func TestSinghalBroken(t *testing.T) {
	t.Parallel()
	want := []string{"request_{1}", "enter_{1}", "exit_{1}", "request_{2}", "request_{3}",
		"receive(REQUEST(3,1))_{3,1}", "receive(TOKEN([N,N,R],[0,0,1]))_{1,3}", "enter_{3}", "exit_{3}",
		"receive(REQUEST(2,1))_{2,1}", "receive(REQUEST(3,1))_{3,2}"}
	v := counterexample(t, "singhal-broken", map[string]string{"n": "3"}, nil, properties.DeadlockFreedom)
	if got := explorer.Actions(v.Trace.Steps); !slices.Equal(got, want) {
		t.Errorf("counterexample %q, want %q", got, want)
	}
	r := check(t, "singhal-broken", map[string]string{"n": "3"}, explorer.Config{Workers: 1, Properties: []string{properties.Progress}})
	if r.Status != explorer.Violated {
		t.Errorf("progress: status %v, want violated", r.Status)
	}
	if s := twinOf(singhal()); s.Name != "singhal-broken" || s.Bug == "" {
		t.Errorf("twin %q, bug %q", s.Name, s.Bug)
	}
}

// TestSinghalUsage checks that bad parameters are usage errors.
func TestSinghalUsage(t *testing.T) {
	t.Parallel()
	for _, flags := range []map[string]string{
		{"n": "0"}, {"requests": "0"}, {"requesters": "5"}, {"choice": "random"}, {"channels": "x"},
	} {
		s := singhal()
		err := buildErr(s, flags)
		if !errors.Is(err, ErrUsage) {
			t.Errorf("%v: error %v, want ErrUsage", flags, err)
		}
	}
}
