package explorer_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/specs"
)

// agreeWith reports how b differs from a, the result of one worker, or ""
// when every figure, verdict, counterexample (with its trace) and failure
// agree, and the state graph for liveness has the same size and was
// recorded as the search went or not alike; but for the transitions and terminal states of a failed search,
// which depend on how far the other workers got (TestWorkerCountsAgree...).
func agreeWith(a, b *explorer.Result) string {
	failed := a.Status == explorer.Failed && b.Status == explorer.Failed
	if a.Status != b.Status || a.States != b.States || a.Cut != b.Cut || a.Depth != b.Depth || a.Reason != b.Reason ||
		!failed && (a.Transitions != b.Transitions || a.Terminal != b.Terminal) {
		return fmt.Sprintf("%v %d states %d transitions %d terminal depth %d %q, want %v %d %d %d depth %d %q",
			b.Status, b.States, b.Transitions, b.Terminal, b.Depth, b.Reason,
			a.Status, a.States, a.Transitions, a.Terminal, a.Depth, a.Reason)
	}
	if (a.Graph == nil) != (b.Graph == nil) || a.Graph != nil && (a.Graph.States != b.Graph.States || a.Graph.Edges != b.Graph.Edges || a.Graph.Recorded != b.Graph.Recorded) {
		return fmt.Sprintf("state graph %+v, want %+v", b.Graph, a.Graph)
	}
	if fmt.Sprint(a.Violations) != fmt.Sprint(b.Violations) || fmt.Sprint(a.Failure) != fmt.Sprint(b.Failure) ||
		fmt.Sprint(a.Properties) != fmt.Sprint(b.Properties) {
		return fmt.Sprintf("%v / %v / %v, want %v / %v / %v", b.Properties, b.Violations, b.Failure, a.Properties, a.Violations, a.Failure)
	}
	return ""
}

// chunkLens are the chunk sizes the tests force: a state a chunk (a claim
// per state), and a few sizes that end chunks in the middle of a parent's
// successors' buckets.
var chunkLens = []int{1, 2, 7}

// TestSmallChunksChangeNothing runs random graphs breadth first on 2 to 4
// workers, with the levels cut into chunks of 1, 2 and 7 states that the
// workers claim as they go (chunks), or that are dealt to them in turn (so
// that every worker's chunks alternate with the others', whatever the
// timing), and requires every figure, verdict,
// counterexample trace and failure of one worker: with states that break
// one property or two, assertions, failing checks, panicking steps,
// invalid end states, a bound, the state and depth limits, Continue,
// termination on the graph recorded chunk by chunk, checks
// made when stored or when expanded, and successors offered by keys that
// repeat (so the workers' local sets and tables of recent keys drop
// repeated successors across chunks).
func TestSmallChunksChangeNothing(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		rng := rand.New(rand.NewPCG(seed, 41))
		n := 10 + rng.IntN(300)
		adj := randomEdges(rng, n, 6)
		bad, bad2, badEnd, boom, failing, cut := map[int]bool{}, map[int]bool{}, map[int]bool{}, map[int]bool{}, map[int]bool{}, map[int]bool{}
		for k := rng.IntN(4); k > 0; k-- {
			bad[rng.IntN(n)] = true
		}
		for k := rng.IntN(3); k > 0; k-- {
			bad2[rng.IntN(n)] = true
		}
		for s := 0; s < n; s++ {
			if len(adj[s]) == 0 && rng.IntN(3) == 0 {
				badEnd[s] = true
			}
		}
		if seed%7 == 0 {
			boom[1+rng.IntN(n-1)] = true
		}
		if seed%9 == 0 {
			failing[rng.IntN(n)] = true
		}
		if seed%8 == 0 {
			for k := 1 + rng.IntN(n/4); k > 0; k-- {
				cut[rng.IntN(n)] = true
			}
		}
		g := &graph{init: []int{0, rng.IntN(n), rng.IntN(n)}, next: edges(adj),
			bad:   func(s int) bool { return bad[s] },
			end:   func(s int) bool { return !badEnd[s] },
			panic: func(s int) bool { return boom[s] }}
		m := &checkedGraph{graph: g, assert: seed%6 < 2, bad2: func(s int) bool { return bad2[s] }, checkFail: func(s int) bool { return failing[s] },
			expand: seed%3 > 0, keyed: seed%3 == 2, collide: seed%2 == 1}
		if len(cut) > 0 {
			m.cut = func(s int) bool { return cut[s] }
		}
		var model explorer.Model = m
		if seed%10 == 3 {
			model = liveChecked{m}
		}
		cfg := explorer.Config{Continue: seed%4 < 2}
		switch seed % 5 {
		case 1:
			cfg.MaxStates = int64(1 + rng.IntN(n))
		case 2:
			cfg.MaxDepth = 1 + rng.IntN(6)
		}
		cfg.Workers = 1
		want := check(t, model, cfg)
		for w := 2; w <= 4; w++ {
			for _, k := range chunkLens {
				for _, deal := range []bool{false, true} {
					cfg.Workers = w
					if diff := agreeWith(want, check(t, model, explorer.WithChunks(cfg, k, deal))); diff != "" {
						t.Fatalf("seed %d, %d workers, chunks of %d (dealt %v): %s", seed, w, k, deal, diff)
					}
				}
			}
		}
	}
}

