package specs

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// buRef is a plain reference model of Bully (docs/algorithms/bully.md) with
// crash-stop faults, recoveries and PERFECT timeouts, written without the
// automaton and explorer packages so that it checks them. Process i has ID
// i+1; queue[i][j] is the FIFO channel from i to j.
type buRef struct {
	st     []buStatus
	coord  []int
	up     []bool
	budget int
	rec    int // recoveries left
	queue  [][][]buMsg
}

func (r *buRef) clone() *buRef {
	c := &buRef{st: slices.Clone(r.st), coord: slices.Clone(r.coord), up: slices.Clone(r.up), budget: r.budget, rec: r.rec}
	for _, row := range r.queue {
		var cr [][]buMsg
		for _, q := range row {
			cr = append(cr, slices.Clone(q))
		}
		c.queue = append(c.queue, cr)
	}
	return c
}

func (r *buRef) key() string { return fmt.Sprint(r.st, r.coord, r.up, r.budget, r.rec, r.queue) }

func (r *buRef) inTransit(to int, k buKind) bool {
	for from := range r.queue {
		for _, m := range r.queue[from][to] {
			if m.Kind == k {
				return true
			}
		}
	}
	return false
}

func (r *buRef) hold(i int) {
	for j := i + 1; j < len(r.st); j++ {
		r.queue[i][j] = append(r.queue[i][j], buMsg{Kind: buElection})
	}
	r.st[i] = buElecting
}

// next returns every successor: local steps, deliveries, crashes.
func (r *buRef) next(detects []bool) []*buRef {
	n := len(r.st)
	var out []*buRef
	for i := 0; i < n; i++ {
		if !r.up[i] {
			continue
		}
		switch r.st[i] {
		case buIdle:
			c := r.coord[i]
			if detects[i] && c != i+1 && (c == 0 || !r.up[c-1]) {
				s := r.clone()
				s.hold(i)
				out = append(out, s)
			}
		case buElecting:
			ok := !r.inTransit(i, buAnswer)
			for j := i + 1; j < n; j++ {
				ok = ok && !r.up[j]
			}
			if ok {
				s := r.clone()
				s.coord[i], s.st[i] = i+1, buIdle
				for j := 0; j < i; j++ {
					s.queue[i][j] = append(s.queue[i][j], buMsg{Kind: buCoordinator, C: i + 1})
				}
				out = append(out, s)
			}
		case buWaiting:
			ok := !r.inTransit(i, buCoordinator)
			for j := i + 1; j < n; j++ {
				ok = ok && (!r.up[j] || r.st[j] == buIdle && !r.inTransit(j, buElection))
			}
			if ok {
				s := r.clone()
				s.hold(i)
				out = append(out, s)
			}
		}
	}
	for from := 0; from < n; from++ {
		for to := 0; to < n; to++ {
			if len(r.queue[from][to]) == 0 {
				continue
			}
			s := r.clone()
			m := s.queue[from][to][0]
			s.queue[from][to] = s.queue[from][to][1:]
			if s.up[to] {
				switch m.Kind {
				case buElection:
					s.queue[to][from] = append(s.queue[to][from], buMsg{Kind: buAnswer})
					if s.st[to] == buIdle {
						s.hold(to)
					}
				case buAnswer:
					if s.st[to] == buElecting {
						s.st[to] = buWaiting
					}
				case buCoordinator:
					// ACCEPT(c): coord = ⊥ ∨ c ≥ coord ∨ ¬up_coord.
					if c := s.coord[to]; c == 0 || m.C >= c || !s.up[c-1] {
						s.coord[to], s.st[to] = m.C, buIdle
					}
				}
			}
			out = append(out, s)
		}
	}
	if r.budget > 0 {
		for i := 0; i < n; i++ {
			if r.up[i] {
				s := r.clone()
				s.up[i] = false
				s.budget--
				out = append(out, s)
			}
		}
	}
	if r.rec > 0 {
		for i := 0; i < n; i++ {
			if !r.up[i] { // recover_i: st := idle, coord := ⊥, HOLD()
				s := r.clone()
				s.up[i] = true
				s.rec--
				s.st[i], s.coord[i] = buIdle, 0
				s.hold(i)
				out = append(out, s)
			}
		}
	}
	return out
}

