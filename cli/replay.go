package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"

	urfave "github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/internal/input"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/report"
	"github.com/vacheck/vacheck/report/msc"
	"github.com/vacheck/vacheck/specs"
	"github.com/vacheck/vacheck/tracefile"
)

// saveTraceFlag is --save-trace FILE of check, simulate and swarm.
func saveTraceFlag() urfave.Flag {
	return &urfave.StringFlag{Name: "save-trace", Usage: "write every counterexample and witness to this JSON `FILE`, for 'vacheck replay FILE' and 'vacheck explore SPEC --trace FILE'"}
}

// savedTrace is t, a trace of run, as a trace file keeps it.
func savedTrace(run report.Run, prop, kind, of string, process int, t explorer.Trace) tracefile.Trace {
	st := tracefile.Trace{Property: prop, Kind: kind, Of: of, InitialParams: t.InitialParams, Rerun: run.RerunOf(t),
		Initial: map[string]any{}, Steps: []tracefile.Step{}}
	if process >= 0 {
		st.Process = process + 1
	}
	for _, v := range t.InitialState {
		st.Initial[v.Name] = v.Value
	}
	for _, s := range t.Steps {
		st.Steps = append(st.Steps, tracefile.Step{Action: s.Action})
	}
	for _, s := range t.Cycle {
		st.Cycle = append(st.Cycle, tracefile.Step{Action: s.Action})
	}
	return st
}

// checkTraces returns the counterexamples and witnesses of a check, as a
// trace file keeps them.
func checkTraces(run report.Run) (violations, witnesses []tracefile.Trace) {
	r := run.Result
	for _, v := range r.Violations {
		if !v.Unreached {
			violations = append(violations, savedTrace(run, v.Property, v.Kind.String(), "", v.Process, v.Trace))
		}
	}
	for _, v := range r.Witnesses {
		witnesses = append(witnesses, savedTrace(run, v.Property, v.Kind.String(), "", -1, v.Trace))
	}
	for _, m := range r.Metrics {
		if m.MinWitness != nil {
			witnesses = append(witnesses, savedTrace(run, "", "metric", fmt.Sprintf("%s: min %d", m.Name, m.Min), -1, *m.MinWitness))
		}
		if m.MaxWitness != nil {
			of := fmt.Sprintf("%s: max %d", m.Name, m.Max)
			if m.Unbounded {
				of = m.Name + ": unbounded, a cycle adds to it"
			}
			witnesses = append(witnesses, savedTrace(run, "", "metric", of, -1, *m.MaxWitness))
		}
	}
	return violations, witnesses
}

// saveTraces writes --save-trace FILE, when set: the traces of a run of
// spec with the parameters given (canonically params), saying so on
// stderr. A run without a trace writes a file without one, so that a
// script finds the file of its last run, not of an earlier one.
func saveTraces(c *urfave.Context, stderr io.Writer, spec specs.Spec, params map[string]any, given map[string]string, violations, witnesses []tracefile.Trace) error {
	file := c.String("save-trace")
	if !c.IsSet("save-trace") {
		return nil
	}
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("--save-trace: %w", err)
	}
	doc := &tracefile.File{Spec: spec.Name, Params: params, Given: given, Build: version(), Violations: violations, Witnesses: witnesses}
	if err := tracefile.Write(f, doc); err != nil {
		f.Close()
		return fmt.Errorf("--save-trace: writing %s: %w", file, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--save-trace: writing %s: %w", file, err)
	}
	n := len(violations) + len(witnesses)
	fmt.Fprintf(stderr, "vacheck: saved %d trace%s to %s (vacheck replay %s)\n", n, plural(n), file, file)
	return nil
}

