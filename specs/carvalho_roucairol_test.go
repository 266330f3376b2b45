package specs

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// TestCarvalhoRoucairolTimestampOrder checks the "Expected to FAIL" of
// docs/algorithms/carvalho-roucairol.md: FAIR-TS (offered, not claimed) fails
// at N=2. Process 1's REQUEST(2,1) is still on its way when process 2, holding
// 1's permission since its first entry, requests with (2,2) and re-enters
// without asking. (The shortest counterexample shown is one without
// overtaking; the mirror one that came first had a REPLY overtake the
// REQUEST(1,2) still on its way.)
func TestCarvalhoRoucairolTimestampOrder(t *testing.T) {
	t.Parallel()
	if slices.Contains(carvalhoRoucairol().Claims, properties.TimestampOrder) {
		t.Error("timestamp-order is claimed")
	}
	want := []string{
		"request_{2}", "receive(REQUEST(1,2))_{2,1}", "request_{1}", "receive(REPLY)_{1,2}",
		"enter_{2}", "exit_{2}", "request_{2}", "enter_{2}",
	}
	r := check(t, "carvalho-roucairol", map[string]string{"n": "2", "requests": "2"}, explorer.Config{Workers: 2, Properties: []string{properties.TimestampOrder}})
	if r.Status != explorer.Violated || r.Violations[0].Property != properties.TimestampOrder {
		t.Fatalf("%v %v; want timestamp-order violated", r.Status, r.Violations)
	}
	v := r.Violations[0]
	if got := explorer.Actions(v.Trace.Steps); !slices.Equal(got, want) {
		t.Errorf("counterexample %q, want %q", got, want)
	}
	if expl := strings.Join(v.Trace.Explanation, "\n"); !strings.Contains(expl, "process 1 is trying with request (2,1)") {
		t.Errorf("explanation %q", expl)
	}
}

// TestCarvalhoRoucairolBroken checks the twin: replying without giving up
// the permission lets both processes of a pair hold each other's
// permission; process 1 re-enters on the kept one while process 2 enters
// on the REPLY it got (N=2, two requests each: GA1 in 11 steps). The
// no-mutual-permission invariant fails earlier, at step 8.
func TestCarvalhoRoucairolBroken(t *testing.T) {
	t.Parallel()
	want := []string{
		"request_{1}", "receive(REQUEST(1,1))_{1,2}", "request_{2}", "receive(REPLY)_{2,1}", "enter_{1}", "exit_{1}",
		"receive(REQUEST(2,2))_{2,1}", "request_{1}", "enter_{1}", "receive(REPLY)_{1,2}", "enter_{2}",
	}
	v := counterexample(t, "carvalho-roucairol-broken", map[string]string{"n": "2"}, nil, properties.MutualExclusion)
	if got := explorer.Actions(v.Trace.Steps); !slices.Equal(got, want) {
		t.Errorf("counterexample %q, want %q", got, want)
	}
	r := check(t, "carvalho-roucairol-broken", map[string]string{"n": "2"}, explorer.Config{Workers: 1, Properties: []string{cvNoMutualPermission}})
	if r.Status != explorer.Violated || len(r.Violations[0].Trace.Steps) != 8 {
		t.Errorf("no-mutual-permission on the twin: %v, want violated in 8 steps", r.Status)
	}
	if s := twinOf(carvalhoRoucairol()); s.Bug == "" || s.Name != "carvalho-roucairol-broken" {
		t.Errorf("twin: name %q, bug %q", s.Name, s.Bug)
	}
}

// TestCarvalhoRoucairolParams checks the canonical values and that bad
// values are usage errors naming the flag.
func TestCarvalhoRoucairolParams(t *testing.T) {
	t.Parallel()
	s := carvalhoRoucairol()
	p, err := NewParams(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Build(p); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"n": 3, "requests": 1, "requesters": "all", "permissions": "none", "channels": "unordered", "capacity": 2}
	for k, v := range want {
		if got := p.Canonical()[k]; fmt.Sprint(got) != fmt.Sprint(v) {
			t.Errorf("canonical --%s = %v, want %v", k, got, v)
		}
	}
	mxUsageErrors(t, s, map[string]string{"n": "0", "requests": "6", "requesters": "1,1", "permissions": "all", "channels": "lossy"})
}

