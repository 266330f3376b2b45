package automaton

import (
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"reflect"
	"sync"
	"unsafe"

	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// Link is a directed channel from process From to process To (0-based).
type Link struct{ From, To int }

// Ring returns the links of a unidirectional ring: i to i+1 mod n.
func Ring(n int) []Link {
	links := make([]Link, n)
	for i := range links {
		links[i] = Link{i, (i + 1) % n}
	}
	return links
}

// BiRing returns the links of a bidirectional ring: i to i+1 and i to i-1.
func BiRing(n int) []Link {
	var links []Link
	for i := 0; i < n; i++ {
		links = append(links, Link{i, (i + 1) % n})
		if n > 2 {
			links = append(links, Link{i, (i + n - 1) % n})
		}
	}
	return links
}

// Complete returns the links of a complete graph, with self-channels C_{i,i}
// when self is set.
func Complete(n int, self bool) []Link {
	var links []Link
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j || self {
				links = append(links, Link{i, j})
			}
		}
	}
	return links
}

// Undirected returns both directions of every edge given as adjacency lists.
func Undirected(adj [][]int) []Link {
	var links []Link
	for i, ns := range adj {
		for _, j := range ns {
			links = append(links, Link{i, j})
		}
	}
	return links
}

// Invariant is a named state predicate that must hold in every reachable
// state.
type Invariant[S any, M Message] struct {
	Name  string
	Doc   string
	Kind  properties.Kind // Invariant (default) or Assertion
	Holds func(v *View[S, M]) bool
}

// Liveness is a named liveness property, checked on the strongly connected
// components of the state graph under the fairness of I/O automata (each
// process's locally controlled actions form a task, and each channel's
// deliveries another): "eventually Goal" when When is nil (every fair run
// reaches a Goal state), otherwise "When leads-to Goal" (from every When
// state, every fair run reaches a Goal state). With PerProcess it is checked
// once for each process i, which both predicates receive (starvation
// freedom: trying_i leads-to critical_i); otherwise i is -1.
type Liveness[S any, M Message] struct {
	Name       string
	Doc        string
	PerProcess bool
	// Stable makes the property "eventually always Goal" (When is not
	// asked): every fair run reaches a point after which Goal holds
	// forever.
	Stable bool
	When   func(v *View[S, M], i int) bool
	Goal   func(v *View[S, M], i int) bool
}

// Assertion is a property checked inside effects by Effects.Assert.
type Assertion struct {
	Name string
	Doc  string
}

