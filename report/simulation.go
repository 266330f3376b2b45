package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/simulate"
)

// Sim is one simulation (vacheck simulate): the spec, its parameters and
// the simulator's result. Text and JSON print everything but the time
// taken, which depends on the machine: the same command prints the same
// report whatever the number of workers.
type Sim struct {
	Spec   string
	Bug    string // for a broken twin: its deliberate bug
	Params map[string]any
	Result *simulate.Result
	// Show, Involved and TraceDiff are how counterexamples read, as in
	// Run.
	Show      string
	Involved  bool
	TraceDiff bool
	// NotChecked names the claims a simulation cannot check (liveness),
	// which the report lists as not checked.
	NotChecked []string
	// Rerun is the simulation's spec and parameters as a check's command
	// line (Run.Rerun), which its counterexamples' re-run commands start
	// from.
	Rerun []string
}

// SimNotCheckedWhy says why a simulation leaves the liveness claims out.
const SimNotCheckedWhy = "a simulation checks safety properties, assertions and deadlock-freedom only; 'vacheck check' checks liveness"

// run is the Run whose trace views the simulation's counterexamples use.
// Run is the Run a simulation's traces are written with.
func (sim Sim) Run() Run { return sim.run() }

func (sim Sim) run() Run {
	return Run{Spec: sim.Spec, Params: sim.Params, Show: sim.Show, Involved: sim.Involved, TraceDiff: sim.TraceDiff, Rerun: sim.Rerun}
}

// verdict is how the report words what the simulation found of p.
func (sim Sim) verdict(p simulate.PropertyResult) string {
	switch {
	case p.Runs > 0:
		return "violated"
	case p.Checked:
		return "no violation"
	}
	return ""
}

// SimVerdict is the verdict line of a simulation, after "result: ".
func SimVerdict(r *simulate.Result) string {
	switch r.Status {
	case explorer.Violated:
		if r.Limit != explorer.NoLimit {
			return fmt.Sprintf("VIOLATED (the simulation also stopped early: %s)", r.Reason)
		}
		return "VIOLATED"
	case explorer.Failed:
		return "ERROR in the model"
	}
	if r.Limit != explorer.NoLimit {
		return fmt.Sprintf("INCOMPLETE, %s", r.Reason)
	}
	return fmt.Sprintf("no violation in %s runs (simulation: not a proof)", Group(int64(r.Runs)))
}

// SimText writes a simulation for people: the verdict per property, how
// the runs ended, each counterexample shrunk and told as a story of steps,
// and the statistics of each metric with a histogram.
func SimText(w io.Writer, sim Sim) error {
	r := sim.Result
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", sim.Spec, Params(sim.Params))
	if sim.Bug != "" {
		fmt.Fprintf(&b, "broken on purpose: %s\n", sim.Bug)
	}
	fmt.Fprintf(&b, "simulation: %s, seed %d, at most %s each\n\n", Count(r.Asked, "run"), r.Seed, Count(r.MaxSteps, "step"))
	verdicts := make([]string, len(r.Properties))
	width, vwidth := 0, 0
	for i, p := range r.Properties {
		verdicts[i] = sim.verdict(p)
		if p.Runs > 0 {
			verdicts[i] = fmt.Sprintf("violated in %s of %s runs", Group(p.Runs), Group(int64(r.Runs)))
		}
		if verdicts[i] != "" {
			width, vwidth = max(width, len(p.Name)), max(vwidth, len(verdicts[i]))
		}
	}
	if len(sim.NotChecked) > 0 {
		vwidth = max(vwidth, len(notCheckedVerdict))
	}
	for _, name := range sim.NotChecked {
		width = max(width, len(name))
	}
	for i, p := range r.Properties {
		if verdicts[i] != "" {
			fmt.Fprintf(&b, "  %-*s  %-*s  %s\n", width, p.Name, vwidth, verdicts[i], p.Doc)
		}
	}
	for _, name := range sim.NotChecked {
		fmt.Fprintf(&b, "  %-*s  %-*s  (%s)\n", width, name, vwidth, notCheckedVerdict, SimNotCheckedWhy)
	}
	b.WriteString("\n")
	e := r.Ends
	fmt.Fprintf(&b, "%s runs: %s at a valid end state, %s in a deadlock, %s at a violation, %s at the step cap",
		Group(int64(r.Runs)), Group(e.ValidEnd), Group(e.Deadlock), Group(e.Violation), Group(e.StepCap))
	if e.Cut > 0 {
		fmt.Fprintf(&b, ", %s beyond the model's bound", Group(e.Cut))
	}
	if e.Failed > 0 {
		fmt.Fprintf(&b, ", %s in a model error", Group(e.Failed))
	}
	b.WriteString("\n")
	perRun := 0.0
	if r.Runs > 0 {
		perRun = float64(r.Steps) / float64(r.Runs)
	}
	fmt.Fprintf(&b, "%s (%.1f per run), %s distinct states (estimate, ±%.0f%%)\n", Count(r.Steps, "step"), perRun, Estimate(r.Distinct), math.Ceil(200*simulate.SketchError))
	if r.Tracked != "" {
		fmt.Fprintf(&b, "the states also hold %s\n", r.Tracked)
	}
	if r.Coverage != nil {
		b.WriteString("\n" + strings.Replace(CoverageText(r.Coverage), "coverage:", "coverage, summed over the runs:", 1))
	}
	for _, v := range r.Violations {
		b.WriteString("\n")
		writeSimViolation(&b, v, r, sim)
	}
	for _, m := range r.Metrics {
		writeStats(&b, m, r)
	}
	if f := r.Failure; f != nil {
		fmt.Fprintf(&b, "\nMODEL ERROR in run #%d: %s\nThe state where the model failed is reached by:\n", f.Run+1, r.FailureErr)
		fmt.Fprintf(&b, "Trace (simulation, %s) from the run's initial state:\n", Count(len(f.Trace.Steps), "step"))
		writeSteps(&b, f.Trace, sim.run())
		writeRerun(&b, f.Trace, sim.run())
	}
	fmt.Fprintf(&b, "\nresult: %s\n", SimVerdict(r))
	_, err := io.WriteString(w, b.String())
	return err
}

