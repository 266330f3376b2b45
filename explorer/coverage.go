package explorer

import (
	"slices"
	"sort"
	"strings"
)

// Fired describes one transition for coverage: the step it takes, and the
// messages it receives and sends, by type.
type Fired struct {
	// Step is the step's name: a process's step ("request", "enter"), or
	// for the environment's transitions "receive", "crash" or "recover".
	Step string
	// Received is the type of the message a receive delivers, "" for any
	// other step.
	Received string
	// Discarded says that the receive delivered the message to a process
	// that has crashed, which discards it.
	Discarded bool
	// Sent are the types of the messages the transition sends, in the
	// order it sends them (messages to the process itself included). The
	// slice is the worker's, valid until its next transition.
	Sent []string
}

// CoverWorker is an optional interface of a Worker that describes its
// transitions, for coverage (Config.Coverage, Swarm, and simulation):
// after TrackCoverage(true), Fired describes transition t, which the worker
// is emitting or offering: it is asked from inside the Emit or Offer
// callback of Expand.
type CoverWorker interface {
	TrackCoverage(on bool)
	Fired(t Transition) Fired
}

// Coverable is an optional interface of a Model that declares the names of
// the steps its transitions take and the types of its messages, so that
// coverage lists those that never fired (as TLC's coverage and SPIN's
// unreached code do).
type Coverable interface {
	Declared() Declaration
}

// Declaration is what a Coverable model declares it can do.
type Declaration struct {
	// Steps names the steps (Fired.Step), and Messages the message types;
	// nil declares none of that kind, and coverage then cannot tell which
	// never fired.
	Steps    []string
	Messages []string
	// MayNotFire says, by step name or message type, why a declared one
	// may fire in no run of some instances of the model (a FAILED sent
	// only when two requests conflict, with one requester): coverage
	// prints it next to the name when it never fired.
	MayNotFire map[string]string
}

// CoverageCounter counts the transitions a search or a simulation fires,
// by step name, by message type and by receive case, against what the
// model declares (Coverable). Add counts one transition; Merge adds
// another counter's (one per worker, or per swarm job); Coverage reports.
// A counter is used by one goroutine at a time.
type CoverageCounter struct {
	decl        Declaration
	transitions int64
	steps       map[string]int64
	sent        map[string]int64
	received    map[string]int64
	cases       map[receiveCase]int64
}

// receiveCase is what a receive did: the type it received, the types it
// sent (receiveCase.key), and whether the receiver had crashed.
type receiveCase struct {
	received, sent string
	discarded      bool
}

// NewCoverageCounter returns an empty counter for the transitions of m,
// with m's declaration when m is Coverable.
func NewCoverageCounter(m Model) *CoverageCounter {
	var d Declaration
	if c, ok := m.(Coverable); ok {
		d = c.Declared()
	}
	return newCoverageCounter(d)
}

func newCoverageCounter(d Declaration) *CoverageCounter {
	return &CoverageCounter{
		decl: d, steps: map[string]int64{}, sent: map[string]int64{}, received: map[string]int64{},
		cases: map[receiveCase]int64{},
	}
}

// Add counts the transition f.
func (c *CoverageCounter) Add(f Fired) {
	c.transitions++
	c.steps[f.Step]++
	for _, t := range f.Sent {
		c.sent[t]++
	}
	if f.Step == "receive" {
		c.received[f.Received]++
		c.cases[receiveCase{received: f.Received, sent: sentKey(f.Sent), discarded: f.Discarded}]++
	}
}

// sentKey is the distinct types of sent, sorted, joined by commas: the
// case a receive that sent them falls in.
func sentKey(sent []string) string {
	switch {
	case len(sent) == 0:
		return ""
	case !slices.ContainsFunc(sent, func(t string) bool { return t != sent[0] }):
		return sent[0]
	}
	ts := slices.Clone(sent)
	slices.Sort(ts)
	return strings.Join(slices.Compact(ts), ",")
}

// Merge adds o's counts to c. Both count the transitions of the same
// model.
func (c *CoverageCounter) Merge(o *CoverageCounter) {
	c.transitions += o.transitions
	for k, n := range o.steps {
		c.steps[k] += n
	}
	for k, n := range o.sent {
		c.sent[k] += n
	}
	for k, n := range o.received {
		c.received[k] += n
	}
	for k, n := range o.cases {
		c.cases[k] += n
	}
}

// empty returns an empty counter with c's declaration.
func (c *CoverageCounter) empty() *CoverageCounter { return newCoverageCounter(c.decl) }

