package automaton_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
)

// ppStates returns ping-pong initial states in which the pinger has sent
// each of sent pings (the other fields zero), in order.
func ppStates(sent ...int) [][]pp {
	var out [][]pp
	for _, s := range sent {
		out = append(out, []pp{{Pinger: true, Sent: s}, {}})
	}
	return out
}

// uniformity draws n initial states of m with seed and compares their
// frequencies with the states Initial yields, each as likely as any other
// (a state yielded twice twice as likely): it returns an error when a
// sample is not among them or when Pearson's chi-square statistic exceeds
// the value a uniform sampler exceeds with probability about 1e-4.
func uniformity(m explorer.Model, n int, seed uint64) error {
	initial, err := m.Initial()
	if err != nil {
		return err
	}
	want := map[string]float64{}
	for _, st := range initial {
		want[string(st)] += float64(n) / float64(len(initial))
	}
	got := map[string]int{}
	r := rand.New(rand.NewPCG(seed, 0))
	for range n {
		st, err := m.(explorer.InitialSampler).SampleInitial(r)
		if err != nil {
			return err
		}
		if _, ok := want[string(st)]; !ok {
			return fmt.Errorf("the sample %x is not one of the initial states", st)
		}
		got[string(st)]++
	}
	chi := 0.0
	for st, e := range want {
		d := float64(got[st]) - e
		chi += d * d / e
	}
	if df := float64(len(want) - 1); df > 0 {
		// Wilson and Hilferty: (X/df)^(1/3) is about normal with mean
		// 1 − 2/(9 df) and variance 2/(9 df); z = 3.72 leaves 1e-4 above.
		v := 2 / (9 * df)
		if crit := df * math.Pow(1-v+3.72*math.Sqrt(v), 3); chi > crit {
			return fmt.Errorf("not uniform: chi-square %.1f with %d degrees of freedom, above %.1f", chi, len(want)-1, crit)
		}
	}
	return nil
}

// TestSampleInitialPicksFromInitial checks that a System with a list of
// initial states and no InitialSample draws each entry of the list with
// the same chance (the one listed twice twice as often), the same states
// for the same seed, and returns a copy of its own.
func TestSampleInitialPicksFromInitial(t *testing.T) {
	sys := mustNew(t, automaton.Config[pp, int]{
		Initial: ppStates(0, 1, 2, 2),
		Links:   automaton.Complete(2, false),
	})
	if err := uniformity(sys, 40000, 1); err != nil {
		t.Fatal(err)
	}
	draw := func(seed uint64) [][]byte {
		r := rand.New(rand.NewPCG(seed, 7))
		var out [][]byte
		for range 50 {
			st, err := sys.SampleInitial(r)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, st)
		}
		return out
	}
	a, b := draw(3), draw(3)
	if !slices.EqualFunc(a, b, bytes.Equal) {
		t.Fatal("the same seed drew different initial states")
	}
	clear(a[0])
	initial, _ := sys.Initial()
	if !slices.ContainsFunc(initial, func(st []byte) bool { return bytes.Equal(st, b[0]) }) {
		t.Fatal("changing a sample changed the system's initial states")
	}
}