// TestSmallChunksOnTheCatalog checks catalog specs, with bugs and
// without, breadth first on 2 to 4 workers with small chunks claimed as
// the workers go or dealt to them in turn: the counts, verdicts and
// counterexample traces are those of one worker; so are the liveness
// verdicts and lassos on the state graph the search records chunk by
// chunk (the claims of peterson and quiescence and termination of
// chang-roberts), which must be the one recorded, not one built again.
func TestSmallChunksOnTheCatalog(t *testing.T) {
	for _, c := range []struct {
		spec   string
		params map[string]string
		props  []string // nil: the spec's claims
		cont   bool
		status explorer.Status
	}{
		{"chang-roberts", map[string]string{"n": "4", "ids": "all"}, nil, false, explorer.OK},
		{"chang-roberts", map[string]string{"n": "4", "ids": "all"}, []string{"termination", "quiescence"}, true, explorer.Violated},
		{"peterson", map[string]string{"n": "4"}, nil, false, explorer.OK},
		{"chang-roberts-broken", map[string]string{"n": "4", "ids": "all"}, nil, true, explorer.Violated},
		{"chang-roberts-bidirectional-broken", map[string]string{"n": "3", "ids": "all"}, nil, true, explorer.Violated},
		{"lelann-broken", map[string]string{"n": "3"}, nil, false, explorer.Violated},
		{"bully-broken", map[string]string{"n": "3"}, nil, true, explorer.Violated},
		{"peterson-broken", map[string]string{"n": "4"}, nil, false, explorer.Violated},
	} {
		t.Run(c.spec, func(t *testing.T) {
			s, err := specs.Lookup(c.spec)
			if err != nil {
				t.Fatal(err)
			}
			p, err := specs.NewParams(s, c.params)
			if err != nil {
				t.Fatal(err)
			}
			m, err := s.Build(p)
			if err != nil {
				t.Fatal(err)
			}
			props := c.props
			if props == nil {
				props = s.Claims
			}
			cfg := explorer.Config{Workers: 1, Continue: c.cont, Properties: props}
			want := check(t, m, cfg)
			if want.Status != c.status {
				t.Fatalf("1 worker: %v (%s), want %v", want.Status, want.Reason, c.status)
			}
			if want.Graph != nil && !want.Graph.Recorded {
				t.Fatalf("1 worker: the state graph was built again, not recorded")
			}
			for w := 2; w <= 4; w++ {
				for _, k := range []int{3, 50} {
					for _, deal := range []bool{false, true} {
						cfg.Workers = w
						if diff := agreeWith(want, check(t, m, explorer.WithChunks(cfg, k, deal))); diff != "" {
							t.Fatalf("%d workers, chunks of %d (dealt %v): %s", w, k, deal, diff)
						}
					}
				}
			}
		})
	}
}
