package explorer

import "strings"

// MetricKind says how the explorer aggregates the values a tracked metric
// gives each transition (TrackWorker.Track). The explorer knows these
// kinds, not the metrics: a model defines what its metrics mean (time,
// sync-delay, messages-per-entry, or one of its own) and which kind each
// one is.
type MetricKind uint8

const (
	// PathSum: each transition has a weight (one value ≥ 0, or -1 when a
	// tracked value reached the model's cap, TrackedMetric.Cap), and the
	// figure is the least and the largest sum over complete executions;
	// a reachable cycle of positive weight makes it unbounded. The metric
	// time (causal depth) is one: a transition weighs what it raises the
	// largest depth by.
	PathSum MetricKind = iota + 1
	// Sample: some transitions take a sample (one value ≥ 0; -1 for none,
	// -2 when the sample reached the cap), and the figure is the least and
	// the largest sample over every reachable transition, each with the
	// shortest run to it (Metric.AllRuns). sync-delay is one.
	Sample
	// PerKey: each transition lists keys (Track appends one per unit it
	// counts for that key); for every key, the least and the largest count
	// over the complete executions that end in a state where the key is
	// reached (TrackWorker.Reached), then the least minimum and the largest
	// maximum over the keys, naming the key (Metric.MinOf, Metric.MaxOf).
	// messages-per-entry is one: a key is a critical-section entry.
	PerKey
)

// TrackedMetric describes a metric that an instrumented model tracks.
type TrackedMetric struct {
	Name string
	Kind MetricKind
	// Doc says in one line what the metric measures, for pages that show
	// it (the interactive explorer).
	Doc string
	// Cap is the value a capped figure stands for (PathSum -1, Sample -2):
	// the metric is then unbounded, or at least Cap.
	Cap int64
	// Keys is the number of keys of a PerKey metric (0 .. Keys-1), and
	// KeyName names one for reports.
	Keys    int
	KeyName func(key int) string
}

// TrackWorker is the Worker of a model that an Instrumenter returns: it
// reports, for the transition being emitted (from inside the Emit or Offer
// callback of Expand), the values of each metric it tracks.
type TrackWorker interface {
	// TrackedMetrics describes the metrics tracked, in the order the
	// Instrumenter was asked for them; metric i below is the i-th.
	TrackedMetrics() []TrackedMetric
	// Tracks says what tracking the metrics adds to the states, for the
	// report (Result.Tracked).
	Tracks() string
	// Track appends to out the values metric i gives the transition being
	// emitted: one for PathSum and Sample, the keys for PerKey.
	Track(i int, out []int32) []int32
	// Reached reports, for PerKey metric i, whether key is reached in
	// state s (a critical-section entry has taken place).
	Reached(i int, s []byte, key int) (bool, error)
}

// MetricLister is an optional interface of an Instrumenter that lists the
// metrics it can track, for a caller that offers every one of them (the
// interactive explorer's page).
type MetricLister interface {
	TrackableMetrics() []string
}

// builtinMetric reports whether the explorer computes metric m from the
// transitions alone (messages, messages:TYPE, steps), without a model's
// tracking.
func builtinMetric(m string) bool {
	return m == "messages" || m == "steps" || (strings.HasPrefix(m, "messages:") && len(m) > len("messages:"))
}

// trackedNames lists the metrics of metrics that a model must track.
func trackedNames(metrics []string) []string {
	var want []string
	for _, name := range metrics {
		if !builtinMetric(name) {
			want = append(want, name)
		}
	}
	return want
}

// trackerOf returns w's TrackWorker, adapting a worker that implements the
// older MeasureWorker only (for the metrics names, those of metrics that
// are not built in); nil when w has neither.
func trackerOf(w Worker, names []string) TrackWorker {
	if tw, ok := w.(TrackWorker); ok {
		return tw
	}
	if mw, ok := w.(MeasureWorker); ok {
		return legacyTracker{mw: mw, names: names}
	}
	return nil
}

// legacyTracker adapts a MeasureWorker, which knows the three metrics time,
// sync-delay and messages-per-entry by name, to TrackWorker.
type legacyTracker struct {
	mw    MeasureWorker
	names []string
}

// legacyCap is the tracking cap of the models that implement MeasureWorker.
const legacyCap = 255

func (l legacyTracker) TrackedMetrics() []TrackedMetric {
	out := make([]TrackedMetric, len(l.names))
	for i, name := range l.names {
		out[i] = TrackedMetric{Name: name, Cap: legacyCap}
		switch name {
		case MetricTime:
			out[i].Kind = PathSum
		case MetricSyncDelay:
			out[i].Kind = Sample
		case MetricMessagesPerEntry:
			out[i].Kind, out[i].Keys, out[i].KeyName = PerKey, l.mw.EntryKeys(), l.mw.EntryName
		}
	}
	return out
}

func (l legacyTracker) Tracks() string { return "" }

func (l legacyTracker) Track(i int, out []int32) []int32 {
	switch l.names[i] {
	case MetricTime:
		return append(out, l.mw.TimeIncrease())
	case MetricSyncDelay:
		return append(out, l.mw.SyncDelay())
	}
	return l.mw.Served(out)
}

func (l legacyTracker) Reached(_ int, s []byte, key int) (bool, error) { return l.mw.Entered(s, key) }
