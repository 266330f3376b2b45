package specs

import (
	"fmt"
	"slices"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// BenchmarkChangRobertsSymmetry explores chang-roberts with every ID
// arrangement under --symmetry (rotations): N=6 stores 301,642 orbits of
// the 1,809,852 states. It reports orbits per second and the bytes of peak
// memory per orbit. N=7 runs with -bench-large.
func BenchmarkChangRobertsSymmetry(b *testing.B) {
	for _, n := range benchSizes() {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("spec=chang-roberts/ids=all/symmetry/n=%d/workers=%d", n, workers), func(b *testing.B) {
				m := build(b, "chang-roberts", map[string]string{"n": fmt.Sprint(n), "ids": "all"})
				claims := changRoberts().Claims
				var r *explorer.Result
				for i := 0; i < b.N; i++ {
					var err error
					if r, err = explorer.Check(m, explorer.Config{Workers: workers, Properties: claims, Symmetry: true}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(r.States)*float64(b.N)/b.Elapsed().Seconds(), "orbits/s")
				b.ReportMetric(float64(r.States), "orbits")
				b.ReportMetric(float64(r.RawStates), "raw-states")
				b.ReportMetric(float64(r.PeakMemory)/float64(r.States), "peak-bytes/orbit")
			})
		}
	}
}