// Coverage reports what the counter counted, in a fixed order: the
// declared steps and message types in the order of the declaration, then
// those fired that were not declared, by name.
func (c *CoverageCounter) Coverage() *Coverage {
	r := &Coverage{
		Transitions:      c.transitions,
		DeclaresSteps:    c.decl.Steps != nil,
		DeclaresMessages: c.decl.Messages != nil,
		MayNotFire:       c.decl.MayNotFire,
	}
	for _, name := range c.decl.Steps {
		r.Steps = append(r.Steps, StepCoverage{Name: name, Fired: c.steps[name], Declared: true})
		if c.steps[name] == 0 {
			r.UnfiredSteps = append(r.UnfiredSteps, name)
		}
	}
	for _, name := range sortedKeys(c.steps) {
		if !slices.Contains(c.decl.Steps, name) {
			r.Steps = append(r.Steps, StepCoverage{Name: name, Fired: c.steps[name]})
			if r.DeclaresSteps {
				r.UndeclaredSteps = append(r.UndeclaredSteps, name)
			}
		}
	}
	for _, typ := range c.decl.Messages {
		m := MessageCoverage{Type: typ, Sent: c.sent[typ], Received: c.received[typ], Declared: true}
		r.Messages = append(r.Messages, m)
		if m.Sent == 0 && m.Received == 0 {
			r.UnfiredMessages = append(r.UnfiredMessages, typ)
		}
	}
	types := sortedKeys(c.sent)
	for _, t := range sortedKeys(c.received) {
		if _, ok := c.sent[t]; !ok {
			types = append(types, t)
		}
	}
	sort.Strings(types)
	for _, typ := range types {
		if !slices.Contains(c.decl.Messages, typ) {
			r.Messages = append(r.Messages, MessageCoverage{Type: typ, Sent: c.sent[typ], Received: c.received[typ]})
			if r.DeclaresMessages {
				r.UndeclaredMessages = append(r.UndeclaredMessages, typ)
			}
		}
	}
	rank := map[string]int{}
	for k, m := range r.Messages {
		rank[m.Type] = k
	}
	for k, n := range c.cases {
		rc := ReceiveCase{Received: k.received, Discarded: k.discarded, Fired: n}
		if k.sent != "" {
			rc.Sent = strings.Split(k.sent, ",")
		}
		r.ReceiveCases = append(r.ReceiveCases, rc)
	}
	sort.Slice(r.ReceiveCases, func(i, j int) bool {
		a, b := r.ReceiveCases[i], r.ReceiveCases[j]
		if a.Received != b.Received {
			return rank[a.Received] < rank[b.Received]
		}
		if a.Discarded != b.Discarded {
			return !a.Discarded
		}
		return strings.Join(a.Sent, ",") < strings.Join(b.Sent, ",")
	})
	return r
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Coverage is what a search fired (Result.Coverage): its transitions by
// step name, by message type and by receive case, and the declared steps
// and message types that never fired. In a check, each state expanded
// counts each of its transitions once, so the counts sum to
// Result.Transitions; a swarm sums them over its jobs.
type Coverage struct {
	Transitions int64
	// Steps are the steps, declared or fired, with how many transitions
	// took each.
	Steps []StepCoverage
	// Messages are the message types, declared or sent or received, with
	// how many messages of each were sent and received.
	Messages []MessageCoverage
	// ReceiveCases are the receives by what they did: the type received,
	// the types the receiver sent in response, and whether it had crashed.
	ReceiveCases []ReceiveCase
	// DeclaresSteps and DeclaresMessages say that the model declares its
	// steps and message types (Coverable), so that the lists of those
	// that never fired (Unfired...) and of those that fired undeclared
	// (Undeclared..., a mistake of the model's declaration) mean
	// something.
	DeclaresSteps, DeclaresMessages     bool
	UnfiredSteps, UnfiredMessages       []string
	UndeclaredSteps, UndeclaredMessages []string
	// MayNotFire is the model's explanation of why a declared step or
	// message type may never fire (Declaration.MayNotFire).
	MayNotFire map[string]string
}

// StepCoverage is how many transitions took a step.
type StepCoverage struct {
	Name     string
	Fired    int64
	Declared bool
}

// MessageCoverage is how many messages of a type were sent and received.
type MessageCoverage struct {
	Type           string
	Sent, Received int64
	Declared       bool
}

// ReceiveCase is how many receives of a message of type Received sent
// messages of the types Sent (none: nil) in response; Discarded ones were
// delivered to a crashed process.
type ReceiveCase struct {
	Received  string
	Sent      []string
	Discarded bool
	Fired     int64
}

// coverage returns an empty counter for the transitions of m when the
// search counts them (Config.Coverage), nil otherwise.
func (s *search) coverage(m Model) *CoverageCounter {
	if !s.cfg.Coverage {
		return nil
	}
	return NewCoverageCounter(m)
}

// startCoverage gives each worker a counter like proto, unless proto is
// nil, and asks the workers to describe their transitions.
func (s *search) startCoverage(proto *CoverageCounter) error {
	if proto == nil {
		return nil
	}
	for _, w := range s.workers {
		cw, ok := w.(CoverWorker)
		if sw, sym := w.(*symWorker); sym {
			_, ok = sw.w.(CoverWorker) // symWorker forwards to it
		}
		if !ok {
			return configError("Coverage", "", "{Coverage}: this model's workers do not describe their transitions (explorer.CoverWorker)")
		}
		cw.TrackCoverage(true)
		s.cover = append(s.cover, proto.empty())
	}
	return nil
}

// covering makes x count each transition in worker w's counter before its
// callback sees it, when the search counts coverage: the transitions it
// offers when it has Offer (every one is offered), else those it emits.
// It returns x.
func (s *search) covering(w int, x *Expansion) *Expansion {
	if s.cover == nil {
		return x
	}
	c, cw := s.cover[w], s.workers[w].(CoverWorker)
	if offer := x.Offer; offer != nil {
		x.Offer = func(t Transition, key uint64) bool {
			c.Add(cw.Fired(t))
			return offer(t, key)
		}
		return x
	}
	emit := x.Emit
	x.Emit = func(t Transition, next []byte) {
		c.Add(cw.Fired(t))
		emit(t, next)
	}
	return x
}

// covered returns the workers' counters merged, or nil without coverage.
func (s *search) covered() *CoverageCounter {
	if s.cover == nil {
		return nil
	}
	c := s.cover[0].empty()
	for _, o := range s.cover {
		c.Merge(o)
	}
	return c
}