// replayHelp is the description of `vacheck replay`.
const replayHelp = "Replays, step by step, the traces of FILE, written by 'vacheck check --save-trace FILE' (or simulate,\n" +
	"swarm, or the output of 'check --format json'), on the spec and parameters the file names, and prints\n" +
	"each as check does. Each step is matched by its action among the transitions enabled where it is\n" +
	"taken. A saved counterexample of an invariant or of deadlock-freedom is checked again at its last state.\n" +
	"Exit codes: 1 a replayed counterexample still violates its property; 0 every trace replayed and none\n" +
	"is a counterexample that still holds; 2 the file does not fit this vacheck (another spec or parameters,\n" +
	"a step that is not enabled, named with its index); 4 the model failed."

// replayCommand is `vacheck replay FILE [--show msc] [--html F]`.
func replayCommand(stderr io.Writer, code *int, catalog []specs.Spec) *urfave.Command {
	return &urfave.Command{
		Name:        "replay",
		Usage:       "replay the traces saved by check --save-trace FILE, step by step",
		ArgsUsage:   "FILE",
		Description: replayHelp,
		Flags: []urfave.Flag{
			&urfave.StringSliceFlag{Name: "show", Usage: "how a trace reads, a comma-separated list: story (the default), msc (a message sequence chart), involved"},
			&urfave.StringFlag{Name: "html", Usage: "write the replayed traces as message sequence charts to this self-contained HTML `FILE`"},
			&urfave.BoolFlag{Name: "quiet", Usage: "nothing on stderr but errors"},
		},
		Action: func(c *urfave.Context) error {
			var err error
			*code, err = replay(c, stderr, catalog)
			return err
		},
	}
}

// replayed is a trace of a file, replayed.
type replayed struct {
	saved   tracefile.Trace
	trace   explorer.Trace
	verdict string // what the replay found of the property at the end
	holds   bool   // the counterexample still violates its property
}

