package specs

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/election"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/internal/input"
	"github.com/vacheck/vacheck/properties"
)

// buStatus is the election status st of a Bully process
// (docs/algorithms/bully.md): idle, electing (waiting for ANSWERs) or waiting
// (an ANSWER arrived, waiting for COORDINATOR).
type buStatus uint8

const (
	buIdle buStatus = iota
	buElecting
	buWaiting
)

func (s buStatus) String() string {
	switch s {
	case buElecting:
		return "electing"
	case buWaiting:
		return "waiting"
	}
	return "idle"
}

// buCoord is a process's coordinator variable coord: an ID, or ⊥ (0).
type buCoord int

func (c buCoord) String() string {
	if c == 0 {
		return "⊥"
	}
	return strconv.Itoa(int(c))
}

// buKind is the type of a Bully message.
type buKind uint8

const (
	buElection buKind = 1 + iota
	buAnswer
	buCoordinator
)

// buMsg is a Bully message: ELECTION, ANSWER or COORDINATOR(c).
type buMsg struct {
	Kind buKind
	C    int // COORDINATOR(c): the ID announced; 0 otherwise
}

func (m buMsg) String() string {
	switch m.Kind {
	case buElection:
		return "ELECTION"
	case buAnswer:
		return "ANSWER"
	case buCoordinator:
		return fmt.Sprintf("COORDINATOR(%d)", m.C)
	}
	return fmt.Sprintf("buMsg(%d,%d)", m.Kind, m.C)
}

// buNode is the Bully process of docs/algorithms/bully.md (Garcia-Molina,
// "Elections in a distributed computing system", IEEE Trans. Computers
// C-31(1), 1982) on a complete graph with FIFO channels and crash-stop
// faults. Process i (0-based) has ID i+1, so a larger ID is a larger index
// (IDs on a complete graph where everybody knows every ID are a renaming:
// one arrangement represents them all). up is the framework's (View.Up).
type buNode struct {
	St    buStatus
	Coord buCoord
	// Early counts the premature timeouts this process took (only with
	// --timeouts unrestricted; the budget is global: the sum over all
	// processes stays at most Premature).
	Early int

	U         int  `vacheck:"-"` // ID
	Detects   bool `vacheck:"-"` // may execute detect_i (--detectors)
	Perfect   bool `vacheck:"-"` // --timeouts perfect
	Premature int  `vacheck:"-"` // --premature: budget of premature timeouts
	// Broken makes timeoutAnswer wait only for the ANSWERs in transit, not
	// for the larger processes to be crashed: the bug of bully-broken.
	Broken bool `vacheck:"-"`
	// Weak is --answer-timeout weak: T_ANSWER waits only until no ANSWER
	// is in transit to i and no ELECTION of i's is in transit to a live
	// larger process (what real timing gives when messages to a down
	// process are lost; 1.14, Choice).
	Weak bool `vacheck:"-"`
	// AcceptAll is --accept always: ACCEPT(c) ≡ true.
	AcceptAll bool `vacheck:"-"`
}

type buView = automaton.View[buNode, buMsg]

// The steps of a Bully process: detect_i (it notices the coordinator has
// crashed), and its two timeouts.
const (
	buDetect        = "detect"
	buTimeoutAnswer = "timeoutAnswer"
	buTimeoutCoord  = "timeoutCoord"
)

// Steps lists detect_i, timeoutAnswer_i and timeoutCoord_i when enabled.
// Timeouts are justified by the global predicates T_ANSWER and T_COORD
// (docs/properties.md and docs/algorithms/bully.md). With --timeouts
// unrestricted a timeout needs only its local waiting condition; one that fires
// while its predicate is false is premature and spends the global budget (its
// Step.Arg is 1, not shown in the label; the state's early counter shows it).
func (p *buNode) Steps(v *buView, out []automaton.Step) []automaton.Step {
	i := v.Self()
	switch p.St {
	case buIdle:
		if p.Detects && int(p.Coord) != p.U && (p.Coord == 0 || !v.Up(int(p.Coord)-1)) {
			out = append(out, automaton.Do(buDetect))
		}
	case buElecting:
		if s, ok := p.timeout(v, buTimeoutAnswer, p.tAnswer(v, i)); ok {
			out = append(out, s)
		}
	case buWaiting:
		if s, ok := p.timeout(v, buTimeoutCoord, buTCoord(v, i)); ok {
			out = append(out, s)
		}
	}
	return out
}

// timeout returns the timeout step name if it may fire: when justified, or,
// with unrestricted timeouts, prematurely while the budget lasts.
func (p *buNode) timeout(v *buView, name string, justified bool) (automaton.Step, bool) {
	s := automaton.Do(name)
	if justified {
		return s, true
	}
	if p.Perfect {
		return s, false
	}
	used := 0
	for j := 0; j < v.N(); j++ {
		used += v.Proc(j).Early
	}
	s.Arg = 1
	return s, used < p.Premature
}

