package specs

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// TestCaoSinghalMessages pins the fewest and most messages over complete
// executions (self-communication not counted), next to Maekawa's (2.7,
// rule B) on the same quorums.
func TestCaoSinghalMessages(t *testing.T) {
	t.Parallel()
	cases := []struct {
		flags        map[string]string
		min, max     int
		mkMin, mkMax int
		large        bool
	}{
		// One requester: no conflict, 3(K-1) per entry as Maekawa.
		{map[string]string{"n": "3", "requesters": "1"}, 3, 3, 3, 3, false},                    // K = 2
		{map[string]string{"n": "4", "quorums": "grid", "requesters": "1"}, 6, 6, 6, 6, false}, // K = 3
		{map[string]string{"n": "7", "requesters": "1"}, 6, 6, 6, 6, false},                    // Fano, K = 3
		// Two requesters: Maekawa's 2·3(K-1) in the best case; the worst
		// adds TRANSFERs and conflict messages (FAILED, INQUIRE,
		// RELINQUISH); found by the search.
		{map[string]string{"n": "3", "requesters": "1,2"}, 6, 8, 6, 6, false},
		{map[string]string{"n": "4", "quorums": "grid", "requesters": "1,4"}, 12, 19, 12, 16, false},
		// Three requesters (2.7's reference for Maekawa: 9…13).
		{map[string]string{"n": "3"}, 9, 18, 9, 13, true},
	}
	for _, c := range cases {
		t.Run(flagString(c.flags), func(t *testing.T) {
			if c.large && testing.Short() {
				t.Skip("large state space")
			}
			lo, hi := messageRange(t, build(t, "cao-singhal", c.flags))
			mkLo, mkHi := messageRange(t, build(t, "maekawa", c.flags))
			if lo != c.min || hi != c.max || mkLo != c.mkMin || mkHi != c.mkMax {
				t.Errorf("messages %d…%d (maekawa %d…%d), want %d…%d (maekawa %d…%d)", lo, hi, mkLo, mkHi, c.min, c.max, c.mkMin, c.mkMax)
			}
		})
	}
}

// csDriver walks one execution of a model by action labels.
type csDriver struct {
	t     *testing.T
	m     explorer.Model
	w     explorer.Worker
	state []byte
}

func newCSDriver(t *testing.T, m explorer.Model) *csDriver {
	init, err := m.Initial()
	if err != nil {
		t.Fatal(err)
	}
	return &csDriver{t: t, m: m, w: m.NewWorker(), state: init[0]}
}

// labels returns the labels of the enabled transitions.
func (d *csDriver) labels() []string {
	var out []string
	n, err := explorer.Successors(d.w, d.state, func(explorer.Transition, []byte) {})
	if err != nil {
		d.t.Fatal(err)
	}
	for a := 0; a < n; a++ {
		l, err := d.m.(explorer.Describer).Label(d.state, a)
		if err != nil {
			d.t.Fatal(err)
		}
		out = append(out, l)
	}
	return out
}

// take performs the first enabled transition whose label satisfies ok and
// reports whether there was one.
func (d *csDriver) take(ok func(string) bool) bool {
	for a, l := range d.labels() {
		if ok(l) {
			k := 0
			_, err := explorer.Successors(d.w, d.state, func(_ explorer.Transition, next []byte) {
				if k == a {
					d.state = append([]byte(nil), next...)
				}
				k++
			})
			if err != nil {
				d.t.Fatal(err)
			}
			return true
		}
	}
	return false
}

func (d *csDriver) do(label string) {
	if !d.take(func(l string) bool { return l == label }) {
		d.t.Fatalf("%s is not enabled; enabled: %v", label, d.labels())
	}
}

// deliverAll receives messages until every channel is empty.
func (d *csDriver) deliverAll() {
	for d.take(func(l string) bool { return strings.HasPrefix(l, "receive(") }) {
	}
}

