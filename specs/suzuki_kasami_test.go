package specs

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// skRef is a literal reference model of Suzuki-Kasami
// (docs/algorithms/suzuki-kasami.md), written without the automaton and
// explorer packages so that it checks them: plain slices, ints for RN and LN,
// and channels as message lists (kept sorted when unordered). ust: 0 idle, 1
// trying, 2 critical.
type skRef struct {
	ust, done []int
	rn        [][]int
	holder    int   // process holding the token, -1 while it travels
	ln        []int // the token's LN, wherever the token is
	q         []int // the token's queue
	ch        [][][]string
}

func (r *skRef) clone() *skRef {
	c := &skRef{ust: slices.Clone(r.ust), done: slices.Clone(r.done), holder: r.holder, ln: slices.Clone(r.ln), q: slices.Clone(r.q)}
	for i := range r.rn {
		c.rn = append(c.rn, slices.Clone(r.rn[i]))
		var row [][]string
		for _, q := range r.ch[i] {
			row = append(row, slices.Clone(q))
		}
		c.ch = append(c.ch, row)
	}
	return c
}

func (r *skRef) key() string { return fmt.Sprint(r.ust, r.done, r.rn, r.holder, r.ln, r.q, r.ch) }

func (r *skRef) send(i, j int, m string, fifo bool) {
	r.ch[i][j] = append(r.ch[i][j], m)
	if !fifo {
		sort.Strings(r.ch[i][j])
	}
}

// giveToken sends the token from i to j. Its contents travel in r.ln and
// r.q; the message only names it.
func (r *skRef) giveToken(i, j int, fifo bool) {
	r.holder = -1
	r.send(i, j, "T", fifo)
}

func (r *skRef) next(reqs []int, fifo bool) []*skRef {
	n := len(r.ust)
	var out []*skRef
	for i := 0; i < n; i++ {
		s := r.clone()
		switch {
		case r.ust[i] == 0 && r.done[i] < reqs[i]:
			s.ust[i] = 1
			if r.holder != i {
				s.rn[i][i]++
				for j := 0; j < n; j++ {
					if j != i {
						s.send(i, j, fmt.Sprintf("R%d,%d", i, s.rn[i][i]), fifo)
					}
				}
			}
		case r.ust[i] == 1 && r.holder == i:
			s.ust[i] = 2
		case r.ust[i] == 2:
			s.ust[i], s.done[i] = 0, r.done[i]+1
			s.ln[i] = s.rn[i][i]
			for k := 1; k < n; k++ {
				j := (i + k) % n
				if !slices.Contains(s.q, j) && s.rn[i][j] == s.ln[j]+1 {
					s.q = append(s.q, j)
				}
			}
			if len(s.q) > 0 {
				j := s.q[0]
				s.q = s.q[1:]
				s.giveToken(i, j, fifo)
			}
		default:
			continue
		}
		out = append(out, s)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for k, m := range r.ch[i][j] {
				if fifo && k > 0 {
					break
				}
				s := r.clone()
				s.ch[i][j] = slices.Delete(s.ch[i][j], k, k+1)
				if m == "T" {
					s.holder = j
				} else {
					var who, sn int
					fmt.Sscanf(m, "R%d,%d", &who, &sn)
					s.rn[j][who] = max(s.rn[j][who], sn)
					if s.holder == j && s.ust[j] == 0 && s.rn[j][who] == s.ln[who]+1 {
						s.giveToken(j, who, fifo)
					}
				}
				out = append(out, s)
			}
		}
	}
	return out
}

// skReference is the literal model's figures for the parameters p of
// suzuki-kasami (testdata/counts/suzuki-kasami.txt).
func skReference(t testing.TB, p *Params) refFigures {
	n, r, req := refUsers(t, p)
	reqs := make([]int, n)
	for i := range reqs {
		if req[i] {
			reqs[i] = r
		}
	}
	fifo := p.String("channels") == "fifo"
	init := &skRef{ust: make([]int, n), done: make([]int, n), ln: make([]int, n)}
	for i := 0; i < n; i++ {
		init.rn = append(init.rn, make([]int, n))
		init.ch = append(init.ch, make([][]string, n))
	}
	return refWalk(t, refModel[*skRef]{
		initial: []*skRef{init},
		key:     (*skRef).key,
		next:    func(s *skRef) ([]*skRef, []int) { return s.next(reqs, fifo), nil },
	})
}