// Config describes a system: processes of type S exchanging messages of
// type M over channels.
type Config[S any, M Message] struct {
	// Name names the system in reports (automatontest.Verify prints it
	// above a counterexample); optional.
	Name string
	// Initial lists the initial states, each a value for every process.
	// All must have the same number of processes; constant fields
	// (`vacheck:"-"`) are taken from the first.
	Initial [][]S
	// InitialSeq, instead of Initial, yields the initial states one at a
	// time (each a slice of its own), in a fixed order, for a spec with
	// very many of them: a search with a state or memory limit then stops
	// before building them all (explorer.InitialStreamer). It is iterated again for each search and
	// each counterexample replayed, and must yield the same states.
	InitialSeq iter.Seq[[]S]
	// InitialSample, when set, draws one initial state at random (a
	// slice of its own), for random simulation (explorer.InitialSampler).
	// It must draw uniformly among the states Initial or InitialSeq yields,
	// each with the same chance (a state yielded twice has twice the
	// chance), use only r for randomness, and build only the state it
	// returns: every arrangement of 200 IDs is a permutation drawn by
	// Fisher-Yates, not one picked from a list. Without it, a System with
	// Initial picks one of them uniformly, and one with InitialSeq cannot
	// sample (ErrNoSampler).
	InitialSample func(r *rand.Rand) []S
	// InitialAt, when set with InitialSeq, builds the k-th state (0-based)
	// InitialSeq yields, a slice of its own, without those before it, and
	// false past the last (explorer.InitialIndexer): the explorer's
	// init=K then takes no time to reach the 300,000th arrangement of
	// --ids all.
	InitialAt func(k uint64) ([]S, bool)
	// InitialParams, when set, names an initial state by the parameter
	// values (flag without dashes → value) that select exactly it, such
	// as {"ids": "2,1,3", "initiators": "1,2"}, so that a counterexample
	// ends with the command that re-runs its scenario alone
	// (explorer.InitialNamer). It returns nil when it cannot name procs,
	// and an empty map when the run's own parameters select it. Without
	// it, a System with a single initial state names it by the run's own
	// parameters, and one with several cannot name them.
	InitialParams func(procs []S) map[string]string
	// Links lists the channels; their order is the order in which
	// deliveries are enumerated.
	Links []Link
	// Chans lists more channels, after those of Links: each with a port
	// name, so that a pair of processes may have several channels (told
	// apart by their ports), and with the messages it holds at the start
	// (see Chan).
	Chans []Chan[M]
	// Channels is the channel discipline; FIFO when zero.
	Channels channel.Discipline
	// Capacity bounds every channel. A send that makes a channel hold more
	// messages violates the channel-bound assertion: the model is not
	// bounded as assumed. 0 means 16.
	Capacity int
	// Crashes is the number of crash-stop faults the environment may inject
	// (docs/properties.md): crash_i stops process i; messages to a crashed
	// process are received and discarded.
	Crashes int
	// Recoveries is the number of recoveries the environment may inject
	// (crash-recovery, docs/properties.md): recover_i brings a crashed
	// process i back up and calls its Recover method (the process type must
	// implement Recoverer), which resets the volatile variables, keeps the
	// stable ones and runs the algorithm's recovery action, all in the same
	// step. Messages sent to i while it was down stay lost.
	Recoveries int
	// Down lists the processes (0-based) that are crashed in every initial
	// state, as if crash_i had happened before the run: a scenario such as "the
	// coordinator has crashed" (docs/algorithms/bully.md). They take no step
	// and messages to them are received and discarded, until a recovery. It
	// takes nothing from the Crashes budget.
	Down []int
	// Invariants are checked in every reachable state, in order.
	Invariants []Invariant[S, M]
	// Assertions name the assertions effects may make with
	// Effects.Assert, as in an algorithm's pseudocode ("assert
	// electable"). A failed assertion is a violation of the property of
	// that name, with the transition that failed it as the last step.
	Assertions []Assertion
	// ValidEnd tells a valid end state from a deadlock among terminal
	// states. Nil means every terminal state is a valid end state.
	ValidEnd func(v *View[S, M]) bool
	// Constraint, when set, declares the part of the state space to
	// explore, like TLC's state constraints; use it for unbounded counters
	// such as logical clocks. ConstraintDoc says what it is, in words for
	// the report ("every Lamport clock at most 6"). The search counts as
	// explorer.Bounder says:
	//   - a state where Constraint is false is checked against the
	//     properties but not expanded, and counted apart
	//     (explorer.Result.Cut), not among the distinct states;
	//   - deadlock-freedom is decided among the states within it;
	//   - the run is bounded (not a proof) only if the constraint cut a
	//     state; otherwise it is an ordinary complete run.
	Constraint    func(v *View[S, M]) bool
	ConstraintDoc string
	// Bound and BoundDoc are the former names of Constraint and
	// ConstraintDoc, with the same meaning; set one pair or the other.
	//
	// Deprecated: use Constraint and ConstraintDoc.
	Bound    func(v *View[S, M]) bool
	BoundDoc string
	// Liveness lists the liveness properties the system offers.
	Liveness []Liveness[S, M]
	// Termination, when set, offers the property "termination": every fair
	// execution is finite and ends in a terminal state where Termination
	// holds (for election: every process knows the leader and all channels
	// are empty).
	Termination func(v *View[S, M]) bool
	// Explain, when set, says in words what a state means (who holds what,
	// who waits for whom); reports print it after a counterexample.
	Explain func(v *View[S, M]) []string
	// Normalize, when set, rewrites every state the system reaches into a
	// representative of the states that behave alike, so that the search
	// stores one of them: for instance, shifting every Lamport timestamp by
	// the same amount changes no comparison and no future step. procs and
	// chans (in Links order, head first) may be changed in place. It must
	// be a bisimulation: a state and its representative have the same
	// transitions, leading to states with the same representative, and
	// the same value of every invariant and predicate of the Config.
	// Traces then show representatives.
	Normalize func(procs []S, chans [][]M)
	// PartialOrder, when set, allows partial-order reduction and says which
	// transitions the invariants see; see PartialOrder for what setting it
	// promises.
	PartialOrder *PartialOrder[S]
	// Mutex, when set, describes the user part of a mutual-exclusion
	// algorithm, whose Tracker offers the metrics of package mutex; see
	// Mutex.
	// It is an adapter: its Tracker comes before those of Trackers, where
	// new code may list mutex.Tracker instead.
	Mutex *Mutex[S, M]
	// Trackers are metrics the system can track (--metric NAME), besides
	// time, which every system tracks; see Tracker.
	Trackers []Tracker[S, M]
	// Assumptions are the facts about the model that Normalize and
	// PartialOrder rely on, as predicates the search checks (see
	// Assumption): a state that breaks one ends the run as a model
	// failure, never as a silent merge or a lost interleaving.
	Assumptions []Assumption[S, M]
	// Symmetry declares the symmetries of the system's topology and
	// parameters (see Symmetry), which the search may use to store one
	// state per orbit (--symmetry). NoSymmetry when zero.
	Symmetry Symmetry
	// StepNames and MessageTypes declare, for coverage (check --coverage),
	// the names of the steps the processes take (Step.Name, up to a "("
	// that starts arguments carried in the name) and the types of their
	// messages (as MessageTyper or the message's printed form
	// before its first "(" gives them), so that coverage lists those that
	// never fired, as TLC's coverage and SPIN's unreached code do. Nil
	// declares none of that kind. The environment's steps (receive, crash,
	// recover) are declared by the system. MayNotFire says, by step name
	// or message type, why a declared one may fire in no run of some
	// instances (FAILED is sent only when two requests conflict, so not
	// with one requester); coverage prints it next to the name when it
	// never fired.
	StepNames    []string
	MessageTypes []string
	MayNotFire   map[string]string
	// Constant, when set, declares the constant part of the states: what
	// no transition changes, such as the processes' IDs. It appends to key
	// a canonical encoding of that part of the state in v and returns it.
	// A check split by initial state (check --shard) uses it to prove its
	// parts disjoint, and checks in every state it expands that the part
	// is that of one of its initial states: a transition that changes it
	// ends the run as a model failure (see explorer.ConstantWorker).
	Constant func(v *View[S, M], key []byte) []byte
}

