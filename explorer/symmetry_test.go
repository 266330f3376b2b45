package explorer_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// swap is two counters a, b in 0..3 that count up independently (and wrap
// to 0 with wrap), symmetric under exchanging them; the invariant fails
// where a+b = bad (never when bad < 0).
type swap struct {
	wrap bool
	bad  int
	// lopsided lets the second counter count to 2 only: a model that
	// breaks the symmetry it declares.
	lopsided bool
	// permuting gives it a Canonicalizer that is an explorer.Permuting.
	permuting bool
}

func (m swap) Initial() ([][]byte, error) { return [][]byte{{0, 0}}, nil }
func (m swap) Properties() []properties.Info {
	return []properties.Info{{Name: "good", Kind: properties.Invariant}}
}
func (m swap) NewWorker() explorer.Worker { return swapWorker{m} }
func (m swap) Symmetry() (string, error)  { return "exchange of the two counters, 2 elements", nil }
func (m swap) NewCanonicalizer() explorer.Canonicalizer {
	if m.permuting {
		return &permSwapCanon{}
	}
	return &swapCanon{}
}

// permSwapCanon is swapCanon that says which permutation it applied: 1
// exchanges the counters.
type permSwapCanon struct{ swapCanon }

func (c *permSwapCanon) CanonicalPerm(s []byte) ([]byte, int, int, error) {
	rep, orbit, err := c.Canonical(s)
	g := 0
	if rep[0] != s[0] {
		g = 1
	}
	return rep, orbit, g, err
}

func (c *permSwapCanon) Permute(s []byte, g int) ([]byte, error) {
	if g == 0 {
		return s, nil
	}
	c.buf = [2]byte{s[1], s[0]}
	return c.buf[:], nil
}

type swapCanon struct{ buf [2]byte }

func (c *swapCanon) Canonical(s []byte) ([]byte, int, error) {
	if s[0] == s[1] {
		return s, 1, nil
	}
	c.buf = [2]byte{min(s[0], s[1]), max(s[0], s[1])}
	return c.buf[:], 2, nil
}

type swapWorker struct{ m swap }

func (w swapWorker) Successors(s []byte, emit func(explorer.Transition, []byte)) (int, error) {
	n := 0
	for k := 0; k < 2; k++ {
		next := []byte{s[0], s[1]}
		limit := byte(3)
		if k == 1 && w.m.lopsided {
			limit = 2
		}
		switch {
		case next[k] < limit:
			next[k]++
		case w.m.wrap:
			next[k] = 0
		default:
			continue
		}
		emit(explorer.Transition{Task: int32(k), Messages: 1}, next)
		n++
	}
	return n, nil
}

func (w swapWorker) Check(s []byte, want uint64) (uint64, error) {
	if want&1 != 0 && int(s[0])+int(s[1]) == w.m.bad {
		return 1, nil
	}
	return 0, nil
}

func (w swapWorker) Expand(s []byte, x *explorer.Expansion) (explorer.Expanded, error) {
	return explorer.ExpandBySuccessors(w, s, x)
}

func (w swapWorker) ValidEnd([]byte) (bool, error) { return true, nil }

