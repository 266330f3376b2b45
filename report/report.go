// Package report prints the result of a check for people (text) and for
// scripts (JSON).
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/report/msc"
)

// Run is one check: the spec, its parameters and the explorer's result.
type Run struct {
	Spec string
	Bug  string // for a broken twin: its deliberate bug
	// BoundDoc says what the model's declared state bound is, if any.
	BoundDoc string
	Params   map[string]any
	Result   *explorer.Result
	// Reducible says that the model allows partial-order reduction, for
	// the hint an incomplete run gives.
	Reducible bool
	// Hint is the spec's own suggestion for an incomplete run, if any.
	Hint string
	// Show is how Text prints a trace: "story" (the default: each step
	// with what it changed) or "msc" (a message sequence chart).
	Show string
	// Involved shows, in the text of a counterexample, only the processes
	// involved in it (--show involved).
	Involved bool
	// TraceDiff gives, in the JSON of a trace, the full state of the first
	// step and only the changed variables of the others (--trace diff).
	TraceDiff bool
	// NotChecked names the claims of the spec the run left out (liveness
	// under --symmetry or --reduction por), and NotCheckedWhy says why: the
	// report lists them as not checked, so that an OK never reads as
	// covering them.
	NotChecked    []string
	NotCheckedWhy string
	// Metrics names the metrics asked for (--metric): one the run did not
	// compute (it stopped at a violation, hit a limit, failed) is reported
	// as not computed, with why, rather than left out.
	Metrics []string
	// Continue says that the search went on past its first violation
	// (--continue), for what the report says of a search that stopped.
	Continue bool
	// Rerun is the run's own command line as words, with the spec's
	// parameters as the user gave them (["vacheck", "check",
	// "chang-roberts", "--n", "4"]): a counterexample ends with it, the
	// parameters that name its initial state put over it (RerunCommand).
	// Empty means `vacheck check SPEC` with the canonical Params.
	Rerun []string
	// DefaultChannels is the channel discipline the spec takes when
	// --channels is not given ("fifo", "unordered"), for the verdict
	// block to say whether the run's (Params["channels"]) is the default;
	// "" if unknown.
	DefaultChannels string
}

// trackingNote says, next to the state count, that the metrics asked for
// track more in each state than a plain run does, so that the count may be
// larger than a plain run's ("with the tracking of --metric time: a plain
// run may have fewer"); "" when none does (Result.Tracked).
func (run Run) trackingNote() string {
	if run.Result.Tracked == "" {
		return ""
	}
	var names []string
	for _, m := range run.Metrics {
		// The metrics a model tracks: all but those the explorer computes
		// from the transitions alone.
		if m != "messages" && m != "steps" && !strings.HasPrefix(m, "messages:") {
			names = append(names, m)
		}
	}
	what := "the metrics"
	if len(names) > 0 {
		what = "--metric " + strings.Join(names, ", ")
	}
	return "with the tracking of " + what + ": a plain run may have fewer"
}

// missingMetrics returns the metrics asked for that the run did not
// compute, and why.
func (run Run) missingMetrics() (names []string, why string) {
	r := run.Result
	for _, name := range run.Metrics {
		if !slices.ContainsFunc(r.Metrics, func(m explorer.Metric) bool { return m.Name == name }) {
			names = append(names, name)
		}
	}
	switch r.Status {
	case explorer.Violated:
		why = "the search stopped at the first violation; with --continue it goes on and computes the metrics"
	case explorer.Incomplete:
		why = "the search is incomplete: " + r.Reason
	case explorer.Failed:
		why = "the model failed"
	default:
		why = r.Status.String()
	}
	return names, why
}

// notChecked reports whether p is a claim the run left out.
func (run Run) notChecked(p explorer.PropertyResult) bool {
	return p.Verdict == explorer.Skipped && slices.Contains(run.NotChecked, p.Name)
}

// VerdictOf is how the report writes the verdict of p: "not checked" for a
// claim the run left out, "" for a property not selected (not shown).
func (run Run) VerdictOf(p explorer.PropertyResult) string {
	switch {
	case run.notChecked(p):
		return notCheckedVerdict
	case p.Verdict == explorer.Skipped:
		return ""
	}
	return p.Verdict.String()
}

// notCheckedVerdict is how the text report writes the verdict of a claim
// the run left out, and NotCheckedStatus how JSON (and a sweep's
// certificates) write it.
const (
	notCheckedVerdict = "not checked"
	NotCheckedStatus  = "not-checked"
)