// System is the composition of the process automata of a Config and its
// channel automata. It implements explorer.Model and explorer.Describer,
// and explorer.Coverable (coverage.go).
type System[S any, M Message, P Process[S, M]] struct {
	cfg      Config[S, M]
	n        int
	disc     channel.Discipline
	capacity int
	chanIdx  []int32 // from*n+to -> channel index, or -1 (or chanAmbiguous)
	// userLinks is the Config's Links; cfg.Links lists every channel,
	// those of Config.Chans after them (compileChans). ports names the
	// port of each channel, showPort says whether traces show it, and
	// portIdx finds a channel by pair and port; all three are nil without
	// Config.Chans.
	userLinks []Link
	ports     []string
	showPort  []bool
	portIdx   map[portKey]int32
	pc, mc    *codec
	protos    []S
	accepts   bool     // *S implements Acceptor[M]
	joiner    bool     // *S implements Joiner[M]: steps may be shared actions
	commuter  bool     // a PartialOrder is set and *S implements Commuter[M]
	silencer  bool     // a PartialOrder is set and *S implements Silencer[M]
	initial   [][]byte // all of them; only the first with InitialSeq
	lazy      bool     // InitialSeq is set
	props     []properties.Info
	// Tracked metrics (Instrument): the trackers of the run with where
	// their values sit, the metrics asked for, and the bytes of the
	// trailer of every process and message encoding (trkProc, trkMsg) and
	// the environment words (trkEnv) they keep.
	trk                     []trackSlot[S, M]
	trkMetrics              []trackedMetric
	trkProc, trkMsg, trkEnv int
	sym                     *symGroup // Config.Symmetry, compiled
	down                    uint64    // Config.Down, as a bit set
	obs                     *observer // the Observation of Observe, or nil
	// labelers keeps the workers Label used, for the next (labelWorker).
	// A copy of the System (Instrument) shares it, and takes only its own.
	labelers *sync.Pool
}

