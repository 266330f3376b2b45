package explorer

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/vacheck/vacheck/properties"
)

// Strategy is the search order. The zero value is invalid.
type Strategy uint8

const (
	// BFS explores level by level and reports shortest counterexamples.
	BFS Strategy = 1 + iota
	// DFS explores depth first on one worker; it often reaches deep bugs
	// sooner and needs less memory for its frontier.
	DFS
)

func (s Strategy) String() string {
	switch s {
	case BFS:
		return "bfs"
	case DFS:
		return "dfs"
	}
	return fmt.Sprintf("Strategy(%d)", uint8(s))
}

// ParseStrategy reads the --strategy flag value.
func ParseStrategy(s string) (Strategy, error) {
	switch s {
	case "bfs":
		return BFS, nil
	case "dfs":
		return DFS, nil
	}
	return 0, fmt.Errorf("--strategy %q: allowed values are bfs and dfs", s)
}

// Reduction is the state-space reduction a search applies. The zero value
// is none.
type Reduction uint8

const (
	// NoReduction explores every transition of every state: the state and
	// transition counts are those of the full state space, the same for
	// every strategy and worker count.
	NoReduction Reduction = iota
	// PartialOrder explores, where the model allows it (Reducible), only a
	// stubborn set of each state's transitions, with the cycle proviso.
	// Invariants, assertions and deadlocks are preserved; liveness
	// properties and metrics are not, and cannot be asked for with it.
	// Counts are smaller and depend on the strategy (not on the number of
	// workers).
	PartialOrder
)

func (r Reduction) String() string {
	switch r {
	case NoReduction:
		return "none"
	case PartialOrder:
		return "por"
	}
	return fmt.Sprintf("Reduction(%d)", uint8(r))
}

// ParseReduction reads the --reduction flag value.
func ParseReduction(s string) (Reduction, error) {
	switch s {
	case "none":
		return NoReduction, nil
	case "por":
		return PartialOrder, nil
	}
	return 0, fmt.Errorf("--reduction %q: allowed values are none and por (partial-order reduction)", s)
}