func replay(c *urfave.Context, stderr io.Writer, catalog []specs.Spec) (int, error) {
	if c.NArg() != 1 {
		return exitUsage, usagef("replay takes one FILE (written by check --save-trace FILE), got %d arguments", c.NArg())
	}
	var views views
	for _, s := range c.StringSlice("show") {
		switch strings.TrimSpace(s) {
		case "involved":
			views.involved = true
		case "msc":
			views.msc = true
		case "story":
		default:
			return exitUsage, usagef("--show %q: allowed values (comma-separated) are %s", s, strings.Join(showValues, ", "))
		}
	}
	if err := checkHTML(c); err != nil {
		return exitUsage, err
	}
	file := c.Args().First()
	data, err := input.ReadBounded(file, "a trace file", tracefile.MaxSize)
	if err != nil {
		return exitUsage, usagef("replay %s: %v", file, err)
	}
	doc, err := tracefile.Parse(data)
	if err != nil {
		return exitUsage, usagef("replay %s: %v", file, err)
	}
	if doc.Spec == "" {
		return exitUsage, usagef("replay %s: the file names no spec (a lone violation): save it with check --save-trace", file)
	}
	spec, err := lookupSpec(doc.Spec, catalog)
	if err != nil {
		return exitUsage, usagef("replay %s: the trace is of %s, which this vacheck does not know: %v", file, doc.Spec, err)
	}
	given := doc.Given
	if given == nil {
		// The JSON of check --format json: its canonical parameters.
		given = map[string]string{}
		for k, v := range doc.Params {
			given[k] = fmt.Sprint(v)
		}
	}
	params, err := specs.NewParams(spec, given)
	if err != nil {
		return exitUsage, usagef("replay %s: the parameters do not fit %s here: %v", file, spec.Name, err)
	}
	// A simulation's file may be of --n 64 --ids all: the model is not
	// searched, only the initial state of each trace is built.
	params.SetSampling(true)
	model, err := spec.Model(params)
	if err != nil {
		return exitUsage, usagef("replay %s: the parameters do not fit %s here: %v", file, spec.Name, err)
	}
	if canon := params.Canonical(); !tracefile.SameParams(canon, doc.Params) {
		return exitUsage, usagef("replay %s: the trace is of %s %s, but this vacheck reads those parameters as %s",
			file, spec.Name, report.Params(doc.Params), report.Params(canon))
	}
	if doc.Build != "" && doc.Build != version() && !c.Bool("quiet") {
		fmt.Fprintf(stderr, "vacheck: the file was written by %s; this is %s\n", doc.Build, version())
	}
	run := report.Run{Spec: spec.Name, Bug: spec.Bug, Params: params.Canonical(), Involved: views.involved, Rerun: rerunBase(c, spec, given)}
	if views.msc {
		run.Show = "msc"
	}
	var out []replayed
	for k, saved := range doc.All() {
		r, err := replayOne(spec, given, model, saved)
		if err != nil {
			var se *explorer.StepError
			if errors.As(err, &se) || errors.Is(err, errNoInitial) {
				return exitUsage, usagef("replay %s: trace %d (%s): %v", file, k+1, traceName(saved), err)
			}
			return exitModel, fmt.Errorf("replay %s: trace %d (%s): %w", file, k+1, traceName(saved), err)
		}
		out = append(out, r)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", spec.Name, report.Params(run.Params))
	if spec.Bug != "" {
		fmt.Fprintf(&b, "broken on purpose: %s\n", spec.Bug)
	}
	code := exitOK
	for k, r := range out {
		b.WriteString("\n")
		fmt.Fprintf(&b, "Trace %d of %d: %s, replayed (%d steps", k+1, len(out), traceName(r.saved), len(r.trace.Steps))
		if len(r.trace.Cycle) > 0 {
			fmt.Fprintf(&b, ", then a cycle of %d", len(r.trace.Cycle))
		}
		b.WriteString(")\n")
		report.WriteSteps(&b, r.trace, run)
		fmt.Fprintf(&b, "  %s\n", r.verdict)
		if r.holds {
			code = exitViolated
		}
	}
	switch {
	case len(out) == 0:
		b.WriteString("\nresult: the file holds no trace\n")
	case code == exitViolated:
		b.WriteString("\nresult: VIOLATED (every trace replayed, and a counterexample still violates its property)\n")
	default:
		b.WriteString("\nresult: every trace replayed\n")
	}
	if _, err := io.WriteString(c.App.Writer, b.String()); err != nil {
		return exitModel, err
	}
	if file := c.String("html"); file != "" {
		page := msc.Page{Spec: spec.Name, Params: report.Params(run.Params), Bug: spec.Bug, Result: "replayed from " + c.Args().First()}
		for k, r := range out {
			ch, err := msc.Build(r.trace, run.Params["channels"] == "unordered")
			if err != nil {
				continue
			}
			lines := []string{r.verdict}
			if cmd := run.RerunOf(r.trace); cmd != "" {
				lines = append(lines, "Re-run this scenario: "+cmd)
			}
			page.Sections = append(page.Sections, msc.Section{Title: fmt.Sprintf("Trace %d: %s", k+1, traceName(r.saved)), Lines: lines, Explanation: r.trace.Explanation, Chart: ch})
		}
		if err := writePage(file, page, stderr); err != nil {
			fmt.Fprintf(stderr, "vacheck: warning: %v; the chart was not written\n", err)
		}
	}
	return code, nil
}

// traceName says what a saved trace is: "VIOLATED uniqueness", "witness
// of messages: min 5".
func traceName(t tracefile.Trace) string {
	switch {
	case t.Of != "":
		return "witness of " + t.Of
	case t.Kind == properties.Reachable.String():
		return "witness of " + t.Property
	case t.Property == properties.DeadlockFreedom:
		return "DEADLOCK"
	case t.Process > 0:
		return fmt.Sprintf("VIOLATED %s (for process %d)", t.Property, t.Process)
	case t.Property != "":
		return "VIOLATED " + t.Property
	}
	return "trace"
}

// errNoInitial: the saved initial state is not one of the model's.
var errNoInitial = errors.New("the saved initial state is not an initial state of the model")

// replayOne replays saved on model, the model of spec with the parameters
// given: from the model of the parameters that name its initial state
// when it has a name, else from the initial state of model whose
// variables are the saved ones.
func replayOne(spec specs.Spec, given map[string]string, model explorer.Model, saved tracefile.Trace) (replayed, error) {
	m, init := model, -1
	if saved.InitialParams != nil {
		narrowed := map[string]string{}
		for k, v := range given {
			narrowed[k] = v
		}
		for k, v := range saved.InitialParams {
			narrowed[k] = v
		}
		p, err := specs.NewParams(spec, narrowed)
		if err != nil {
			return replayed{}, fmt.Errorf("%w: its parameters %v: %v", errNoInitial, saved.InitialParams, err)
		}
		if m, err = spec.Model(p); err != nil {
			return replayed{}, fmt.Errorf("%w: its parameters %v: %v", errNoInitial, saved.InitialParams, err)
		}
	}
	d, ok := m.(explorer.Describer)
	if !ok {
		return replayed{}, errors.New("the model does not describe its states")
	}
	var start []byte
	k := 0
	want := tracefile.Normal(saved.Initial)
	var derr error
	if err := explorer.EachInitial(m, func(st []byte) bool {
		vars, err := d.Describe(st)
		if err != nil {
			derr = err
			return false
		}
		got := map[string]any{}
		for _, v := range vars {
			got[v.Name] = v.Value
		}
		if reflect.DeepEqual(tracefile.Normal(got), want) {
			start, init = st, k
			return false
		}
		k++
		return true
	}); err != nil {
		return replayed{}, err
	}
	if derr != nil {
		return replayed{}, derr
	}
	if start == nil {
		return replayed{}, errNoInitial
	}
	labels, cycleStart := saved.Labels()
	acts, last, err := explorer.FollowLabels(m, start, labels)
	if err != nil {
		return replayed{}, err
	}
	t, err := explorer.Replay(m, init, acts, nil)
	if err != nil {
		return replayed{}, err
	}
	if cycleStart >= 0 {
		t.Steps, t.Cycle = t.Steps[:cycleStart], t.Steps[cycleStart:]
	}
	if saved.InitialParams != nil {
		// m is the model of those parameters, whose one initial state
		// its own parameters name.
		t.InitialParams = saved.InitialParams
	}
	r := replayed{saved: saved, trace: t}
	r.verdict, r.holds, err = recheck(m, last, saved)
	return r, err
}

// recheck checks saved's property again at last, the last state of its
// replay: an invariant or deadlock-freedom. It says what it found, and
// whether the counterexample still holds.
func recheck(m explorer.Model, last []byte, saved tracefile.Trace) (string, bool, error) {
	if saved.Of != "" || saved.Property == "" || saved.Kind == properties.Reachable.String() {
		return "replayed: every step is enabled", false, nil
	}
	w := m.NewWorker()
	if saved.Property == properties.DeadlockFreedom {
		n, err := explorer.Successors(w, last, func(explorer.Transition, []byte) {})
		if err != nil {
			return "", false, err
		}
		valid := true
		if n == 0 {
			if valid, err = w.ValidEnd(last); err != nil {
				return "", false, err
			}
		}
		if n == 0 && !valid {
			return "replayed: the last state is a deadlock, as saved", true, nil
		}
		return "replayed, but the last state is no longer a deadlock", false, nil
	}
	idx := slices.IndexFunc(m.Properties(), func(p properties.Info) bool { return p.Name == saved.Property })
	if idx < 0 || idx >= 64 || m.Properties()[idx].Kind != properties.Invariant || len(saved.Cycle) > 0 {
		return fmt.Sprintf("replayed: every step is enabled (replay checks invariants and deadlocks again, not %s)", saved.Property), false, nil
	}
	bad, err := w.Check(last, 1<<uint(idx))
	if err != nil {
		return "", false, err
	}
	if bad != 0 {
		return fmt.Sprintf("replayed: the last state violates %s, as saved", saved.Property), true, nil
	}
	return fmt.Sprintf("replayed, but the last state no longer violates %s", saved.Property), false, nil
}
