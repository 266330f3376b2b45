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

// raRef is a global state of Ricart-Agrawala written literally from
// docs/algorithms/ricart-agrawala.md, without the automaton and explorer
// packages, so that it checks them: per process ust (0 idle, 1 trying, 2
// critical), done, C, myTs (⊥ = 0 outside trying and critical), waiting and
// deferred as bit masks; ch[i][j] is the channel from i to j (a bag, kept
// sorted, when unordered). The Carvalho-Roucairol reference (cvNext) uses perm
// and asked as well, and leaves waiting empty.
type raRef struct {
	ust, done, c, myTs, waiting, deferred []int
	perm, asked                           []int
	ch                                    [][][]raMsg
}

func (s raRef) clone() raRef {
	d := raRef{ust: slices.Clone(s.ust), done: slices.Clone(s.done), c: slices.Clone(s.c),
		myTs: slices.Clone(s.myTs), waiting: slices.Clone(s.waiting), deferred: slices.Clone(s.deferred),
		perm: slices.Clone(s.perm), asked: slices.Clone(s.asked)}
	for _, row := range s.ch {
		var r [][]raMsg
		for _, q := range row {
			r = append(r, slices.Clone(q))
		}
		d.ch = append(d.ch, r)
	}
	return d
}

func (s raRef) key() string {
	return fmt.Sprint(s.ust, s.done, s.c, s.myTs, s.waiting, s.deferred, s.perm, s.asked, s.ch)
}

// raRefSend puts m on the channel i→j, sorting it when unordered.
func (s *raRef) send(i, j int, m raMsg, unordered bool) {
	s.ch[i][j] = append(s.ch[i][j], m)
	if unordered {
		sort.Slice(s.ch[i][j], func(a, b int) bool { return fmt.Sprint(s.ch[i][j][a]) < fmt.Sprint(s.ch[i][j][b]) })
	}
}

// next returns every successor of s: request, enter, exit of each process,
// then the deliveries (the head of a FIFO channel, every distinct message of
// a bag), and the number of messages each transition sends.
func (s raRef) next(r int, req []bool, unordered, broken bool) (out []raRef, sent []int) {
	n := len(s.ust)
	for i := 0; i < n; i++ {
		d := s.clone()
		k := 0
		switch {
		case s.ust[i] == 0 && req[i] && s.done[i] < r:
			d.ust[i], d.c[i] = 1, s.c[i]+1
			d.myTs[i] = d.c[i]
			for j := 0; j < n; j++ {
				if j != i {
					d.waiting[i] |= 1 << j
					d.send(i, j, raMsg{raRequest, d.myTs[i], i}, unordered)
					k++
				}
			}
		case s.ust[i] == 1 && s.waiting[i] == 0:
			d.ust[i] = 2
		case s.ust[i] == 2:
			d.ust[i], d.done[i], d.myTs[i], d.deferred[i] = 0, s.done[i]+1, 0, 0
			for j := 0; j < n; j++ {
				if s.deferred[i]&(1<<j) != 0 {
					d.send(i, j, raMsg{Kind: raReply, From: i}, unordered)
					k++
				}
			}
		default:
			continue
		}
		out, sent = append(out, d), append(sent, k)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for x, m := range s.ch[i][j] {
				if x > 0 && (!unordered || m == s.ch[i][j][x-1]) {
					continue
				}
				d := s.clone()
				d.ch[i][j] = slices.Delete(d.ch[i][j], x, x+1)
				k := 0
				if m.Kind == raReply {
					d.waiting[j] &^= 1 << i
				} else {
					if !broken {
						d.c[j] = max(d.c[j], m.TS)
					}
					if s.ust[j] == 0 || s.ust[j] == 1 && (m.TS < s.myTs[j] || m.TS == s.myTs[j] && i < j) {
						d.send(j, i, raMsg{Kind: raReply, From: j}, unordered)
						k = 1
					} else {
						d.deferred[j] |= 1 << i
					}
				}
				out, sent = append(out, d), append(sent, k)
			}
		}
	}
	return out, sent
}

// raRefInitial returns the initial state of n processes.
func raRefInitial(n int) raRef {
	init := raRef{ust: make([]int, n), done: make([]int, n), c: make([]int, n), myTs: make([]int, n),
		waiting: make([]int, n), deferred: make([]int, n), perm: make([]int, n), asked: make([]int, n)}
	for i := 0; i < n; i++ {
		init.ch = append(init.ch, make([][]raMsg, n))
	}
	return init
}