// Config sets how a search runs. The zero value of each field is its
// default.
type Config struct {
	Strategy Strategy // BFS when zero
	// Workers is the number of goroutines; GOMAXPROCS when zero. DFS uses
	// one.
	Workers int
	// MaxStates is the most distinct states the search stores (initial
	// states included): a new state beyond it ends the search as
	// incomplete. BFS stores the first new states of its last level in
	// canonical order, so the states stored do not depend on the number of
	// workers.
	MaxStates int64
	// MaxDepth stops expanding states at this depth (BFS level, DFS stack
	// depth). Zero means no limit.
	MaxDepth int
	// Timeout stops the search after this long. Zero means no limit.
	Timeout time.Duration
	// MaxMemory stops the search when the Go runtime holds more than this
	// many bytes. Zero means no limit.
	MaxMemory uint64
	// Properties names the properties to check; nil checks them all. The
	// deadlock check is the property properties.DeadlockFreedom.
	Properties []string
	// Continue keeps searching after a violation until every checked
	// property has a counterexample or the search completes.
	Continue bool
	// Fairness is the assumption for liveness properties; Weak when zero.
	Fairness Fairness
	// FairSteps adds fairness for named steps (--fair STEP[:strong]): for
	// each, the step of that name of each process is a fairness task of
	// its own, weakly or strongly fair, besides the tasks Fairness
	// covers (with Fairness NoFairness, the only fair ones). The model's
	// workers must be StepWorkers; a name that no transition of the state
	// graph has is refused.
	FairSteps []FairStep
	// Metrics names measures to compute exhaustively over complete
	// executions: "messages" (sent, self-messages excluded), "messages:TYPE"
	// (those of one message type, see TypedWorker) or "steps"; and any
	// other metric a model tracks (Instrumenter, TrackWorker), such as
	// "time" (causal depth).
	Metrics []string
	// Reduction is the state-space reduction; none when zero.
	Reduction Reduction
	// Symmetry stores one state per orbit of the symmetry group the model
	// declares (Symmetric): counts are orbit counts, and Result gives the
	// raw figures next to them; verdicts, metrics and counterexamples are
	// those of the model. Liveness properties are not checked under it.
	Symmetry bool
	// Progress, when set, is called about every ProgressEvery (one second
	// when zero) from another goroutine.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// Context, when set, stops the search once it is done, as Timeout
	// does: the result is Incomplete (or Violated, with what was found)
	// with the figures so far. Its cause (context.Cause), unless it is
	// plain context.Canceled, is the reason given, e.g. "interrupted by
	// SIGINT".
	Context context.Context
	// Checkpoint, when set, saves the search's state to a file now and
	// then and when Context or Timeout stops it, or resumes such a file
	// (see Checkpoint).
	Checkpoint *Checkpoint
	// Bitstate, when not zero, is the size in bytes of a bitstate
	// (supertrace) table that replaces the exact visited set of a
	// depth-first search (DFS, which it implies): a Bloom filter in which
	// each state sets BitstateHashes bits (see BitstateStats). The search
	// runs in that fixed memory (and its stack), and may omit states, so
	// it never reports that a property holds: one that finds no violation
	// is Incomplete (Limit BitstateLimit), with the table's figures and
	// the estimated omissions in Result.Bitstate. Safety properties only.
	Bitstate uint64
	// BitstateHashes is the number of hash functions of the bitstate
	// table: DefaultBitstateHashes when zero. BitstateSeed seeds them, so
	// that searches with different seeds omit different states.
	BitstateHashes int
	BitstateSeed   uint64
	// OrderSeed, when not zero, makes a depth-first search explore the new
	// successors of each state, and the initial states, in an order drawn
	// at random from it instead of in action order: searches with
	// different seeds take different paths first (Swarm). The search is
	// as deterministic as with action order: the same seed explores the
	// same way.
	OrderSeed uint64
	// Coverage counts the transitions the search fires by step name,
	// message type and receive case, in Result.Coverage, for a model whose
	// workers describe their transitions (CoverWorker); one that declares
	// its steps and message types (Coverable) also gets those that never
	// fired. Not with partial-order reduction, which fires only some.
	Coverage bool
	// Shard, when set, searches from the part of the initial states it
	// selects only (see Shard): breadth first, without symmetry or
	// partial-order reduction, whose counts over the parts would not add
	// up to the whole's. Counterexamples give the initial state's index in
	// the model's whole enumeration (Trace.Initial).
	Shard Shard
	// OnExpand, when set, is called by a breadth-first search for every
	// state it expands, from the worker goroutine that expanded it, after
	// the expansion: package shard records fingerprint sets and checks
	// constant parts with it. An error it returns fails the search at that
	// state (Status Failed, with the trace to it). Not with depth-first
	// search.
	OnExpand func(ExpandInfo) error

	// chunkLen, when not 0, cuts every level of a breadth-first search on
	// several workers into chunks of that many states (chunks.cut), and
	// chunkDeal deals them round-robin instead of letting the workers
	// claim them (chunks.claim): the tests' knobs to force many small
	// chunks and workers whose chunks alternate, not settable outside the
	// package.
	chunkLen  int
	chunkDeal bool
}

// Progress is a snapshot of a running search.
type Progress struct {
	Strategy Strategy
	// Phase is what the search is doing.
	Phase               Phase
	States, Transitions int64
	// Depth is the BFS level being expanded, or the deepest DFS stack.
	Depth int
	// Queue is the number of states waiting to be expanded: the BFS level
	// being expanded, or the DFS stack.
	Queue int64
	// Expanded is, in a BFS, about how many states of the level being
	// expanded the workers have expanded so far (States grows level by
	// level, so a wide level can take a while without it changing).
	Expanded int64
	// Explored is about how many states the search has expanded in all:
	// in a BFS, the levels before the one under way and Expanded of it; in
	// a DFS, States. It grows as the search works, where States grows a
	// level at a time, so a rate of it does not swing at level merges.
	Explored int64
	Elapsed  time.Duration
	Memory   uint64
	// InOrder, in the phase FindingInOrder, is the progress of the
	// breadth-first search of the in-order model (InOrderer), to the depth
	// MaxDepth; the other fields are then the search's, as it ended.
	InOrder *Progress
	// MaxDepth is the depth limit of the search, 0 without one.
	MaxDepth int
}

// Phase is a phase of a search, for progress reports.
type Phase int32

