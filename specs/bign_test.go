package specs

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/simulate"
)

// TestNMaxMatchesBuild checks, for every spec of the catalog with a --n,
// that it declares the largest N it allows (Param.Max, which `vacheck
// list` shows) and that Build agrees: --n Max+1 is refused with a usage
// error naming --n, its value and the bound, and --n Max is not refused
// for --n. The elections on rings allow maxRingN, the rest maxN or less.
func TestNMaxMatchesBuild(t *testing.T) {
	t.Parallel()
	rings := map[string]bool{"chang-roberts": true, "chang-roberts-announce": true, "chang-roberts-wakeup": true,
		"chang-roberts-bidirectional": true, "lelann": true, "peterson": true}
	for _, s := range Catalog() {
		for _, p := range s.Params {
			if p.Flag != "n" {
				continue
			}
			if p.Max <= 0 {
				t.Errorf("%s: --n declares no Max", s.Name)
				continue
			}
			if want := map[bool]int{true: maxRingN, false: maxN}[rings[strings.TrimSuffix(s.Name, "-broken")]]; p.Max > want {
				t.Errorf("%s: --n Max %d, want at most %d", s.Name, p.Max, want)
			}
			build := func(n int) error {
				ps, err := NewParams(s, map[string]string{"n": strconv.Itoa(n)})
				if err != nil {
					return err
				}
				ps.SetSampling(true)
				_, err = s.Build(ps)
				return err
			}
			over := p.Max + 1
			if err := build(over); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), fmt.Sprintf("--n %d", over)) ||
				!strings.Contains(err.Error(), fmt.Sprintf("to %d", p.Max)) {
				t.Errorf("%s --n %d: %v, want a usage error naming --n %d and the bound %d", s.Name, over, err, over, p.Max)
			}
			if err := build(p.Max); err != nil && strings.Contains(err.Error(), "--n ") {
				t.Errorf("%s --n %d (its Max): %v", s.Name, p.Max, err)
			}
		}
	}
}

// TestRingsBeyond64 simulates the ring elections past 64 processes where
// the message count does not depend on the schedule: Chang-Roberts sends
// 2N-1 with the IDs increasing along the ring (each ID but the largest
// goes one hop) and N(N+1)/2 decreasing (the ID k-th from the largest
// goes k hops), its announcement variant N more (the ELECTED round), and
// Le Lann M·N+N for M actual initiators. Every message of processes 65 and
// beyond is in these counts, which a mask cut at 64 bits would lose; every
// invariant (Lemma 1 included) is checked in every state. Peterson's
// count depends on the arrangement: at N = 70 (and 256 with -long) each
// run over a random arrangement must lie between its declared minimum 3N
// and maximum 2N⌊log₂N⌋+N.
func TestRingsBeyond64(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec string
		n    int
		ids  string
		want int
	}{
		{"chang-roberts", 70, "increasing", 2*70 - 1},
		{"chang-roberts", 70, "decreasing", 70 * 71 / 2},
		{"chang-roberts", maxRingN, "increasing", 2*maxRingN - 1},
		{"chang-roberts-announce", 70, "increasing", 2*70 - 1 + 70},
		{"chang-roberts-announce", 70, "decreasing", 70*71/2 + 70},
		// Le Lann: M·N + N messages for M actual initiators; process 70
		// alone, whose initiator flag a 64-bit mask would drop.
		{"lelann --initiators 70", 70, "increasing", 2 * 70},
	} {
		t.Run(fmt.Sprintf("%s/n=%d/%s", tc.spec, tc.n, tc.ids), func(t *testing.T) {
			t.Parallel()
			flags := map[string]string{"n": strconv.Itoa(tc.n), "ids": tc.ids}
			spec, init, ok := strings.Cut(tc.spec, " --initiators ")
			if ok {
				flags["initiators"] = init
			}
			m := build(t, spec, flags)
			res, err := simulate.Simulate(m, simulate.Config{Runs: 1, Seed: 1, Workers: 1, Metrics: []string{"messages"}, MaxSteps: tc.n*(tc.n+1) + 4*tc.n})
			if err != nil {
				t.Fatal(err)
			}
			if res.Ends.ValidEnd != 1 || len(res.Violations) != 0 {
				t.Fatalf("ends %+v, violations %v: want one run to a valid end", res.Ends, res.Violations)
			}
			if got := res.Metrics[0].Max; got != int64(tc.want) {
				t.Errorf("%d messages, want %d", got, tc.want)
			}
		})
	}
	for _, n := range []int{70, maxRingN} {
		t.Run(fmt.Sprintf("peterson/n=%d/all", n), func(t *testing.T) {
			if n > 70 {
				skipUnlessLong(t) // 3 s
			}
			t.Parallel()
			s, err := Lookup("peterson")
			if err != nil {
				t.Fatal(err)
			}
			p, err := NewParams(s, map[string]string{"n": strconv.Itoa(n), "ids": "all"})
			if err != nil {
				t.Fatal(err)
			}
			p.SetSampling(true) // a random arrangement per run
			m, err := s.Build(p)
			if err != nil {
				t.Fatal(err)
			}
			// The claimed invariants and deadlock-freedom, not
			// elected-is-imax, offered and refuted.
			props := []string{properties.DeadlockFreedom}
			for _, p := range m.Properties() {
				if slices.Contains(s.Claims, p.Name) {
					props = append(props, p.Name)
				}
			}
			res, err := simulate.Simulate(m, simulate.Config{Runs: 2, Seed: 1, Workers: 1, Metrics: []string{"messages"}, MaxSteps: 100 * n,
				Properties: props})
			if err != nil {
				t.Fatal(err)
			}
			lo, hi := int64(3*n), int64(2*n*(bits.Len(uint(n))-1)+n)
			if s := res.Metrics[0]; res.Ends.ValidEnd != 2 || len(res.Violations) != 0 || s.Min < lo || s.Max > hi {
				t.Errorf("ends %+v, violations %v, messages %d..%d: want 2 valid ends within [%d, %d]", res.Ends, res.Violations, s.Min, s.Max, lo, hi)
			}
		})
	}
}

