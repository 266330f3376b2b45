package web

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/simulate"
)

// instrumentable are the metrics a model computes by tracking more than its
// plain states hold (explorer.Instrumenter), in the order the page shows
// them.
var instrumentable = []string{explorer.MetricTime, explorer.MetricSyncDelay, explorer.MetricMessagesPerEntry}

// meter computes the metrics of a path through the hooks the check uses:
// explorer.Transition.Messages, explorer.TypedWorker for the message types
// and, for time, sync-delay and messages-per-entry, the model the served
// model's explorer.Instrumenter returns and its explorer.MeasureWorker. It
// replays the path on that model (the plain model when it offers no
// instrumented metric), taking at each step the transition with the label
// of the path's step; where several have it (equal messages in a bag that
// carry different tracked values) the first in action order is taken.
type meter struct {
	once     sync.Once
	err      error          // why the instrumented model could not be built
	m        explorer.Model // the model replayed: instrumented, or the plain one
	names    []string       // the instrumented metrics offered
	declared []string       // the message types the model declares (explorer.Coverable)
	plain    bool           // m is the served model itself: action indices match
	d        explorer.Describer
	workers  sync.Pool

	mu     sync.Mutex
	recent []*measured // recently measured paths, newest last
}

// meterCache is how many measured paths a model keeps, so that a click
// that extends a path measures one step.
const meterCache = 16

// measured is a path measured: the state the meter's model is in after it,
// and the measures so far.
type measured struct {
	from  origin
	path  []int // action indices of the served model
	state []byte
	acc   measures
}

// measures are the values of the metrics along a path.
type measures struct {
	steps, messages int64
	types           map[string]int64
	time            int64
	timeCapped      bool
	syncs           []int64 // the sync-delay samples, in path order
	syncCapped      bool
	entries         map[int32]int64 // messages serving each critical-section entry
}

func (a measures) clone() measures {
	a.types = maps.Clone(a.types)
	a.syncs = slices.Clone(a.syncs)
	a.entries = maps.Clone(a.entries)
	return a
}

// setup builds the meter's model: the served model instrumented for every
// metric of instrumentable it can offer.
func (mt *meter) setup(m explorer.Model) {
	mt.m, mt.plain = m, true
	if c, ok := m.(explorer.Coverable); ok {
		mt.declared = c.Declared().Messages
	}
	if in, ok := m.(explorer.Instrumenter); ok {
		for _, name := range instrumentable {
			if _, err := in.Instrument([]string{name}); err == nil {
				mt.names = append(mt.names, name)
			}
		}
		if len(mt.names) > 0 {
			im, err := in.Instrument(mt.names)
			if err != nil {
				mt.err, mt.names = fmt.Errorf("instrumenting the model for %s: %w", strings.Join(mt.names, ", "), err), nil
			} else if d, ok := im.(explorer.Describer); !ok {
				mt.err, mt.names = fmt.Errorf("the instrumented model does not label its transitions"), nil
			} else if _, ok := im.NewWorker().(explorer.MeasureWorker); !ok {
				mt.err, mt.names = fmt.Errorf("the instrumented model's workers do not measure"), nil
			} else {
				mt.m, mt.plain, mt.d = im, false, d
			}
		}
	}
	mt.workers.New = func() any {
		w := mt.m.NewWorker()
		if tw, ok := w.(explorer.TypedWorker); ok {
			tw.TrackTypes(true)
		}
		return w
	}
}

// option is one transition of the meter's model, with what it measures.
type option struct {
	t       explorer.Transition
	next    []byte
	types   []string
	time    int32
	sync    int32
	served  []int32
	measure bool
}

// options lists the transitions of the meter's model enabled in st.
func (mt *meter) options(st []byte) ([]option, error) {
	w := mt.workers.Get().(explorer.Worker)
	defer mt.workers.Put(w)
	tl, _ := w.(explorer.TypeLister)
	mw, _ := w.(explorer.MeasureWorker)
	var out []option
	_, err := explorer.Successors(w, st, func(t explorer.Transition, next []byte) {
		o := option{t: t, next: append([]byte(nil), next...)}
		if tl != nil {
			o.types = tl.SentTypes(nil)
		}
		if mw != nil && len(mt.names) > 0 {
			o.measure = true
			o.time, o.sync, o.served = mw.TimeIncrease(), mw.SyncDelay(), mw.Served(nil)
		}
		out = append(out, o)
	})
	return out, err
}