// ErrConfig reports a malformed Config.
var ErrConfig = errors.New("automaton: bad configuration")

// ErrNoSampler reports that a System cannot draw an initial state at
// random: its Config yields the initial states one at a time
// (InitialSeq) and has no InitialSample. A random simulation says that
// the spec cannot sample its initial states.
var ErrNoSampler = errors.New("automaton: no sampler of the initial states")

// New checks cfg and builds the system. The type parameters are inferred:
// New(Config[node, msg]{...}) composes processes of type node whose
// pointer implements Process[node, msg].
func New[S any, M Message, P Process[S, M]](cfg Config[S, M]) (*System[S, M, P], error) {
	if err := cfg.constraint(); err != nil {
		return nil, err
	}
	lazy := cfg.InitialSeq != nil
	if lazy {
		if cfg.Initial != nil {
			return nil, fmt.Errorf("%w: set Initial or InitialSeq, not both", ErrConfig)
		}
		for init := range cfg.InitialSeq {
			cfg.Initial = [][]S{init} // the first, for the checks below
			break
		}
	}
	if len(cfg.Initial) == 0 {
		return nil, fmt.Errorf("%w: no initial state", ErrConfig)
	}
	n := len(cfg.Initial[0])
	if n == 0 {
		return nil, fmt.Errorf("%w: no processes", ErrConfig)
	}
	for k, init := range cfg.Initial {
		if len(init) != n {
			return nil, fmt.Errorf("%w: initial state %d has %d processes, the first has %d", ErrConfig, k, len(init), n)
		}
	}
	if cfg.Crashes < 0 || (cfg.Crashes > 0 && n > 64) {
		return nil, fmt.Errorf("%w: crashes are modelled for at most 64 processes, and the budget must not be negative", ErrConfig)
	}
	if cfg.Recoveries < 0 {
		return nil, fmt.Errorf("%w: the recovery budget must not be negative", ErrConfig)
	}
	var down uint64
	for _, i := range cfg.Down {
		if i < 0 || i >= n || n > 64 {
			return nil, fmt.Errorf("%w: Down lists process %d; allowed: 0 to %d (and at most 64 processes)", ErrConfig, i, n-1)
		}
		if down&(1<<uint(i)) != 0 {
			return nil, fmt.Errorf("%w: Down lists process %d twice", ErrConfig, i)
		}
		down |= 1 << uint(i)
	}
	if cfg.Recoveries > 0 {
		if _, ok := any(new(S)).(Recoverer[M]); !ok {
			return nil, fmt.Errorf("%w: Recoveries is %d but %T does not implement Recoverer (Recover(fx *Effects[M]))", ErrConfig, cfg.Recoveries, new(S))
		}
	}
	if cfg.PartialOrder != nil && (cfg.Crashes > 0 || cfg.Recoveries > 0 || len(cfg.Down) > 0 || cfg.PartialOrder.Visible == nil || n > 64) {
		return nil, fmt.Errorf("%w: PartialOrder needs a Visible function, no crashes (nor processes Down) and at most 64 processes", ErrConfig)
	}
	if err := checkAssumptions(&cfg); err != nil {
		return nil, err
	}
	if err := checkCoverage(&cfg); err != nil {
		return nil, err
	}
	sys := &System[S, M, P]{cfg: cfg, n: n, disc: cfg.Channels, capacity: cfg.Capacity, lazy: lazy, down: down, labelers: &sync.Pool{}}
	if sys.disc == 0 {
		sys.disc = channel.FIFO
	}
	if sys.capacity == 0 {
		sys.capacity = 16
	}
	if err := sys.compileChans(); err != nil {
		return nil, err
	}
	cfg.Links = sys.cfg.Links
	var err error
	if sys.pc, err = compile(reflect.TypeFor[S]()); err != nil {
		return nil, err
	}
	if sys.mc, err = compile(reflect.TypeFor[M]()); err != nil {
		return nil, err
	}
	if len(sys.mc.consts) > 0 {
		return nil, fmt.Errorf("%w: message type %s has constant fields", ErrConfig, reflect.TypeFor[M]())
	}
	if err := sys.checkConstants(); err != nil {
		return nil, err
	}
	if err := checkOptionalMethods[S, M](); err != nil {
		return nil, err
	}
	sys.protos = cfg.Initial[0]
	proto := P(&sys.protos[0])
	_, accAt := any(proto).(AcceptorAt[M])
	_, acc := any(proto).(Acceptor[M])
	if sys.accepts, err = implementsSelf[S, M](proto, accAt, acc, "Accepts and AcceptsAt"); err != nil {
		return nil, err
	}
	_, sys.joiner = any(proto).(Joiner[M])
	if sys.joiner && n > 64 {
		// Step.With holds a shared step's partners in a 64-bit mask.
		return nil, fmt.Errorf("%w: %T implements Joiner (shared actions, Step.With), which are modelled for at most 64 processes; this model has %d", ErrConfig, new(S), n)
	}
	if sys.joiner && cfg.PartialOrder != nil {
		return nil, fmt.Errorf("%w: PartialOrder cannot be combined with shared actions: %T implements Joiner, so one step may change several processes at once, which the reduction's independence of processes does not allow; drop the PartialOrder (no --reduction por) or the shared steps", ErrConfig, new(S))
	}
	if cfg.PartialOrder != nil {
		_, comAt := any(proto).(CommuterAt[M])
		_, com := any(proto).(Commuter[M])
		if sys.commuter, err = implementsSelf[S, M](proto, comAt, com, "Commutes and CommutesAt"); err != nil {
			return nil, err
		}
		_, sys.silencer = any(P(&sys.protos[0])).(Silencer[M])
	}
	var nw *worker[S, M, P] // normalizes the initial states, one after the other
	for k, init := range cfg.Initial {
		st := sys.encodeInitial(init)
		if cfg.Normalize != nil {
			if nw == nil {
				nw = sys.newWorker()
			}
			nw.out = st
			if err := nw.normalizeInitial(fmt.Sprintf("initial state %d", k+1)); err != nil {
				return nil, err
			}
			st = append([]byte(nil), nw.out...)
		}
		sys.initial = append(sys.initial, st)
	}
	for _, inv := range cfg.Invariants {
		k := inv.Kind
		if k == 0 {
			k = properties.Invariant
		}
		sys.props = append(sys.props, properties.Info{Name: inv.Name, Kind: k, Doc: inv.Doc})
	}
	for _, a := range cfg.Assertions {
		sys.props = append(sys.props, properties.Info{Name: a.Name, Kind: properties.Invariant, Doc: a.Doc})
	}
	if err := sys.compileSymmetry(); err != nil {
		return nil, err
	}
	if len(cfg.Links) > 0 {
		// A system without channels has no channel to bound: no
		// channel-bound line in its report.
		sys.props = append(sys.props, properties.Info{
			Name: properties.ChannelBound, Kind: properties.Assertion,
			Doc: fmt.Sprintf("no %s holds more than %s (the model's capacity; raise --capacity if a correct model needs more)", sys.bounded(), plural(sys.capacity, "message")),
		})
	}
	return sys, nil
}