// raReference is the literal model's figures, with the message range, for
// the parameters p of ricart-agrawala, or without the clock update of
// ricart-agrawala-broken (testdata/counts/ricart-agrawala.txt).
func raReference(t testing.TB, p *Params, broken bool) refFigures {
	n, r, req := refUsers(t, p)
	unordered := p.String("channels") != "fifo"
	return refWalk(t, refModel[raRef]{
		initial:  []raRef{raRefInitial(n)},
		key:      raRef.key,
		next:     func(s raRef) ([]raRef, []int) { return s.next(r, req, unordered, broken) },
		messages: true,
	})
}

// TestRicartAgrawalaBroken checks the twin of
// docs/algorithms/ricart-agrawala.md: without the clock update on REQUEST, GA1
// fails at N=2. Process 2 requests with (1,2); process 1 replies while idle and
// keeps C=0, then requests with (1,1), older than (1,2), so process 2 replies
// too and both enter.
func TestRicartAgrawalaBroken(t *testing.T) {
	t.Parallel()
	// Under FIFO the REPLY to (1,2) is ahead of REQUEST(1,1) on 1→2. In a
	// bag the REQUEST sorts first, and the canonical shortest
	// counterexample had it overtake the REPLY, which the bug does not
	// need: among the shortest, the explorer shows one without
	// overtaking, the same as under FIFO.
	fifo := []string{"request_{2}", "receive(REQUEST(1,2))_{2,1}", "request_{1}", "receive(REPLY)_{1,2}",
		"receive(REQUEST(1,1))_{1,2}", "enter_{2}", "receive(REPLY)_{2,1}", "enter_{1}"}
	wants := map[string][]string{"unordered": fifo, "fifo": fifo}
	for _, ch := range []string{"unordered", "fifo"} {
		v := counterexample(t, "ricart-agrawala-broken", map[string]string{"n": "2", "channels": ch}, nil, properties.MutualExclusion)
		if got := explorer.Actions(v.Trace.Steps); !slices.Equal(got, wants[ch]) {
			t.Errorf("%s: counterexample %q, want %q", ch, got, wants[ch])
		}
		if expl := strings.Join(v.Trace.Explanation, "\n"); !strings.Contains(expl, "process 1 is in the critical section with request (1,1)") {
			t.Errorf("explanation %q", expl)
		}
	}
	if s := twinOf(ricartAgrawala()); s.Bug == "" || s.Name != "ricart-agrawala-broken" {
		t.Errorf("twin: name %q, bug %q", s.Name, s.Bug)
	}
	// FAIR-TS is not vacuous: the twin violates it as well.
	r := check(t, "ricart-agrawala-broken", map[string]string{"n": "2"}, explorer.Config{Workers: 1, Properties: []string{properties.TimestampOrder}})
	if r.Status != explorer.Violated {
		t.Errorf("timestamp-order on the twin: %v, want violated", r.Status)
	}
}

// TestRicartAgrawalaParams checks that bad values are usage errors naming
// the flag.
func TestRicartAgrawalaParams(t *testing.T) {
	t.Parallel()
	s := ricartAgrawala()
	p, err := NewParams(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Build(p); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"n": 3, "requests": 1, "requesters": "all", "channels": "unordered", "capacity": 2}
	for k, v := range want {
		if got := p.Canonical()[k]; fmt.Sprint(got) != fmt.Sprint(v) {
			t.Errorf("canonical --%s = %v, want %v", k, got, v)
		}
	}
	mxUsageErrors(t, s, map[string]string{"n": "0", "requests": "6", "requesters": "4", "channels": "lossy", "capacity": "0"})
}

// mxUsageErrors checks that each flag=value, set alone, makes s's Build
// fail with a usage error naming the flag.
func mxUsageErrors(t *testing.T, s Spec, bad map[string]string) {
	t.Helper()
	flags := make([]string, 0, len(bad))
	for f := range bad {
		flags = append(flags, f)
	}
	slices.Sort(flags)
	for _, f := range flags {
		err := buildErr(s, map[string]string{f: bad[f]})
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "--"+f) {
			t.Errorf("%s --%s %s: error %v; want a usage error naming --%s", s.Name, f, bad[f], err, f)
		}
	}
}
