package specs

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// trRef is a literal reference model of the token ring with recovery
// (docs/algorithms/token-ring-recovery.md), written without the automaton and
// explorer packages. In channel queues 0 is TOKEN and v > 0 is ELECT(v). With
// literal set it is the section's model as written: lose removes any TOKEN from
// any channel, and the budgets are global counters (lost[0], early[0]);
// otherwise it mirrors the spec: lose_i is a pass whose TOKEN is lost, and the
// counters are per process.
type trRef struct {
	u           []int
	el, tok     []bool
	lost, early []int
	queue       [][]int
}

type trRefCfg struct {
	losses, premature int
	perfect, literal  bool
}

func (r *trRef) clone() *trRef {
	c := &trRef{u: r.u, el: slices.Clone(r.el), tok: slices.Clone(r.tok), lost: slices.Clone(r.lost), early: slices.Clone(r.early)}
	for _, q := range r.queue {
		c.queue = append(c.queue, slices.Clone(q))
	}
	return c
}

// key encodes the state; with project, the fault counters only by their
// sums (the state of the section's model).
func (r *trRef) key(project bool) string {
	b := make([]byte, 0, 64)
	sl, se := 0, 0
	for i := range r.u {
		b = append(b, byte(r.u[i]), trB(r.el[i]), trB(r.tok[i]))
		if !project {
			b = append(b, byte(r.lost[i]), byte(r.early[i]))
		}
		sl, se = sl+r.lost[i], se+r.early[i]
		b = append(b, byte(len(r.queue[i])))
		for _, m := range r.queue[i] {
			b = append(b, byte(m))
		}
	}
	return string(append(b, byte(sl), byte(se)))
}