func writeSimViolation(b *strings.Builder, v simulate.Violation, r *simulate.Result, sim Sim) {
	doc := ""
	for _, p := range r.Properties {
		if p.Name == v.Property && p.Doc != "" {
			doc = ": " + p.Doc
		}
	}
	if v.Property == properties.DeadlockFreedom {
		fmt.Fprintf(b, "DEADLOCK: a terminal state that is not a valid end state, after %s\n", Count(len(v.Trace.Steps), "step"))
	} else {
		fmt.Fprintf(b, "VIOLATED %s%s\n", v.Property, doc)
	}
	switch {
	case v.Property == properties.ChannelBound:
		b.WriteString("This is a modelling error, not a bug of the algorithm: a channel outgrew the capacity the model was built with; raise --capacity.\n")
	case v.Kind == properties.Assertion:
		b.WriteString("An assertion of the algorithm failed: a state its rules take to be impossible was reached (a bug of the algorithm, or of its model).\n")
	}
	shrunk := fmt.Sprintf("shrunk to %d in %s (%s)", len(v.Trace.Steps), Count(v.Replays, "replay"), Count(v.ReplayedSteps, "step"))
	switch {
	case !v.Shrunk:
		shrunk = "not shrunk"
	case v.Exhausted:
		shrunk += "; the budget (--shrink-steps) ran out: it may shrink further"
	}
	fmt.Fprintf(b, "The shortest run to it: run #%d, %s; %s.\n", v.Run+1, Count(v.Found, "step"), shrunk)
	fmt.Fprintf(b, "Counterexample (%s) from the run's initial state:\n", SimTraceKind(v))
	writeSteps(b, v.Trace, sim.run())
	writeRerun(b, v.Trace, sim.run())
}

// SimTraceKind describes a simulation's counterexample: "simulation,
// shrunk, 38 steps".
func SimTraceKind(v simulate.Violation) string {
	if !v.Shrunk {
		return fmt.Sprintf("simulation, not shrunk, %s", Count(len(v.Trace.Steps), "step"))
	}
	return fmt.Sprintf("simulation, shrunk, %s", Count(len(v.Trace.Steps), "step"))
}

// Estimate writes an estimated count with three significant digits and a
// tilde: ~12,300.
func Estimate(v float64) string {
	if v < 1000 {
		return fmt.Sprintf("~%.0f", v)
	}
	p := math.Pow(10, math.Floor(math.Log10(v))-2)
	return "~" + Group(int64(math.Round(v/p)*p))
}