// TestSymmetryQuotient: the quotient of a small symmetric model stores 10
// orbits for 16 states; a counterexample is a real run of the model (from
// (0,0), through states the model has, to a violating one); a cycle of the
// quotient that the model closes only after two rounds gives a lasso of
// the model that closes.
func TestSymmetryQuotient(t *testing.T) {
	for _, strategy := range []explorer.Strategy{explorer.BFS, explorer.DFS} {
		r, err := explorer.Check(swap{bad: -1}, explorer.Config{Strategy: strategy, Symmetry: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != explorer.OK || r.States != 10 || r.RawStates != 16 || r.Terminal != 1 || r.RawTerminal != 1 {
			t.Errorf("%s: %s, %d orbits holding %d states, %d terminal (%d); want ok, 10 holding 16, 1 (1)", strategy, r.Status, r.States, r.RawStates, r.Terminal, r.RawTerminal)
		}
	}
	r, err := explorer.Check(swap{bad: 5}, explorer.Config{Symmetry: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != explorer.Violated || len(r.Violations) != 1 {
		t.Fatalf("a+b=5: %s, %d violations", r.Status, len(r.Violations))
	}
	if end := endOf(t, swap{bad: 5}, r.Violations[0].Trace); int(end[0])+int(end[1]) != 5 || len(r.Violations[0].Trace.Steps) != 5 {
		t.Errorf("the counterexample ends in %v after %d steps, want a+b=5 after 5", end, len(r.Violations[0].Trace.Steps))
	}
	r, err = explorer.Check(swap{wrap: true, bad: -1}, explorer.Config{Symmetry: true, Metrics: []string{"messages"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Metrics) != 1 || !r.Metrics[0].Unbounded || r.Metrics[0].MaxWitness == nil {
		t.Fatalf("wrapping counters: %+v, want unbounded messages with a lasso", r.Metrics)
	}
	w := r.Metrics[0].MaxWitness
	start := endOf(t, swap{wrap: true}, explorer.Trace{Initial: w.Initial, Steps: w.Steps})
	end := endOf(t, swap{wrap: true}, explorer.Trace{Initial: w.Initial, Steps: append(append([]explorer.Step(nil), w.Steps...), w.Cycle...)})
	if len(w.Cycle) == 0 || start != end {
		t.Errorf("the lasso's cycle goes from %v to %v in %d steps: it does not close", start, end, len(w.Cycle))
	}
}

// endOf replays trace t on m and returns its last state.
func endOf(t *testing.T, m explorer.Model, tr explorer.Trace) [2]byte {
	t.Helper()
	cur := []byte{0, 0}
	w := m.NewWorker()
	for _, s := range tr.Steps {
		var next []byte
		k := 0
		if _, err := explorer.Successors(w, cur, func(_ explorer.Transition, b []byte) {
			if k == s.ActionIndex {
				next = append([]byte(nil), b...)
			}
			k++
		}); err != nil || next == nil {
			t.Fatalf("the trace does not replay at %v (%v)", cur, err)
		}
		cur = next
	}
	return [2]byte(cur)
}

// TestSymmetryRefusals: a model that declares no symmetry, and what
// symmetry cannot be combined with, are configuration errors.
func TestSymmetryRefusals(t *testing.T) {
	for name, c := range map[string]struct {
		m   explorer.Model
		cfg explorer.Config
	}{
		"no symmetry declared": {&graph{init: []int{0}, next: func(int) []int { return nil }}, explorer.Config{}},
		"partial-order":        {swap{bad: -1}, explorer.Config{Reduction: explorer.PartialOrder}},
		"metric time":          {swap{bad: -1}, explorer.Config{Metrics: []string{"time"}}},
	} {
		c.cfg.Symmetry = true
		if _, err := explorer.Check(c.m, c.cfg); !errors.Is(err, explorer.ErrConfig) {
			t.Errorf("%s: %v, want a configuration error", name, err)
		}
	}
}

// TestSymmetryChecked: the quotient has the same figures whether the
// canonicalizer says which permutation it applied (explorer.Permuting, the
// successors compared state by state) or not (their orbits compared), and
// a model that breaks the symmetry it declares fails either way, on both
// strategies.
func TestSymmetryChecked(t *testing.T) {
	for _, permuting := range []bool{false, true} {
		for _, cfg := range []explorer.Config{{Workers: 1}, {Workers: 2}, {Strategy: explorer.DFS}} {
			cfg.Symmetry = true
			r, err := explorer.Check(swap{bad: -1, permuting: permuting}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != explorer.OK || r.States != 10 || r.RawStates != 16 {
				t.Errorf("permuting %v, %s/%d: %s (%s), %d orbits holding %d states; want ok, 10 holding 16", permuting, r.Strategy, r.Workers, r.Status, r.Reason, r.States, r.RawStates)
			}
			r, err = explorer.Check(swap{bad: -1, permuting: permuting, lopsided: true}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != explorer.Failed || !strings.Contains(r.Reason, "not symmetric") {
				t.Errorf("permuting %v, %s/%d, lopsided: %s (%s); want a failure: the model is not symmetric", permuting, r.Strategy, r.Workers, r.Status, r.Reason)
			}
		}
	}
}

// TestConfigErrors: a Config that Check refuses is a *ConfigError that
// matches ErrConfig, names the field at fault with its value, and words
// the options it speaks of as Config fields, or as a caller's flags.
func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		m            explorer.Model
		cfg          explorer.Config
		field, value string
		goWords      string
		flagWords    string
	}{
		{swap{bad: -1}, explorer.Config{Workers: 300}, "Workers", "300",
			"explorer: bad configuration: Config.Workers 300: at most 256", "--workers 300: at most 256"},
		{swap{bad: -1}, explorer.Config{Properties: []string{"nope"}}, "Properties", `"nope"`,
			`explorer: bad configuration: Config.Properties "nope": unknown property; this spec has good, deadlock-freedom`,
			`--properties "nope": unknown property; this spec has good, deadlock-freedom`},
		{swap{bad: -1}, explorer.Config{Reduction: explorer.PartialOrder}, "Reduction", "por",
			"explorer: bad configuration: Config.Reduction por: this model does not allow partial-order reduction (its processes are not declared independent); use Config.Reduction none",
			"--reduction por: this model does not allow partial-order reduction (its processes are not declared independent); use --reduction none"},
		{swap{bad: -1}, explorer.Config{MaxStates: -1}, "MaxStates", "-1",
			"explorer: bad configuration: Config.MaxStates -1: must not be negative", "--maxstates -1: must not be negative"},
	} {
		_, err := explorer.Check(c.m, c.cfg)
		var ce *explorer.ConfigError
		if !errors.Is(err, explorer.ErrConfig) || !errors.As(err, &ce) {
			t.Errorf("%+v: %v, want a *ConfigError", c.cfg, err)
			continue
		}
		flags := ce.Words(func(field, value string) string {
			if value == "" {
				return "--" + strings.ToLower(field)
			}
			return "--" + strings.ToLower(field) + " " + value
		})
		if ce.Field != c.field || ce.Value != c.value || err.Error() != c.goWords || flags != c.flagWords {
			t.Errorf("%+v: field %q value %q\n%s\n%s\nwant %q %q\n%s\n%s", c.cfg, ce.Field, ce.Value, err, flags, c.field, c.value, c.goWords, c.flagWords)
		}
	}
}

// streamSwap is swap whose initial states are every pair of counters, made
// one at a time (an InitialStreamer) and counted in built; Initial, which
// builds them all, fails.
type streamSwap struct {
	swap
	built *int
}

func (m streamSwap) InitialStates(yield func(st []byte) bool) error {
	for a := range byte(4) {
		for b := range byte(4) {
			*m.built++
			if !yield([]byte{a, b}) {
				return nil
			}
		}
	}
	return nil
}

func (m streamSwap) Initial() ([][]byte, error) {
	return nil, errors.New("Initial builds every initial state at once")
}

// TestSymmetryStreamsInitialStates: under symmetry the search builds the
// initial states one at a time as the plain search does, so that a limit
// holds while they are built (issue 34 item 8: the quotient called
// m.Initial() and canonicalized them all before the search began), and
// its counterexamples map back to real runs from the streamed states.
func TestSymmetryStreamsInitialStates(t *testing.T) {
	for _, strategy := range []explorer.Strategy{explorer.BFS, explorer.DFS} {
		built := 0
		m := streamSwap{swap: swap{bad: -1}, built: &built}
		r := check(t, m, explorer.Config{Strategy: strategy, Workers: 1, Symmetry: true, MaxStates: 3})
		if r.Status != explorer.Incomplete || r.Limit != explorer.StateLimit {
			t.Errorf("%v: %v (%s); want incomplete at the state limit", strategy, r.Status, r.Reason)
		}
		if built > 6 {
			t.Errorf("%v: %d of 16 initial states built for --max-states 3", strategy, built)
		}
		// All of them: 10 orbits of the 16 pairs, all initial.
		built = 0
		r = check(t, m, explorer.Config{Strategy: strategy, Workers: 1, Symmetry: true})
		if r.Status != explorer.OK || r.States != 10 || r.RawStates != 16 {
			t.Errorf("%v: %v, %d orbits of %d states; want ok, 10 of 16", strategy, r.Status, r.States, r.RawStates)
		}
		// A counterexample maps back to a real run from a streamed state.
		m.bad = 5
		r = check(t, m, explorer.Config{Strategy: strategy, Workers: 1, Symmetry: true})
		if r.Status != explorer.Violated || len(r.Violations) == 0 {
			t.Fatalf("%v: %v; want violated", strategy, r.Status)
		}
	}
}