// The phases of a search.
const (
	Searching         Phase = iota // the search of the state space
	BuildingGraph                  // building the state graph for liveness and metrics
	CheckingLive                   // checking liveness properties and metrics on the graph
	LoadingCheckpoint              // reading the checkpoint a search resumes from
	FindingInOrder                 // looking for a counterexample without overtaking (InOrderer)
)

func (p Phase) String() string {
	switch p {
	case BuildingGraph:
		return "building the state graph for liveness"
	case CheckingLive:
		return "checking liveness on the state graph"
	case LoadingCheckpoint:
		return "loading the checkpoint"
	case FindingInOrder:
		return "looking for a counterexample without overtaking"
	}
	return "searching"
}

func (c Config) validate(props []properties.Info) (Config, error) {
	if c.Strategy == 0 {
		c.Strategy = BFS
		if c.Bitstate > 0 {
			c.Strategy = DFS
		}
	}
	if c.Strategy != BFS && c.Strategy != DFS {
		return c, configError("Strategy", fmt.Sprint(int(c.Strategy)), "{Strategy %d}: unknown strategy", c.Strategy)
	}
	if c.Workers < 0 {
		return c, configError("Workers", fmt.Sprint(c.Workers), "{Workers %d}: must be at least 1", c.Workers)
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.Workers > 256 {
		return c, configError("Workers", fmt.Sprint(c.Workers), "{Workers %d}: at most 256", c.Workers)
	}
	if c.Strategy == DFS {
		c.Workers = 1
	}
	for _, l := range []struct {
		field string
		v     int64
	}{{"MaxStates", c.MaxStates}, {"MaxDepth", int64(c.MaxDepth)}, {"Timeout", int64(c.Timeout)}} {
		if l.v < 0 {
			return c, configError(l.field, fmt.Sprint(l.v), "{%s %d}: must not be negative", l.field, l.v)
		}
	}
	if len(props) > 63 {
		return c, configError("", "", "a model may have at most 63 invariants")
	}
	for _, name := range c.Properties {
		found := name == properties.DeadlockFreedom
		for _, p := range props {
			found = found || p.Name == name
		}
		if !found {
			var names []string
			for _, p := range props {
				names = append(names, p.Name)
			}
			return c, configError("Properties", fmt.Sprintf("%q", name), "{Properties %q}: unknown property; this spec has %s, %s", name, strings.Join(names, ", "), properties.DeadlockFreedom)
		}
	}
	if c.Fairness == 0 {
		c.Fairness = Weak
	}
	for k, f := range c.FairSteps {
		if f.Step == "" {
			return c, configError("FairSteps", `""`, "{FairSteps}: a step name is empty")
		}
		for _, g := range c.FairSteps[:k] {
			if g.Step == f.Step {
				return c, configError("FairSteps", f.Step, "{FairSteps %s}: the step is given twice", f.Step)
			}
		}
	}
	for _, m := range c.Metrics {
		if m == "" || m == "messages:" {
			return c, configError("Metrics", fmt.Sprintf("%q", m), "{Metrics %q}: allowed metrics are messages, messages:TYPE (e.g. messages:REQUEST), steps, and those the model tracks (such as time)", m)
		}
	}
	if err := c.validateBitstate(); err != nil {
		return c, err
	}
	if c.Coverage && c.Reduction == PartialOrder {
		return c, configError("Coverage", "true", "{Coverage} counts the transitions of every state, and {Reduction por} fires only some of them; use {Reduction none}")
	}
	if err := c.Shard.validate(); err != nil {
		return c, err
	}
	if !c.Shard.Whole() || c.OnExpand != nil {
		what, v := "Shard", c.Shard.String()
		if c.Shard.Whole() {
			what, v = "OnExpand", ""
		}
		switch {
		case c.Strategy == DFS:
			return c, configError(what, v, "{%s} needs breadth-first search (the depths and counts of its parts add up only breadth first); use {Strategy bfs}", what)
		case c.Symmetry && what == "Shard":
			return c, configError(what, v, "{%s} with {Symmetry}: an orbit spans the parts (a rotation of an ID arrangement is another arrangement), so the parts' orbit counts do not add up; run the parts without {Symmetry}", what)
		case c.Reduction == PartialOrder && what == "Shard":
			return c, configError(what, v, "{%s} with {Reduction por}: the reduced state spaces of the parts do not add up to the whole's; use {Reduction none}", what)
		}
	}
	if c.ProgressEvery <= 0 {
		c.ProgressEvery = time.Second
	}
	return c, nil
}

// The names of the metrics the models of package automaton track
// (Instrumenter), kept here for callers. The explorer does not know what
// they mean: it knows the kinds of aggregation (MetricKind) a model's
// TrackWorker declares. The metrics are defined where they live: time in
// package automaton, sync-delay and messages-per-entry in package mutex
// (automaton.MetricTime, mutex.MetricSyncDelay,
// mutex.MetricMessagesPerEntry).
const (
	MetricTime             = "time"
	MetricSyncDelay        = "sync-delay"
	MetricMessagesPerEntry = "messages-per-entry"
)

// Limit names what stopped a search before its state space was exhausted
// (Result.Limit).
type Limit uint8

const (
	// NoLimit: no limit stopped the search.
	NoLimit Limit = iota
	// StateLimit is Config.MaxStates.
	StateLimit
	// DepthLimit is Config.MaxDepth: states at that depth have
	// successors that were not explored.
	DepthLimit
	// TimeLimit is Config.Timeout.
	TimeLimit
	// MemoryLimit is Config.MaxMemory.
	MemoryLimit
	// Interrupted: Config.Context was cancelled (Ctrl-C, a deadline of
	// the caller's).
	Interrupted
	// LevelLimit: a breadth-first level held more than 2^32 states.
	LevelLimit
	// BitstateLimit: the search stored its states in a bitstate table
	// (Config.Bitstate), which may have omitted some.
	BitstateLimit
)

func (l Limit) String() string {
	switch l {
	case NoLimit:
		return "none"
	case StateLimit:
		return "states"
	case DepthLimit:
		return "depth"
	case TimeLimit:
		return "time"
	case MemoryLimit:
		return "memory"
	case Interrupted:
		return "interrupted"
	case LevelLimit:
		return "level"
	case BitstateLimit:
		return "bitstate"
	}
	return fmt.Sprintf("Limit(%d)", uint8(l))
}

// validateBitstate checks the bitstate fields: a table needs depth-first
// search, at least MinBitstateBytes and room under MaxMemory, and
// checkpoints do not save one.
func (c *Config) validateBitstate() error {
	if c.Bitstate == 0 {
		if c.BitstateHashes != 0 {
			return configError("BitstateHashes", fmt.Sprint(c.BitstateHashes), "{BitstateHashes %d} needs {Bitstate}, a bitstate table to hash into", c.BitstateHashes)
		}
		return nil
	}
	v := fmt.Sprint(c.Bitstate)
	switch {
	case c.Bitstate < MinBitstateBytes:
		return configError("Bitstate", v, "{Bitstate %d}: a bitstate table takes at least %d bytes", c.Bitstate, MinBitstateBytes)
	case c.Bitstate > MaxBitstateBytes:
		return configError("Bitstate", v, "{Bitstate %d}: at most %d bytes (1 TiB)", c.Bitstate, uint64(MaxBitstateBytes))
	case c.Strategy != DFS:
		return configError("Bitstate", v, "{Bitstate %d}: a bitstate table replaces the visited set of a depth-first search; use {Strategy dfs}", c.Bitstate)
	case c.MaxMemory > 0 && c.Bitstate >= c.MaxMemory:
		return configError("Bitstate", v, "{Bitstate %d}: the table must fit under {MaxMemory %d}, with room for the search stack", c.Bitstate, c.MaxMemory)
	case c.Checkpoint != nil:
		return configError("Bitstate", v, "{Bitstate %d}: checkpoints do not save a bitstate table; run without {Checkpoint}", c.Bitstate)
	case c.BitstateHashes < 0 || c.BitstateHashes > MaxBitstateHashes:
		return configError("BitstateHashes", fmt.Sprint(c.BitstateHashes), "{BitstateHashes %d}: allowed: 1 to %d", c.BitstateHashes, MaxBitstateHashes)
	}
	if c.BitstateHashes == 0 {
		c.BitstateHashes = DefaultBitstateHashes
	}
	return nil
}
