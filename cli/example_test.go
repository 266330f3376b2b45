package cli_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/cli"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/specs"
)

// node is one process of a token pass: the token starts at process 1 and
// goes once around a ring of N processes.
type node struct {
	Holding bool // the token is here and must be passed on
	Seen    bool // the token has been here
}

// Steps: pass(token)_{i,i+1} while the process holds the token.
func (p *node) Steps(v *automaton.View[node, string], out []automaton.Step) []automaton.Step {
	if p.Holding {
		out = append(out, automaton.Out("pass", (v.Self()+1)%v.N()))
	}
	return out
}

// Do performs pass.
func (p *node) Do(_ automaton.Step, fx *automaton.Effects[string]) {
	p.Holding = false
	fx.Send((fx.Self()+1)%fx.N(), "token")
}

// Receive performs receive(token)_{i-1,i}; process 1 keeps it.
func (p *node) Receive(_ int, _ string, fx *automaton.Effects[string]) {
	p.Seen = true
	p.Holding = fx.Self() != 0
}

// tokenPass is a user's spec: a name, its parameters as flags, the
// properties it claims and a Build that makes the model.
var tokenPass = specs.Spec{Name: "token-pass", Summary: "a token goes once around a ring",
	Params: []specs.Param{{Flag: "n", Default: "2", Usage: "number of processes"}},
	Claims: []string{properties.TokenUniqueness, properties.DeadlockFreedom}, Build: buildTokenPass}

// buildTokenPass makes the model for --n processes.
func buildTokenPass(p *specs.Params) (explorer.Model, error) {
	n, err := p.Int("n", 2, 8)
	if err != nil {
		return nil, err
	}
	initial := make([]node, n)
	initial[0] = node{Holding: true, Seen: true}
	return automaton.New(automaton.Config[node, string]{
		Initial: [][]node{initial},
		Links:   automaton.Ring(n),
		Invariants: []automaton.Invariant[node, string]{{
			Name: properties.TokenUniqueness,
			Doc:  "at most one token, held or in transit",
			Holds: func(v *automaton.View[node, string]) bool {
				held := properties.Count(v.N(), func(i int) bool { return v.Proc(i).Holding })
				return held+v.InTransit() <= 1
			},
		}},
		// A terminal state is a valid end when everyone has seen the token.
		ValidEnd: func(v *automaton.View[node, string]) bool {
			return properties.Count(v.N(), func(i int) bool { return v.Proc(i).Seen }) == v.N()
		},
	})
}

// Example runs the whole vacheck command line on the catalog plus a spec
// of one's own: `check token-pass` finds it among the catalog's specs, and
// --n is its parameter. A user's main is os.Exit(cli.Main(catalog)) with
// the same catalog; here the report goes through withoutTimings so that
// the output does not depend on the machine.
func Example() {
	catalog := append(specs.Catalog(), tokenPass)
	code := cli.Run([]string{"vacheck", "check", "token-pass", "--n", "3", "--quiet"},
		withoutTimings(os.Stdout), os.Stderr, catalog)
	fmt.Println("exit code", code)
	// Output:
	// token-pass --n 3
	//
	//   token-uniqueness  holds     at most one token, held or in transit
	//   channel-bound     holds     no channel holds more than 16 messages (the model's capacity; raise --capacity if a correct model needs more)
	//   deadlock-freedom  holds     no reachable terminal state that is not a valid end state
	//
	// 7 distinct states, 6 transitions, depth 6, 1 terminal state
	// fingerprint collision probability 1.1e-18 (64-bit fingerprints)
	//
	// result: OK, every property holds
	// exit code 0
}

// Example_list shows that `vacheck list` lists the catalog it is given.
func Example_list() {
	cli.Run([]string{"vacheck", "list"}, os.Stdout, os.Stderr, []specs.Spec{tokenPass})
	// Output:
	// token-pass a token goes once around a ring
	//            parameters: --n (default 2)
	//            claims: token-uniqueness, deadlock-freedom
}

// withoutTimings writes what it is given to w, less the line of times,
// speeds and memory.
func withoutTimings(w io.Writer) io.Writer { return &timingFilter{w: w} }

type timingFilter struct {
	w   io.Writer
	buf bytes.Buffer
}

func (f *timingFilter) Write(p []byte) (int, error) {
	f.buf.Write(p)
	for {
		line, err := f.buf.ReadString('\n')
		if err != nil { // an incomplete line: keep it for the next write
			f.buf.Reset()
			f.buf.WriteString(line)
			return len(p), nil
		}
		if !strings.Contains(line, "states/s, peak memory") {
			if _, err := io.WriteString(f.w, line); err != nil {
				return 0, err
			}
		}
	}
}