// writeStats prints a metric's statistics and its histogram.
func writeStats(b *strings.Builder, m simulate.Stats, r *simulate.Result) {
	fmt.Fprintf(b, "\n%s over %s complete run%s", m.Name, Group(m.Runs), plural(int(m.Runs)))
	if m.Runs == 0 {
		b.WriteString(": no run was measured (a run is measured when it ends in a terminal state)\n")
	} else {
		fmt.Fprintf(b, ": mean %s, stddev %s, min %d, max %d\n  p50 %d, p90 %d, p99 %d\n",
			decimal(m.Mean), decimal(m.StdDev), m.Min, m.Max, m.P50, m.P90, m.P99)
		writeHistogram(b, m.Histogram)
	}
	if m.Capped > 0 {
		fmt.Fprintf(b, "  %s run%s reached the tracking cap of %d and are not measured: their %s is %d or more\n", Group(m.Capped), plural(int(m.Capped)), m.Cap, m.Name, m.Cap)
	}
	if left := r.Ends.StepCap + r.Ends.Cut; left > 0 {
		fmt.Fprintf(b, "  %s run%s that stopped before a terminal state (step cap or bound) are not measured: longer runs are left out, which biases the figures down; raise --max-steps\n", Group(left), plural(int(left)))
	}
}

// decimal writes a mean or deviation with two decimals and thousands
// separators: 1,234.57.
func decimal(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	whole, frac, _ := strings.Cut(s, ".")
	if n, err := strconv.ParseInt(whole, 10, 64); err == nil {
		whole = Group(n)
	}
	return whole + "." + frac
}

// histogramWidth is the length of the longest bar of a text histogram.
const histogramWidth = 40

func writeHistogram(b *strings.Builder, bins []simulate.Bin) {
	top := int64(0)
	labels := make([]string, len(bins))
	lw := 0
	for i, bin := range bins {
		top = max(top, bin.Runs)
		labels[i] = fmt.Sprint(bin.Lo)
		if bin.Hi != bin.Lo {
			labels[i] = fmt.Sprintf("%d-%d", bin.Lo, bin.Hi)
		}
		lw = max(lw, len(labels[i]))
	}
	for i, bin := range bins {
		n := int((bin.Runs*histogramWidth + top - 1) / top) // a run shows
		fmt.Fprintf(b, "  %*s │%-*s %s\n", lw, labels[i], histogramWidth, strings.Repeat("█", n), Group(bin.Runs))
	}
}

type jsonSimEnds struct {
	ValidEnd  int64 `json:"valid_end"`
	Deadlock  int64 `json:"deadlock"`
	Violation int64 `json:"violation"`
	StepCap   int64 `json:"step_cap"`
	Cut       int64 `json:"beyond_bound"`
	Failed    int64 `json:"model_error"`
}

type jsonSimProperty struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Status string `json:"status"` // violated, no-violation, not-checked
	Runs   int64  `json:"runs_violated"`
	Reason string `json:"reason,omitempty"`
}

type jsonSimViolation struct {
	jsonViolation
	Run             int   `json:"run"` // from 1, as the text report numbers runs
	FoundSteps      int   `json:"found_after_steps"`
	ShrinkReplays   int   `json:"shrink_replays"`
	ShrinkSteps     int64 `json:"shrink_replayed_steps"`
	ShrinkExhausted bool  `json:"shrink_budget_exhausted,omitempty"`
}

type jsonBin struct {
	Lo   int64 `json:"lo"`
	Hi   int64 `json:"hi"`
	Runs int64 `json:"runs"`
}

type jsonStatsOut struct {
	Runs      int64     `json:"runs"`
	Mean      *float64  `json:"mean"`
	StdDev    *float64  `json:"stddev"`
	Min       *int64    `json:"min"`
	Max       *int64    `json:"max"`
	P50       *int64    `json:"p50"`
	P90       *int64    `json:"p90"`
	P99       *int64    `json:"p99"`
	Histogram []jsonBin `json:"histogram"`
	Capped    int64     `json:"capped,omitempty"`
}

type jsonSim struct {
	Spec        string                  `json:"spec"`
	Bug         string                  `json:"bug,omitempty"`
	Params      map[string]any          `json:"params"`
	Mode        string                  `json:"mode"`
	Status      string                  `json:"status"`
	Reason      string                  `json:"reason,omitempty"`
	Seed        uint64                  `json:"seed"`
	Runs        int                     `json:"runs"`
	RunsAsked   int                     `json:"runs_asked"`
	MaxSteps    int                     `json:"max_steps"`
	Ends        jsonSimEnds             `json:"ends"`
	Steps       int64                   `json:"steps"`
	Distinct    float64                 `json:"distinct_states_estimate"`
	DistinctErr float64                 `json:"distinct_states_standard_error"`
	Properties  []jsonSimProperty       `json:"properties"`
	NotChecked  []string                `json:"not_checked,omitempty"`
	Violations  []jsonSimViolation      `json:"violations"`
	Error       *jsonViolation          `json:"error_trace,omitempty"`
	Metrics     map[string]jsonStatsOut `json:"metrics,omitempty"`
	Tracked     string                  `json:"tracked,omitempty"`
	Coverage    *JSONCoverage           `json:"coverage,omitempty"`
	Stats       jsonSimStats            `json:"stats"`
}