// buReference is the literal model's figures for the parameters p of
// bully (testdata/counts/bully.txt): from the initial state, coord = max
// everywhere with a stable start, else ⊥.
func buReference(t testing.TB, p *Params) refFigures {
	n := refInt(t, p, "n")
	r := &buRef{st: make([]buStatus, n), coord: make([]int, n), up: make([]bool, n),
		budget: refInt(t, p, "crashes"), rec: refInt(t, p, "recoveries")}
	for i := 0; i < n; i++ {
		r.up[i] = true
		if p.String("start") != "election" {
			r.coord[i] = n
		}
		r.queue = append(r.queue, make([][]buMsg, n))
	}
	detects := make([]bool, n)
	for i := range detects {
		detects[i] = p.String("detectors") == "all"
	}
	if p.String("detectors") != "all" {
		for _, d := range strings.Split(p.String("detectors"), ",") {
			k, err := strconv.Atoi(d)
			if err != nil {
				t.Fatal(err)
			}
			detects[k-1] = true
		}
	}
	return refWalk(t, refModel[*buRef]{
		initial: []*buRef{r},
		key:     (*buRef).key,
		next:    func(s *buRef) ([]*buRef, []int) { return s.next(detects), nil },
		// A terminal state has no transition but faults, as the explorer
		// counts them (explorer.Transition.Fault).
		terminal: func(s *buRef, succ []*buRef) bool {
			for _, d := range succ {
				if d.budget == s.budget && d.rec == s.rec {
					return false // a step that is not a crash or a recovery
				}
			}
			return true
		},
	})
}

// buMessages returns the fewest and the most messages sent on a path from
// s to a terminal state (one with no non-fault transition), following no
// fault transition: the message figures of a run once the faults are over.
// The graph below s must be acyclic.
func buMessages(t *testing.T, m explorer.Model, s []byte) (lo, hi int) {
	t.Helper()
	f := refWalk(t, refModel[[]byte]{
		initial:  [][]byte{s},
		key:      func(s []byte) string { return string(s) },
		next:     modelNext(t, m, func(tr explorer.Transition) bool { return !tr.Fault }),
		messages: true,
	})
	return int(f.lo), int(f.hi)
}

// buAfterCrash returns the successor of m's initial state by the action
// labelled label, such as crash_{4}.
func buAfterCrash(t *testing.T, m explorer.Model, label string) []byte {
	t.Helper()
	init, err := m.Initial()
	if err != nil {
		t.Fatal(err)
	}
	d := m.(explorer.Describer)
	var succ [][]byte
	if _, err := explorer.Successors(m.NewWorker(), init[0], func(_ explorer.Transition, next []byte) {
		succ = append(succ, slices.Clone(next))
	}); err != nil {
		t.Fatal(err)
	}
	for a := range succ {
		if l, err := d.Label(init[0], a); err == nil && l == label {
			return succ[a]
		}
	}
	t.Fatalf("no action %s in the initial state", label)
	return nil
}

// buCrashFigures are the message counts of 1.14's scenario "the
// coordinator has crashed", by N and the processes that may detect it.
var buCrashFigures = []struct {
	n         int
	detectors string
	lo, hi    int
}{
	{3, "1", 5, 5},
	{3, "2", 2, 2},
	{4, "1", 11, 14},
	{4, "3", 3, 3},
	{5, "4", 4, 4},
	{3, "all", 2, 7},
	{4, "all", 3, 23},
}

// TestBullyMessages checks the complexity figures of docs/algorithms/bully.md,
// scenario "the coordinator (max ID) has crashed", stable start: if the
// second-highest process detects it, N-1 messages (one ELECTION to the dead
// coordinator, N-2 COORDINATORs); if only the lowest detects, N=3 exactly 5
// and N=4 min 11 = N²-N-1 (every process holds exactly one election) and
// max 14 (a late ELECTION at a process already idle again starts another
// election).
func TestBullyMessages(t *testing.T) {
	t.Parallel()
	for _, tt := range buCrashFigures {
		t.Run(fmt.Sprintf("n=%d/detectors=%s", tt.n, tt.detectors), func(t *testing.T) {
			m := buildSpec(t, bully(), map[string]string{"n": fmt.Sprint(tt.n), "crashes": "1", "detectors": tt.detectors})
			lo, hi := buMessages(t, m, buAfterCrash(t, m, fmt.Sprintf("crash_{%d}", tt.n)))
			if lo != tt.lo || hi != tt.hi {
				t.Errorf("messages after crash_{%d}: min %d, max %d; want %d, %d", tt.n, lo, hi, tt.lo, tt.hi)
			}
		})
	}
}