// inTransit returns the number of messages in every non-empty channel,
// keyed by the label suffix of its receive, "_{i,j}".
func (d *csDriver) inTransit() map[string]int {
	vars, err := d.m.(explorer.Describer).Describe(d.state)
	if err != nil {
		d.t.Fatal(err)
	}
	out := map[string]int{}
	for _, v := range vars {
		if name, ok := strings.CutPrefix(v.Name, "queue"); ok {
			if k := reflect.ValueOf(v.Value).Len(); k > 0 {
				out[name] = k
			}
		}
	}
	return out
}

// hopsTo returns the number of synchronous rounds of message delivery, each
// receiving exactly the messages in transit at its start, after which
// label is enabled: the message hops on the causal chain to it.
func (d *csDriver) hopsTo(label string, limit int) int {
	for r := 0; r <= limit; r++ {
		for _, l := range d.labels() {
			if l == label {
				return r
			}
		}
		for ch, k := range d.inTransit() {
			for ; k > 0; k-- {
				if !d.take(func(l string) bool { return strings.HasPrefix(l, "receive(") && strings.HasSuffix(l, ch) }) {
					d.t.Fatalf("no receive on %s", ch)
				}
			}
		}
	}
	d.t.Fatalf("%s not enabled after %d rounds", label, limit)
	return -1
}

// TestCaoSinghalSyncDelay measures the synchronisation delay
// (docs/properties.md) on a witness execution: grid quorums for N=4 (S_1 =
// {1,2,3}, S_4 = {2,3,4}; arbiters 2 and 3 are shared and are neither
// requester). Process 1 requests and enters with every message delivered;
// process 4 requests and every message is delivered (in cao-singhal, arbiters 2
// and 3 send 1 TRANSFER(→4)); then exit_1. From there, in rounds that each
// deliver the messages in transit at the round's start (synchronous delivery),
// we count the rounds until enter_4 is enabled: the hops on the causal chain
// from exit_1 to enter_4. Cao–Singhal: 1 (exit_1 sends LOCKED(2) and LOCKED(3)
// straight to 4). Maekawa on the same quorums and schedule: 2 (RELEASE to 2 and
// 3, then their LOCKEDs to 4).
func TestCaoSinghalSyncDelay(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		spec string
		hops int
	}{{"cao-singhal", 1}, {"maekawa", 2}} {
		d := newCSDriver(t, build(t, c.spec, map[string]string{"n": "4", "quorums": "grid", "requesters": "1,4"}))
		d.do("request_{1}")
		d.deliverAll()
		d.do("enter_{1}")
		d.do("request_{4}")
		d.deliverAll()
		d.do("exit_{1}")
		if got := d.hopsTo("enter_{4}", 4); got != c.hops {
			t.Errorf("%s: synchronisation delay %d hops, want %d", c.spec, got, c.hops)
		}
	}
}

// TestCaoSinghalBroken: the arbiter that takes the early RELEASE of the
// process a permission was forwarded to as its holder's grants the
// permission again; one-permission fails, and so does locked-wanted (the
// LOCKED reaches a process that no longer wants it). The correct spec
// passes the same instance (testdata/counts/cao-singhal.txt).
func TestCaoSinghalBroken(t *testing.T) {
	t.Parallel()
	for _, prop := range []string{"one-permission", "locked-wanted"} {
		r, err := explorer.Check(build(t, "cao-singhal-broken", map[string]string{"n": "3"}), explorer.Config{Properties: []string{prop}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != explorer.Violated || r.Violations[0].Property != prop {
			t.Fatalf("%s: got %v %+v, want it violated", prop, r.Status, r.Violations)
		}
		if prop == "one-permission" {
			ex := strings.Join(r.Violations[0].Trace.Explanation, "\n")
			if !strings.Contains(ex, "arbiter 2 is locked for (1,1), pending [(1,1)]") {
				t.Errorf("explanation:\n%s", ex)
			}
		}
	}
}

// TestCaoSinghalUsage: bad quorums and user-part values are usage errors
// naming the flag.
func TestCaoSinghalUsage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		flags map[string]string
		want  string
	}{
		{map[string]string{"quorums": "bogus"}, "--quorums"},
		{map[string]string{"n": "0"}, "--n"},
		{map[string]string{"requests": "0"}, "--requests 0"},
		{map[string]string{"requesters": "1,1"}, "--requesters 1,1"},
		{map[string]string{"channels": "lossy"}, "--channels lossy"},
	} {
		p, err := NewParams(caoSinghal(), c.flags)
		if err != nil {
			t.Fatal(err)
		}
		_, err = caoSinghal().Build(p)
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want a usage error containing %q", c.flags, err, c.want)
		}
	}
}