// checkConstants checks that every initial state gives each process the
// same value of every constant field (`vacheck:"-"`) as the first: constants
// are not stored in states, so a difference would be lost silently.
func (sys *System[S, M, P]) checkConstants() error {
	for k, init := range sys.cfg.Initial[1:] {
		if err := sys.sameConstants(fmt.Sprintf("initial state %d", k+2), init); err != nil {
			return err
		}
	}
	return nil
}

// sameConstants checks that the initial state init, which what names in
// an error ("initial state 3"), gives each process the constants of the
// first.
func (sys *System[S, M, P]) sameConstants(what string, init []S) error {
	first := sys.cfg.Initial[0]
	for i := range init {
		a, b := reflect.ValueOf(&first[i]).Elem(), reflect.ValueOf(&init[i]).Elem()
		for _, c := range sys.pc.consts {
			// NewAt reads unexported fields too.
			fa, fb := a.Field(c.index), b.Field(c.index)
			va := reflect.NewAt(fa.Type(), unsafe.Pointer(fa.UnsafeAddr())).Elem().Interface()
			vb := reflect.NewAt(fb.Type(), unsafe.Pointer(fb.UnsafeAddr())).Elem().Interface()
			if !reflect.DeepEqual(va, vb) {
				return fmt.Errorf("%w: field %s of process %d is constant (tagged vacheck:\"-\") but %s gives it %v and initial state 1 gives %v; constants must be the same in every initial state (drop the tag to make it part of the state)",
					ErrConfig, c.name, i+1, what, vb, va)
			}
		}
	}
	return nil
}