func trB(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func (r *trRef) tokens() int {
	k := 0
	for i := range r.u {
		if r.tok[i] {
			k++
		}
		for _, m := range r.queue[i] {
			if m == 0 {
				k++
			}
		}
	}
	return k
}

func trSum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

func (r *trRef) next(cfg trRefCfg) []*trRef {
	n := len(r.u)
	var out []*trRef
	for i := 0; i < n; i++ {
		if r.tok[i] {
			c := r.clone()
			c.tok[i] = false
			c.queue[i] = append(c.queue[i], 0)
			out = append(out, c)
			if !cfg.literal && trSum(r.lost) < cfg.losses {
				c := r.clone()
				c.tok[i] = false
				c.lost[i]++
				out = append(out, c)
			}
		}
		if !r.el[i] {
			k := -1 // -1: no timeout; 0 justified; 1 premature
			if r.tokens() == 0 {
				k = 0
			} else if !cfg.perfect && trSum(r.early) < cfg.premature {
				k = 1
			}
			if k >= 0 {
				c := r.clone()
				c.el[i] = true
				if cfg.literal {
					c.early[0] += k
				} else {
					c.early[i] += k
				}
				c.queue[i] = append(c.queue[i], c.u[i])
				out = append(out, c)
			}
		}
	}
	for i := 0; i < n; i++ {
		if len(r.queue[i]) == 0 {
			continue
		}
		c := r.clone()
		j := (i + 1) % n
		m := c.queue[i][0]
		c.queue[i] = c.queue[i][1:]
		switch {
		case m == 0:
			c.tok[j], c.el[j] = true, false
		case !c.el[j]:
			c.el[j] = true
			c.queue[j] = append(c.queue[j], max(m, c.u[j]))
		case m > c.u[j]:
			c.queue[j] = append(c.queue[j], m)
		case m == c.u[j]:
			c.tok[j], c.el[j] = true, false
		}
		out = append(out, c)
	}
	if cfg.literal && r.lost[0] < cfg.losses {
		for i := 0; i < n; i++ {
			for k, m := range r.queue[i] {
				if m == 0 {
					c := r.clone()
					c.queue[i] = slices.Delete(c.queue[i], k, k+1)
					c.lost[0]++
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// trRefModel is the reference model from every arrangement in idsets,
// process 1 holding the token; with project, states are keyed by the
// section's state (the fault counters summed).
func trRefModel(idsets [][]int, cfg trRefCfg, project bool) refModel[*trRef] {
	m := refModel[*trRef]{
		key:  func(r *trRef) string { return r.key(project) },
		next: func(r *trRef) ([]*trRef, []int) { return r.next(cfg), nil },
	}
	for _, ids := range idsets {
		n := len(ids)
		r := &trRef{u: ids, el: make([]bool, n), tok: make([]bool, n), lost: make([]int, n), early: make([]int, n), queue: make([][]int, n)}
		r.tok[0] = true
		m.initial = append(m.initial, r)
	}
	return m
}

// trRefConfig is the reference model's configuration for the parameters p
// of token-ring-recovery.
func trRefConfig(t testing.TB, p *Params) trRefCfg {
	cfg := trRefCfg{losses: refInt(t, p, "losses"), perfect: p.String("timeouts") == "perfect"}
	if !cfg.perfect {
		cfg.premature = refInt(t, p, "premature")
	}
	return cfg
}

// trReference is the reference model's figures (spec form) for the
// parameters p of token-ring-recovery
// (testdata/counts/token-ring-recovery.txt).
func trReference(t testing.TB, p *Params) refFigures {
	return refWalk(t, trRefModel(refIDs(t, p), trRefConfig(t, p), false))
}

// TestTokenRingRecoveryLiteral checks the equivalence the spec's doc
// comment argues, on the instances of
// testdata/counts/token-ring-recovery.txt: the spec form's states (lose_i
// a pass whose TOKEN is lost, counters per process), with the fault
// counters summed, are exactly the states of the section's literal model
// in which lose takes a TOKEN out of a channel at any time.
func TestTokenRingRecoveryLiteral(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n, losses int
		timeouts  string
	}{
		{3, 0, "perfect"}, {2, 1, "perfect"}, {3, 1, "perfect"}, {3, 2, "perfect"},
		{4, 1, "perfect"}, {4, 2, "perfect"}, {3, 0, "unrestricted"}, {3, 1, "unrestricted"},
	} {
		p, err := NewParams(tokenRingRecovery(), map[string]string{"n": fmt.Sprint(tt.n), "losses": fmt.Sprint(tt.losses), "timeouts": tt.timeouts})
		if err != nil {
			t.Fatal(err)
		}
		cfg := trRefConfig(t, p)
		states := func(cfg trRefCfg) map[string]bool {
			seen := map[string]bool{}
			m := trRefModel(permutations(tt.n), cfg, true)
			m.visit = func(r *trRef, _ int, _ []*trRef) { seen[r.key(true)] = true }
			refWalk(t, m)
			return seen
		}
		proj := states(cfg)
		cfg.literal = true
		lit := states(cfg)
		if !maps.Equal(proj, lit) {
			t.Errorf("n=%d losses=%d %s: lose at send gives %d section states, lose from a channel %d, not the same", tt.n, tt.losses, tt.timeouts, len(proj), len(lit))
		}
	}
}

// TestTokenRingRecoveryUnrestricted: with one premature timeout and no loss
// at all, a second token appears for N = 3 (section 1.7's reference): the
// shortest run is the premature tvtExpire of the maximum and its ELECT's
// lap, 4 steps, while the token still rests at process 1.
func TestTokenRingRecoveryUnrestricted(t *testing.T) {
	t.Parallel()
	m := build(t, "token-ring-recovery", map[string]string{"n": "3", "ids": "1,2,3", "losses": "0", "timeouts": "unrestricted"})
	r, err := explorer.Check(m, explorer.Config{Properties: []string{properties.TokenUniqueness}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Violated || r.Violations[0].Property != properties.TokenUniqueness {
		t.Fatalf("status %v %+v, want token-uniqueness violated", r.Status, r.Violations)
	}
	if tr := r.Violations[0].Trace; len(tr.Steps) != 4 || tr.Steps[0].Action != "tvtExpire_{3}" {
		t.Errorf("counterexample %+v; want 4 steps starting with tvtExpire_{3}", tr.Steps)
	}
	// Deadlock-freedom still holds (section 1.7's table).
	m = build(t, "token-ring-recovery", map[string]string{"n": "3", "timeouts": "unrestricted"})
	if r, err := explorer.Check(m, explorer.Config{Properties: []string{properties.DeadlockFreedom}}); err != nil || r.Status != explorer.OK {
		t.Errorf("deadlock-freedom: status %v (%v), want ok", r.Status, err)
	}
}

// TestTokenRingRecoveryBroken: processes that stay in election mode when
// the token passes never recover; the counterexample is a lasso whose
// cycle is the token's lap, fair to every task.
func TestTokenRingRecoveryBroken(t *testing.T) {
	t.Parallel()
	m := build(t, "token-ring-recovery-broken", map[string]string{"n": "3", "ids": "1,2,3"})
	r, err := explorer.Check(m, explorer.Config{Properties: twinOf(tokenRingRecovery()).Claims})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Violated || r.Violations[0].Property != "recovery" {
		t.Fatalf("status %v %+v, want recovery violated", r.Status, r.Violations)
	}
	if tr := r.Violations[0].Trace; len(tr.Cycle) != 6 || len(tr.Steps) != 5 {
		t.Errorf("lasso of %d + %d steps, want 5 + 6", len(tr.Steps), len(tr.Cycle))
	}
}

func TestTokenRingRecoveryUsage(t *testing.T) {
	t.Parallel()
	for _, flags := range []map[string]string{
		{"n": "0"},
		{"losses": "-1"},
		{"losses": "many"},
		{"timeouts": "eventual"},
		{"premature": "2"}, // only with unrestricted
		{"timeouts": "unrestricted", "premature": "99"},
		{"n": "3", "ids": "1,2"},
		{"channels": "lossy"},
	} {
		err := buildErr(tokenRingRecovery(), flags)
		if !errors.Is(err, ErrUsage) {
			t.Errorf("%v: error %v, want ErrUsage", flags, err)
		}
	}
}