// cvNext returns every successor of a Carvalho-Roucairol state, written
// literally from docs/algorithms/carvalho-roucairol.md on the raRef state (perm
// and asked as bit masks, waiting unused), in the order of raRef.next, with the
// number of messages each transition sends. ok is false when a transition
// breaks the assertion "at most one REQUEST from i to j per attempt".
func (s raRef) cvNext(r int, req []bool, unordered bool) (out []raRef, sent []int, ok bool) {
	n := len(s.ust)
	all := 1<<n - 1
	for i := 0; i < n; i++ {
		d := s.clone()
		k := 0
		switch {
		case s.ust[i] == 0 && req[i] && s.done[i] < r:
			d.ust[i], d.c[i] = 1, s.c[i]+1
			d.myTs[i] = d.c[i]
			for j := 0; j < n; j++ {
				if j != i && s.perm[i]&(1<<j) == 0 {
					d.asked[i] |= 1 << j
					d.send(i, j, raMsg{raRequest, d.myTs[i], i}, unordered)
					k++
				}
			}
		case s.ust[i] == 1 && s.perm[i]|1<<i == all:
			d.ust[i] = 2
		case s.ust[i] == 2:
			d.ust[i], d.done[i], d.myTs[i], d.asked[i], d.deferred[i] = 0, s.done[i]+1, 0, 0, 0
			for j := 0; j < n; j++ {
				if s.deferred[i]&(1<<j) != 0 {
					d.perm[i] &^= 1 << j
					d.send(i, j, raMsg{Kind: raReply, From: i}, unordered)
					k++
				}
			}
		default:
			continue
		}
		out, sent = append(out, d), append(sent, k)
	}
	ok = true
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for x, m := range s.ch[i][j] {
				if x > 0 && (!unordered || m == s.ch[i][j][x-1]) {
					continue
				}
				d := s.clone()
				d.ch[i][j] = slices.Delete(d.ch[i][j], x, x+1)
				k := 0
				switch {
				case m.Kind == raReply:
					d.perm[j] |= 1 << i
				case s.ust[j] == 0 || s.ust[j] == 1 && (m.TS < s.myTs[j] || m.TS == s.myTs[j] && i < j):
					d.c[j] = max(d.c[j], m.TS)
					had := s.perm[j]&(1<<i) != 0
					d.perm[j] &^= 1 << i
					d.send(j, i, raMsg{Kind: raReply, From: j}, unordered)
					k = 1
					if s.ust[j] == 1 && had {
						ok = ok && s.asked[j]&(1<<i) == 0
						d.asked[j] |= 1 << i
						d.send(j, i, raMsg{raRequest, s.myTs[j], j}, unordered)
						k = 2
					}
				default:
					d.c[j] = max(d.c[j], m.TS)
					d.deferred[j] |= 1 << i
				}
				out, sent = append(out, d), append(sent, k)
			}
		}
	}
	return out, sent, ok
}

// cvReference is the literal model's figures, with the message range,
// for the parameters p of carvalho-roucairol
// (testdata/counts/carvalho-roucairol.txt); it fails the test where GA1,
// no mutual permission or the one-REQUEST assertion fails.
func cvReference(t testing.TB, p *Params) refFigures {
	n, r, req := refUsers(t, p)
	unordered := p.String("channels") != "fifo"
	init := raRefInitial(n)
	for i := 0; p.String("permissions") == "ordered" && i < n; i++ {
		for j := i + 1; j < n; j++ {
			init.perm[i] |= 1 << j
		}
	}
	return refWalk(t, refModel[raRef]{
		initial:  []raRef{init},
		key:      raRef.key,
		messages: true,
		next: func(s raRef) ([]raRef, []int) {
			crit := 0
			for i := range s.ust {
				if s.ust[i] == 2 {
					crit++
				}
				for j := range s.ust {
					if s.perm[i]&(1<<j) != 0 && s.perm[j]&(1<<i) != 0 {
						t.Fatalf("n=%d: mutual permission of %d and %d in %s", n, i+1, j+1, s.key())
					}
				}
			}
			next, sent, ok := s.cvNext(r, req, unordered)
			if crit > 1 || !ok {
				t.Fatalf("n=%d: GA1 or the one-REQUEST assertion fails after %s", n, s.key())
			}
			return next, sent
		},
	})
}
