package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton/automatontest"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/cli"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/specs"
)

// 5. The test. With two clients each channel holds at most one message, so
// FIFO and unordered agree; the 41 states and 60 transitions are counted by
// hand: a client is in one of 8 phases, idle, REQUEST in transit, queued,
// REPLY in transit, granted, critical, RELEASE in transit, done; four of
// them hold K's grant, and K's variables follow from the phases. Pairs:
// neither holds and none queued 3×3 = 9, one holds and the other is free
// 2×4×3 = 24, one holds and the other is queued 2×4 = 8: 41. Every phase
// but queued and done has one step: 12+40+8 = 60. Same modelling as the
// catalog's spec: `vacheck check central --n 2 --channels fifo` gives 41.
func TestCentral(t *testing.T) {
	m, err := model(2, channel.Unordered, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	r := automatontest.Verify(t, m, explorer.Config{Metrics: []string{"messages-per-entry"}})
	if r.States != 41 || r.Transitions != 60 {
		t.Errorf("%d states, %d transitions; want 41, 60", r.States, r.Transitions)
	}
	if x := r.Metrics[0]; x.Min != 3 || x.Max != 3 { // exactly 3 messages per entry
		t.Errorf("messages-per-entry %d..%d; want 3..3", x.Min, x.Max)
	}
	automatontest.CheckPure(t, m, 1000) // no state kept outside the struct
}

// 6. The broken twin must fail: two REQUESTs both get a REPLY.
func TestCentralBroken(t *testing.T) {
	m, err := model(2, channel.Unordered, 2, true)
	if err != nil {
		t.Fatal(err)
	}
	automatontest.ExpectViolation(t, m, properties.MutualExclusion)
}

// 7. Example runs the command line on both specs as `go run . check ...`
// would, and prints the verdicts (the report less its timing lines).
func Example() {
	for _, name := range []string{"central", "central-broken"} {
		var out bytes.Buffer
		code := cli.Run([]string{"vacheck", "check", name, "--n", "2", "--quiet"}, &out, os.Stderr, []specs.Spec{central})
		for _, line := range strings.Split(out.String(), "\n") {
			switch f := strings.Fields(line); {
			case len(f) > 1 && (f[1] == "holds" || f[1] == "violated"):
				fmt.Println(f[0], f[1]) // a property and its verdict
			case strings.Contains(line, "distinct states"), strings.HasPrefix(line, "Counterexample"), strings.HasPrefix(line, "result"):
				fmt.Println(line)
			}
		}
		fmt.Println("exit code", code)
	}
	// Output:
	// mutual-exclusion holds
	// release-from-holder holds
	// channel-bound holds
	// deadlock-freedom holds
	// progress holds
	// starvation-freedom holds
	// 41 distinct states, 60 transitions, depth 12, 1 terminal state
	// result: OK, every property holds
	// exit code 0
	// mutual-exclusion violated
	// 56 distinct states, 84 transitions, depth 8, 0 terminal states
	// Counterexample (shortest, 8 steps) from initial state #1:
	// result: VIOLATED
	// exit code 1
}