// checkOptionalMethods refuses a process type with a method named like one
// of an optional interface (Acceptor, Commuter, Silencer, Recoverer, Joiner) whose
// signature does not match it: such a method would be ignored silently and
// change what is explored.
func checkOptionalMethods[S any, M Message]() error {
	pv := reflect.New(reflect.TypeFor[S]())
	for _, want := range []reflect.Type{
		reflect.TypeFor[Acceptor[M]](), reflect.TypeFor[Commuter[M]](),
		reflect.TypeFor[AcceptorAt[M]](), reflect.TypeFor[CommuterAt[M]](),
		reflect.TypeFor[Silencer[M]](), reflect.TypeFor[Recoverer[M]](),
		reflect.TypeFor[Joiner[M]](),
	} {
		name := want.Method(0).Name
		m := pv.MethodByName(name)
		if !m.IsValid() || pv.Type().Implements(want) {
			continue
		}
		return fmt.Errorf("%w: %s has a method %s of type %s, but the optional interface %s needs %s; fix the signature or rename the method",
			ErrConfig, pv.Type(), name, m.Type(), want, want.Method(0).Type)
	}
	return nil
}

// N returns the number of processes.
func (sys *System[S, M, P]) N() int { return sys.n }

// Name returns Config.Name.
func (sys *System[S, M, P]) Name() string { return sys.cfg.Name }

// Capacity returns the channel capacity.
func (sys *System[S, M, P]) Capacity() int { return sys.capacity }

// Initial implements explorer.Model.
func (sys *System[S, M, P]) Initial() ([][]byte, error) {
	if !sys.lazy {
		return sys.initial, nil
	}
	var out [][]byte
	err := sys.InitialStates(func(st []byte) bool { out = append(out, st); return true })
	return out, err
}

// InitialStates implements explorer.InitialStreamer: it encodes the
// initial states one at a time, those of InitialSeq as they come.
func (sys *System[S, M, P]) InitialStates(yield func(st []byte) bool) error {
	if !sys.lazy {
		for _, st := range sys.initial {
			if !yield(st) {
				return nil
			}
		}
		return nil
	}
	var w *worker[S, M, P]
	if sys.cfg.Normalize != nil {
		w = sys.newWorker()
	}
	k := 0
	for init := range sys.cfg.InitialSeq {
		st, err := sys.encodeGiven(w, init, fmt.Sprintf("initial state %d", k+1))
		if err != nil {
			return err
		}
		if !yield(st) {
			return nil
		}
		k++
	}
	return nil
}

// encodeGiven checks an initial state that Config.Initial did not list,
// which what names in an error ("initial state 3"), against the first,
// encodes it, and normalizes it with w when Config.Normalize is set.
func (sys *System[S, M, P]) encodeGiven(w *worker[S, M, P], init []S, what string) ([]byte, error) {
	if len(init) != sys.n {
		return nil, fmt.Errorf("%w: %s has %d processes, the first has %d", ErrConfig, what, len(init), sys.n)
	}
	if err := sys.sameConstants(what, init); err != nil {
		return nil, err
	}
	st := sys.encodeInitial(init)
	if w != nil {
		w.out = st
		if err := w.normalizeInitial(what); err != nil {
			return nil, err
		}
		st = append([]byte(nil), w.out...)
	}
	return st, nil
}

