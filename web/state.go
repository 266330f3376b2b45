package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/report/msc"
	"github.com/vacheck/vacheck/simulate"
)

// requestError is an error of a request: the handler answers it with its
// status (404, 400) and its text.
type requestError struct {
	status int
	msg    string
}

func (e *requestError) Error() string { return e.msg }

func notFound(format string, args ...any) error {
	return &requestError{http.StatusNotFound, fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) error {
	return &requestError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// served is one model of the server with what it caches.
type served struct {
	Model
	describer explorer.Describer
	props     []properties.Info
	want      uint64 // the invariants and assertions, as a mask
	workers   sync.Pool

	mu      sync.Mutex
	initial map[int][]byte // recently used initial states, by index
	order   []int          // of initial, oldest first

	graph graphCache
	check checkCache
	meter meter

	labelMu sync.Mutex
	labels  map[string]string // state encoding and action index -> label
}

// labelCache bounds served.labels: a path is relabelled on every click,
// and Label builds a worker each time.
const labelCache = 1 << 17

// label returns the label of action a in state st, through the cache.
func (s *served) label(st []byte, a int) (string, error) {
	key := string(st) + "\x00" + strconv.Itoa(a)
	s.labelMu.Lock()
	l, ok := s.labels[key]
	s.labelMu.Unlock()
	if ok {
		return l, nil
	}
	l, err := s.describer.Label(st, a)
	if err != nil {
		return "", err
	}
	s.labelMu.Lock()
	if len(s.labels) >= labelCache {
		clear(s.labels)
	}
	s.labels[key] = l
	s.labelMu.Unlock()
	return l, nil
}

// initialCache is how many initial states a model keeps at hand.
const initialCache = 64

func newServed(m Model) (*served, error) {
	d, ok := m.Model.(explorer.Describer)
	if !ok {
		return nil, fmt.Errorf("web: %s does not describe its states (explorer.Describer): the explorer cannot show them", m.Spec)
	}
	s := &served{Model: m, describer: d, props: m.Model.Properties(), initial: map[int][]byte{}, labels: map[string]string{}}
	s.check.sem = make(chan struct{}, 1)
	for k, p := range s.props {
		if (p.Kind == properties.Invariant || p.Kind == properties.Assertion) && k < 64 {
			s.want |= 1 << uint(k)
		}
	}
	s.workers.New = func() any { return m.Model.NewWorker() }
	return s, nil
}

func (s *served) worker() explorer.Worker   { return s.workers.Get().(explorer.Worker) }
func (s *served) release(w explorer.Worker) { s.workers.Put(w) }

// initialState returns initial state k, streaming the model's initial
// states up to it unless it is at hand; ctx bounds the time it may take.
func (s *served) initialState(ctx context.Context, k int) ([]byte, error) {
	s.mu.Lock()
	st, ok := s.initial[k]
	s.mu.Unlock()
	if ok {
		return st, nil
	}
	st, err := initialAt(ctx, s.Model.Model, k)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if _, ok := s.initial[k]; !ok {
		s.initial[k] = st
		s.order = append(s.order, k)
		if len(s.order) > initialCache {
			delete(s.initial, s.order[0])
			s.order = s.order[1:]
		}
	}
	s.mu.Unlock()
	return st, nil
}

// origin is where a path starts: initial state index of the model's list,
// or, when drawn, the initial state that run 0 of a simulation with seed
// draws (simulate.InitialOf: `vacheck simulate --seed S` draws it for its
// first run), which names one of millions of initial states without
// listing them.
type origin struct {
	index int
	drawn bool
	seed  uint64
}

// start returns the initial state o names.
func (s *served) start(ctx context.Context, o origin) ([]byte, error) {
	if !o.drawn {
		return s.initialState(ctx, o.index)
	}
	st, err := simulate.InitialOf(s.Model.Model, o.seed, 0)
	if err != nil {
		return nil, badRequest("sample=%d: %v", o.seed, err)
	}
	return st, nil
}

// chartSteps is how many of a path's last steps the chart of a state
// shows: a chart of thousands of rows would take seconds and megabytes a
// click.
const chartSteps = 200

// successor is one enabled transition of a state.
type successor struct {
	t    explorer.Transition
	next []byte
}

// successors lists the transitions enabled in st, in action order.
func (s *served) successors(st []byte) ([]successor, error) {
	w := s.worker()
	defer s.release(w)
	var out []successor
	_, err := explorer.Successors(w, st, func(t explorer.Transition, next []byte) {
		out = append(out, successor{t, append([]byte(nil), next...)})
	})
	return out, err
}

// walk is a path replayed: its states and the transitions taken.
type walk struct {
	from   origin
	init   int      // from.index, or -1 for a drawn initial state
	states [][]byte // states[0] is the initial state
	acts   []int
	steps  []explorer.Transition
	// last are the transitions enabled in the last state.
	last []successor
}

// replay follows the action indices path from initial state init.
func (s *served) replay(ctx context.Context, from origin, path []int) (*walk, error) {
	st, err := s.start(ctx, from)
	if err != nil {
		return nil, err
	}
	w := &walk{from: from, init: from.index, states: [][]byte{st}}
	if from.drawn {
		w.init = -1
	}
	succ, err := s.successors(st)
	if err != nil {
		return nil, err
	}
	for k, a := range path {
		if a < 0 || a >= len(succ) {
			return nil, badRequest("step %d: action %d is not enabled: the state after step %d has %d transitions (0 to %d)", k+1, a, k, len(succ), len(succ)-1)
		}
		if k&63 == 63 && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		next := succ[a]
		w.states = append(w.states, next.next)
		w.acts = append(w.acts, a)
		w.steps = append(w.steps, next.t)
		if succ, err = s.successors(next.next); err != nil {
			return nil, fmt.Errorf("step %d: %w", k+1, err)
		}
	}
	w.last = succ
	return w, nil
}

// replayLabels follows a path given by action labels, as traces show them,
// and returns its action indices.
func (s *served) replayLabels(ctx context.Context, from origin, labels []string) ([]int, error) {
	st, err := s.start(ctx, from)
	if err != nil {
		return nil, err
	}
	acts, _, err := explorer.FollowLabels(s.Model.Model, st, labels)
	var se *explorer.StepError
	if errors.As(err, &se) {
		return nil, badRequest("step %d: %q is not enabled; the enabled transitions are %s", se.Index+1, se.Label, strings.Join(se.Enabled, ", "))
	}
	if err != nil {
		return nil, err
	}
	path := make([]int, len(acts))
	for k, a := range acts {
		path[k] = int(a)
	}
	return path, nil
}

// View is what the page shows of a state: the answer of /api/state.
type View struct {
	Spec string `json:"spec"`
	// Init is the index of the initial state, or -1 for one drawn with
	// the seed Sample.
	Init   int     `json:"init"`
	Sample *uint64 `json:"sample,omitempty"`
	Path   []int   `json:"path"`
	// Labels are the actions of the path's steps.
	Labels      []string     `json:"labels"`
	Processes   []Process    `json:"processes"`
	Channels    []Channel    `json:"channels"`
	Globals     []VarView    `json:"globals"`
	Properties  []PropView   `json:"properties"`
	Metrics     []MetricView `json:"metrics"`
	Enabled     []Action     `json:"enabled"`
	Terminal    bool         `json:"terminal"`
	Deadlock    bool         `json:"deadlock"`
	Explanation []string     `json:"explanation,omitempty"`
	// Chart is the message sequence chart of the path, as SVG: of its
	// last 200 steps, from step ChartFrom (its row 0 is the state after
	// step ChartFrom, the messages then in transit drawn as sent there).
	Chart     string `json:"chart"`
	ChartFrom int    `json:"chart_from"`
	// Node is the state's number in the state graph, when the graph has
	// been drawn; -1 otherwise.
	Node int `json:"node"`
}

// VarView is one variable.
type VarView struct {
	Name    string `json:"name"` // without the process prefix in a Process
	Value   string `json:"value"`
	Changed bool   `json:"changed,omitempty"`
	Old     string `json:"old,omitempty"`
}

// Process is one process card.
type Process struct {
	ID      int       `json:"id"` // 1-based
	Crashed bool      `json:"crashed,omitempty"`
	Vars    []VarView `json:"vars"`
}

// Channel is one channel with its messages, or one receiver's mailbox
// (channel.Mailbox: From is 0, and each message is "i:v", v sent by i).
type Channel struct {
	Name     string    `json:"name"`
	From     int       `json:"from"` // 1-based; 0 for a mailbox
	To       int       `json:"to"`
	FIFO     bool      `json:"fifo"`
	Mailbox  bool      `json:"mailbox,omitempty"`
	Changed  bool      `json:"changed,omitempty"`
	Messages []Message `json:"messages"`
}

// Message is one message in a channel.
type Message struct {
	Value string `json:"value"`
	// Action is the action index of the transition that receives it now,
	// or -1 when it cannot be received now (behind the head of a FIFO
	// channel). On an unordered channel a message that can be received
	// ahead of older ones overtakes them.
	Action int `json:"action"`
	// Sent is the step that sent it, as far as the chart goes back, for
	// a message of a bag (listed in the order they were sent); -1 when
	// unknown.
	Sent int `json:"sent"`
	// Ahead is the number of messages listed before it that were sent
	// before it on the same channel (for a mailbox, by the same sender):
	// those that receiving it now overtakes, on an unordered channel.
	Ahead int `json:"ahead"`
}

// sendOrder returns the messages vals of the bag from i to j (0-based),
// listed in canonical order, in the order they were sent instead, with
// the step that sent each (from + its step in the chart), as the chart c
// matched them; vals as they are when the chart cannot tell.
func sendOrder(c *msc.Chart, i, j int, vals []string, from int) ([]string, []int) {
	return inSendOrder(c, vals, from, func(m *msc.Message) (string, bool) {
		return m.Value, m.From == i && m.To == j
	})
}

// mailboxOrder is sendOrder for the mailbox of j (0-based), whose
// messages vals are each "i:v", from every sender.
func mailboxOrder(c *msc.Chart, j int, vals []string, from int) ([]string, []int) {
	return inSendOrder(c, vals, from, func(m *msc.Message) (string, bool) {
		return fmt.Sprintf("%d:%s", m.From+1, m.Value), m.To == j
	})
}

// inSendOrder lists the chart's messages in transit that match accepts,
// each as the value match gives it, in the order they were sent, with the
// step that sent each; vals, unchanged, when those are not the same
// messages.
func inSendOrder(c *msc.Chart, vals []string, from int, match func(*msc.Message) (string, bool)) ([]string, []int) {
	sent := make([]int, len(vals))
	for k := range sent {
		sent[k] = -1
	}
	if c == nil {
		return vals, sent
	}
	var order []string
	var steps []int
	for k := range c.Messages {
		m := &c.Messages[k]
		if v, ok := match(m); ok && m.InTransit() {
			order = append(order, v)
			steps = append(steps, from+m.Sent)
		}
	}
	a, b := slices.Clone(order), slices.Clone(vals)
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, b) {
		return vals, sent
	}
	return order, steps
}

// PropView is a property's truth in the state.
type PropView struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	Doc  string `json:"doc"`
	// Status is holds or violated for an invariant, an assertion and
	// deadlock-freedom; for a liveness property, reached (its goal holds
	// here), pending (not yet, and the run can go on) or violated (a
	// terminal state where the goal does not hold).
	Status string `json:"status"`
	// Detail says more: which process, what the goal is.
	Detail string `json:"detail,omitempty"`
	Claim  bool   `json:"claim"`
}