// tAnswer is T_ANSWER for process i: no ANSWER is in transit to i and
// every process with a larger ID has crashed (every live larger process
// that received the ELECTION answers atomically, so an answer is certain
// while one is alive). The broken twin drops the second conjunct.
func (p *buNode) tAnswer(v *buView, i int) bool {
	if buInTransit(v, i, buAnswer) {
		return false
	}
	if p.Broken {
		return true
	}
	if p.Weak {
		for j := i + 1; j < v.N(); j++ {
			if v.Up(j) && slices.Contains(v.Chan(i, j), buMsg{Kind: buElection}) {
				return false
			}
		}
		return true
	}
	for j := i + 1; j < v.N(); j++ {
		if v.Up(j) {
			return false
		}
	}
	return true
}

// buTCoord is T_COORD for process i: no COORDINATOR is in transit to i,
// and every live process with a larger ID is idle with no ELECTION in
// transit to it (nobody above i is still working on an election).
func buTCoord(v *buView, i int) bool {
	if buInTransit(v, i, buCoordinator) {
		return false
	}
	for j := i + 1; j < v.N(); j++ {
		if v.Up(j) && (v.Proc(j).St != buIdle || buInTransit(v, j, buElection)) {
			return false
		}
	}
	return true
}

// buInTransit reports whether a message of kind k is in transit to i.
func buInTransit(v *buView, i int, k buKind) bool {
	for j := 0; j < v.N(); j++ {
		for _, m := range v.Chan(j, i) {
			if m.Kind == k {
				return true
			}
		}
	}
	return false
}

// hold is HOLD(): send ELECTION to every process with a larger ID and wait
// for ANSWERs. The largest process sends nothing; its timeout is enabled at
// once.
func (p *buNode) hold(fx *automaton.Effects[buMsg]) {
	for j := fx.Self() + 1; j < fx.N(); j++ {
		fx.Send(j, buMsg{Kind: buElection})
	}
	p.St = buElecting
}

// Do performs detect_i (HOLD), timeoutAnswer_i (become coordinator and
// announce it to every process with a smaller ID) and timeoutCoord_i (the
// answering process died: HOLD again).
func (p *buNode) Do(s automaton.Step, fx *automaton.Effects[buMsg]) {
	p.Early += s.Arg
	switch s.Name {
	case buDetect, buTimeoutCoord:
		p.hold(fx)
	case buTimeoutAnswer:
		p.Coord, p.St = buCoord(p.U), buIdle
		for j := 0; j < fx.Self(); j++ {
			fx.Send(j, buMsg{Kind: buCoordinator, C: p.U})
		}
	default:
		panic(unknownStep("bully", s))
	}
}

// Recover is recover_i (docs/properties.md and docs/algorithms/bully.md): the
// election state is volatile, so st := idle and coord := ⊥, then HOLD(). The
// premature-timeout counter is the environment's bookkeeping and survives.
func (p *buNode) Recover(fx *automaton.Effects[buMsg]) {
	p.St, p.Coord = buIdle, 0
	p.hold(fx)
}

// accept is ACCEPT(c) of 1.14: coord = ⊥ ∨ c ≥ coord ∨ ¬up_coord. It
// rejects a stale announcement from a lower process that arrives after a
// recovered higher process has announced itself. Without recovery it never
// rejects (the invariant no-stale-coordinator checks it), so the counts of
// crash-stop runs are those of ACCEPT ≡ true.
func (p *buNode) accept(c int, fx *automaton.Effects[buMsg]) bool {
	return p.AcceptAll || p.Coord == 0 || c >= int(p.Coord) || !fx.Up(int(p.Coord)-1)
}

// Receive performs the receive transitions of a live process (the framework
// discards messages to a crashed one). ELECTION: answer, and HOLD if idle
// (a process already electing or waiting only answers). ANSWER: stop
// electing and wait for COORDINATOR; a stale one is ignored.
// COORDINATOR(c): adopt c if ACCEPT(c).
func (p *buNode) Receive(from int, m buMsg, fx *automaton.Effects[buMsg]) {
	switch m.Kind {
	case buElection:
		fx.Send(from, buMsg{Kind: buAnswer})
		if p.St == buIdle {
			p.hold(fx)
		}
	case buAnswer:
		if p.St == buElecting {
			p.St = buWaiting
		}
	case buCoordinator:
		if p.accept(m.C, fx) {
			p.Coord, p.St = buCoord(m.C), buIdle
		}
	}
}

// buMaxUp returns the largest ID of a live process (0 if none).
func buMaxUp(v *buView) int {
	for j := v.N() - 1; j >= 0; j-- {
		if v.Up(j) {
			return j + 1
		}
	}
	return 0
}