// OKLine is the verdict of a run whose properties hold: "OK, every property
// holds", or, when it left claims out, which ones and why.
func (run Run) OKLine() string {
	var unchecked []string
	for _, p := range run.Result.Properties {
		if run.notChecked(p) {
			unchecked = append(unchecked, p.Name)
		}
	}
	if len(unchecked) == 0 {
		return "OK, every property holds"
	}
	return fmt.Sprintf("OK, every property checked holds; not checked: %s (%s)", strings.Join(unchecked, ", "), run.NotCheckedWhy)
}

// chart returns the message sequence chart of t when run asks for charts
// and t has states to draw it from.
func (run Run) chart(t explorer.Trace) (string, bool) {
	if run.Show != "msc" {
		return "", false
	}
	c, err := msc.Build(t, run.Params["channels"] == "unordered")
	if err != nil {
		return "", false
	}
	return c.Text(), true
}

// vars is an ordered list of state variables that marshals to a JSON object
// with its keys in order.
type vars []explorer.Var

func (vs vars) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range vs {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(v.Name)
		val, err := json.Marshal(v.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

type jsonProperty struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Status string `json:"status"`
	// Reason says why a claim was not checked (status "not-checked").
	Reason string `json:"reason,omitempty"`
}

type jsonStep struct {
	Action string `json:"action"`
	State  vars   `json:"state,omitempty"`
	// Changes, with --trace diff, are the variables this step changed.
	Changes *vars `json:"changes,omitempty"`
}

type jsonViolation struct {
	Property    string     `json:"property"`
	Kind        string     `json:"kind"`
	Process     int        `json:"process,omitempty"` // 1-based, for a per-process property
	Initial     vars       `json:"initial"`
	Trace       []jsonStep `json:"trace"`
	Cycle       []jsonStep `json:"cycle,omitempty"`
	CycleTasks  []string   `json:"cycle_tasks,omitempty"`
	Explanation []string   `json:"explanation,omitempty"`
	// TraceFormat is "diff" when the steps after the first give changes.
	TraceFormat string `json:"trace_format,omitempty"`
	// Unreached marks a reachability property (--reach) that no state of
	// a complete search met: there is no trace.
	Unreached bool `json:"unreached,omitempty"`
	// InitialParams names the initial state by the parameters that
	// select exactly it (explorer.Trace.InitialParams), and Rerun is the
	// command that re-runs the trace's scenario; both are left out when
	// the initial state has no name.
	InitialParams map[string]string `json:"initial_params,omitempty"`
	Rerun         string            `json:"rerun,omitempty"`
}

type jsonMetric struct {
	Min        *int64         `json:"min"`
	Max        *int64         `json:"max"`
	Unbounded  bool           `json:"unbounded"`
	Capped     bool           `json:"capped,omitempty"`
	AllRuns    bool           `json:"all_executions,omitempty"`
	MinOf      string         `json:"min_of,omitempty"`
	MaxOf      string         `json:"max_of,omitempty"`
	MinWitness *jsonViolation `json:"min_witness,omitempty"`
	MaxWitness *jsonViolation `json:"max_witness,omitempty"`
}

type jsonGraph struct {
	States  int64   `json:"states"`
	Edges   int64   `json:"edges"`
	Bytes   uint64  `json:"bytes"`
	Elapsed float64 `json:"elapsed_seconds"`
}

type jsonStats struct {
	Strategy             string  `json:"strategy"`
	Workers              int     `json:"workers"`
	Terminal             int64   `json:"terminal_states"`
	Cut                  int64   `json:"cut_states"`
	Reduction            string  `json:"reduction"`
	ReducedStates        int64   `json:"reduced_states"`
	Symmetry             string  `json:"symmetry,omitempty"`
	RawStates            int64   `json:"raw_states,omitempty"`
	RawTerminal          int64   `json:"raw_terminal_states,omitempty"`
	StatesPerSecond      float64 `json:"states_per_second"`
	PeakMemoryBytes      uint64  `json:"peak_memory_bytes"`
	CollisionProbability float64 `json:"collision_probability"`
}

type jsonRun struct {
	Spec   string         `json:"spec"`
	Bug    string         `json:"bug,omitempty"`
	Params map[string]any `json:"params"`
	Status string         `json:"status"`
	Reason string         `json:"reason,omitempty"`
	States int64          `json:"states"`
	// StatesNote says that the metrics' tracking may make the states more
	// than in a plain run (Run.trackingNote).
	StatesNote string `json:"states_note,omitempty"`
	// Unchecked: of the states, those a stop left stored and not checked.
	Unchecked   int64 `json:"unchecked_states,omitempty"`
	Transitions int64 `json:"transitions"`
	Depth       int   `json:"depth"`
	// Exhaustive: the safety search explored every reachable state; false
	// when it stopped at a violation or a limit, its figures partial.
	Exhaustive bool           `json:"exhaustive"`
	Elapsed    float64        `json:"elapsed_seconds"`
	Properties []jsonProperty `json:"properties"`
	// NotChecked names the claims left out (each also a property with
	// status not-checked), so that a script reading status "ok" sees them.
	NotChecked []string        `json:"not_checked,omitempty"`
	Violations []jsonViolation `json:"violations"`
	// Witnesses are the paths to the states that met the reachability
	// properties (--reach), in the shape of violations.
	Witnesses []jsonViolation       `json:"witnesses,omitempty"`
	Error     *jsonViolation        `json:"error_trace,omitempty"`
	Metrics   map[string]jsonMetric `json:"metrics,omitempty"`
	// NotComputed gives, for each metric asked for and not computed, why.
	NotComputed map[string]string `json:"metrics_not_computed,omitempty"`
	Fairness    string            `json:"fairness"`
	Graph       *jsonGraph        `json:"liveness_graph,omitempty"`
	Tracked     string            `json:"tracked,omitempty"`
	Stats       jsonStats         `json:"stats"`
	// Bitstate is the bitstate table's figures (--bitstate).
	Bitstate *JSONBitstate `json:"bitstate,omitempty"`
	// Coverage is what the run fired (--coverage).
	Coverage *JSONCoverage `json:"coverage,omitempty"`
}

func traceJSON(prop, kind string, t explorer.Trace, diff bool) jsonViolation {
	v := jsonViolation{Property: prop, Kind: kind, Initial: vars(t.InitialState), Trace: []jsonStep{}, Explanation: t.Explanation, CycleTasks: t.CycleTasks,
		InitialParams: t.InitialParams}
	var prev []explorer.Var
	step := func(k int, s explorer.Step) jsonStep {
		defer func() { prev = s.State }()
		if !diff || k == 0 {
			return jsonStep{Action: s.Action, State: vars(s.State)}
		}
		ch := vars(changedVars(prev, s.State))
		if ch == nil {
			ch = vars{}
		}
		return jsonStep{Action: s.Action, Changes: &ch}
	}
	for k, s := range t.Steps {
		v.Trace = append(v.Trace, step(k, s))
	}
	for k, s := range t.Cycle {
		v.Cycle = append(v.Cycle, step(len(t.Steps)+k, s))
	}
	if diff {
		v.TraceFormat = "diff"
	}
	return v
}

// JSON writes run as one JSON object (the contract scripts rely on: spec,
// params, status, states, transitions, depth, elapsed_seconds, properties,
// violations).
func JSON(w io.Writer, run Run) error {
	r := run.Result
	out := jsonRun{
		Spec: run.Spec, Bug: run.Bug, Params: run.Params, Status: r.Status.String(), Reason: r.Reason,
		States: r.States, StatesNote: run.trackingNote(), Unchecked: r.Unchecked, Transitions: r.Transitions, Depth: r.Depth, Exhaustive: r.Exhaustive, Elapsed: r.Elapsed.Seconds(),
		Properties: []jsonProperty{}, Violations: []jsonViolation{},
		Stats: jsonStats{
			Strategy: r.Strategy.String(), Workers: r.Workers, Terminal: r.Terminal, Cut: r.Cut,
			Reduction: r.Reduction.String(), ReducedStates: r.Reduced,
			Symmetry: r.Symmetry, RawStates: r.RawStates, RawTerminal: r.RawTerminal,
			StatesPerSecond: r.StatesPerSecond(), PeakMemoryBytes: r.PeakMemory,
			CollisionProbability: r.CollisionProbability(),
		},
	}
	if out.Params == nil {
		out.Params = map[string]any{}
	}
	for _, p := range r.Properties {
		if run.notChecked(p) {
			out.Properties = append(out.Properties, jsonProperty{Name: p.Name, Kind: p.Kind.String(), Status: NotCheckedStatus, Reason: run.NotCheckedWhy})
			out.NotChecked = append(out.NotChecked, p.Name)
			continue
		}
		if p.Verdict == explorer.Skipped {
			continue
		}
		out.Properties = append(out.Properties, jsonProperty{Name: p.Name, Kind: p.Kind.String(), Status: p.Verdict.String()})
	}
	for _, v := range r.Violations {
		jv := traceJSON(v.Property, v.Kind.String(), v.Trace, run.TraceDiff)
		jv.Process = v.Process + 1
		jv.Rerun = run.rerun(v.Trace)
		if v.Unreached {
			jv.Unreached, jv.Initial, jv.Trace, jv.Rerun = true, nil, nil, ""
		}
		out.Violations = append(out.Violations, jv)
	}
	for _, v := range r.Witnesses {
		jw := traceJSON(v.Property, v.Kind.String(), v.Trace, run.TraceDiff)
		jw.Rerun = run.rerun(v.Trace)
		out.Witnesses = append(out.Witnesses, jw)
	}
	out.Fairness = r.Fairness.String()
	out.Tracked = r.Tracked
	if r.Graph != nil {
		out.Graph = &jsonGraph{States: r.Graph.States, Edges: r.Graph.Edges, Bytes: r.Graph.Bytes, Elapsed: r.Graph.Elapsed.Seconds()}
	}
	for _, m := range r.Metrics {
		if out.Metrics == nil {
			out.Metrics = map[string]jsonMetric{}
		}
		jm := jsonMetric{Unbounded: m.Unbounded, Capped: m.Capped, AllRuns: m.AllRuns, MinOf: m.MinOf, MaxOf: m.MaxOf}
		if m.Executions {
			jm.Min = &m.Min
			if !m.Unbounded {
				jm.Max = &m.Max
			}
		}
		if m.MinWitness != nil {
			w := traceJSON("", "", *m.MinWitness, run.TraceDiff)
			w.Rerun = run.rerun(*m.MinWitness)
			jm.MinWitness = &w
		}
		if m.MaxWitness != nil {
			w := traceJSON("", "", *m.MaxWitness, run.TraceDiff)
			w.Rerun = run.rerun(*m.MaxWitness)
			jm.MaxWitness = &w
		}
		out.Metrics[m.Name] = jm
	}
	if names, why := run.missingMetrics(); len(names) > 0 {
		out.NotComputed = map[string]string{}
		for _, name := range names {
			out.NotComputed[name] = why
		}
	}
	if r.Failure != nil {
		e := traceJSON("", "error", *r.Failure, run.TraceDiff)
		e.Rerun = run.rerun(*r.Failure)
		out.Error = &e
	}
	out.Bitstate = BitstateJSON(r.Bitstate)
	out.Coverage = CoverageJSON(r.Coverage)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// Text writes run for people: the verdict per property, the figures, and
// each counterexample as a numbered story of steps with what changed.
func Text(w io.Writer, run Run) error {
	r := run.Result
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", run.Spec, Params(run.Params))
	if run.Bug != "" {
		fmt.Fprintf(&b, "broken on purpose: %s\n", run.Bug)
	}
	b.WriteString("\n")
	width, vwidth := 0, 8
	for _, p := range r.Properties {
		width = max(width, len(p.Name))
		vwidth = max(vwidth, len(run.VerdictOf(p)))
	}
	for _, p := range r.Properties {
		if verdict := run.VerdictOf(p); verdict != "" {
			fmt.Fprintf(&b, "  %-*s  %-*s  %s\n", width, p.Name, vwidth, verdict, p.Doc)
		}
	}
	b.WriteString("\n")
	count := Count(r.States, "distinct state")
	if note := run.trackingNote(); note != "" {
		count += " (" + note + ")"
	}
	fmt.Fprintf(&b, "%s, %s, depth %d, %s\n",
		count, Count(r.Transitions, "transition"), r.Depth, Count(r.Terminal, "terminal state"))
	fmt.Fprintf(&b, "%s, %s states/s, peak memory %s, %s with %d worker%s\n",
		formatSeconds(r.Elapsed.Seconds()), Group(int64(r.StatesPerSecond())), FormatBytes(r.PeakMemory),
		r.Strategy, r.Workers, plural(r.Workers))
	if line := run.channelsLine(); line != "" {
		b.WriteString(line + "\n")
	}
	if r.Status == explorer.Violated && (!r.Exhaustive || r.Reason != "") {
		switch {
		case r.Limit == explorer.BitstateLimit:
			b.WriteString("the bitstate search ran to its end, but may have omitted states: the properties it found no violation of are unknown\n")
		case r.Reason != "" && r.Exhaustive:
			fmt.Fprintf(&b, "the search was stopped (%s) after it had explored every state: the properties it had not decided are unknown\n", r.Reason)
		case r.Reason != "":
			fmt.Fprintf(&b, "the search was stopped (%s): the figures are those of the states it had explored, and the properties it had not decided are unknown\n", r.Reason)
		case run.Continue:
			b.WriteString("the search stopped once every property had a counterexample: the figures are those of the states it had explored\n")
		default:
			b.WriteString("the search stopped at the first violation: the figures are those of the states it had explored (--continue goes on)\n")
		}
	}
	if r.Reduction == explorer.PartialOrder {
		fmt.Fprintf(&b, "partial-order reduction: %s of the states were expanded with only some of their transitions; the counts are those of the reduced state space (safety properties only)\n", Group(r.Reduced))
	}
	if r.Symmetry != "" {
		fmt.Fprintf(&b, "symmetry (%s): the counts are orbits; they hold %s and %s of the model (%s)\n",
			r.Symmetry, Count(r.RawStates, "state"), Count(r.RawTerminal, "terminal state"), reductionFactor(r.RawStates, r.States))
	}
	if r.Cut > 0 {
		fmt.Fprintf(&b, "%s more %s outside the model's constraint%s: checked, not expanded, and not counted above\n", Group(r.Cut), states(r.Cut), boundDoc(run.BoundDoc))
	}
	if r.Tracked != "" {
		fmt.Fprintf(&b, "the states also hold %s\n", r.Tracked)
	}
	if r.Bitstate != nil {
		b.WriteString(BitstateLine(r.Bitstate) + "\n")
	} else {
		fmt.Fprintf(&b, "fingerprint collision probability %.1e (64-bit fingerprints)\n", r.CollisionProbability())
	}
	for _, v := range r.Violations {
		b.WriteString("\n")
		doc := ""
		for _, p := range r.Properties {
			if p.Name == v.Property && p.Doc != "" {
				doc = ": " + p.Doc
			}
		}
		who := ""
		if v.Process >= 0 {
			who = fmt.Sprintf(" (for process %d)", v.Process+1)
		}
		switch {
		case v.Unreached:
			fmt.Fprintf(&b, "VIOLATED %s%s\nNo reachable state satisfies it: the search explored all %s.\n", v.Property, doc, Count(r.States, "state"))
			continue
		case v.Property == "deadlock-freedom":
			fmt.Fprintf(&b, "DEADLOCK: a terminal state that is not a valid end state, after %s\n", Count(len(v.Trace.Steps), "step"))
		case len(v.Trace.Cycle) > 0 && v.Kind == properties.Stable:
			fmt.Fprintf(&b, "VIOLATED %s%s%s\nA fair execution (%s fairness) that repeats forever a cycle through a state where it does not hold (the cycle's first):\n", v.Property, who, doc, r.Fairness)
		case len(v.Trace.Cycle) > 0:
			fmt.Fprintf(&b, "VIOLATED %s%s%s\nA fair execution (%s fairness) that repeats a cycle forever without reaching the goal:\n", v.Property, who, doc, r.Fairness)
		case v.Kind == properties.Stable:
			fmt.Fprintf(&b, "VIOLATED %s%s%s\nA fair execution that stops in a terminal state where it does not hold:\n", v.Property, who, doc)
		case v.Kind.String() == "liveness" || v.Kind.String() == "termination":
			fmt.Fprintf(&b, "VIOLATED %s%s%s\nA fair execution that stops in a terminal state where the goal does not hold:\n", v.Property, who, doc)
		case v.Kind == properties.Action:
			fmt.Fprintf(&b, "VIOLATED %s%s\nThe last step of this trace does not satisfy it:\n", v.Property, doc)
		default:
			fmt.Fprintf(&b, "VIOLATED %s%s\n", v.Property, doc)
		}
		switch {
		case v.Property == properties.ChannelBound:
			b.WriteString("This is a modelling error, not a bug of the algorithm: a channel outgrew the capacity the model was built with; raise --capacity.\n")
		case v.Kind == properties.Assertion:
			b.WriteString("An assertion of the algorithm failed: a state its rules take to be impossible was reached (a bug of the algorithm, or of its model).\n")
		}
		writeTrace(&b, v.Trace, r.Strategy, run)
	}
	for _, v := range r.Witnesses {
		fmt.Fprintf(&b, "\nREACHED %s\n", v.Property)
		writeTitled(&b, "Witness", v.Trace, r.Strategy, run)
	}
	for _, m := range r.Metrics {
		writeMetric(&b, m, run)
	}
	if names, why := run.missingMetrics(); len(names) > 0 {
		fmt.Fprintf(&b, "\n%s: not computed (%s)\n", strings.Join(names, ", "), why)
	}
	if r.Graph != nil {
		fmt.Fprintf(&b, "\nliveness: %s fairness, state graph of %s and %s, %s, built in %s\n",
			r.Fairness, Count(r.Graph.States, "state"), Count(r.Graph.Edges, "edge"), FormatBytes(r.Graph.Bytes), formatSeconds(r.Graph.Elapsed.Seconds()))
	}
	if r.Coverage != nil {
		b.WriteString("\n" + CoverageText(r.Coverage))
	}
	if r.Failure != nil {
		fmt.Fprintf(&b, "\nMODEL ERROR: %s\nThe state whose expansion failed is reached by:\n", r.Reason)
		writeTrace(&b, *r.Failure, r.Strategy, run)
	}
	b.WriteString("\n")
	switch r.Status {
	case explorer.OK:
		fmt.Fprintf(&b, "result: %s\n", run.OKLine())
	case explorer.Bounded:
		fmt.Fprintf(&b, "result: BOUNDED, not a proof: no violation among the %s within the model's constraint%s, but the runs leave it through %s more %s, checked and not expanded; the properties hold within the constraint only\n",
			Count(r.States, "state"), boundDoc(run.BoundDoc), Group(r.Cut), states(r.Cut))
	case explorer.Violated:
		b.WriteString("result: VIOLATED\n")
		if r.Reason != "" && r.Limit != explorer.BitstateLimit {
			fmt.Fprintf(&b, "(the search also stopped early: %s)\n", r.Reason)
		}
	case explorer.Incomplete:
		if r.Unchecked > 0 {
			fmt.Fprintf(&b, "result: INCOMPLETE, %s; no violation among the %s checked (%s more stored, not checked)\n",
				r.Reason, Count(r.States-r.Unchecked, "state"), Group(r.Unchecked))
		} else {
			fmt.Fprintf(&b, "result: INCOMPLETE, %s; no violation among the %s explored\n", r.Reason, Count(r.States, "state"))
		}
		if r.Failure == nil && r.Limit != explorer.BitstateLimit {
			if run.Reducible && r.Reduction != explorer.PartialOrder {
				b.WriteString("hint: this spec allows partial-order reduction; --reduction por checks its safety properties in far fewer states\n")
			}
			if run.Hint != "" {
				fmt.Fprintf(&b, "hint: %s\n", run.Hint)
			}
		}
	case explorer.Failed:
		if r.Failure == nil && r.Reason != "" {
			// No trace said why above.
			fmt.Fprintf(&b, "result: ERROR in the model: %s\n", r.Reason)
		} else {
			b.WriteString("result: ERROR in the model\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// channelsLine says the run's channel discipline and capacity, and whether
// the discipline is the spec's default, which differs by spec: "channels:
// fifo (the default of this spec), at most 3 messages each"; "" for a
// model without channels.
func (run Run) channelsLine() string {
	disc, ok := run.Params["channels"]
	if !ok {
		return ""
	}
	line := fmt.Sprintf("channels: %v", disc)
	switch d := fmt.Sprint(disc); {
	case run.DefaultChannels == "":
	case d == run.DefaultChannels:
		line += " (the default of this spec)"
	default:
		line += fmt.Sprintf(" (--channels; the default of this spec is %s)", run.DefaultChannels)
	}
	if c, ok := run.Params["capacity"].(int); ok {
		line += fmt.Sprintf(", at most %s each", Count(c, "message"))
	}
	return line
}

// TraceKind describes a counterexample found by a search of strategy st:
// "shortest, 5 steps", "depth-first, not necessarily shortest, 5 steps",
// or for a lasso "lasso: a prefix of 3 steps, then a cycle of 4".
func TraceKind(t explorer.Trace, st explorer.Strategy) string {
	switch {
	case len(t.Cycle) > 0:
		return fmt.Sprintf("lasso: a prefix of %s, then a cycle of %d", Count(len(t.Steps), "step"), len(t.Cycle))
	case st == explorer.DFS:
		return fmt.Sprintf("depth-first, not necessarily shortest, %s", Count(len(t.Steps), "step"))
	}
	return fmt.Sprintf("shortest, %s", Count(len(t.Steps), "step"))
}

func writeTrace(b *strings.Builder, t explorer.Trace, st explorer.Strategy, run Run) {
	writeTitled(b, "Counterexample", t, st, run)
}

// writeTitled writes t under title: "Counterexample", "Witness".
func writeTitled(b *strings.Builder, title string, t explorer.Trace, st explorer.Strategy, run Run) {
	fmt.Fprintf(b, "%s (%s)%s:\n", title, TraceKind(t, st), from(t))
	writeSteps(b, t, run)
	writeRerun(b, t, run)
}

// writeSteps writes the steps of t after its header line: the initial
// state, then each step with what it changed (or the chart run asks for),
// and what the last state means.
func writeSteps(b *strings.Builder, t explorer.Trace, run Run) {
	if run.Involved {
		t = involvedOnly(b, t)
	}
	t, notes := sendOrder(t)
	if t.InitialState != nil {
		b.WriteString("   0. initial state\n")
		for _, line := range wrapVars(t.InitialState) {
			fmt.Fprintf(b, "        %s\n", line)
		}
	}
	if chart, ok := run.chart(t); ok {
		fmt.Fprintf(b, "  Message sequence chart; %s\n%s", msc.Legend, chart)
		writeExplanation(b, t)
		return
	}
	prev := t.InitialState
	for i, s := range t.Steps {
		fmt.Fprintf(b, "  %2d. %s\n", i+1, s.Action)
		for _, c := range changes(prev, s.State) {
			writeChange(b, c)
		}
		writeNotes(b, notes[i+1])
		prev = s.State
	}
	if len(t.Cycle) > 0 {
		fmt.Fprintf(b, "  Cycle (%s, back to the state after step %d), repeated forever", Count(len(t.Cycle), "step"), len(t.Steps))
		if len(t.CycleTasks) > 0 {
			fmt.Fprintf(b, "; it takes the tasks %s", strings.Join(t.CycleTasks, ", "))
		}
		b.WriteString(":\n")
		for i, s := range t.Cycle {
			fmt.Fprintf(b, "  %2d. %s\n", len(t.Steps)+i+1, s.Action)
			for _, c := range changes(prev, s.State) {
				writeChange(b, c)
			}
			writeNotes(b, notes[len(t.Steps)+i+1])
			prev = s.State
		}
	}
	writeExplanation(b, t)
}

// writeNotes writes what a step of a trace means beyond its changes, such
// as a message that overtakes another (sendOrder).
func writeNotes(b *strings.Builder, notes []string) {
	for _, n := range notes {
		for _, l := range wrap(n, lineWidth-8, "          ") {
			fmt.Fprintf(b, "        %s\n", l)
		}
	}
}

func writeExplanation(b *strings.Builder, t explorer.Trace) {
	if len(t.Explanation) > 0 {
		b.WriteString("  What the last state means:\n")
		for _, line := range t.Explanation {
			for _, l := range wrap(line, lineWidth-4, "    ") {
				fmt.Fprintf(b, "    %s\n", l)
			}
		}
	}
}

// writeMetric prints a metric with its witnesses: the initial state and the
// actions.
func writeMetric(b *strings.Builder, m explorer.Metric, run Run) {
	scope := "all complete executions"
	if m.AllRuns {
		scope = "all executions"
	}
	fmt.Fprintf(b, "\n%s over %s: ", m.Name, scope)
	switch {
	case m.Executions:
		fmt.Fprintf(b, "min %d", m.Min)
	case m.AllRuns:
		b.WriteString("no sample (no enter follows an exit at which another process was waiting)")
	case m.Name == explorer.MetricMessagesPerEntry:
		b.WriteString("no execution is complete with a critical-section entry")
	default:
		b.WriteString("no execution is complete (no terminal state is reachable)")
	}
	switch {
	case m.Capped:
		fmt.Fprintf(b, ", max unbounded: it reaches the tracking cap of %d\n", m.Cap)
	case m.Unbounded:
		b.WriteString(", max unbounded: a reachable cycle adds to it\n")
	case m.Executions:
		fmt.Fprintf(b, ", max %d\n", m.Max)
	default:
		b.WriteString("\n")
	}
	if m.Name == explorer.MetricMessagesPerEntry && m.Unbounded {
		fmt.Fprintf(b, "  the cycle of the max witness sends messages that serve %s (a message to an idle process serves the\n  entry it left last) again and again, for ever\n", m.MaxOf)
	}
	witness := func(label string, value int64, t *explorer.Trace) {
		if t == nil {
			return
		}
		of := ""
		switch {
		case label != "max" && m.MinOf != "":
			of = " (" + m.MinOf + ")"
		case label == "max" && m.MaxOf != "" && !m.Unbounded:
			of = " (" + m.MaxOf + ")"
		}
		name := label + " witness"
		if label == "" {
			name = fmt.Sprintf("witness (min = max = %d)", value)
		}
		fmt.Fprintf(b, "  %s%s: %d steps%s\n", name, of, len(t.Steps), from(*t))
		if cmd := run.rerun(*t); cmd != "" {
			fmt.Fprintf(b, "    re-run: %s\n", cmd)
		}
		for _, line := range wrapVars(t.InitialState) {
			fmt.Fprintf(b, "        %s\n", line)
		}
		chart, drawn := run.chart(*t)
		if line := countedLine(m.Name, value, *t, run.Params["channels"] == "unordered", drawn); line != "" && len(t.Cycle) == 0 {
			fmt.Fprintf(b, "    %s\n", line)
		}
		if drawn {
			b.WriteString(chart)
			return
		}
		var acts []string
		for _, s := range t.Steps {
			acts = append(acts, s.Action)
		}
		writeWrapped(b, "      ", acts)
		if len(t.Cycle) > 0 {
			acts = acts[:0]
			for _, s := range t.Cycle {
				acts = append(acts, s.Action)
			}
			b.WriteString("    then repeated forever:\n")
			writeWrapped(b, "      ", acts)
		}
	}
	if SameWitness(m) {
		// Every complete execution has the same figure: one witness.
		witness("", m.Min, m.MinWitness)
		return
	}
	witness("min", m.Min, m.MinWitness)
	witness("max", m.Max, m.MaxWitness)
}

// SameWitness reports whether the metric m has the same figure in every
// complete execution (min = max, bounded), so that one witness shows it.
func SameWitness(m explorer.Metric) bool {
	return m.Executions && !m.Unbounded && !m.Capped && m.Min == m.Max && m.MinWitness != nil && m.MaxWitness != nil && m.MinOf == m.MaxOf
}

// writeWrapped writes words separated by spaces in lines of about 100
// characters.
func writeWrapped(b *strings.Builder, indent string, words []string) {
	line := indent
	for _, w := range words {
		if len(line) > len(indent) && len(line)+len(w) > 100 {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += w
	}
	if len(line) > len(indent) {
		b.WriteString(line + "\n")
	}
}

// states is "state" or "states", for n of them.
func states(n int64) string {
	if n == 1 {
		return "state"
	}
	return "states"
}

func boundDoc(doc string) string {
	if doc == "" {
		return ""
	}
	return " (" + doc + ")"
}

// wrapVars prints variables compactly, several to a line, grouped by
// process.
func wrapVars(vs []explorer.Var) []string {
	var lines []string
	var cur []string
	group := ""
	flush := func() {
		if len(cur) > 0 {
			lines = append(lines, wrapJoined(cur, lineWidth-8)...)
			cur = nil
		}
	}
	for _, v := range vs {
		g, _, _ := strings.Cut(v.Name, ".")
		if queueVar.MatchString(v.Name) || mailboxVar.MatchString(v.Name) {
			g = "queue"
		}
		if g != group {
			flush()
			group = g
		}
		cur = append(cur, fmt.Sprintf("%s=%s", v.Name, formatValue(v.Value)))
	}
	flush()
	return lines
}

// changes lists the variables whose values differ between two states.
func changes(before, after []explorer.Var) []string {
	old := map[string]string{}
	for _, v := range before {
		old[v.Name] = formatValue(v.Value)
	}
	var out []string
	for _, v := range after {
		now := formatValue(v.Value)
		if was, ok := old[v.Name]; !ok || was != now {
			out = append(out, fmt.Sprintf("%s: %s → %s", v.Name, was, now))
		}
	}
	return out
}

func formatValue(v any) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = formatValue(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return fmt.Sprint(v)
}

// Params formats spec parameters as on the command line, sorted by flag:
// "--ids all --n 5".
func Params(p map[string]any) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("--%s %v", k, p[k])
	}
	return strings.Join(parts, " ")
}

// Count says n of a thing, with the noun's plural when n is not 1 (and
// thousands separators): Count(1, "step") is "1 step", Count(1200,
// "state") is "1,200 states".
func Count[N int | int64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Group(int64(n)) + " " + noun + "s"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Group formats n with thousands separators: 1,809,852.
func Group(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func formatSeconds(s float64) string {
	if s < 1 {
		return fmt.Sprintf("%.0f ms", s*1000)
	}
	return fmt.Sprintf("%.2f s", s)
}

// FormatBytes formats a memory size in KiB, MiB or GiB, as reports and
// progress lines print it.
func FormatBytes(b uint64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.0f KiB", float64(b)/(1<<10))
}

// reductionFactor says how many states of the model an orbit holds on
// average: "5.00 times fewer stored".
func reductionFactor(raw, orbits int64) string {
	if orbits == 0 {
		return "no state stored"
	}
	return fmt.Sprintf("%.2f times fewer stored", float64(raw)/float64(orbits))
}