// MetricView is a measure of the path so far.
type MetricView struct {
	Name  string `json:"name"`
	Value int64  `json:"value"`
	// Text, when set, is what the page shows in place of Value: a list of
	// samples (a explorer.Sample metric), one figure per key (PerKey),
	// "none yet", or "≥255" for a value past the tracking cap.
	Text string `json:"text,omitempty"`
	Doc  string `json:"doc"`
}

// Action is one enabled transition.
type Action struct {
	Index   int    `json:"index"`
	Label   string `json:"label"`
	Process int    `json:"process"` // 1-based actor; 0 when the label names none
	Fault   bool   `json:"fault,omitempty"`
}

// queueRE matches the channel variables: queue_{i,j} (FIFO, and in older
// descriptions unordered too) and bag_{i,j} (unordered).
var queueRE = regexp.MustCompile(`^(?:queue|bag)_\{(\d+),(\d+)\}$`)

// mailboxRE matches a mailbox, mailbox_{j}, and letterRE one of its
// messages, "i:v".
var (
	mailboxRE = regexp.MustCompile(`^mailbox_\{(\d+)\}$`)
	letterRE  = regexp.MustCompile(`^(\d+):(.*)$`)
)
var procRE = regexp.MustCompile(`^p(\d+)\.(.*)$`)