// TestChangRobertsOrbits pins the orbit counts of chang-roberts with every
// ID arrangement under the rotations of the ring. No state with distinct
// IDs is fixed by a nontrivial rotation: the IDs are in the state (u_i), so
// a rotation by k ≠ 0 moves u_i to position i+k, and the ID vector of the
// state is not rotation-invariant. Every orbit therefore has exactly N
// states, and the orbit count is the raw count divided by N.
func TestChangRobertsOrbits(t *testing.T) {
	t.Parallel()
	raw := map[int]int64{3: 282, 4: 4308, 5: 80965, 6: 1809852}
	for n := 3; n <= 6; n++ {
		if n == 6 && !*long {
			t.Log("N=6 (1,809,852 states, three searches): large instance, run with -args -long")
			continue
		}
		if n == 6 && testing.Short() {
			continue
		}
		m := build(t, "chang-roberts", map[string]string{"n": fmt.Sprint(n), "ids": "all"})
		for _, cfg := range []explorer.Config{
			{Strategy: explorer.BFS, Workers: 1},
			{Strategy: explorer.BFS, Workers: 2},
			{Strategy: explorer.DFS},
		} {
			cfg.Symmetry = true
			r, err := explorer.Check(m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != explorer.OK || r.States != raw[n]/int64(n) || r.RawStates != raw[n] {
				t.Errorf("N=%d %s/%d: %s, %d orbits holding %d states; want ok, %d orbits holding %d", n, cfg.Strategy, r.Workers, r.Status, r.States, r.RawStates, raw[n]/int64(n), raw[n])
			}
		}
	}
}

// symmetryCases are the specs that declare a symmetry, each at a size
// where the search without symmetry is quick, with their broken twins.
func symmetryCases() []struct {
	spec  string
	flags map[string]string
} {
	type c = struct {
		spec  string
		flags map[string]string
	}
	return []c{
		{"chang-roberts", map[string]string{"n": "4"}},
		{"chang-roberts-broken", map[string]string{"n": "4"}},
		{"chang-roberts", map[string]string{"n": "4", "objective": "min", "channels": "unordered"}},
		{"chang-roberts-announce", map[string]string{"n": "3"}},
		{"chang-roberts-announce", map[string]string{"n": "3", "crashes": "1"}},
		{"chang-roberts-announce-broken", map[string]string{"n": "3"}},
		{"chang-roberts-wakeup", map[string]string{"n": "3"}},
		{"chang-roberts-wakeup-broken", map[string]string{"n": "3"}},
		{"chang-roberts-bidirectional", map[string]string{"n": "4"}},
		{"chang-roberts-bidirectional-broken", map[string]string{"n": "3"}},
		{"lelann", map[string]string{"n": "3"}},
		{"lelann", map[string]string{"n": "3", "channels": "unordered"}},
		{"lelann-broken", map[string]string{"n": "3", "channels": "unordered"}},
		{"peterson", map[string]string{"n": "4"}},
		{"peterson", map[string]string{"n": "4", "channels": "unordered"}},
		{"peterson-broken", map[string]string{"n": "4", "channels": "unordered"}},
	}
}

// TestSymmetryAgrees compares, for every spec that declares a symmetry
// (broken twins included), a search with and without --symmetry: the same
// verdicts; orbits whose sizes add up to the raw state and terminal
// counts; the same message and step minima and maxima; the same orbit
// counts with BFS, DFS and two workers; and every counterexample found
// under symmetry replays on the model itself and ends in a state that
// violates its property.
func TestSymmetryAgrees(t *testing.T) {
	t.Parallel()
	declared := map[string]bool{}
	for _, s := range Catalog() {
		if s.Symmetry != "" {
			declared[s.Name] = true
		}
	}
	for _, c := range symmetryCases() {
		delete(declared, c.spec)
		flags := map[string]string{"ids": "all"}
		for k, v := range c.flags {
			flags[k] = v
		}
		t.Run(fmt.Sprintf("%s/%v", c.spec, c.flags), func(t *testing.T) {
			m := build(t, c.spec, flags)
			var safety []string
			for _, p := range m.Properties() {
				safety = append(safety, p.Name)
			}
			safety = append(safety, properties.DeadlockFreedom)
			base := explorer.Config{Workers: 2, Properties: safety, Continue: true}
			plain, err := explorer.Check(m, base)
			if err != nil {
				t.Fatal(err)
			}
			sym := base
			sym.Symmetry = true
			red, err := explorer.Check(m, sym)
			if err != nil {
				t.Fatal(err)
			}
			if red.Status != plain.Status || red.Symmetry == "" {
				t.Fatalf("status %s under symmetry (%q: %s), %s without", red.Status, red.Symmetry, red.Reason, plain.Status)
			}
			for k, p := range plain.Properties {
				if q := red.Properties[k]; q.Name != p.Name || q.Verdict != p.Verdict {
					t.Errorf("%s: %s under symmetry, %s without", p.Name, q.Verdict, p.Verdict)
				}
			}
			if red.RawStates != plain.States || red.RawTerminal != plain.Terminal {
				t.Errorf("orbits hold %d states and %d terminal ones; without symmetry %d and %d", red.RawStates, red.RawTerminal, plain.States, plain.Terminal)
			}
			if red.States >= plain.States && plain.States > 1 {
				t.Errorf("%d orbits for %d states: no reduction", red.States, plain.States)
			}
			for _, v := range red.Violations {
				checkReplays(t, m, v)
			}
			if plain.Status != explorer.OK {
				return
			}
			metrics := explorer.Config{Workers: 2, Properties: []string{}, Metrics: []string{"messages", "steps"}}
			pm, err := explorer.Check(m, metrics)
			if err != nil {
				t.Fatal(err)
			}
			metrics.Symmetry = true
			rm, err := explorer.Check(m, metrics)
			if err != nil {
				t.Fatal(err)
			}
			for k, want := range pm.Metrics {
				got := rm.Metrics[k]
				if got.Name != want.Name || got.Min != want.Min || got.Max != want.Max || got.Unbounded != want.Unbounded {
					t.Errorf("metric %s: %d … %d under symmetry, %d … %d without", want.Name, got.Min, got.Max, want.Min, want.Max)
				}
				for _, w := range []*explorer.Trace{got.MinWitness, got.MaxWitness} {
					if w == nil {
						t.Errorf("metric %s: a witness is missing under symmetry", want.Name)
						continue
					}
					if _, err := explorer.Replay(m, w.Initial, actions(*w), nil); err != nil {
						t.Errorf("metric %s: the witness does not replay: %v", want.Name, err)
					}
				}
			}
			for _, cfg := range []explorer.Config{{Workers: 1}, {Strategy: explorer.DFS}} {
				cfg.Symmetry, cfg.Properties = true, safety
				r, err := explorer.Check(m, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if r.States != red.States || r.RawStates != red.RawStates || r.Terminal != red.Terminal {
					t.Errorf("%s with %d workers: %d orbits (%d states, %d terminal); BFS with 2: %d (%d, %d)", r.Strategy, r.Workers, r.States, r.RawStates, r.Terminal, red.States, red.RawStates, red.Terminal)
				}
			}
		})
	}
	for name := range declared {
		t.Errorf("%s declares a symmetry but has no case in symmetryCases", name)
	}
}

func actions(t explorer.Trace) []uint32 {
	var acts []uint32
	for _, s := range t.Steps {
		acts = append(acts, uint32(s.ActionIndex))
	}
	return acts
}

// checkReplays checks that the counterexample v replays on m and that its
// last state violates v's property (an invariant or assertion; a deadlock
// ends in a terminal state that is not a valid end state).
func checkReplays(t *testing.T, m explorer.Model, v explorer.Violation) {
	t.Helper()
	acts := actions(v.Trace)
	if _, err := explorer.Replay(m, v.Trace.Initial, acts, nil); err != nil {
		t.Errorf("%s: the counterexample does not replay: %v", v.Property, err)
		return
	}
	initial, _ := m.Initial()
	w := m.NewWorker()
	cur := append([]byte(nil), initial[v.Trace.Initial]...)
	for _, a := range acts {
		var next []byte
		k := 0
		if _, err := explorer.Successors(w, cur, func(_ explorer.Transition, s []byte) {
			if k == int(a) {
				next = append([]byte(nil), s...)
			}
			k++
		}); err != nil {
			t.Fatal(err)
		}
		cur = next
	}
	if v.Property == properties.DeadlockFreedom {
		live := 0
		if _, err := explorer.Successors(w, cur, func(tr explorer.Transition, _ []byte) {
			if !tr.Fault {
				live++
			}
		}); err != nil {
			t.Fatal(err)
		}
		ok, err := w.ValidEnd(cur)
		if err != nil || live != 0 || ok {
			t.Errorf("deadlock-freedom: the counterexample ends in a state with %d live transitions, valid end %v (%v)", live, ok, err)
		}
		return
	}
	for k, p := range m.Properties() {
		if p.Name != v.Property {
			continue
		}
		got, err := w.Check(cur, 1<<uint(k))
		if err != nil || got != 1<<uint(k) {
			t.Errorf("%s: the last state of the counterexample does not violate it (%d, %v)", v.Property, got, err)
		}
		return
	}
	t.Errorf("%s: not a property of the model", v.Property)
}

// BenchmarkSymmetryCost checks the safety claims of specs that declare a
// symmetry with every ID arrangement, with --symmetry and without, one
// worker: --symmetry stores fewer states and must not take longer. It
// reports states (orbits with symmetry) per second.
func BenchmarkSymmetryCost(b *testing.B) {
	for _, tc := range []struct{ spec, n string }{
		{"chang-roberts", "5"},
		{"chang-roberts-bidirectional", "5"},
	} {
		for _, sym := range []bool{false, true} {
			b.Run(fmt.Sprintf("spec=%s/n=%s/symmetry=%v", tc.spec, tc.n, sym), func(b *testing.B) {
				m := build(b, tc.spec, map[string]string{"n": tc.n, "ids": "all"})
				spec, _ := Lookup(tc.spec)
				var claims []string
				for _, p := range m.Properties() {
					if slices.Contains(spec.Claims, p.Name) {
						claims = append(claims, p.Name)
					}
				}
				var r *explorer.Result
				for i := 0; i < b.N; i++ {
					var err error
					if r, err = explorer.Check(m, explorer.Config{Workers: 1, Properties: claims, Symmetry: sym}); err != nil {
						b.Fatal(err)
					}
					if r.Status != explorer.OK {
						b.Fatalf("%v (%s)", r.Status, r.Reason)
					}
				}
				b.ReportMetric(float64(r.States)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
				b.ReportMetric(float64(r.States), "states")
			})
		}
	}
}
