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

// meter computes the metrics of a path through the hooks the check uses:
// explorer.Transition.Messages, explorer.TypedWorker for the message types
// and, for the metrics the model tracks (time and the like), the model
// the served model's explorer.Instrumenter returns and its
// explorer.TrackWorker, aggregated by their kinds. It
// replays the path on that model (the plain model when it offers no
// instrumented metric), taking at each step the transition with the label
// of the path's step; where several have it (equal messages in a bag that
// carry different tracked values) the first in action order is taken.
type meter struct {
	once     sync.Once
	err      error          // why the instrumented model could not be built
	m        explorer.Model // the model replayed: instrumented, or the plain one
	names    []string       // the instrumented metrics offered
	tracked  []explorer.TrackedMetric
	declared []string // the message types the model declares (explorer.Coverable)
	plain    bool     // m is the served model itself: action indices match
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
	tracked         []trackedMeasure // per tracked metric (meter.tracked)
}

// trackedMeasure is the value of a tracked metric along a path, by its
// kind: a sum (PathSum), the samples in path order (Sample), or the count
// of each key (PerKey).
type trackedMeasure struct {
	sum     int64
	samples []int64
	keys    map[int32]int64
	capped  bool
}

func (a measures) clone() measures {
	a.types = maps.Clone(a.types)
	a.tracked = slices.Clone(a.tracked)
	for i := range a.tracked {
		a.tracked[i].samples = slices.Clone(a.tracked[i].samples)
		a.tracked[i].keys = maps.Clone(a.tracked[i].keys)
	}
	return a
}

// setup builds the meter's model: the served model instrumented for every
// metric it can track (explorer.MetricLister).
func (mt *meter) setup(m explorer.Model) {
	mt.m, mt.plain = m, true
	if c, ok := m.(explorer.Coverable); ok {
		mt.declared = c.Declared().Messages
	}
	if in, ok := m.(explorer.Instrumenter); ok {
		if l, ok := m.(explorer.MetricLister); ok {
			mt.names = l.TrackableMetrics()
		}
		if len(mt.names) > 0 {
			im, err := in.Instrument(mt.names)
			if err != nil {
				mt.err, mt.names = fmt.Errorf("instrumenting the model for %s: %w", strings.Join(mt.names, ", "), err), nil
			} else if d, ok := im.(explorer.Describer); !ok {
				mt.err, mt.names = fmt.Errorf("the instrumented model does not label its transitions"), nil
			} else if tw, ok := im.NewWorker().(explorer.TrackWorker); !ok {
				mt.err, mt.names = fmt.Errorf("the instrumented model's workers do not measure"), nil
			} else {
				mt.m, mt.plain, mt.d, mt.tracked = im, false, d, tw.TrackedMetrics()
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
	tracked [][]int32 // per tracked metric, its values (explorer.TrackWorker.Track)
}

// options lists the transitions of the meter's model enabled in st.
func (mt *meter) options(st []byte) ([]option, error) {
	w := mt.workers.Get().(explorer.Worker)
	defer mt.workers.Put(w)
	tl, _ := w.(explorer.TypeLister)
	tw, _ := w.(explorer.TrackWorker)
	var out []option
	_, err := explorer.Successors(w, st, func(t explorer.Transition, next []byte) {
		o := option{t: t, next: append([]byte(nil), next...)}
		if tl != nil {
			o.types = tl.SentTypes(nil)
		}
		if tw != nil && len(mt.tracked) > 0 {
			o.tracked = make([][]int32, len(mt.tracked))
			for i := range mt.tracked {
				o.tracked[i] = tw.Track(i, nil)
			}
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
		acc.add(o, mt.tracked)
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

// add adds the measures of transition o; tracked describes the metrics
// the model tracks.
func (a *measures) add(o option, tracked []explorer.TrackedMetric) {
	a.steps++
	a.messages += int64(o.t.Messages)
	for _, typ := range o.types {
		if a.types == nil {
			a.types = map[string]int64{}
		}
		a.types[typ]++
	}
	if o.tracked == nil {
		return
	}
	if a.tracked == nil {
		a.tracked = make([]trackedMeasure, len(tracked))
	}
	for i, tm := range tracked {
		am, vals := &a.tracked[i], o.tracked[i]
		switch tm.Kind {
		case explorer.PathSum:
			switch {
			case vals[0] < 0:
				am.capped = true
			case !am.capped:
				am.sum += int64(vals[0])
			}
		case explorer.Sample:
			switch {
			case vals[0] == -2:
				am.capped = true
			case vals[0] >= 0:
				am.samples = append(am.samples, int64(vals[0]))
			}
		case explorer.PerKey:
			for _, key := range vals {
				if am.keys == nil {
					am.keys = map[int32]int64{}
				}
				am.keys[key]++
			}
		}
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
	for i, tm := range mt.tracked {
		var am trackedMeasure
		if i < len(a.tracked) {
			am = a.tracked[i]
		}
		switch tm.Kind {
		case explorer.PathSum:
			mv := MetricView{Name: tm.Name, Value: am.sum, Doc: tm.Doc}
			if am.capped {
				mv.Value, mv.Text = -1, fmt.Sprintf("≥%d", tm.Cap)
				mv.Doc += fmt.Sprintf("; it reached the tracking cap of %d", tm.Cap)
			}
			v = append(v, mv)
		case explorer.Sample:
			mv := MetricView{Name: tm.Name, Value: -1, Text: "none yet", Doc: tm.Doc}
			if n := len(am.samples); n > 0 {
				mv.Value = am.samples[n-1]
				mv.Text = joinInts(am.samples[max(0, n-shownFigures):])
				if n > shownFigures {
					mv.Text = fmt.Sprintf("%d samples: …, %s", n, mv.Text)
				}
			}
			if am.capped {
				mv.Text = strings.TrimPrefix(mv.Text+fmt.Sprintf(", ≥%d", tm.Cap), "none yet, ")
				mv.Doc += fmt.Sprintf("; a sample reached the tracking cap of %d", tm.Cap)
			}
			v = append(v, mv)
		case explorer.PerKey:
			mv := MetricView{Name: tm.Name, Value: -1, Text: "none yet", Doc: tm.Doc}
			if len(am.keys) > 0 {
				var parts, names []string
				for _, key := range slices.Sorted(maps.Keys(am.keys)) {
					n := am.keys[key]
					mv.Value = max(mv.Value, n)
					if len(parts) < shownFigures {
						parts = append(parts, strconv.FormatInt(n, 10))
						names = append(names, fmt.Sprintf("%s: %d", tm.KeyName(int(key)), n))
					}
				}
				mv.Text = strings.Join(parts, ", ")
				if len(am.keys) > shownFigures {
					mv.Text = fmt.Sprintf("%d entries: %s, …", len(am.keys), mv.Text)
					names = append(names, "…")
				}
				mv.Doc += ": " + strings.Join(names, "; ")
			}
			v = append(v, mv)
		}
	}
	return v
}

// shownFigures is how many samples of a Sample metric (the last) and keys (the
// first) the page lists.
const shownFigures = 8

func joinInts(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(parts, ", ")
}
