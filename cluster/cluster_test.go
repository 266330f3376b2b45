package cluster

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/specs"
)

var long = flag.Bool("long", false, "also run the large instances (minutes)")

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

// TestMutantWrongRank sends every successor to the rank after its owner:
// the owner check on receipt catches it.
func TestMutantWrongRank(t *testing.T) {
	mk := func() explorer.Model { return model(t, "lamport", map[string]string{"n": "2", "requests": "1"}) }
	props := safety(mk())
	_, errs := runRanks(t, 2, 1, mk, func(c *Config) { c.mutant = mutantWrongRank; c.Properties = props })
	caught := false
	for _, err := range errs {
		if err != nil && strings.Contains(err.Error(), "which rank") {
			caught = true
		}
	}
	if !caught {
		t.Fatalf("a successor sent to the wrong rank was not caught: %v", errs)
	}
}

// TestMutantEarlyClose closes each level on the done messages alone while
// the last batches are still on their way: the run ends in an error, or
// its figures differ from the one-process run's.
func TestMutantEarlyClose(t *testing.T) {
	mk := func() explorer.Model { return model(t, "lamport", map[string]string{"n": "2", "requests": "1"}) }
	props := safety(mk())
	want, err := explorer.Check(mk(), explorer.Config{Workers: 1, Properties: props})
	if err != nil {
		t.Fatal(err)
	}
	outs, errs := runRanks(t, 2, 1, mk, func(c *Config) { c.mutant = mutantEarlyClose; c.Properties = props })
	for k, err := range errs {
		if err != nil {
			t.Logf("rank %d: %v", k, err)
			return // caught
		}
	}
	for k, o := range outs {
		r := o.Result
		if r.Status == want.Status && r.States == want.States && r.Transitions == want.Transitions && r.Depth == want.Depth {
			t.Errorf("rank %d: a level closed before every rank had flushed went unnoticed: %d states, %d transitions, depth %d, as one process", k, r.States, r.Transitions, r.Depth)
		}
	}
}

// TestJoinTimeout: a rank that never joins ends the run as incomplete
// within the timeout, naming the rank.
func TestJoinTimeout(t *testing.T) {
	m := model(t, "lamport", map[string]string{"n": "2", "requests": "1"})
	start := time.Now()
	out, err := Run(m, Config{Ranks: 3, Rank: 0, Workers: 1, Run: "t", Digest: "d", Embedded: freePort(t), Timeout: 500 * time.Millisecond, Properties: safety(m)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Result.Status != explorer.Incomplete || !strings.Contains(out.Result.Reason, "rank(s) 1, 2 of 3 did not join") {
		t.Errorf("%v: %s", out.Result.Status, out.Result.Reason)
	}
	for _, p := range out.Result.Properties {
		if p.Verdict == explorer.Holds {
			t.Errorf("%s holds in a run that never started", p.Name)
		}
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v with a timeout of 0.5s", d)
	}
}

// TestDigestMismatch: ranks given different models end the run as a
// usage error that names the rank, on both ranks.
func TestDigestMismatch(t *testing.T) {
	mk := func() explorer.Model { return model(t, "lamport", map[string]string{"n": "2", "requests": "1"}) }
	props := safety(mk())
	_, errs := runRanks(t, 2, 1, mk, func(c *Config) {
		c.Properties = props
		if c.Rank == 1 {
			c.Digest = "other"
		}
	})
	for k, err := range errs {
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "rank 1 runs a different model") {
			t.Errorf("rank %d: %v, want a usage error naming rank 1", k, err)
		}
	}
}

// TestRefusals: liveness and reachability properties, and bad flags, are
// usage errors that name what was refused.
func TestRefusals(t *testing.T) {
	m := model(t, "lamport", map[string]string{"n": "2", "requests": "1"})
	lm, ok := m.(explorer.LiveModel)
	if !ok || len(lm.Liveness()) == 0 {
		t.Fatal("lamport has no liveness property")
	}
	live := lm.Liveness()[0].Name
	_, err := Run(m, Config{Ranks: 1, Workers: 1, Run: "t", Embedded: freePort(t), Properties: []string{live}})
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), live) {
		t.Errorf("liveness: %v", err)
	}
	for _, c := range []Config{
		{Ranks: 0, Workers: 1, Run: "t"},
		{Ranks: 2, Rank: 2, Workers: 1, Run: "t"},
		{Ranks: 2, Workers: 0, Run: "t"},
		{Ranks: 2, Workers: 1, Run: "a.b"},
	} {
		if _, err := Run(m, c); !errors.Is(err, ErrUsage) {
			t.Errorf("%+v: %v, want a usage error", c, err)
		}
	}
	for _, s := range []string{"nats://host", "http://h:1", "embedded:0", "embedded:x", ""} {
		if _, _, err := ParseServer(s); !errors.Is(err, ErrUsage) {
			t.Errorf("ParseServer(%q): %v", s, err)
		}
	}
	env := map[string]string{"SLURM_ARRAY_TASK_ID": "3"}
	if k, err := ParseRank("env", func(v string) string { return env[v] }); k != 3 || err != nil {
		t.Errorf("--rank env with SLURM_ARRAY_TASK_ID=3: %d, %v", k, err)
	}
	env["JOB_COMPLETION_INDEX"] = "1"
	if k, err := ParseRank("env", func(v string) string { return env[v] }); k != 1 || err != nil {
		t.Errorf("--rank env with JOB_COMPLETION_INDEX=1: %d, %v", k, err)
	}
	if _, err := ParseRank("env", func(string) string { return "" }); !errors.Is(err, ErrUsage) {
		t.Errorf("--rank env without either: %v", err)
	}
	if _, err := ParseRank("-1", nil); !errors.Is(err, ErrUsage) {
		t.Errorf("--rank -1: %v", err)
	}
}

// TestInterrupted: a rank interrupted mid-run (Ctrl-C) ends every rank
// as incomplete, no property holding.
func TestInterrupted(t *testing.T) {
	mk := func() explorer.Model { return model(t, "lamport", map[string]string{"n": "3", "requests": "1"}) }
	props := safety(mk())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(300*time.Millisecond, cancel)
	outs, errs := runRanks(t, 2, 1, mk, func(c *Config) {
		c.Properties = props
		if c.Rank == 1 {
			c.Context = ctx
		}
	})
	for k, o := range outs {
		if errs[k] != nil {
			t.Fatalf("rank %d: %v", k, errs[k])
		}
		r := o.Result
		if r.Status != explorer.Incomplete || r.States >= 470392 {
			t.Errorf("rank %d: %v, %d states (%s)", k, r.Status, r.States, r.Reason)
		}
		for _, p := range r.Properties {
			if p.Verdict == explorer.Holds {
				t.Errorf("rank %d: %s holds in an interrupted run", k, p.Name)
			}
		}
	}
	t.Logf("%s", outs[0].Result.Reason)
}