// TestSuzukiKasamiMessages pins the total messages over all complete executions
// (metric "messages"). docs/algorithms/suzuki-kasami.md: N per entry (N-1
// REQUESTs + 1 TOKEN) when the token is not held, 0 when it is. So:
//   - only process 1, the initial holder, requests: 0 per entry;
//   - only process 2 requests once: exactly N;
//   - everyone requests once: min N(N-1) (process 1 enters with the token
//     it holds), max N·N (process 1 gave the token away before its own
//     request);
//   - process 2 requests twice: N (it keeps the token after its first
//     exit and enters again with no message).
//
// N=2..4: "max N·N = 16 at N=4", "min N(N-1) = 12 at N=4".
func TestSuzukiKasamiMessages(t *testing.T) {
	t.Parallel()
	type span struct {
		flags    map[string]string
		min, max int
		large    bool
	}
	var cases []span
	for n := 2; n <= 4; n++ {
		ns := fmt.Sprint(n)
		cases = append(cases,
			span{map[string]string{"n": ns, "requesters": "1", "requests": "3"}, 0, 0, false},
			span{map[string]string{"n": ns, "requesters": "2"}, n, n, false},
			span{map[string]string{"n": ns, "requesters": "2", "requests": "2"}, n, n, false},
			span{map[string]string{"n": ns}, n * (n - 1), n * n, n == 4},
		)
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.flags), func(t *testing.T) {
			if c.large && testing.Short() {
				t.Skip("N=4, everyone requesting: 177,079 states and their graph, skipped in -short")
			}
			r := check(t, "suzuki-kasami", c.flags, explorer.Config{Metrics: []string{"messages"}, Properties: []string{}})
			if m := r.Metrics[0]; m.Min != int64(c.min) || m.Max != int64(c.max) || m.Unbounded {
				t.Errorf("messages min %d max %d (unbounded %v); want %d, %d", m.Min, m.Max, m.Unbounded, c.min, c.max)
			}
		})
	}
}

// TestSuzukiKasamiBroken: without LN[i] := RN[i] at exit, process 2's
// served request still looks outstanding, and process 1, leaving the
// critical section, sends the token back to process 2, which is idle. (The
// shortest counterexample shown is one without overtaking: before the
// explorer preferred one, process 1's REQUEST overtook the TOKEN on 1→2.)
func TestSuzukiKasamiBroken(t *testing.T) {
	t.Parallel()
	want := []string{
		"request_{2}", "receive(REQUEST(2,1))_{2,1}", "request_{1}", "receive(TOKEN([0,0,0],[]))_{1,2}",
		"enter_{2}", "exit_{2}", "receive(REQUEST(1,1))_{1,2}", "receive(TOKEN([0,0,0],[]))_{2,1}",
		"enter_{1}", "exit_{1}",
	}
	v := counterexample(t, "suzuki-kasami-broken", map[string]string{"n": "3"}, nil, skTokenToTryingName)
	if got := explorer.Actions(v.Trace.Steps); !slices.Equal(got, want) {
		t.Errorf("counterexample %q, want %q", got, want)
	}
	if expl := strings.Join(v.Trace.Explanation, "\n"); !strings.Contains(expl, "process 2 is idle and a TOKEN is on its way to it") {
		t.Errorf("explanation %q", expl)
	}
	if s := twinOf(suzukiKasami()); s.Name != "suzuki-kasami-broken" || s.Bug == "" {
		t.Errorf("twin %q, bug %q", s.Name, s.Bug)
	}
}

// TestSuzukiKasamiCrash checks section 3's expected failure: with one
// crash, GA2 fails when the token holder crashes: processes 2 and 3 wait
// for a token nobody will send.
func TestSuzukiKasamiCrash(t *testing.T) {
	t.Parallel()
	r := check(t, "suzuki-kasami", map[string]string{"n": "3", "crashes": "1"}, explorer.Config{Workers: 1, Properties: []string{properties.Progress}})
	if r.Status != explorer.Violated || r.Violations[0].Property != properties.Progress {
		t.Fatalf("status %v %v; want progress violated", r.Status, r.Violations)
	}
	steps := explorer.Actions(r.Violations[0].Trace.Steps)
	if last := steps[len(steps)-1]; last != "crash_{1}" {
		t.Errorf("counterexample %q should end with the holder's crash", steps)
	}
	// The safety claims that do not count tokens survive the crash;
	// TOKEN-1 does not: a token sent to a crashed process is discarded
	// (docs/properties.md).
	r = check(t, "suzuki-kasami", map[string]string{"n": "3", "crashes": "1"}, explorer.Config{Workers: 1, Properties: []string{properties.MutualExclusion, skTokenToTryingName}})
	if r.Status != explorer.OK {
		t.Errorf("with a crash: status %v %v; want GA1 and token-to-trying to hold", r.Status, r.Violations)
	}
	r = check(t, "suzuki-kasami", map[string]string{"n": "3", "crashes": "1"}, explorer.Config{Workers: 1, Properties: []string{properties.TokenUniqueness}})
	if r.Status != explorer.Violated {
		t.Errorf("with a crash: status %v; want token-uniqueness violated", r.Status)
	}
}

// TestSuzukiKasamiUsage checks that bad parameters are usage errors.
func TestSuzukiKasamiUsage(t *testing.T) {
	t.Parallel()
	for _, flags := range []map[string]string{
		{"n": "0"}, {"n": "x"}, {"requests": "0"}, {"requests": "9"}, {"requesters": "4"},
		{"requesters": "1,1"}, {"crashes": "3"}, {"crashes": "-1"}, {"channels": "lifo"}, {"capacity": "0"},
	} {
		s := suzukiKasami()
		err := buildErr(s, flags)
		if !errors.Is(err, ErrUsage) {
			t.Errorf("%v: error %v, want ErrUsage", flags, err)
		}
	}
}