// TestChangRobertsLemma1Large compares crLemma1 with the lemma as stated
// (crLemma1Literal) in every state of the first 8N steps of random runs
// on rings of 70 and 140 processes, the IDs a random arrangement of 1..N:
// distances past 127 would overflow an int8 table (the mutant), and IDs
// past 64 fall outside a table of maxN. The broken twin makes the lemma
// fail, so both verdicts are compared.
func TestChangRobertsLemma1Large(t *testing.T) {
	t.Parallel()
	for _, n := range []int{70, 140} {
		for _, broken := range []bool{false, true} {
			t.Run(fmt.Sprintf("n=%d/broken=%v", n, broken), func(t *testing.T) {
				t.Parallel()
				ids := rand.New(rand.NewPCG(uint64(n), 7)).Perm(n)
				procs := make([]crNode, n)
				for i, id := range ids {
					procs[i] = crNode{U: id + 1, Send: []int{id + 1}, Broken: broken, Obj: objMax}
				}
				var tally lemma1Tally
				m, err := automaton.New(automaton.Config[crNode, int]{
					Initial:    [][]crNode{procs},
					Links:      automaton.Ring(n),
					Invariants: []automaton.Invariant[crNode, int]{tally.invariant(false)},
				})
				if err != nil {
					t.Fatal(err)
				}
				res, err := simulate.Simulate(m, simulate.Config{Runs: 1, Seed: 3, Workers: 1, Properties: []string{"same"}, MaxSteps: 8 * n})
				if err != nil {
					t.Fatal(err)
				}
				if res.Status == explorer.Failed {
					t.Fatalf("%v", res.FailureErr)
				}
				tally.report(t, broken)
			})
		}
	}
}

// TestCrashesRefusedBeyond64: crashes are kept in a 64-bit mask, so
// chang-roberts-announce refuses --crashes above 0 beyond 64 processes,
// naming the flag, its value and what is allowed, and takes --crashes 0.
func TestCrashesRefusedBeyond64(t *testing.T) {
	t.Parallel()
	s, err := Lookup("chang-roberts-announce")
	if err != nil {
		t.Fatal(err)
	}
	flags := map[string]string{"n": "65", "ids": "increasing", "crashes": "1"}
	wantUsage(t, buildErr(s, flags), flags, "--crashes 1", "at most 64 processes", "--n is 65", "allowed: 0, or --n up to 64")
	for _, f := range []map[string]string{{"n": "65", "ids": "increasing", "crashes": "0"}, {"n": "64", "ids": "increasing", "crashes": "1"}} {
		if err := buildErr(s, f); err != nil {
			t.Errorf("%v: %v", f, err)
		}
	}
}