// buLiveCoord returns coord_j if it names a live process, else 0.
func buLiveCoord(v *buView, j int) int {
	c := int(v.Proc(j).Coord)
	if c == 0 || !v.Up(c-1) {
		return 0
	}
	return c
}

// buSettled is the valid end state of 0.8 for Bully (BU-END), without its
// "no transition enabled" part, which the explorer checks: all channels
// empty and every live process idle with coord = the largest live ID.
func buSettled(v *buView) bool {
	if !v.ChannelsEmpty() {
		return false
	}
	top := buMaxUp(v)
	for j := 0; j < v.N(); j++ {
		if v.Up(j) && (v.Proc(j).St != buIdle || int(v.Proc(j).Coord) != top) {
			return false
		}
	}
	return true
}

// buKnown is the coordinator a live process names, if it is live: what
// AGREE and VALID read.
func buKnown(v *buView, j int) (int, bool) {
	c := buLiveCoord(v, j)
	return c, v.Up(j) && c != 0
}

func buInvariants() []automaton.Invariant[buNode, buMsg] {
	return []automaton.Invariant[buNode, buMsg]{
		described(election.UniquenessAt(func(v *buView, j int) bool {
			p := v.Proc(j)
			return v.Up(j) && p.St == buIdle && int(p.Coord) == p.U
		}), "BU-UNIQ: at most one live process is idle with coord = its own ID"),
		described(election.AgreementAt(buKnown), "no two live processes name different live coordinators (a crashed coord is a stale value awaiting detection)"),
		described(election.ValidityAt(buKnown, buMaxUp), "a live coordinator named by a live process is the largest live ID"),
		{Name: "no-stale-coordinator", Doc: "no COORDINATOR(c) is in transit to a live process whose coord is a live process with an ID above c, so the ACCEPT(c) rule never rejects and ACCEPT ≡ true is exact without recovery", Holds: func(v *buView) bool {
			for j := 0; j < v.N(); j++ {
				c := buLiveCoord(v, j)
				if !v.Up(j) || c == 0 {
					continue
				}
				for k := 0; k < v.N(); k++ {
					for _, m := range v.Chan(k, j) {
						if m.Kind == buCoordinator && m.C < c {
							return false
						}
					}
				}
			}
			return true
		}},
	}
}

// buExplain says what every process is doing.
func buExplain(v *buView) []string {
	var lines []string
	for j := 0; j < v.N(); j++ {
		p := v.Proc(j)
		var s string
		switch {
		case !v.Up(j):
			s = "crashed"
		case p.St == buIdle && int(p.Coord) == p.U:
			s = "idle, coordinator itself"
		case p.St == buIdle:
			s = fmt.Sprintf("idle, coord = %v", p.Coord)
			if p.Coord != 0 && !v.Up(int(p.Coord)-1) {
				s += " (crashed)"
			}
		case p.St == buElecting:
			var wait []string
			for k := j + 1; k < v.N(); k++ {
				if v.Up(k) {
					wait = append(wait, strconv.Itoa(k+1))
				}
			}
			if len(wait) == 0 {
				s = "electing; every larger process has crashed"
			} else {
				s = "electing, waiting for an ANSWER from live process(es) " + strings.Join(wait, ", ")
			}
		default:
			s = "waiting for COORDINATOR"
		}
		if p.Early > 0 {
			s += fmt.Sprintf("; took %d premature timeout(s)", p.Early)
		}
		lines = append(lines, fmt.Sprintf("process %d: %s", j+1, s))
	}
	return lines
}

// parseDetectors reads --detectors: all, or a list of process numbers.
func parseDetectors(p *Params, n int) ([]bool, error) {
	v := strings.TrimSpace(p.String("detectors"))
	if v == "all" {
		det := make([]bool, n)
		for i := range det {
			det[i] = true
		}
		p.Set("detectors", v)
		return det, nil
	}
	det, err := parseProcList("detectors", v, n, procListWhy{
		notNumber: func(elem string) string {
			return fmt.Sprintf("%q is not a process number; give all or a list of distinct numbers from 1 to %d", input.Clip(elem), n)
		},
		twice: func(i int) string {
			return fmt.Sprintf("process %d appears twice; give all or a list of distinct numbers from 1 to %d", i, n)
		},
	})
	if err != nil {
		return nil, err
	}
	p.Set("detectors", v)
	return det, nil
}