// measure returns the metrics of the path of w, whose steps are labelled
// labels, from the nearest measured prefix of it.
func (s *served) measure(ctx context.Context, w *walk, labels []string) (measures, error) {
	mt := &s.meter
	mt.once.Do(func() { mt.setup(s.Model.Model) })
	start := mt.nearest(w.from, w.acts)
	var cur *measured
	if start != nil {
		cur = &measured{from: w.from, path: start.path, state: start.state, acc: start.acc.clone()}
	} else {
		cur = &measured{from: w.from, state: w.states[0]}
		if !mt.plain {
			var st []byte
			var err error
			if w.from.drawn {
				st, err = simulate.InitialOf(mt.m, w.from.seed, 0)
			} else {
				st, err = initialAt(ctx, mt.m, w.from.index)
			}
			if err != nil {
				return measures{}, fmt.Errorf("the instrumented model's initial state: %w", err)
			}
			cur.state = st
		}
	}
	acc := &cur.acc
	for k := len(cur.path); k < len(w.acts); k++ {
		if k&63 == 63 && ctx.Err() != nil {
			return measures{}, context.Cause(ctx)
		}
		opts, err := mt.options(cur.state)
		if err != nil {
			return measures{}, fmt.Errorf("step %d: %w", k+1, err)
		}
		pick, err := mt.match(cur.state, opts, w, labels, k)
		if err != nil {
			return measures{}, err
		}
		o := opts[pick]
		acc.add(o)
		cur.state = o.next
	}
	cur.path = slices.Clone(w.acts)
	mt.remember(cur)
	return cur.acc, nil
}

// match returns the index in opts of the transition that is step k of the
// path of w: the same action index on the plain model, else the only one
// of the same task, else the first with the step's label.
func (mt *meter) match(st []byte, opts []option, w *walk, labels []string, k int) (int, error) {
	if mt.plain {
		if a := w.acts[k]; a < len(opts) {
			return a, nil
		}
		return 0, fmt.Errorf("step %d: action %d is not enabled in the measured model", k+1, w.acts[k])
	}
	task, one := w.steps[k].Task, -1
	for a, o := range opts {
		if o.t.Task == task {
			if one >= 0 {
				one = -2
				break
			}
			one = a
		}
	}
	if one >= 0 {
		return one, nil
	}
	for a, o := range opts {
		if o.t.Task != task {
			continue
		}
		l, err := mt.d.Label(st, a)
		if err != nil {
			return 0, err
		}
		if l == labels[k] {
			return a, nil
		}
	}
	return 0, fmt.Errorf("step %d: the instrumented model has no transition %s", k+1, labels[k])
}

// add adds the measures of transition o.
func (a *measures) add(o option) {
	a.steps++
	a.messages += int64(o.t.Messages)
	for _, typ := range o.types {
		if a.types == nil {
			a.types = map[string]int64{}
		}
		a.types[typ]++
	}
	if !o.measure {
		return
	}
	switch {
	case o.time < 0:
		a.timeCapped = true
	case !a.timeCapped:
		a.time += int64(o.time)
	}
	switch {
	case o.sync == -2:
		a.syncCapped = true
	case o.sync >= 0:
		a.syncs = append(a.syncs, int64(o.sync))
	}
	for _, key := range o.served {
		if a.entries == nil {
			a.entries = map[int32]int64{}
		}
		a.entries[key]++
	}
}

// nearest returns the longest measured prefix of path from from, or nil.
func (mt *meter) nearest(from origin, path []int) *measured {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	var best *measured
	for _, r := range mt.recent {
		if r.from == from && len(r.path) <= len(path) && slices.Equal(r.path, path[:len(r.path)]) && (best == nil || len(r.path) > len(best.path)) {
			best = r
		}
	}
	return best
}

// remember keeps r among the recently measured paths.
func (mt *meter) remember(r *measured) {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	mt.recent = append(mt.recent, r)
	if len(mt.recent) > meterCache {
		mt.recent = slices.Delete(mt.recent, 0, 1)
	}
}

// initialAt returns the k-th initial state of m: built directly when m is
// an explorer.InitialIndexer that can, else streamed up to it (ctx bounds
// the time that may take).
func initialAt(ctx context.Context, m explorer.Model, k int) ([]byte, error) {
	if ix, ok := m.(explorer.InitialIndexer); ok {
		st, ok, err := ix.InitialAt(k)
		switch {
		case err != nil && !errors.Is(err, errors.ErrUnsupported):
			return nil, err
		case err == nil && ok:
			return st, nil
		}
		if err == nil {
			// Past the last: the stream counts them for the error, if it
			// can in the time it has.
			st, err := nthInitial(ctx, m, k)
			if err != nil && ctx.Err() != nil {
				return nil, notFound("no initial state %d: the model has fewer (numbered from 0)", k)
			}
			return st, err
		}
	}
	return nthInitial(ctx, m, k)
}

