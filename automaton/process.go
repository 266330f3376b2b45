// Package automaton writes distributed algorithms as I/O automata and
// composes them with channel automata into a system the explorer can search.
//
// An algorithm author writes one Go struct type for the state of a process
// (its state variables) and three methods on a pointer to it, following the
// textbook form of an I/O automaton (docs/properties.md):
//
//   - Steps lists the process's enabled locally controlled transitions
//     (outputs and internal actions), each a Step with a name;
//   - Do applies the effect of one of those steps;
//   - Receive applies the effect of the input receive(m)_{j,i}.
//
// Effects send messages with Effects.Send, which performs the joint
// transition with the channel automaton C_{i,j}; a channel's output
// receive(m)_{i,j} is performed jointly with the receiving process's input.
// The System does the composition, the canonical encoding, hashing and
// copying of states, so the author never deals with them.
//
// States are values and transitions are pure: Steps must not modify the
// process, and Do and Receive must depend on nothing but the process state,
// the step or message, and the read-only view of the system they are given.
// automatontest.CheckPure verifies this on every reachable state of a
// small instance.
package automaton

import (
	"fmt"
	"math/bits"
)

// Message is the constraint on message types: any comparable value built
// from booleans, integers, strings, arrays and structs.
type Message interface {
	comparable
}

// Kind classifies a transition of a process automaton.
type Kind uint8

// Transition kinds. The zero value is invalid, so a Step without a kind is
// caught.
const (
	// Output is a locally controlled transition visible to others, such as
	// handing a message to a channel.
	Output Kind = 1 + iota
	// Internal is a locally controlled transition nobody else sees, such as
	// entering a critical section.
	Internal
	// Input is a transition controlled by the environment: receiving a
	// message.
	Input
	// Fault is a crash injected by the environment; it is never forced by
	// fairness and does not keep a state from being terminal.
	Fault
)

