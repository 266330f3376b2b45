package cluster

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/specs"
)

var long = flag.Bool("long", false, "also run the large instances (minutes)")

// skipUnlessLong skips t, a large instance, unless the run has -long.
func skipUnlessLong(t testing.TB) {
	t.Helper()
	if !*long {
		t.Skip("large instance: run with -args -long")
	}
}

// model builds the model of spec with the given parameters.
func model(t testing.TB, spec string, given map[string]string) explorer.Model {
	t.Helper()
	s, err := specs.Lookup(spec)
	if err != nil {
		t.Fatal(err)
	}
	p, err := specs.NewParams(s, given)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Model(p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// freePort returns a loopback port nobody listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// runRanks runs K ranks as goroutines, rank 0 with an embedded server,
// each with its own model from mk, and returns their outcomes and errors.
func runRanks(t testing.TB, K, W int, mk func() explorer.Model, tweak func(*Config)) ([]*Outcome, []error) {
	t.Helper()
	port := freePort(t)
	outs := make([]*Outcome, K)
	errs := make([]error, K)
	var wg sync.WaitGroup
	for k := range K {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cfg := Config{Ranks: K, Rank: k, Workers: W, Run: "test", Digest: "d", Timeout: 10 * time.Second, batchBytes: 4 << 10}
			if k == 0 {
				cfg.Embedded = port
			} else {
				cfg.Server = fmt.Sprintf("nats://127.0.0.1:%d", port)
			}
			if tweak != nil {
				tweak(&cfg)
			}
			outs[k], errs[k] = Run(mk(), cfg)
		}()
	}
	wg.Wait()
	return outs, errs
}

// same fails t unless got has the figures and verdicts of want.
func same(t testing.TB, name string, got, want *explorer.Result) {
	t.Helper()
	if got.Status != want.Status || got.States != want.States || got.Transitions != want.Transitions ||
		got.Depth != want.Depth || got.Terminal != want.Terminal {
		t.Errorf("%s: cluster %v, %d states, %d transitions, depth %d, %d terminal; one process %v, %d, %d, %d, %d (%s)",
			name, got.Status, got.States, got.Transitions, got.Depth, got.Terminal,
			want.Status, want.States, want.Transitions, want.Depth, want.Terminal, got.Reason)
	}
	if len(got.Properties) != len(want.Properties) {
		t.Fatalf("%s: %d properties, want %d", name, len(got.Properties), len(want.Properties))
	}
	for i, p := range got.Properties {
		if p.Name != want.Properties[i].Name || p.Verdict != want.Properties[i].Verdict {
			t.Errorf("%s: property %s %v, one process %s %v", name, p.Name, p.Verdict, want.Properties[i].Name, want.Properties[i].Verdict)
		}
	}
	if len(got.Violations) != len(want.Violations) {
		t.Fatalf("%s: %d violations, one process %d", name, len(got.Violations), len(want.Violations))
	}
	for i, v := range got.Violations {
		if v.Property != want.Violations[i].Property {
			t.Errorf("%s: violation of %s, one process %s", name, v.Property, want.Violations[i].Property)
		}
	}
}

// TestClusterEqualsOneProcess runs small specs on 1, 2 and 3 ranks and
// compares each with explorer.Check: the counts, depth, terminal states
// and verdicts are equal, and every counterexample is as short.
func TestClusterEqualsOneProcess(t *testing.T) {
	cases := []struct {
		spec  string
		given map[string]string
	}{
		{"lamport", map[string]string{"n": "2", "requests": "1"}},
		{"chang-roberts", map[string]string{"n": "4", "ids": "all"}},
		{"chang-roberts-broken", map[string]string{"n": "4"}},
		{"lamport-broken", map[string]string{"n": "2", "requests": "1"}},
	}
	for _, c := range cases {
		mk := func() explorer.Model { return model(t, c.spec, c.given) }
		props := safety(mk())
		want, err := explorer.Check(mk(), explorer.Config{Workers: 2, Properties: props})
		if err != nil {
			t.Fatal(err)
		}
		for _, K := range []int{1, 2, 3} {
			name := fmt.Sprintf("%s %v K=%d", c.spec, c.given, K)
			outs, errs := runRanks(t, K, 2, mk, func(c *Config) { c.Properties = props })
			for k, err := range errs {
				if err != nil {
					t.Fatalf("%s: rank %d: %v", name, k, err)
				}
			}
			var owned int64
			for k, o := range outs {
				same(t, fmt.Sprintf("%s rank %d", name, k), o.Result, want)
				owned += o.Share.States
			}
			if owned != want.States {
				t.Errorf("%s: the ranks own %d states, want %d", name, owned, want.States)
			}
			for i, v := range outs[0].Result.Violations {
				if n, w := len(v.Trace.Steps), len(want.Violations[i].Trace.Steps); n != w {
					t.Errorf("%s: counterexample to %s of %d steps, one process %d", name, v.Property, n, w)
				}
			}
			if want.Status == explorer.Violated && outs[0].Result.Err != nil {
				t.Errorf("%s: %v", name, outs[0].Result.Err)
			}
		}
	}
}

// safety names the safety properties of m and deadlock-freedom.
func safety(m explorer.Model) []string {
	names := []string{properties.DeadlockFreedom}
	for _, p := range m.Properties() {
		if p.Kind != properties.Reachable {
			names = append(names, p.Name)
		}
	}
	return names
}

var _ = errors.Is