// TestBullyCounterexamples pins the BFS counterexamples of the broken twin
// (timeoutAnswer does not wait for the larger processes to be crashed) and
// of bully with --timeouts unrestricted (docs/algorithms/bully.md: BU-UNIQ
// fails).
func TestBullyCounterexamples(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		broken   bool
		flags    map[string]string
		property string // checked alone; "" checks the spec's claims
		want     string // the property violated
		actions  string
	}{
		{true, map[string]string{"n": "2", "crashes": "0", "start": "election"}, "", properties.Validity,
			"detect_{1} timeoutAnswer_{1}"},
		{true, map[string]string{"n": "2", "crashes": "0", "start": "election"}, properties.Uniqueness, properties.Uniqueness,
			"detect_{1} timeoutAnswer_{1} detect_{2} timeoutAnswer_{2}"},
		{true, map[string]string{}, "", properties.Validity,
			"crash_{4} detect_{1} timeoutAnswer_{1}"},
		{true, map[string]string{}, properties.Uniqueness, properties.Uniqueness,
			"crash_{4} detect_{1} timeoutAnswer_{1} detect_{2} timeoutAnswer_{2}"},
		{true, map[string]string{}, properties.Agreement, properties.Agreement,
			"crash_{4} detect_{1} timeoutAnswer_{1} detect_{2} timeoutAnswer_{2}"},
		{false, map[string]string{"n": "3", "timeouts": "unrestricted"}, "", properties.Validity,
			"crash_{3} detect_{1} timeoutAnswer_{1}"},
		{false, map[string]string{"n": "3", "timeouts": "unrestricted"}, properties.Uniqueness, properties.Uniqueness,
			"crash_{3} detect_{1} timeoutAnswer_{1} detect_{2} timeoutAnswer_{2}"},
		// The scenario of 1.14: the coordinator crashes, process 1 times
		// out prematurely and announces itself while process N-1 is alive
		// and completes its own election.
		{false, map[string]string{"timeouts": "unrestricted"}, properties.Uniqueness, properties.Uniqueness,
			"crash_{4} detect_{1} timeoutAnswer_{1} detect_{3} timeoutAnswer_{3}"},
	} {
		sp := bully()
		if tt.broken {
			sp = twinOf(bully())
		}
		t.Run(fmt.Sprintf("%s/%v/%s", sp.Name, tt.flags, tt.property), func(t *testing.T) {
			m := buildSpec(t, sp, tt.flags)
			props := sp.Claims
			if tt.property != "" {
				props = []string{tt.property}
			}
			var first []string
			for k, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}} {
				cfg.Properties = props
				r, err := explorer.Check(m, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if r.Status != explorer.Violated || r.Violations[0].Property != tt.want {
					t.Fatalf("status %v %+v, want %s violated", r.Status, r.Violations, tt.want)
				}
				got := explorer.Actions(r.Violations[0].Trace.Steps)
				if k == 0 {
					first = got
					ex := r.Violations[0].Trace.Explanation
					t.Logf("%s: %d steps: %s; %q", tt.want, len(got), strings.Join(got, " "), ex)
					if tt.flags["timeouts"] == "unrestricted" && (len(ex) == 0 || !strings.Contains(ex[0], "premature")) {
						t.Errorf("explanation %q does not say that process 1 timed out prematurely", ex)
					}
				} else if !slices.Equal(got, first) {
					t.Errorf("workers %d: counterexample %v, with one worker %v", cfg.Workers, got, first)
				}
			}
			if s := strings.Join(first, " "); s != tt.actions {
				t.Errorf("counterexample %q (%d steps), want %q", s, len(first), tt.actions)
			}
		})
	}
}

// TestBullyUsage checks that bad parameter values are usage errors naming
// the flag.
func TestBullyUsage(t *testing.T) {
	t.Parallel()
	cases := []usageCase{
		{map[string]string{"n": "4", "crashes": "5"}, []string{"--crashes"}},
		{map[string]string{"n": "3", "crashes": "3"}, []string{"--crashes"}},
		{map[string]string{"crashes": "-1"}, []string{"--crashes"}},
		{map[string]string{"n": "0"}, []string{"--n"}},
		{map[string]string{"recoveries": "5"}, []string{"--recoveries"}},
		{map[string]string{"crashes": "0", "recoveries": "1"}, []string{"--recoveries"}},
		{map[string]string{"answer-timeout": "lazy"}, []string{"--answer-timeout lazy: allowed values are strict and weak"}},
		{map[string]string{"accept": "never"}, []string{"--accept never: allowed values are rule and always"}},
		{map[string]string{"start": "never"}, []string{"--start never: allowed values are stable, election and crashed"}},
		{map[string]string{"detectors": "0"}, []string{"--detectors"}},
		{map[string]string{"detectors": "5"}, []string{"--detectors"}},
		{map[string]string{"detectors": "1,1"}, []string{"--detectors"}},
		{map[string]string{"timeouts": "sometimes"}, []string{"--timeouts sometimes: allowed values are perfect and unrestricted"}},
		{map[string]string{"premature": "2"}, []string{"--premature"}},
		{map[string]string{"timeouts": "unrestricted", "premature": "-1"}, []string{"--premature"}},
		{map[string]string{"channels": "lossy"}, []string{"--channels"}},
	}
	for _, sp := range withTwin(bully()) {
		wantUsages(t, sp, cases)
	}
}