// view builds the View of the last state of w.
func (s *served) view(ctx context.Context, w *walk) (*View, error) {
	d := s.describer
	last := w.states[len(w.states)-1]
	v := &View{Spec: s.Spec, Init: w.init, Path: w.acts, Node: -1}
	if w.from.drawn {
		v.Sample = &w.from.seed
	}
	if v.Path == nil {
		v.Path = []int{}
	}
	// The path's labels, and the chart of its last chartSteps steps.
	from := max(0, len(w.acts)-chartSteps)
	v.ChartFrom = from
	tr := explorer.Trace{Initial: w.init}
	var err error
	if tr.InitialState, err = d.Describe(w.states[from]); err != nil {
		return nil, err
	}
	v.Labels = make([]string, len(w.acts))
	for k, a := range w.acts {
		if v.Labels[k], err = s.label(w.states[k], a); err != nil {
			return nil, err
		}
		if k < from {
			continue
		}
		vars, err := d.Describe(w.states[k+1])
		if err != nil {
			return nil, err
		}
		tr.Steps = append(tr.Steps, explorer.Step{Action: v.Labels[k], ActionIndex: a, State: vars})
	}
	cur, prev := tr.InitialState, []explorer.Var(nil)
	if n := len(tr.Steps); n > 0 {
		cur = tr.Steps[n-1].State
		prev = tr.InitialState
		if n > 1 {
			prev = tr.Steps[n-2].State
		}
	}
	chart, err := msc.Build(tr, s.Unordered)
	if err == nil {
		var b strings.Builder
		if err := msc.SVG(&b, chart); err != nil {
			return nil, err
		}
		v.Chart = b.String()
	}

	// The enabled transitions.
	faults := 0
	byLabel := map[string][]int{} // receive labels, for the messages
	for a, sc := range w.last {
		lab, err := s.label(last, a)
		if err != nil {
			return nil, err
		}
		name, _, p, q := msc.ParseAction(lab)
		actor := p
		if name == "receive" && q >= 0 {
			actor = q
		}
		v.Enabled = append(v.Enabled, Action{Index: a, Label: lab, Process: actor + 1, Fault: sc.t.Fault})
		if sc.t.Fault {
			faults++
		}
		if name == "receive" {
			byLabel[lab] = append(byLabel[lab], a)
		}
	}
	if v.Enabled == nil {
		v.Enabled = []Action{}
	}
	v.Terminal = len(w.last) == faults

	// The variables: per process, per channel, the rest.
	old := map[string]string{}
	for _, x := range prev {
		old[x.Name] = msc.Format(x.Value)
	}
	crashed := map[int]bool{}
	procs := map[int]*Process{}
	for _, x := range cur {
		val := msc.Format(x.Value)
		was, had := old[x.Name]
		changed := prev != nil && (!had || was != val)
		vv := VarView{Name: x.Name, Value: val, Changed: changed}
		if changed {
			vv.Old = was
		}
		if m := queueRE.FindStringSubmatch(x.Name); m != nil {
			from, _ := strconv.Atoi(m[1])
			to, _ := strconv.Atoi(m[2])
			bag := s.Unordered || strings.HasPrefix(x.Name, "bag_")
			ch := Channel{Name: x.Name, From: from, To: to, FIFO: !bag, Changed: changed, Messages: []Message{}}
			var vals []string
			list, _ := x.Value.([]any)
			for _, e := range list {
				vals = append(vals, msc.Format(e))
			}
			sent := make([]int, len(vals))
			for k := range sent {
				sent[k] = -1
			}
			if bag {
				vals, sent = sendOrder(chart, from-1, to-1, vals, v.ChartFrom)
			}
			for k, val := range vals {
				msg := Message{Value: val, Action: -1, Sent: sent[k], Ahead: k}
				if k == 0 || bag {
					if acts := byLabel[fmt.Sprintf("receive(%s)_{%d,%d}", val, from, to)]; len(acts) > 0 {
						msg.Action = acts[0]
					}
				}
				ch.Messages = append(ch.Messages, msg)
			}
			v.Channels = append(v.Channels, ch)
			continue
		}
		if m := mailboxRE.FindStringSubmatch(x.Name); m != nil {
			// A receiver's mailbox: an unordered channel from each sender,
			// its messages "i:v" (as the story shows it), any of which can
			// be received.
			to, _ := strconv.Atoi(m[1])
			ch := Channel{Name: x.Name, To: to, Mailbox: true, Changed: changed, Messages: []Message{}}
			var vals []string
			list, _ := x.Value.([]any)
			for _, e := range list {
				vals = append(vals, msc.Format(e))
			}
			vals, sent := mailboxOrder(chart, to-1, vals, v.ChartFrom)
			before := map[string]int{} // messages listed so far, by sender
			for k, val := range vals {
				msg := Message{Value: val, Action: -1, Sent: sent[k]}
				if l := letterRE.FindStringSubmatch(val); l != nil {
					msg.Ahead = before[l[1]]
					before[l[1]]++
					if acts := byLabel[fmt.Sprintf("receive(%s)_{%s,%d}", l[2], l[1], to)]; len(acts) > 0 {
						msg.Action = acts[0]
					}
				}
				ch.Messages = append(ch.Messages, msg)
			}
			v.Channels = append(v.Channels, ch)
			continue
		}
		if m := procRE.FindStringSubmatch(x.Name); m != nil {
			id, _ := strconv.Atoi(m[1])
			p := procs[id]
			if p == nil {
				p = &Process{ID: id}
				procs[id] = p
			}
			vv.Name = m[2]
			p.Vars = append(p.Vars, vv)
			continue
		}
		if x.Name == "crashed" {
			if list, ok := x.Value.([]any); ok {
				for _, e := range list {
					if id, err := strconv.Atoi(msc.Format(e)); err == nil {
						crashed[id] = true
					}
				}
			}
		}
		v.Globals = append(v.Globals, vv)
	}
	ids := make([]int, 0, len(procs))
	for id := range procs {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		p := procs[id]
		p.Crashed = crashed[id]
		v.Processes = append(v.Processes, *p)
	}
	if v.Channels == nil {
		v.Channels = []Channel{}
	}
	if v.Globals == nil {
		v.Globals = []VarView{}
	}

	// The properties.
	wk := s.worker()
	defer s.release(wk)
	mask, err := wk.Check(last, s.want)
	if err != nil {
		return nil, err
	}
	claim := map[string]bool{}
	for _, c := range s.Claims {
		claim[c] = true
	}
	for k, p := range s.props {
		if s.want&(1<<uint(k)) == 0 {
			continue
		}
		st := "holds"
		if mask&(1<<uint(k)) != 0 {
			st = "violated"
		}
		v.Properties = append(v.Properties, PropView{Name: p.Name, Kind: p.Kind.String(), Doc: p.Doc, Status: st, Claim: claim[p.Name]})
	}
	dl := PropView{Name: properties.DeadlockInfo.Name, Kind: properties.DeadlockInfo.Kind.String(), Doc: properties.DeadlockInfo.Doc, Status: "holds", Claim: claim[properties.DeadlockFreedom]}
	if v.Terminal {
		valid, err := wk.ValidEnd(last)
		if err != nil {
			return nil, err
		}
		if valid {
			dl.Detail = "a terminal state, and a valid end"
		} else {
			v.Deadlock, dl.Status, dl.Detail = true, "violated", "this state is a deadlock"
		}
	}
	v.Properties = append(v.Properties, dl)
	if lm, ok := s.Model.Model.(explorer.LiveModel); ok {
		if lw, ok := wk.(explorer.LiveWorker); ok {
			for k, p := range lm.Liveness() {
				pv, err := liveView(lw, last, k, p, v.Terminal)
				if err != nil {
					return nil, err
				}
				pv.Claim = claim[p.Name]
				v.Properties = append(v.Properties, pv)
			}
		}
	}

	// The measures of the path.
	acc, err := s.measure(ctx, w, v.Labels)
	if err != nil && ctx.Err() != nil {
		return nil, err
	}
	v.Metrics = s.metricViews(acc, err)
	if e, ok := s.Model.Model.(explorer.Explainer); ok {
		if v.Explanation, err = e.Explain(last); err != nil {
			return nil, err
		}
	}
	if g := s.graph.ready(); g != nil {
		if id, ok := g.Find(last); ok {
			v.Node = id
		}
	}
	return v, nil
}