// InitialAt implements explorer.InitialIndexer: the k-th of Config.Initial,
// or Config.InitialAt's k-th encoded as InitialStates does. A System built
// with InitialSeq and no InitialAt returns an error wrapping
// errors.ErrUnsupported.
func (sys *System[S, M, P]) InitialAt(k int) (st []byte, ok bool, err error) {
	if k < 0 {
		return nil, false, nil
	}
	if !sys.lazy {
		if k >= len(sys.initial) {
			return nil, false, nil
		}
		return append([]byte(nil), sys.initial[k]...), true, nil
	}
	if sys.cfg.InitialAt == nil {
		return nil, false, fmt.Errorf("%w: the initial states come one at a time (InitialSeq) and the Config has no InitialAt", errors.ErrUnsupported)
	}
	what := fmt.Sprintf("initial state %d", k+1)
	init, ok, err := func() (init []S, ok bool, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("building %s (InitialAt): %w", what, panicError(r))
			}
		}()
		init, ok = sys.cfg.InitialAt(uint64(k))
		return init, ok, nil
	}()
	if err != nil || !ok {
		return nil, false, err
	}
	var w *worker[S, M, P]
	if sys.cfg.Normalize != nil {
		w = sys.newWorker()
	}
	st, err = sys.encodeGiven(w, init, what)
	return st, err == nil, err
}

// SampleInitial implements explorer.InitialSampler: it draws an initial
// state with Config.InitialSample and encodes it as InitialStates does, or
// picks one of Config.Initial uniformly. A System built with InitialSeq
// and no InitialSample returns an error wrapping ErrNoSampler.
func (sys *System[S, M, P]) SampleInitial(r *rand.Rand) (st []byte, err error) {
	if sys.cfg.InitialSample == nil {
		if sys.lazy {
			return nil, fmt.Errorf("%w: the initial states come one at a time (InitialSeq) and the Config has no InitialSample", ErrNoSampler)
		}
		return append([]byte(nil), sys.initial[r.IntN(len(sys.initial))]...), nil
	}
	const what = "the sampled initial state"
	init, err := func() (init []S, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("drawing an initial state (InitialSample): %w", panicError(r))
			}
		}()
		return sys.cfg.InitialSample(r), nil
	}()
	if err != nil {
		return nil, err
	}
	var w *worker[S, M, P]
	if sys.cfg.Normalize != nil {
		w = sys.newWorker()
	}
	return sys.encodeGiven(w, init, what)
}

// InitialParams implements explorer.InitialNamer with Config.InitialParams:
// it decodes the processes of the initial state st and asks the Config
// which parameters select it.
func (sys *System[S, M, P]) InitialParams(st []byte) (params map[string]string, err error) {
	if sys.cfg.InitialParams == nil {
		if !sys.lazy && len(sys.initial) == 1 {
			return map[string]string{}, nil
		}
		return nil, nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("InitialParams: %w", panicError(r))
		}
	}()
	v := newView[S, M](sys)
	v.load(st, sys.decodeGlobals)
	procs := make([]S, v.N())
	for i := range procs {
		procs[i] = *v.Proc(i)
	}
	return sys.cfg.InitialParams(procs), nil
}

// Properties implements explorer.Model: the configured invariants, then the
// channel-bound assertion.
func (sys *System[S, M, P]) Properties() []properties.Info { return sys.props }

// NewWorker implements explorer.Model.
func (sys *System[S, M, P]) NewWorker() explorer.Worker {
	w := sys.newWorker()
	if sys.cfg.Bound != nil {
		// Only then a Bounder: the search defers checks to expansion
		// for the workers that are not.
		return boundedWorker[S, M, P]{w}
	}
	return w
}

// The encoded global state is a sequence of segments, each a uvarint length
// and its bytes: the environment's bookkeeping (crash budget and which
// processes are up), then each process, then each channel in Links order.
func (sys *System[S, M, P]) encodeInitial(procs []S) []byte {
	var out, seg []byte
	seg = sys.encodeGlobals(seg[:0], globals{budget: sys.cfg.Crashes, recoveries: sys.cfg.Recoveries, down: sys.down})
	out = appendSeg(out, seg)
	for i := range procs {
		seg = sys.pc.enc(unsafe.Pointer(&procs[i]), seg[:0])
		seg = append(seg, make([]byte, sys.trkProc)...)
		out = appendSeg(out, seg)
	}
	for c := range sys.cfg.Links {
		out = sys.encodeInitialChan(out, c)
	}
	return out
}

