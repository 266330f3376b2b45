package specs

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// This file pins --metric time (causal depth, docs/properties.md) and
// --metric messages, min and max over all complete executions with their
// witnesses, for every election spec of the catalog (issue 11), and the
// --objective min of the election specs that gained it: chang-roberts,
// chang-roberts-announce, token-ring-recovery, echo-election and waiting.
//
// How to read the time figures. The engine's depth is that of 0.7: a
// message carries its sender's depth + 1, a receiver takes the maximum.
// A spontaneous step (start_i, or sending one's own ID from the send
// buffer) has depth 0 only when the process has received nothing yet; in
// the formal models it may also happen later, after a receive, and then
// it is causally after that receive and carries its depth. The usual
// analysis ("initiators start at time 0") gives the least time; the
// largest adds those late starts. Section figures are therefore compared
// with the minimum, and the maximum is explained case by case.

// etCase is one instance: time and messages, each min…max.
type etCase struct {
	spec           string
	flags          map[string]string
	tMin, tMax     int64
	msgMin, msgMax int64
	long           bool // only with -long (and never in -short)
}

// etFlags builds a flag map from pairs.
func etFlags(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func etRun(t *testing.T, cases []etCase) {
	t.Helper()
	for _, c := range cases {
		what := fmt.Sprintf("%s %v", c.spec, c.flags)
		if c.long && !*long {
			t.Logf("skipping %s: large instance, run with -args -long", what)
			continue
		}
		if c.long && testing.Short() {
			t.Logf("skipping %s in -short", what)
			continue
		}
		r := metricRun(t, c.spec, c.flags, []string{}, "time", "messages")
		wantRange(t, what, r.Metrics[0], c.tMin, c.tMax)
		wantRange(t, what, r.Metrics[1], c.msgMin, c.msgMax)
	}
}

// TestElectionTimeRings: the ring elections 1.1-1.6.
func TestElectionTimeRings(t *testing.T) {
	t.Parallel()
	etRun(t, []etCase{
		// 1.1 chang-roberts (--ids all): messages 2N−1 … N(N+1)/2 (section 3).
		// Time: min N, section 3's "time N" (the best ID goes once round
		// the ring); max 2N−1: a process sends its own ID from its buffer
		// after receiving, at the depth of what it received (its
		// predecessor's ID, up to N−1 hops deep), and the best ID may be
		// the last one sent (see TestTimeChangRoberts, cross-checked by
		// hand at N=3).
		{"chang-roberts", etFlags("n", "2"), 2, 3, 3, 3, false},
		{"chang-roberts", etFlags("n", "3"), 3, 5, 5, 6, false},
		{"chang-roberts", etFlags("n", "4"), 4, 7, 7, 10, false},
		{"chang-roberts", etFlags("n", "5"), 5, 9, 9, 15, true}, // 575,080 states
		// 1.2 chang-roberts-announce: messages 3N−1 … N(N+1)/2+N (section
		// 3). Time: min 2N, the section's "time 2N" (N more hops of
		// ELECTED); max 3N−1, the N−1 of 1.1 more.
		{"chang-roberts-announce", etFlags("n", "2"), 4, 5, 5, 5, false},
		{"chang-roberts-announce", etFlags("n", "3"), 6, 8, 8, 9, false},
		{"chang-roberts-announce", etFlags("n", "4"), 8, 11, 11, 14, false},
		// 1.4 chang-roberts-bidirectional (--ids all): messages 2N−1 …
		// N(N+1)/2, as 1.1 (section 3). Time: min N (the best ID goes one
		// way round); the section states no time. Max N(N+1)/2 at N=3 and
		// 4, the largest message count: start_i (one per direction) may
		// follow a receive and take its depth, so a schedule chains every
		// message causally (N=3, ids 1,2,3: 1 starts to 2, 2 discards it
		// and starts to 1, 1 relays 2 to 3, 3 discards it and starts to 1,
		// and 3 goes round: depth 6). Regression value.
		{"chang-roberts-bidirectional", etFlags("n", "3"), 3, 6, 5, 6, false},
		{"chang-roberts-bidirectional", etFlags("n", "4"), 4, 10, 7, 10, true}, // 297,560 states
		// 1.5 lelann, every process designated: time exactly 2N in every
		// run, the section's figure (a token round and the announcement;
		// a woken process never starts, so every start has depth 0);
		// messages 2N … N²+N, the section's note on the wake-up rule
		// (6…12, 8…20, 10…30).
		{"lelann", etFlags("n", "3"), 6, 6, 6, 12, false},
		{"lelann", etFlags("n", "4"), 8, 8, 8, 20, false},
		{"lelann", etFlags("n", "5"), 10, 10, 10, 30, true}, // 1,233,500 states
		// 1.6 peterson (--ids all): messages min 3N, max 2N⌊log₂N⌋+N
		// (section 3: 6, 9, 20, 25 at N=2…5). Time: the section says
		// O(N) and asks to check linear growth: min N+2 (4, 5, 6, 7), max
		// 4, 5, 10, 12 (and 14 at N=6, 650,352 states, 28 s: not run
		// here), i.e. 2N+2 from N=4 on. Regression values.
		{"peterson", etFlags("n", "2"), 4, 4, 6, 6, false},
		{"peterson", etFlags("n", "3"), 5, 5, 9, 9, false},
		{"peterson", etFlags("n", "4"), 6, 10, 12, 20, false},
		{"peterson", etFlags("n", "5"), 7, 12, 15, 25, false},
	})
}

// TestElectionTimeWakeup: 1.3 chang-roberts-wakeup, every wake-up rule,
// with and without the announcement (--initiators subsets, --ids all).
// Section 3: time best N, worst 2N−1 (the best ID is woken last, after
// the wake-up chain travelled N−1 hops); add N for the announcement.
func TestElectionTimeWakeup(t *testing.T) {
	t.Parallel()
	etRun(t, []etCase{
		// JOIN: messages as 1.1, 2N−1 … N(N+1)/2; time N … 2N−1.
		{"chang-roberts-wakeup", etFlags("n", "3", "wakeup", "join"), 3, 5, 5, 6, false},
		{"chang-roberts-wakeup", etFlags("n", "4", "wakeup", "join"), 4, 7, 7, 10, false},
		// With the announcement: messages 3N−1 … N(N+1)/2+N, time 2N … 3N−1.
		{"chang-roberts-wakeup", etFlags("n", "3", "wakeup", "join", "announce", "on"), 6, 8, 8, 9, false},
		{"chang-roberts-wakeup", etFlags("n", "4", "wakeup", "join", "announce", "on"), 8, 11, 11, 14, false},
		// JOIN_OPT: messages best N (only the best starts), max N(N+1)/2;
		// time N … 2N−1 as JOIN.
		{"chang-roberts-wakeup", etFlags("n", "3", "wakeup", "join-opt"), 3, 5, 3, 6, false},
		{"chang-roberts-wakeup", etFlags("n", "4", "wakeup", "join-opt"), 4, 7, 4, 10, false},
		{"chang-roberts-wakeup", etFlags("n", "3", "wakeup", "join-opt", "announce", "on"), 6, 8, 6, 9, false},
		{"chang-roberts-wakeup", etFlags("n", "4", "wakeup", "join-opt", "announce", "on"), 8, 11, 8, 14, false},
		// RELAY: messages from N (one initiator) to M·N − M(M−1)/2 at M = N,
		// N(N+1)/2. Time exactly N (2N with the announcement), not the
		// section's worst 2N−1: that case needs the best ID to be woken
		// last, and under RELAY a woken process only relays (the wake-up
		// rule), so every initiator's ID leaves at depth 0 and the
		// winner's goes N hops; every other ID is discarded sooner.
		{"chang-roberts-wakeup", etFlags("n", "3", "wakeup", "relay"), 3, 3, 3, 6, false},
		{"chang-roberts-wakeup", etFlags("n", "4", "wakeup", "relay"), 4, 4, 4, 10, false},
		{"chang-roberts-wakeup", etFlags("n", "3", "wakeup", "relay", "announce", "on"), 6, 6, 6, 9, false},
		{"chang-roberts-wakeup", etFlags("n", "4", "wakeup", "relay", "announce", "on"), 8, 8, 8, 14, false},
	})
}

// TestElectionTimeGraphs: the tree and graph elections 1.8-1.15.
func TestElectionTimeGraphs(t *testing.T) {
	t.Parallel()
	etRun(t, []etCase{
		// 1.8 tree-election (every node initiates, --ids all, INFO, FLOOD):
		// messages EXPLORE N−1 … 2(N−1) plus PROPOSE+RESULT = 2N−2 exactly
		// (section 3): 3N−3 … 4N−4. Time: the section asks for the causal
		// depth only ("tree height times the round trip"): regression
		// values, line 2…4 (N=3), 3…7 (N=4), star 2…4 (N=4).
		{"tree-election", etFlags("n", "3"), 2, 4, 6, 8, false},
		{"tree-election", etFlags("n", "4"), 3, 7, 9, 12, true},
		{"tree-election", etFlags("n", "4", "topology", "star"), 2, 4, 9, 12, true},
		// 1.9 floodmax: exactly D rounds (time D in every run) and 2ED
		// messages (section 3): line N=2 D=1 E=1: 2; line N=3 D=2 E=2: 8;
		// line N=4 D=3 E=3: 18; ring N=4 D=2 E=4: 16.
		{"floodmax", etFlags("n", "2"), 1, 1, 2, 2, false},
		{"floodmax", etFlags("n", "3"), 2, 2, 8, 8, false},
		{"floodmax", etFlags("n", "4"), 3, 3, 18, 18, true},
		{"floodmax", etFlags("n", "4", "topology", "ring"), 2, 2, 16, 16, true},
		// 1.10 dfs-token on the ring, every process a starter: the section's
		// time is the winner's traversal, 2(N−1) (path) or 2E (colouring),
		// the minimum here (4, 6; 6, 8); messages from that traversal to
		// at most M times it. The maximum at N=4 is one more: a weaker
		// token swallowed earlier at a node the winner's token then visits
		// has raised that node's depth (depth is a maximum over everything
		// the node received), so the traversal ends one hop deeper.
		{"dfs-token", etFlags("n", "3"), 4, 4, 4, 7, false},
		{"dfs-token", etFlags("n", "4"), 6, 7, 6, 12, false},
		{"dfs-token", etFlags("n", "3", "method", "coloring"), 6, 6, 6, 9, false},
		{"dfs-token", etFlags("n", "4", "method", "coloring"), 8, 9, 8, 14, false},
		// 1.11 echo-election on rings (every process designated, IDs
		// increasing): messages the section's reference values, triangle
		// 6…11, 4-cycle 8…17, 5-cycle 10…24 (single initiator 2E = 2N).
		// Time: regression values; min N (the explorers of one wave meet
		// across the ring and the echoes come back).
		{"echo-election", etFlags("n", "3"), 3, 4, 6, 11, false},
		{"echo-election", etFlags("n", "4"), 4, 7, 8, 17, false},
		{"echo-election", etFlags("n", "5"), 5, 11, 10, 24, true},
		// 1.12 adoption, same instances: triangle 6…10 (reference); 4-cycle
		// 8…14 with IDs increasing (the reference 8…15 needs every ID
		// arrangement, pinned in adoption_test.go). Time: regression.
		{"adoption", etFlags("n", "3"), 3, 4, 6, 10, false},
		{"adoption", etFlags("n", "4"), 4, 7, 8, 14, false},
		// 1.13 waiting: as 1.11 on these rings (the README's "8 … 17, as
		// extinction"). Time: regression values, the same as 1.11's.
		{"waiting", etFlags("n", "3"), 3, 4, 6, 11, false},
		{"waiting", etFlags("n", "4"), 4, 7, 8, 17, false},
		// 1.14 bully (one crash, every process may detect): the minimum 0
		// is the run in which nobody crashes. Section 3's figures are per
		// scenario (coordinator crashed, one detector: N=3 exactly 5, N=4
		// 11…14, pinned in bully_test.go); its time claim is physical
		// (N·T_max), not checkable untimed. Regression values.
		{"bully", etFlags("n", "2"), 0, 1, 0, 1, false},
		{"bully", etFlags("n", "3"), 0, 2, 0, 7, false},
		{"bully", etFlags("n", "4"), 0, 4, 0, 23, true},
		// 1.15 virtual-tree: joins are atomic (a registry), no messages,
		// so time 0; the section states no complexity.
		{"virtual-tree", etFlags("n", "3"), 0, 0, 0, 0, false},
		{"virtual-tree", etFlags("n", "4"), 0, 0, 0, 0, false},
	})
}

// TestElectionTimeTokenRingRecovery: 1.7 has no complete execution (the
// token, or a regenerated one, circulates for ever: no terminal state,
// section 3), so time and messages have no figure.
func TestElectionTimeTokenRingRecovery(t *testing.T) {
	t.Parallel()
	r, err := explorer.Check(build(t, "token-ring-recovery", etFlags("n", "3")),
		explorer.Config{Workers: 2, Metrics: []string{"time", "messages"}, Properties: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range r.Metrics {
		if m.Executions {
			t.Errorf("token-ring-recovery: %s has complete executions: %+v", m.Name, m)
		}
	}
}

// etObjectiveCases: instances with every ID arrangement, so that
// --objective min is the mirror image of max (ID k ↦ N+1−k maps the runs
// of one onto the runs of the other): the same states and transitions.
// Regression values of the max runs (chang-roberts N=4 --ids all: 4,308
// states, also in chang_roberts_test.go's arrangement sweep).
var etObjectiveCases = []struct {
	spec          string
	flags         map[string]string
	states, trans int64
	long          bool // skipped in -short
}{
	{"chang-roberts", etFlags("n", "4", "ids", "all"), 4308, 11272, false},
	{"chang-roberts-announce", etFlags("n", "4", "ids", "all"), 4500, 11464, false},
	{"token-ring-recovery", etFlags("n", "3", "ids", "all"), 648, 1134, false},
	{"echo-election", etFlags("n", "3", "ids", "all", "initiators", "subsets"), 3852, 8790, false},
	{"echo-election", etFlags("n", "4", "ids", "all"), 133864, 399376, true},
	{"waiting", etFlags("n", "3", "ids", "all", "initiators", "subsets"), 3756, 8406, false},
	{"waiting", etFlags("n", "4", "ids", "all"), 75672, 235656, true},
}

// TestElectionObjectiveMirror: with --objective min every claim holds
// (validity now says the minimum) and the counts equal max's.
func TestElectionObjectiveMirror(t *testing.T) {
	t.Parallel()
	for _, c := range etObjectiveCases {
		if c.long && testing.Short() {
			t.Logf("skipping %s %v in -short", c.spec, c.flags)
			continue
		}
		s, err := Lookup(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []string{"max", "min"} {
			f := etFlags("objective", o)
			for k, v := range c.flags {
				f[k] = v
			}
			r, err := explorer.Check(build(t, c.spec, f), explorer.Config{Workers: 2, Properties: s.Claims})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != explorer.OK || r.States != c.states || r.Transitions != c.trans {
				t.Errorf("%s %v: %v (%s), %d states, %d transitions; want ok, %d, %d",
					c.spec, f, r.Status, r.Reason, r.States, r.Transitions, c.states, c.trans)
			}
		}
	}
}

// etFinal returns the variables of the last state of tr, formatted.
func etFinal(tr *explorer.Trace) map[string]string {
	vars := tr.InitialState
	if len(tr.Steps) > 0 {
		vars = tr.Steps[len(tr.Steps)-1].State
	}
	m := map[string]string{}
	for _, v := range vars {
		m[v.Name] = fmt.Sprint(v.Value)
	}
	return m
}

// TestElectionObjectiveMinElects: --objective min elects the smallest ID,
// read from the last state of the message witnesses (not from validity,
// which goes through the objective too), and the message counts of a fixed
// arrangement turn over: IDs 1,2,3,4 along the ring are Chang-Roberts's
// best case 2N−1 = 7 for max and its worst N(N+1)/2 = 10 for min (every
// ID travels until it meets 1), +N with the announcement.
func TestElectionObjectiveMinElects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		spec, objective string
		flags           map[string]string
		msgs            int64  // exact, every run
		winner, value   string // a variable of the final state
	}{
		{"chang-roberts", "max", etFlags("n", "4", "ids", "1,2,3,4"), 7, "p4.status", "chosen"},
		{"chang-roberts", "min", etFlags("n", "4", "ids", "1,2,3,4"), 10, "p1.status", "chosen"},
		{"chang-roberts-announce", "max", etFlags("n", "4", "ids", "1,2,3,4"), 11, "p2.leader", "4"},
		{"chang-roberts-announce", "min", etFlags("n", "4", "ids", "1,2,3,4"), 14, "p2.leader", "1"},
		// echo and waiting, a single initiator: 2E = 2N on the ring.
		{"echo-election", "min", etFlags("n", "4", "initiators", "3"), 8, "p3.won", "true"},
		{"waiting", "min", etFlags("n", "4", "initiators", "3"), 8, "p3.won", "true"},
	}
	for _, c := range cases {
		f := etFlags("objective", c.objective)
		for k, v := range c.flags {
			f[k] = v
		}
		r := metricRun(t, c.spec, f, []string{}, "messages")
		m := r.Metrics[0]
		wantRange(t, fmt.Sprintf("%s %v", c.spec, f), m, c.msgs, c.msgs)
		for _, w := range []*explorer.Trace{m.MinWitness, m.MaxWitness} {
			if w == nil {
				continue
			}
			if got := etFinal(w)[c.winner]; got != c.value {
				t.Errorf("%s %v: final %s = %q, want %q", c.spec, f, c.winner, got, c.value)
			}
		}
	}
	// With every process designated (IDs increasing: process i has ID
	// i), the winner of both witnesses is the actual initiator (role
	// initiator in the final state) with the smallest ID for min, the
	// largest for max.
	for _, spec := range []string{"echo-election", "waiting"} {
		for _, o := range []string{"max", "min"} {
			r := metricRun(t, spec, etFlags("n", "4", "objective", o), []string{}, "messages")
			for _, w := range []*explorer.Trace{r.Metrics[0].MinWitness, r.Metrics[0].MaxWitness} {
				final, want := etFinal(w), 0
				for i := 1; i <= 4; i++ {
					if final[fmt.Sprintf("p%d.role", i)] == "initiator" && (want == 0 || o == "max") {
						want = i
					}
				}
				for i := 1; i <= 4; i++ {
					if got := final[fmt.Sprintf("p%d.won", i)]; (got == "true") != (i == want) {
						t.Errorf("%s --objective %s: final p%d.won = %q, want the winner p%d", spec, o, i, got, want)
					}
				}
			}
		}
	}
}

// TestElectionObjectiveUsage: a bad --objective is a usage error naming
// the flag, for each spec that gained it.
func TestElectionObjectiveUsage(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"chang-roberts", "chang-roberts-announce", "token-ring-recovery", "echo-election", "waiting"} {
		s, err := Lookup(spec)
		if err != nil {
			t.Fatal(err)
		}
		err = buildErr(s, etFlags("objective", "median"))
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "--objective median") {
			t.Errorf("%s --objective median: err %v, want ErrUsage naming the flag", spec, err)
		}
	}
}