// TestCaoSinghalEarlyInquire replays the schedule that deadlocked before
// Choice (7) (grid N=4, requesters 1,4, two requests each; found by the
// checker in 991,783 states, too many for this test): arbiter 2 learns
// from RELEASE(2,4) that process 1 forwarded its permission to 4's request
// (2,4), and INQUIREs 4 for the older (2,1); the INQUIRE overtakes the
// forwarded LOCKED(2). Dropping it, as 2.7 drops stale INQUIREs, left 4
// holding arbiter 2 and 1 holding arbiter 3, each waiting for the other.
// Kept, it is answered when LOCKED(2) arrives, and the FAILED from 3 makes
// 4 relinquish arbiter 2.
func TestCaoSinghalEarlyInquire(t *testing.T) {
	t.Parallel()
	d := newCSDriver(t, build(t, "cao-singhal", map[string]string{"n": "4", "quorums": "grid", "requesters": "1,4", "requests": "2"}))
	for _, l := range strings.Fields(`request_{1} request_{4} receive(REQUEST(1,1))_{1,1} receive(LOCKED(1))_{1,1}
		receive(REQUEST(1,4))_{4,2} receive(LOCKED(2))_{2,4} receive(REQUEST(1,4))_{4,3} receive(LOCKED(3))_{3,4}
		receive(REQUEST(1,4))_{4,4} receive(LOCKED(4))_{4,4} enter_{4} exit_{4} request_{4} receive(RELEASE)_{4,2}
		receive(REQUEST(1,1))_{1,2} receive(LOCKED(2))_{2,1} receive(REQUEST(2,4))_{4,2}
		receive(TRANSFER((1,1)→(2,4)))_{2,1} receive(FAILED)_{2,4} receive(RELEASE)_{4,3} receive(REQUEST(1,1))_{1,3}
		receive(LOCKED(3))_{3,1} enter_{1} exit_{1} request_{1} receive(RELEASE)_{1,1} receive(REQUEST(2,1))_{1,1}
		receive(LOCKED(1))_{1,1} receive(RELEASE(2,4))_{1,2} receive(REQUEST(2,1))_{1,2} receive(RELEASE)_{1,3}
		receive(REQUEST(2,1))_{1,3} receive(INQUIRE(2,4))_{2,4} receive(LOCKED(2))_{1,4}
		receive(TRANSFER((2,4)→(2,1)))_{2,4} receive(LOCKED(3))_{3,1} receive(REQUEST(2,4))_{4,3}
		receive(TRANSFER((2,1)→(2,4)))_{3,1} receive(FAILED)_{3,4}`) {
		d.do(l)
	}
	if !d.take(func(l string) bool { return l == "receive(RELINQUISH)_{4,2}" }) {
		t.Fatalf("process 4 did not relinquish arbiter 2; enabled: %v", d.labels())
	}
	d.deliverAll()
	if ls := d.labels(); !slices.Contains(ls, "enter_{1}") {
		t.Errorf("after the RELINQUISH, enter_{1} is not enabled; enabled: %v", ls)
	}
}