// TestBullyRecovery checks the crash-recovery column of the 1.14 table
// with N=3, one crash and one recovery: BU-END (deadlock-freedom) and
// BU-TERM (termination) hold with the strict T_ANSWER and ACCEPT; BU-UNIQ
// fails transiently (the recovered process 3 and process 2, which took
// over while 3 was down, are both idle coordinators until the announcement
// arrives); with the weak timeout predicate and ACCEPT ≡ true BU-END fails
// with a quiescent disagreement. ACCEPT ≡ true alone already breaks BU-END:
// the stale COORDINATOR(2) overtakes nothing, it simply arrives after
// COORDINATOR(3) at process 1.
func TestBullyRecovery(t *testing.T) {
	t.Parallel()
	base := map[string]string{"n": "3", "crashes": "1", "recoveries": "1"}
	with := func(kv ...string) map[string]string {
		f := map[string]string{}
		for k, v := range base {
			f[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			f[kv[i]] = kv[i+1]
		}
		return f
	}
	for _, tt := range []struct {
		flags    map[string]string
		property string
		want     explorer.Status
		steps    int // length of the BFS counterexample
	}{
		{base, properties.DeadlockFreedom, explorer.OK, 0},
		{base, properties.Termination, explorer.OK, 0},
		{base, properties.Uniqueness, explorer.Violated, 5},
		{with("answer-timeout", "weak"), properties.DeadlockFreedom, explorer.OK, 0},
		{with("answer-timeout", "weak", "accept", "always"), properties.DeadlockFreedom, explorer.Violated, 9},
		{with("accept", "always"), properties.DeadlockFreedom, explorer.Violated, 9},
		// BU-TERM after the last fault: the stable initial state is a valid
		// end, yet crash, recovery and the runs after them must end well too.
		{with("accept", "always"), properties.Termination, explorer.Violated, 9},
		{with("answer-timeout", "weak", "accept", "always"), properties.Termination, explorer.Violated, 9},
	} {
		m := build(t, "bully", tt.flags)
		r, err := explorer.Check(m, explorer.Config{Properties: []string{tt.property}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != tt.want {
			t.Errorf("%v %s: %v, want %v", tt.flags, tt.property, r.Status, tt.want)
			continue
		}
		if tt.want == explorer.Violated {
			tr := r.Violations[0].Trace
			if got := len(tr.Steps); got != tt.steps {
				t.Errorf("%v %s: counterexample of %d steps, want %d", tt.flags, tt.property, got, tt.steps)
			}
			if !slices.ContainsFunc(explorer.Actions(tr.Steps), func(a string) bool { return strings.HasPrefix(a, "recover_") }) {
				t.Errorf("%v %s: the counterexample has no recovery: %q", tt.flags, tt.property, explorer.Actions(tr.Steps))
			}
		}
	}
}

// TestBullyStartCrashed: --start crashed begins where crash_N from a stable
// start leads (the same state, byte for byte, with --crashes 0 against 1),
// so that 1.14's figures for "the coordinator has crashed" come from the
// command line: the message counts of TestBullyMessages, as metrics.
func TestBullyStartCrashed(t *testing.T) {
	t.Parallel()
	for _, tt := range buCrashFigures {
		flags := map[string]string{"n": fmt.Sprint(tt.n), "detectors": tt.detectors}
		stable := buildSpec(t, bully(), mergeFlags(flags, map[string]string{"crashes": "1"}))
		crashed := buildSpec(t, bully(), mergeFlags(flags, map[string]string{"crashes": "0", "start": "crashed"}))
		init, err := crashed.Initial()
		if err != nil {
			t.Fatal(err)
		}
		if after := buAfterCrash(t, stable, fmt.Sprintf("crash_{%d}", tt.n)); len(init) != 1 || !bytes.Equal(init[0], after) {
			t.Errorf("n=%d: the crashed start is not the state after crash_{%d}", tt.n, tt.n)
		}
		r, err := explorer.Check(crashed, explorer.Config{Metrics: []string{"messages"}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != explorer.OK || len(r.Metrics) != 1 || r.Metrics[0].Min != int64(tt.lo) || r.Metrics[0].Max != int64(tt.hi) {
			t.Errorf("n=%d detectors=%s: %v %+v; want messages %d to %d", tt.n, tt.detectors, r.Status, r.Metrics, tt.lo, tt.hi)
		}
	}
}

// mergeFlags returns a's flags with b's added over them.
func mergeFlags(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}
