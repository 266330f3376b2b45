package web

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/simulate"
)

// TestRandomRunIsASimulateRun: a new random run (new=1) is run 0 of
// vacheck simulate with its seed (simulate.Walk): the same initial state,
// drawn by the spec's sampler among the 24 arrangements of --n 4 --ids
// all, and the same steps. Its path, from sample=S,
// replays to a state the run's end describes (a violation in red, or a
// terminal state), and the state and metrics after it are those of the
// same path from the drawn state's index. The same seed gives the same
// run.
func TestRandomRunIsASimulateRun(t *testing.T) {
	for _, spec := range []string{"chang-roberts-broken", "chang-roberts"} {
		randomRuns(t, spec)
	}
}

func randomRuns(t *testing.T, spec string) {
	m := model(t, spec, map[string]string{"n": "4", "ids": "all"})
	_, ts := serve(t, Config{Models: []Model{m}})
	inits := map[string]bool{}
	ends := map[string]int{}
	for seed := 1; seed <= 12; seed++ {
		var r, again RandomRun
		q := fmt.Sprintf("/api/random?new=1&seed=%d&steps=1000", seed)
		if code := get(t, ts, "GET", q, nil, &r); code != 200 || r.Sample == nil || *r.Sample != uint64(seed) || r.Init != -1 || r.Seed != int64(seed) {
			t.Fatalf("%s: %d %+v", q, code, r)
		}
		get(t, ts, "GET", q, nil, &again)
		if !reflect.DeepEqual(r, again) {
			t.Errorf("%s twice: %+v, then %+v", q, r, again)
		}
		run, err := simulate.Walk(m.Model, simulate.Config{Seed: uint64(seed), MaxSteps: 1000}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(run.Actions, r.Path) || run.End != r.Stopped {
			t.Errorf("seed %d: the page's run %v (%s), simulate's %v (%s)", seed, r.Path, r.Stopped, run.Actions, run.End)
		}
		ends[r.Stopped]++
		inits[string(run.Initial)] = true
		// The drawn state's index among the listed initial states.
		k, i := -1, 0
		if err := explorer.EachInitial(m.Model, func(st []byte) bool {
			if bytes.Equal(st, run.Initial) {
				k = i
				return false
			}
			i++
			return true
		}); err != nil || k < 0 {
			t.Fatalf("seed %d: the drawn initial state is not listed (%v)", seed, err)
		}
		var drawn, listed View
		path := joinPath(r.Path)
		if code := get(t, ts, "GET", fmt.Sprintf("/api/state?sample=%d&path=%s", seed, path), nil, &drawn); code != 200 {
			t.Fatalf("state: %d", code)
		}
		get(t, ts, "GET", fmt.Sprintf("/api/state?init=%d&path=%s", k, path), nil, &listed)
		if drawn.Sample == nil || *drawn.Sample != uint64(seed) || drawn.Init != -1 {
			t.Errorf("seed %d: the view does not name its drawn initial state: init %d sample %v", seed, drawn.Init, drawn.Sample)
		}
		drawn.Init, drawn.Sample = listed.Init, nil
		if !reflect.DeepEqual(drawn, listed) {
			t.Errorf("seed %d: the state after the run from sample=%d differs from the one from init=%d", seed, seed, k)
		}
		violated := false
		for _, p := range drawn.Properties {
			violated = violated || p.Status == "violated" && (p.Kind == "invariant" || p.Kind == "assertion")
		}
		if (r.Stopped == "violation") != violated || (r.Stopped == "terminal") != drawn.Terminal {
			t.Errorf("seed %d: stopped %s, but violated %v terminal %v", seed, r.Stopped, violated, drawn.Terminal)
		}
	}
	// The broken twin's runs end in violations, the spec's in terminal
	// states (it elects one leader in every run), from several of the 24
	// initial states.
	if ends["violation"]+ends["terminal"] != 12 || (ends["violation"] > 0) != (spec == "chang-roberts-broken") || len(inits) < 4 {
		t.Errorf("%s: 12 seeds ended %v from %d initial states", spec, ends, len(inits))
	}
	// Extending a drawn path keeps its origin.
	var ext RandomRun
	if code := get(t, ts, "GET", "/api/random?sample=5&path=0&seed=3&steps=2", nil, &ext); code != 200 || ext.Sample == nil || *ext.Sample != 5 || len(ext.Path) < 2 {
		t.Errorf("extending a drawn path: %d %+v", code, ext)
	}
	for _, c := range []struct{ q, want string }{
		{"/api/random?new=2", `new="2"`},
		{"/api/state?init=1&sample=2", "not both"},
		{"/api/state?sample=-1", `sample="-1"`},
	} {
		var e struct{ Error string }
		if code := get(t, ts, "GET", c.q, nil, &e); code != 400 || !strings.Contains(e.Error, c.want) {
			t.Errorf("%s: %d %q, want 400 and %q", c.q, code, e.Error, c.want)
		}
	}
}

// TestInitialStateByIndex: init=K is built directly where the spec can
// (explorer.InitialIndexer): the 30,000th of the 40,320 arrangements of
// chang-roberts --n 8 --ids all is the state the stream yields there, and
// the page answers for it; past the last is still 404 with the count.
func TestInitialStateByIndex(t *testing.T) {
	m := model(t, "chang-roberts", map[string]string{"n": "8", "ids": "all"})
	s, ts := serve(t, Config{Models: []Model{m}})
	const k = 29999
	var want []byte
	i := 0
	if err := explorer.EachInitial(m.Model, func(st []byte) bool {
		if i == k {
			want = st
			return false
		}
		i++
		return true
	}); err != nil {
		t.Fatal(err)
	}
	got, err := s.models[0].initialState(context.Background(), k)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("initial state %d: %x (%v), the stream's %x", k, got, err, want)
	}
	var v View
	if code := get(t, ts, "GET", fmt.Sprintf("/api/state?init=%d&path=0", k), nil, &v); code != 200 || v.Init != k || len(v.Labels) != 1 {
		t.Errorf("init=%d: %d %+v", k, code, v.Labels)
	}
	var e struct{ Error string }
	if code := get(t, ts, "GET", "/api/state?init=40320", nil, &e); code != 404 || !strings.Contains(e.Error, "the model has 40320") {
		t.Errorf("past the last: %d %q", code, e.Error)
	}
}
