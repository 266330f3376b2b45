package cli_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/cli"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/specs"
)

// laps is tokenPass with a parameter no catalog spec has.
var laps = func() specs.Spec {
	s := tokenPass
	s.Name = "token-laps"
	s.Params = append([]specs.Param{{Flag: "laps", Default: "1", Usage: "laps of the token (only 1 is modelled)"}}, s.Params...)
	s.Build = func(p *specs.Params) (explorer.Model, error) {
		if _, err := p.Int("laps", 1, 1); err != nil {
			return nil, err
		}
		return tokenPass.Build(p)
	}
	return s
}()

func runOn(catalog []specs.Spec, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := cli.Run(append([]string{"vacheck"}, args...), &out, &errb, catalog)
	return code, out.String(), errb.String()
}

// TestUserCatalog checks that every command works on the catalog it is
// given and on nothing else: list, check, its did-you-mean, spec flags,
// help, sweep and JSON.
func TestUserCatalog(t *testing.T) {
	t.Parallel()
	mine := []specs.Spec{tokenPass, laps}
	both := append(specs.Catalog(), mine...)
	tests := []struct {
		catalog []specs.Spec
		args    []string
		code    int
		want    []string
		not     []string
	}{
		{mine, []string{"list"}, 0, []string{"token-pass ", "token-laps ", "--laps (default 1)"}, []string{"chang-roberts"}},
		{mine, []string{"check", "chang-roberts"}, 2, []string{`unknown spec "chang-roberts"`, "known specs: token-pass, token-laps"}, nil},
		{mine, []string{"check", "token-pas", "--quiet"}, 2, []string{"did you mean token-pass?"}, nil},
		{mine, []string{"token-laps"}, 2, []string{"did you mean 'vacheck check token-laps'"}, nil},
		{mine, []string{"tokn-laps"}, 2, []string{"did you mean 'vacheck check token-laps'"}, nil},
		{mine, []string{"check", "token-laps", "--help"}, 0, []string{"token-laps: a token goes once around a ring", "--laps", "claims (checked by default): token-uniqueness, deadlock-freedom"}, []string{"ALGORITHMS.md"}},
		{mine, []string{"check", "token-laps", "--laps", "1", "--n", "4", "--quiet"}, 0, []string{"token-laps --laps 1 --n 4", "9 distinct states", "result: OK"}, nil},
		{mine, []string{"check", "token-laps", "--laps", "2", "--quiet"}, 2, []string{"--laps 2: out of range"}, nil},
		{mine, []string{"check", "token-pass", "--laps", "1", "--quiet"}, 2, []string{"--laps does not apply to token-pass"}, nil},
		{mine, []string{"check", "token-pass", "--ids", "all", "--quiet"}, 2, []string{"unknown flag --ids"}, nil},
		{both, []string{"check", "token-pass", "--n", "2", "--quiet"}, 0, []string{"5 distinct states"}, nil},
		{both, []string{"check", "chang-roberts", "--n", "3", "--quiet"}, 0, []string{"282 distinct states"}, nil},
		{specs.Catalog(), []string{"check", "chang-roberts", "--laps", "1", "--quiet"}, 2, []string{"unknown flag --laps"}, nil},
		{mine, []string{"sweep", "token-pass", "--n", "2..4", "--quiet"}, 0, []string{"token-pass: sweep of --n 2,3,4", "OK"}, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errb := runOn(tt.catalog, tt.args...)
			all := out + errb
			if code != tt.code {
				t.Errorf("exit %d, want %d:\n%s", code, tt.code, all)
			}
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(all, w) {
					t.Errorf("output has %q:\n%s", w, all)
				}
			}
		})
	}
}

// TestUserSpecJSON checks the JSON report of a user's spec.
func TestUserSpecJSON(t *testing.T) {
	t.Parallel()
	code, out, errb := runOn([]specs.Spec{tokenPass}, "check", "token-pass", "--n", "3", "--format", "json", "--metric", "messages", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var r struct {
		Spec   string `json:"spec"`
		Status string `json:"status"`
		States int    `json:"states"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	// pass, receive at each of the 3 processes: 7 states.
	if r.Spec != "token-pass" || r.Status != "ok" || r.States != 7 {
		t.Errorf("got %+v, want token-pass ok 7 states", r)
	}
	if !strings.Contains(out, `"messages"`) {
		t.Errorf("no messages metric in:\n%s", out)
	}
}

// tokenDup is a user's spec that declares its broken twin, read with the
// sticky Params: the twin starts with a second token.
var tokenDup = specs.Spec{Name: "token-dup", Summary: "a token goes once around a ring",
	Params: []specs.Param{{Flag: "n", Default: "3", Usage: "number of processes"}},
	Claims: []string{properties.TokenUniqueness, properties.DeadlockFreedom},
	Broken: &specs.Twin{Summary: "a token pass with a bug", Bug: "process 2 holds a second token"},
	Build: func(p *specs.Params) (explorer.Model, error) {
		n := p.IntFlag("n", 2, 8)
		disc, capacity := p.ChannelFlags(channel.FIFO, 1)
		if err := p.Err(); err != nil {
			return nil, err
		}
		initial := make([]node, n)
		initial[0] = node{Holding: true, Seen: true}
		initial[1].Holding = p.Broken()
		return automaton.New(automaton.Config[node, string]{
			Initial:    [][]node{initial},
			Links:      automaton.Ring(n),
			Channels:   disc,
			Capacity:   capacity,
			Invariants: []automaton.Invariant[node, string]{tokenUniqueness},
		})
	}}

// tokenUniqueness is the invariant of token-pass.
var tokenUniqueness = automaton.Invariant[node, string]{
	Name: properties.TokenUniqueness,
	Doc:  "at most one token, held or in transit",
	Holds: func(v *automaton.View[node, string]) bool {
		return properties.Count(v.N(), func(i int) bool { return v.Proc(i).Holding })+v.InTransit() <= 1
	},
}

// TestUserTwin: a user's spec that declares a broken twin (specs.Spec.Broken)
// brings it along on the command line.
func TestUserTwin(t *testing.T) {
	t.Parallel()
	mine := []specs.Spec{tokenDup, tokenPass}
	for _, tt := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"list"}, 0, []string{"token-dup ", "token-dup-broken ", "bug: process 2 holds a second token", "token-pass "}},
		{[]string{"check", "token-dup", "--quiet"}, 0, []string{"result: OK"}},
		{[]string{"check", "token-dup-broken", "--quiet"}, 1, []string{"token-uniqueness"}},
		{[]string{"check", "token-dup-broken", "--n", "9", "--quiet"}, 2, []string{"--n 9: out of range for token-dup-broken"}},
		{[]string{"check", "token-dup", "--capacity", "x", "--quiet"}, 2, []string{`--capacity "x": not an integer`}},
	} {
		code, out, errb := runOn(mine, tt.args...)
		if code != tt.code {
			t.Errorf("%v: exit %d, want %d:\n%s", tt.args, code, tt.code, out+errb)
		}
		for _, w := range tt.want {
			if !strings.Contains(out+errb, w) {
				t.Errorf("%v: output lacks %q:\n%s", tt.args, w, out+errb)
			}
		}
	}
	// Listed once, and in the catalog's order.
	_, out, _ := runOn(specs.WithTwins(mine), "list")
	if strings.Count(out, "token-dup-broken ") != 1 || strings.Index(out, "token-dup-broken") > strings.Index(out, "token-pass") {
		t.Errorf("list:\n%s", out)
	}
}