// liveView says where liveness property k stands in state st: for each
// instance (process), whether its goal holds.
func liveView(lw explorer.LiveWorker, st []byte, k int, p explorer.LiveProperty, terminal bool) (PropView, error) {
	pv := PropView{Name: p.Name, Kind: p.Kind.String(), Doc: p.Doc, Status: "reached"}
	var waiting, failed []string
	for i := 0; i < max(1, p.Instances); i++ {
		when, goal, err := lw.Live(st, k, i)
		if err != nil {
			return pv, err
		}
		who := ""
		if p.Instances > 1 {
			who = fmt.Sprintf("p%d", i+1)
		}
		switch {
		case p.Kind == properties.Terminates && !terminal:
			// Asked of terminal states only.
			pv.Status = "pending"
		case p.LeadsTo && !when, goal:
		case terminal:
			failed = append(failed, who)
		default:
			waiting = append(waiting, who)
		}
	}
	switch {
	case len(failed) > 0:
		pv.Status, pv.Detail = "violated", "a terminal state where its goal does not hold"
		if p.Instances > 1 {
			pv.Detail += " for " + strings.Join(failed, ", ")
		}
	case len(waiting) > 0 && p.Instances > 1:
		pv.Status, pv.Detail = "pending", "not yet for "+strings.Join(waiting, ", ")
	case len(waiting) > 0:
		pv.Status = "pending"
	case pv.Status == "pending":
		pv.Detail = "decided in terminal states"
	}
	return pv, nil
}