// jsonSimStats are the figures that depend on the machine.
type jsonSimStats struct {
	Workers        int     `json:"workers"`
	Elapsed        float64 `json:"elapsed_seconds"`
	StepsPerSecond float64 `json:"steps_per_second"`
}

// SimJSON writes a simulation as one JSON object: status is "violated",
// "incomplete" (no violation: a simulation proves nothing) or "error",
// never "ok"; everything but "stats" is the same for every number of
// workers.
func SimJSON(w io.Writer, sim Sim) error {
	r := sim.Result
	out := jsonSim{
		Spec: sim.Spec, Bug: sim.Bug, Params: sim.Params, Mode: "simulation", Status: r.Status.String(), Reason: r.Reason,
		Seed: r.Seed, Runs: r.Runs, RunsAsked: r.Asked, MaxSteps: r.MaxSteps,
		Ends:  jsonSimEnds{r.Ends.ValidEnd, r.Ends.Deadlock, r.Ends.Violation, r.Ends.StepCap, r.Ends.Cut, r.Ends.Failed},
		Steps: r.Steps, Distinct: math.Round(r.Distinct), DistinctErr: simulate.SketchError,
		Properties: []jsonSimProperty{}, Violations: []jsonSimViolation{}, Tracked: r.Tracked,
		Stats: jsonSimStats{Workers: r.Workers, Elapsed: r.Elapsed.Seconds()},
	}
	if out.Params == nil {
		out.Params = map[string]any{}
	}
	if s := r.Elapsed.Seconds(); s > 0 {
		out.Stats.StepsPerSecond = math.Round(float64(r.Steps) / s)
	}
	for _, p := range r.Properties {
		status := map[string]string{"violated": "violated", "no violation": "no-violation"}[sim.verdict(p)]
		if status == "" {
			continue
		}
		out.Properties = append(out.Properties, jsonSimProperty{Name: p.Name, Kind: p.Kind.String(), Status: status, Runs: p.Runs})
	}
	for _, name := range sim.NotChecked {
		out.Properties = append(out.Properties, jsonSimProperty{Name: name, Kind: properties.Eventually.String(), Status: NotCheckedStatus, Reason: SimNotCheckedWhy})
		out.NotChecked = append(out.NotChecked, name)
	}
	for _, v := range r.Violations {
		tj := traceJSON(v.Property, v.Kind.String(), v.Trace, sim.TraceDiff)
		tj.Rerun = sim.run().rerun(v.Trace)
		jv := jsonSimViolation{jsonViolation: tj,
			Run: v.Run + 1, FoundSteps: v.Found, ShrinkReplays: v.Replays, ShrinkSteps: v.ReplayedSteps, ShrinkExhausted: v.Exhausted}
		out.Violations = append(out.Violations, jv)
	}
	if f := r.Failure; f != nil {
		e := traceJSON("", "error", f.Trace, sim.TraceDiff)
		e.Rerun = sim.run().rerun(f.Trace)
		out.Error = &e
	}
	for _, m := range r.Metrics {
		if out.Metrics == nil {
			out.Metrics = map[string]jsonStatsOut{}
		}
		js := jsonStatsOut{Runs: m.Runs, Histogram: []jsonBin{}, Capped: m.Capped}
		if m.Runs > 0 {
			mean, sd := math.Round(m.Mean*1e6)/1e6, math.Round(m.StdDev*1e6)/1e6
			js.Mean, js.StdDev = &mean, &sd
			js.Min, js.Max, js.P50, js.P90, js.P99 = &m.Min, &m.Max, &m.P50, &m.P90, &m.P99
		}
		for _, bin := range m.Histogram {
			js.Histogram = append(js.Histogram, jsonBin{bin.Lo, bin.Hi, bin.Runs})
		}
		out.Metrics[m.Name] = js
	}
	out.Coverage = CoverageJSON(r.Coverage)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