// bully returns bully (docs/algorithms/bully.md), which declares its
// broken twin.
func bully() Spec {
	s := Spec{
		Name:    "bully",
		Section: "1.14",
		Summary: "Garcia-Molina's Bully election on a complete graph with FIFO channels, crash-stop faults and justified timeouts",
		Params: []Param{
			{Flag: "n", Default: "4", Usage: "number of processes; process i has ID i", Max: maxN},
			{Flag: "crashes", Default: "1", Usage: "crash-stop faults the environment may inject, 0 to N-1"},
			{Flag: "recoveries", Default: "0", Usage: "recoveries the environment may inject (recover_i: st := idle, coord := ⊥, HOLD()), 0 to 4"},
			{Flag: "answer-timeout", Default: "strict", Usage: "T_ANSWER: strict (every larger process crashed) or weak (no ELECTION of mine still in transit to a live larger process)"},
			{Flag: "accept", Default: "rule", Usage: "ACCEPT(c) on COORDINATOR(c): rule (coord = ⊥ or c ≥ coord or coord crashed) or always"},
			{Flag: "start", Default: "stable", Usage: "initial coord: stable (the max ID everywhere), election (⊥ everywhere: election at system start) or crashed (stable, with process N crashed before the run; not counted in --crashes)"},
			{Flag: "detectors", Default: "all", Usage: "processes that may detect a failed or unknown coordinator (detect_i): all, or a list such as 1,3"},
			{Flag: "timeouts", Default: "perfect", Usage: "perfect (justified timeouts) or unrestricted (only the local waiting condition, with a budget of premature timeouts)"},
			{Flag: "premature", Default: "1", Usage: "budget of premature timeouts, with --timeouts unrestricted"},
		},
		Claims: []string{properties.Uniqueness, properties.Agreement, properties.Validity, "no-stale-coordinator", properties.DeadlockFreedom},
		Broken: &Twin{
			Summary: "Bully with a bug",
			Bug:     "timeoutAnswer fires once no ANSWER is in transit, without waiting for the larger processes to be crashed, so a process announces itself before a live larger one could answer",
			Claims:  []string{properties.Uniqueness, properties.Agreement, properties.Validity, properties.DeadlockFreedom},
		},
	}
	s.Build = func(p *Params) (explorer.Model, error) {
		broken := p.Broken()
		n := p.IntFlag("n", 1, maxN)
		// At least one process stays up: 0 to N-1 crashes.
		crashes := p.IntFlag("crashes", 0, n-1)
		recoveries := p.IntFlag("recoveries", 0, 4)
		if p.Err() == nil && recoveries > 0 && crashes == 0 {
			p.Fail(Usagef("recoveries", p.String("recoveries"), "a recovery needs a crash first; give --crashes 1 or more"))
		}
		weak := p.oneOf("answer-timeout", "allowed values are strict and weak", "strict", "weak") == "weak"
		acceptAll := p.oneOf("accept", "allowed values are rule and always", "rule", "always") == "always"
		start := p.oneOf("start", "allowed values are stable, election and crashed", "stable", "election", "crashed")
		det := sticky(p, func() ([]bool, error) { return parseDetectors(p, n) })
		mode := p.oneOf("timeouts", "allowed values are perfect and unrestricted", "perfect", "unrestricted")
		premature := 0
		if mode == "unrestricted" {
			premature = p.IntFlag("premature", 0, 16)
		} else if p.Err() == nil && p.Given("premature") {
			p.Fail(Usagef("premature", p.String("premature"), "applies only with --timeouts unrestricted"))
		}
		// 16 messages per channel suffice for every N=3 configuration
		// (election at start with crashes needs 12) and for N=4 with one
		// crash from a stable start (5).
		disc, capacity := p.ChannelFlags(channel.FIFO, 16)
		if err := p.Err(); err != nil {
			return nil, err
		}
		procs := make([]buNode, n)
		for i := range procs {
			procs[i] = buNode{U: i + 1, Detects: det[i], Perfect: mode == "perfect", Premature: premature, Broken: broken, Weak: weak, AcceptAll: acceptAll}
			if start != "election" {
				procs[i].Coord = buCoord(n)
			}
		}
		// --start crashed: the scenario of 1.14's figures, the coordinator
		// crashed before the run.
		var down []int
		if start == "crashed" {
			down = []int{n - 1}
		}
		return automaton.New(automaton.Config[buNode, buMsg]{
			StepNames:    []string{buDetect, buTimeoutAnswer, buTimeoutCoord},
			MessageTypes: []string{"ELECTION", "ANSWER", "COORDINATOR"},
			MayNotFire:   map[string]string{buTimeoutCoord: "it fires when a process that answered an ELECTION crashes before a COORDINATOR is announced; with one crash (the default --crashes 1) the crash is the coordinator's, which starts the election"},

			Initial:    [][]buNode{procs},
			Links:      automaton.Complete(n, false),
			Channels:   disc,
			Capacity:   capacity,
			Crashes:    crashes,
			Recoveries: recoveries,
			Down:       down,
			Invariants: buInvariants(),
			ValidEnd:   buSettled,
			// BU-TERM: every fair run reaches a valid end state (faults are
			// never forced, so "after the last fault").
			Termination: buSettled,
			Explain:     buExplain,
		})
	}
	return s
}