func appendSeg(out, seg []byte) []byte {
	out = binary.AppendUvarint(out, uint64(len(seg)))
	return append(out, seg...)
}

// globals is the environment's bookkeeping in a state.
type globals struct {
	budget     int                 // crashes left
	down       uint64              // bit i: process i has crashed
	failed     int                 // 1 + the index of an assertion an effect failed, or 0
	recoveries int                 // recoveries left (encoded only when Config.Recoveries > 0)
	env        [MaxTrackEnv]uint64 // the trackers' words (Tracker, TrackLayout.Env)
}

// hasGlobals reports whether states carry the environment's bookkeeping.
func (sys *System[S, M, P]) hasGlobals() bool {
	return sys.cfg.Crashes > 0 || sys.down != 0 || len(sys.cfg.Assertions) > 0 || sys.trkEnv > 0
}

// Recoverer is implemented by a process type that can recover from a crash
// (Config.Recoveries). Recover is the effect of recover_i (docs/properties.md):
// reset the volatile variables to the algorithm's recovery values,
// keep the stable ones, then run the algorithm's recovery action, which may
// send messages through fx.
type Recoverer[M Message] interface {
	Recover(fx *Effects[M])
}

func (sys *System[S, M, P]) encodeGlobals(b []byte, g globals) []byte {
	if !sys.hasGlobals() {
		return b
	}
	b = binary.AppendUvarint(b, uint64(g.budget))
	b = binary.AppendUvarint(b, g.down)
	b = binary.AppendUvarint(b, uint64(g.failed))
	if sys.cfg.Recoveries > 0 {
		b = binary.AppendUvarint(b, uint64(g.recoveries))
	}
	for _, x := range g.env[:sys.trkEnv] {
		b = binary.AppendUvarint(b, x)
	}
	return b
}

func (sys *System[S, M, P]) decodeGlobals(b []byte) globals {
	if !sys.hasGlobals() {
		return globals{}
	}
	budget, k := binary.Uvarint(b)
	down, k2 := binary.Uvarint(b[k:])
	failed, k3 := binary.Uvarint(b[k+k2:])
	g := globals{budget: int(budget), down: down, failed: int(failed)}
	b = b[k+k2+k3:]
	if sys.cfg.Recoveries > 0 {
		rec, k := binary.Uvarint(b)
		g.recoveries, b = int(rec), b[k:]
	}
	for i := range sys.trkEnv {
		x, k := binary.Uvarint(b)
		g.env[i], b = x, b[k:]
	}
	return g
}

// modelError is a panic raised by the framework for a modelling mistake
// (sending on a channel that does not exist).
type modelError struct{ msg string }

func (e modelError) Error() string { return e.msg }

// Explain implements explorer.Explainer with Config.Explain.
func (sys *System[S, M, P]) Explain(s []byte) (lines []string, err error) {
	if sys.cfg.Explain == nil {
		return nil, nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = panicError(r)
		}
	}()
	v := newView[S, M](sys)
	v.load(s, sys.decodeGlobals)
	return sys.cfg.Explain(&v), nil
}

// BoundDoc returns what the model's state constraint is (Config.ConstraintDoc),
// or "".
func (sys *System[S, M, P]) BoundDoc() string { return sys.cfg.BoundDoc }

// constraint makes Constraint and Bound one: the system reads Bound.
func (cfg *Config[S, M]) constraint() error {
	if cfg.Constraint == nil && cfg.ConstraintDoc == "" {
		return nil
	}
	if cfg.Bound != nil || cfg.BoundDoc != "" {
		return fmt.Errorf("%w: set Constraint or Bound (its former name), not both", ErrConfig)
	}
	if cfg.Constraint == nil {
		return fmt.Errorf("%w: ConstraintDoc without a Constraint", ErrConfig)
	}
	cfg.Bound, cfg.BoundDoc = cfg.Constraint, cfg.ConstraintDoc
	return nil
}

// plural returns "1 message", "2 messages".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