func (k Kind) String() string {
	switch k {
	case Output:
		return "output"
	case Internal:
		return "internal"
	case Input:
		return "input"
	case Fault:
		return "fault"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Step is one enabled locally controlled transition of a process, as
// reported by Steps and handed back to Do. Name is the transition's name in
// the process's signature ("send", "request", "enter"); Arg is an optional
// parameter shown in traces when HasArg is set. A step whose effect sends
// exactly one message and whose To is set (HasTo) is shown as
// name(m)_{i,j}, like send(v)_{i,i+1} of the formal Chang-Roberts model;
// any other step is shown as name_{i} or name(arg)_{i}.
//
// With, when not zero, makes the step a shared action (I/O automata
// composition): bit j set names process j as a partner, and the step is
// performed in one atomic transition by the process that reports it (its
// output, through Do) and by every partner (its input of the same name,
// through Joiner.Join), in that order. Shared builds such a step; it is
// shown as name_{i,j,k}, the process that reports it first.
type Step struct {
	Name   string
	Kind   Kind
	Arg    int
	HasArg bool
	To     int
	HasTo  bool
	With   uint64
}

// Out returns the output step name that hands a message to the channel to
// process to.
func Out(name string, to int) Step { return Step{Name: name, Kind: Output, To: to, HasTo: true} }

// Broadcast returns the output step name whose effect sends messages to
// several processes; it is shown as name_{i}.
func Broadcast(name string) Step { return Step{Name: name, Kind: Output} }

// Do returns the internal step name.
func Do(name string) Step { return Step{Name: name, Kind: Internal} }

// DoArg returns the internal step name with parameter arg.
func DoArg(name string, arg int) Step {
	return Step{Name: name, Kind: Internal, Arg: arg, HasArg: true}
}

// Shared returns the output step name performed in one atomic transition
// with the input of the same name of each process in partners (0-based,
// other than the process reporting the step, and below 64: New refuses a
// process type that implements Joiner in a system of more than 64
// processes, since With is a 64-bit mask): a token handed
// from i to j (Shared("pass", j)), a handshake, a synchronous round
// (Shared("tick", 1, 2, 3)). Each partner's part is its Joiner.Join, which
// the process type must implement. A partner that has crashed cannot take
// part: the step is then not enabled. A precondition on a partner's state
// (a handshake both sides must be ready for) is read in Steps through the
// View.
func Shared(name string, partners ...int) Step {
	st := Step{Name: name, Kind: Output}
	for _, j := range partners {
		if j < 0 || j >= 64 {
			panic(modelError{fmt.Sprintf("step %q names partner %d; a shared action's partners are processes 0 to 63", name, j)})
		}
		st.With |= 1 << uint(j)
	}
	return st
}

// SharedArg is Shared with the parameter arg, which Join receives in the
// step and traces show: name(arg)_{i,j}.
func SharedArg(name string, arg int, partners ...int) Step {
	st := Shared(name, partners...)
	st.Arg, st.HasArg = arg, true
	return st
}

// Partners returns the partners of a shared step (With), in increasing
// order, or nil.
func (s Step) Partners() []int {
	var out []int
	for m := s.With; m != 0; m &= m - 1 {
		out = append(out, bits.TrailingZeros64(m))
	}
	return out
}

// Partner returns the lowest partner of a shared step, the only one of a
// step shared with one process, or -1 for a step that is not shared.
func (s Step) Partner() int {
	if s.With == 0 {
		return -1
	}
	return bits.TrailingZeros64(s.With)
}

// Joiner is the optional interface of a process that takes part in shared
// actions (Step.With, Shared). Join applies the effect of the process's
// input part of the shared step s, which process from reported and did
// first, in the same transition; it may send, assert and take messages
// through fx like any effect. Like Do, it must depend on nothing but the
// process state, the step, from and fx.
type Joiner[M Message] interface {
	Join(s Step, from int, fx *Effects[M])
}

// Process is implemented by a pointer to an algorithm's process state S
// exchanging messages of type M.
type Process[S any, M Message] interface {
	*S
	// Steps appends the locally controlled transitions enabled in this
	// state to out, in a fixed order, and returns it. v is a read-only view
	// of the whole system, for the rare precondition that needs one (a
	// timeout oracle); most processes ignore it. Like Do, Steps is pure: it
	// depends on the process's value, v.Self, v.N and what it reads
	// through v, nothing else (no package variable, no captured state).
	// The engine relies on it: the steps of a value whose Steps read
	// nothing through v are remembered with the value and not asked again.
	Steps(v *View[S, M], out []Step) []Step
	// Do applies the effect of the step s, which Steps reported.
	Do(s Step, fx *Effects[M])
	// Receive applies the effect of receive(m) over the channel from process
	// from.
	Receive(from int, m M, fx *Effects[M])
}

// Acceptor is an optional interface of a process that puts a precondition on
// its receive transitions (as in docs/algorithms/floodmax.md): a message it
// does not accept stays in the channel.
type Acceptor[M Message] interface {
	Accepts(from int, m M) bool
}

// Effects is handed to an effect so that it can send messages. It also tells
// the effect which process it runs in.
type Effects[M Message] struct {
	self, n int
	send    func(to int, m M)
	assert  func(name string, ok bool)
	up      func(j int) bool
	take    func(from int, port *string, m *M, match bool) M
	// sendPort and port: SendPort and Port (ports.go).
	sendPort func(to int, port string, m M)
	port     string
}

// Assert checks a condition the algorithm asserts inside an effect; name
// must be one of Config.Assertions. When ok is false the transition leads
// to a state that violates the property name.
func (fx *Effects[M]) Assert(name string, ok bool) { fx.assert(name, ok) }

// Up reports whether process j has not crashed (for an effect whose rule
// depends on it, such as accepting a coordinator only from a live process).
func (fx *Effects[M]) Up(j int) bool { return fx.up(j) }

// Self returns the index (0-based) of the process the effect runs in.
func (fx *Effects[M]) Self() int { return fx.self }

// N returns the number of processes.
func (fx *Effects[M]) N() int { return fx.n }

// Send appends m to the channel from this process to process to. Sending to
// a process with no channel from this one is a modelling error and stops
// the check.
func (fx *Effects[M]) Send(to int, m M) { fx.send(to, m) }

// Take removes the message the channel from process from to this one
// would deliver next (its head; for an unordered channel, the first in the
// state's canonical order) and returns it, in the same transition as the
// rest of the effect: a step that consumes several messages at once, such
// as one that takes the heads of all its incoming channels when each has
// one. The step's precondition, in Steps, makes sure they are there
// (View.Chan); taking from an empty channel, or one that does not exist,
// is a modelling error and stops the check. A system with a PartialOrder
// cannot take: its processes interact only through their receives.
func (fx *Effects[M]) Take(from int) M { return fx.take(from, nil, nil, false) }

// Consume removes one copy of m from the channel from process from to this
// one, where the channel can deliver it now (the head of a FIFO channel;
// any message of an unordered one): Take for a step that picks which
// message of a bag it consumes. A message the channel cannot deliver is a
// modelling error and stops the check.
func (fx *Effects[M]) Consume(from int, m M) { fx.take(from, nil, &m, true) }