// nthInitial streams the initial states of m up to the k-th; ctx bounds the
// time it may take.
func nthInitial(ctx context.Context, m explorer.Model, k int) ([]byte, error) {
	i := 0
	var st []byte
	var stop error
	err := explorer.EachInitial(m, func(cur []byte) bool {
		if i&1023 == 0 && ctx.Err() != nil {
			stop = fmt.Errorf("looking for initial state %d: stopped after %d states: %w", k, i, context.Cause(ctx))
			return false
		}
		if i == k {
			st = append([]byte(nil), cur...)
			return false
		}
		i++
		return true
	})
	switch {
	case err != nil:
		return nil, err
	case stop != nil:
		return nil, stop
	case st == nil:
		return nil, notFound("no initial state %d: the model has %d (numbered from 0)", k, i)
	}
	return st, nil
}

// metricViews are the metrics of the path as the page shows them: steps,
// messages, messages of each type the model declares or the path sent
// (messages:TYPE), then the instrumented metrics the
// model offers.
func (s *served) metricViews(a measures, err error) []MetricView {
	v := []MetricView{
		{Name: "steps", Value: a.steps, Doc: "transitions taken from the initial state"},
		{Name: "messages", Value: a.messages, Doc: "messages sent on the path, not counting those a process sends to itself"},
	}
	// The declared message types in their order, then any other sent.
	mt := &s.meter
	types := slices.Clone(mt.declared)
	for _, typ := range slices.Sorted(maps.Keys(a.types)) {
		if !slices.Contains(types, typ) {
			types = append(types, typ)
		}
	}
	for _, typ := range types {
		v = append(v, MetricView{Name: "messages:" + typ, Value: a.types[typ], Doc: "messages of type " + typ + " sent on the path, not counting those a process sends to itself"})
	}
	if err != nil {
		return append(v, MetricView{Name: strings.Join(mt.names, ", "), Value: -1, Text: "unavailable", Doc: err.Error()})
	}
	for _, name := range mt.names {
		switch name {
		case explorer.MetricTime:
			mv := MetricView{Name: name, Value: a.time, Doc: "the largest causal depth on the path: the longest chain of messages, each sent after the previous was received (docs/properties.md)"}
			if a.timeCapped {
				mv.Value, mv.Text = -1, fmt.Sprintf("≥%d", 255)
				mv.Doc += "; it reached the tracking cap of 255"
			}
			v = append(v, mv)
		case explorer.MetricSyncDelay:
			mv := MetricView{Name: name, Value: -1, Text: "none yet", Doc: "the message hops from an exit to the next entry by a process waiting at it, one sample per such entry on the path, listed in order; the value is the last (docs/properties.md)"}
			if n := len(a.syncs); n > 0 {
				mv.Value = a.syncs[n-1]
				mv.Text = joinInts(a.syncs[max(0, n-shownFigures):])
				if n > shownFigures {
					mv.Text = fmt.Sprintf("%d samples: …, %s", n, mv.Text)
				}
			}
			if a.syncCapped {
				mv.Text = strings.TrimPrefix(mv.Text+", ≥255", "none yet, ")
				mv.Doc += "; a sample reached the tracking cap of 255"
			}
			v = append(v, mv)
		case explorer.MetricMessagesPerEntry:
			mv := MetricView{Name: name, Value: -1, Text: "none yet", Doc: "the messages serving each critical-section entry on the path (docs/properties.md); the value is the largest"}
			if len(a.entries) > 0 {
				w := mt.workers.Get().(explorer.Worker)
				mw := w.(explorer.MeasureWorker)
				var parts, names []string
				for _, key := range slices.Sorted(maps.Keys(a.entries)) {
					n := a.entries[key]
					mv.Value = max(mv.Value, n)
					if len(parts) < shownFigures {
						parts = append(parts, strconv.FormatInt(n, 10))
						names = append(names, fmt.Sprintf("%s: %d", mw.EntryName(int(key)), n))
					}
				}
				mt.workers.Put(w)
				mv.Text = strings.Join(parts, ", ")
				if len(a.entries) > shownFigures {
					mv.Text = fmt.Sprintf("%d entries: %s, …", len(a.entries), mv.Text)
					names = append(names, "…")
				}
				mv.Doc += ": " + strings.Join(names, "; ")
			}
			v = append(v, mv)
		}
	}
	return v
}

// shownFigures is how many sync-delay samples (the last) and entries (the
// first) the page lists.
const shownFigures = 8

func joinInts(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(parts, ", ")
}