// TestSampleInitialWithSampler checks that InitialSample's draw is encoded
// and normalized as InitialStates encodes and normalizes the states of
// InitialSeq.
func TestSampleInitialWithSampler(t *testing.T) {
	seq := func(yield func([]pp) bool) {
		for _, s := range ppStates(0, 1, 2, 3, 4, 5) {
			if !yield(s) {
				return
			}
		}
	}
	sys := mustNew(t, automaton.Config[pp, int]{
		InitialSeq:    seq,
		InitialSample: func(r *rand.Rand) []pp { return ppStates(r.IntN(6))[0] },
		// Pings sent 3 to 5 stand for 0 to 2: each state of the three
		// is yielded twice, and Initial lists it twice.
		Normalize: func(procs []pp, _ [][]int) { procs[0].Sent %= 3 },
		Links:     automaton.Complete(2, false),
	})
	if err := uniformity(sys, 6000, 2); err != nil {
		t.Fatal(err)
	}
	st, err := sys.SampleInitial(rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(t, sys, st); !strings.HasPrefix(got, "p1.sent=0 ") && !strings.HasPrefix(got, "p1.sent=1 ") && !strings.HasPrefix(got, "p1.sent=2 ") {
		t.Fatalf("the sample %s is not normalized", got)
	}
}

// TestSampleInitialRefuses checks the errors of SampleInitial: a System
// with InitialSeq and no InitialSample cannot sample (ErrNoSampler), and a
// draw with the wrong number of processes, other constants, or a panic
// is an error, not a state.
func TestSampleInitialRefuses(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	lazy := mustNew(t, automaton.Config[pp, int]{
		InitialSeq: func(yield func([]pp) bool) { yield(ppStates(0)[0]) },
		Links:      automaton.Complete(2, false),
	})
	if _, err := lazy.SampleInitial(r); !errors.Is(err, automaton.ErrNoSampler) {
		t.Fatalf("InitialSeq without InitialSample: %v, want ErrNoSampler", err)
	}
	for _, tt := range []struct {
		name   string
		sample func(r *rand.Rand) []pp
		want   string
	}{
		{"three processes", func(*rand.Rand) []pp { return []pp{{Pinger: true}, {}, {}} }, "the sampled initial state has 3 processes, the first has 2"},
		{"another constant", func(*rand.Rand) []pp { return []pp{{}, {}} }, "field Pinger of process 1 is constant"},
		{"a panic", func(*rand.Rand) []pp { panic("no dice") }, "drawing an initial state (InitialSample): the model panicked: no dice"},
	} {
		sys := mustNew(t, automaton.Config[pp, int]{
			Initial:       ppStates(0),
			InitialSample: tt.sample,
			Links:         automaton.Complete(2, false),
		})
		if _, err := sys.SampleInitial(r); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error with %q", tt.name, err, tt.want)
		}
	}
}

// TestUniformityCatchesBias checks the test's own yardstick: a sampler
// that draws the first of six states twice as often as the others is
// found out.
func TestUniformityCatchesBias(t *testing.T) {
	sys := mustNew(t, automaton.Config[pp, int]{
		Initial: ppStates(0, 1, 2, 3, 4, 5),
		InitialSample: func(r *rand.Rand) []pp {
			k := r.IntN(7)
			return ppStates(max(k-1, 0))[0]
		},
		Links: automaton.Complete(2, false),
	})
	if err := uniformity(sys, 30000, 1); err == nil || !strings.Contains(err.Error(), "not uniform") {
		t.Fatalf("a biased sampler passed: %v", err)
	}
}

// TestInitialAt: a System builds its k-th initial state directly from its
// list, or from Config.InitialAt, as InitialStates yields it; none past
// the last; a System with InitialSeq and no InitialAt cannot
// (errors.ErrUnsupported), and InitialAt's mistakes are errors, not states.
func TestInitialAt(t *testing.T) {
	list := ppStates(0, 1, 2)
	for _, cfg := range []automaton.Config[pp, int]{
		{Initial: list, Links: automaton.Complete(2, false)},
		{InitialSeq: slices.Values(list), Links: automaton.Complete(2, false),
			InitialAt: func(k uint64) ([]pp, bool) {
				if k >= uint64(len(list)) {
					return nil, false
				}
				return slices.Clone(list[k]), true
			}},
	} {
		sys := mustNew(t, cfg)
		k := 0
		if err := sys.InitialStates(func(st []byte) bool {
			got, ok, err := sys.InitialAt(k)
			if !ok || err != nil || !bytes.Equal(got, st) {
				t.Errorf("InitialAt(%d): %v %v, not the state yielded", k, ok, err)
			}
			k++
			return true
		}); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := sys.InitialAt(k); ok || err != nil || k != 3 {
			t.Errorf("InitialAt(%d), past the last: %v %v", k, ok, err)
		}
	}
	lazy := mustNew(t, automaton.Config[pp, int]{InitialSeq: slices.Values(list), Links: automaton.Complete(2, false)})
	if _, _, err := lazy.InitialAt(0); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("InitialSeq without InitialAt: %v, want errors.ErrUnsupported", err)
	}
	for _, tt := range []struct {
		name string
		at   func(uint64) ([]pp, bool)
		want string
	}{
		{"three processes", func(uint64) ([]pp, bool) { return []pp{{Pinger: true}, {}, {}}, true }, "initial state 1 has 3 processes, the first has 2"},
		{"a panic", func(uint64) ([]pp, bool) { panic("no such state") }, "building initial state 1 (InitialAt): the model panicked: no such state"},
	} {
		sys := mustNew(t, automaton.Config[pp, int]{InitialSeq: slices.Values(list), InitialAt: tt.at, Links: automaton.Complete(2, false)})
		if _, ok, err := sys.InitialAt(0); ok || err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v %v, want an error with %q", tt.name, ok, err, tt.want)
		}
	}
}
