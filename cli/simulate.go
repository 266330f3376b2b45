package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	urfave "github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/internal/input"
	"github.com/vacheck/vacheck/report"
	"github.com/vacheck/vacheck/report/msc"
	"github.com/vacheck/vacheck/report/plot"
	"github.com/vacheck/vacheck/simulate"
	"github.com/vacheck/vacheck/specs"
	"github.com/vacheck/vacheck/tracefile"
)

// simulateHelp is the description of `vacheck simulate`, with its exit
// codes.
const simulateHelp = "Random runs of SPEC: each from an initial state drawn uniformly, each step one of the enabled\n" +
	"transitions chosen uniformly, until a terminal state, a violation or --max-steps. Safety properties,\n" +
	"assertions and deadlock-freedom are checked in every state; counterexamples are shrunk. The same\n" +
	"command prints the same report (on stdout) whatever --workers is; the time taken goes to stderr.\n" +
	"A simulation proves nothing, so a run without a violation is never reported ok.\n" +
	"Exit codes: 1 a property is violated; 3 no violation in the runs (simulation: not a proof), or a\n" +
	"limit stopped it; 2 bad usage or input; 4 the model failed. In CI, fail only on violations with\n" +
	"'vacheck simulate ... || [ $? -eq 3 ]'."

// simulateFlags are the flags of `simulate` that are not spec parameters;
// sweep --simulate takes runs, seed, max-steps and shrink-steps too.
func simulateFlags() []urfave.Flag {
	return []urfave.Flag{
		&urfave.StringFlag{Name: "runs", Value: "1000", Usage: "number of runs"},
		&urfave.StringFlag{Name: "seed", Value: "1", Usage: "the seed the runs are drawn from: the same seed, the same runs and report"},
		&urfave.StringFlag{Name: "max-steps", Value: strconv.Itoa(simulate.DefaultMaxSteps), Usage: "end a run after this many steps (it is then not measured)"},
		&urfave.StringFlag{Name: "shrink-steps", Value: strconv.Itoa(simulate.DefaultShrinkSteps), Usage: "steps replayed, at most, to shrink each counterexample (0: show it as the run found it)"},
	}
}

func simulateCommand(stderr io.Writer, code *int, catalog []specs.Spec) *urfave.Command {
	flags := simulateFlags()
	flags = append(flags,
		&urfave.StringFlag{Name: "workers", Value: strconv.Itoa(runtime.GOMAXPROCS(0)), Usage: "parallel workers (the report does not depend on them)"},
		&urfave.StringSliceFlag{Name: "property", Usage: "check only this property (repeatable; default: the spec's safety claims and deadlock-freedom)"},
		&urfave.StringSliceFlag{Name: "metric", Usage: "statistics over the complete runs: messages, messages:TYPE, steps, time (causal depth) (repeatable)"},
		&urfave.StringFlag{Name: "timeout", Usage: "stop handing out runs after this long, e.g. 30s (default: no limit)"},
		&urfave.StringFlag{Name: "format", Value: "text", Usage: "output: text or json"},
		&urfave.BoolFlag{Name: "quiet", Usage: "no progress or timing lines on stderr"},
		&urfave.StringSliceFlag{Name: "show", Usage: "how a counterexample reads, a comma-separated list: story (the default), msc (a message sequence chart), involved"},
		&urfave.StringFlag{Name: "trace", Value: "full", Usage: "JSON traces: full or diff"},
		&urfave.StringFlag{Name: "html", Usage: "write the histograms of the metrics and the counterexamples as charts to this self-contained HTML `FILE`"},
		saveTraceFlag(),
		coverageFlag(),
	)
	flags = append(flags, hiddenSpecFlags(catalog)...)
	return &urfave.Command{
		Name:        "simulate",
		Usage:       "random runs of SPEC, checking its safety properties in every state; statistics of metrics",
		ArgsUsage:   "SPEC [parameters] --runs R --seed S",
		Description: simulateHelp + "\n" + specParamsHelp("simulate"),
		Flags:       flags,
		Action: func(c *urfave.Context) error {
			var err error
			*code, err = simulateSpec(c, stderr, catalog)
			return err
		},
	}
}

// simConfig reads the flags of a simulation that `simulate` and `sweep
// --simulate` share.
func simConfig(c *urfave.Context) (simulate.Config, error) {
	var cfg simulate.Config
	runs, err := parseDecimal("runs", c.String("runs"), 1, simulate.MaxRuns)
	if err != nil {
		return cfg, err
	}
	seed, err := parseDecimal("seed", c.String("seed"), 0, math.MaxInt64)
	if err != nil {
		return cfg, err
	}
	steps, err := parseDecimal("max-steps", c.String("max-steps"), 1, math.MaxInt32)
	if err != nil {
		return cfg, err
	}
	shrink, err := parseDecimal("shrink-steps", c.String("shrink-steps"), 0, math.MaxInt64)
	if err != nil {
		return cfg, err
	}
	workers, err := parseDecimal("workers", c.String("workers"), 1, 256)
	if err != nil {
		return cfg, err
	}
	cfg = simulate.Config{Runs: int(runs), Seed: uint64(seed), MaxSteps: int(steps), Workers: int(workers), ShrinkSteps: shrink, Metrics: c.StringSlice("metric"),
		Coverage: c.Bool("coverage")}
	if shrink == 0 {
		cfg.ShrinkSteps = -1
	}
	if s := c.String("timeout"); c.IsSet("timeout") || s != "" {
		if cfg.Timeout, err = parseTimeout(s); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// simProperties returns the properties a simulation of spec checks (the
// --property flags, or the claims) and the claims it leaves out: the
// liveness ones, which no finite run refutes.
func simProperties(c *urfave.Context, spec specs.Spec, m explorer.Model) (props, notChecked []string) {
	if ps := c.StringSlice("property"); len(ps) > 0 {
		return ps, nil
	}
	return safetyClaims(m, spec.Claims)
}

// simFlags are the flags of the Config fields a simulate.ConfigError names.
var simFlags = map[string]string{
	"Runs": "runs", "Seed": "seed", "MaxSteps": "max-steps", "Workers": "workers", "Properties": "property",
	"Metrics": "metric", "Timeout": "timeout", "ShrinkSteps": "shrink-steps",
}

// simError words an error of the simulator in the flags of the command
// line: a configuration error is bad usage (exit code 2).
func simError(err error) error {
	var ce *simulate.ConfigError
	if !errors.As(err, &ce) {
		return err
	}
	if ce.Field == "" {
		return usagef("%s", ce.Msg)
	}
	return usagef("--%s %s: %s", simFlags[ce.Field], ce.Value, ce.Msg)
}

// simParams returns the spec parameters given on the command line, but
// except.
func simParams(c *urfave.Context, catalog []specs.Spec, except string) map[string]string {
	given := map[string]string{}
	for _, f := range specFlags(catalog) {
		if name := f.Names()[0]; name != except && c.IsSet(name) {
			given[name] = c.String(name)
		}
	}
	return given
}

func simulateSpec(c *urfave.Context, stderr io.Writer, catalog []specs.Spec) (int, error) {
	if c.NArg() != 1 {
		return exitUsage, usagef("simulate takes one SPEC (see 'vacheck list'), got %d arguments", c.NArg())
	}
	spec, err := lookupSpec(c.Args().First(), catalog)
	if err != nil {
		return exitUsage, err
	}
	given := simParams(c, catalog, "")
	params, err := specs.NewParams(spec, given)
	if err != nil {
		return exitUsage, err
	}
	params.SetSampling(true) // a simulation draws each run's initial state: no bound for listing them
	cfg, err := simConfig(c)
	if err != nil {
		return exitUsage, err
	}
	format := c.String("format")
	if format != "text" && format != "json" {
		return exitUsage, usagef("--format %q: allowed values are text and json", input.Clip(format))
	}
	views, err := parseViews(c)
	if err != nil {
		return exitUsage, err
	}
	if err := checkHTML(c); err != nil {
		return exitUsage, err
	}
	if err := checkOutputFile(c, "save-trace"); err != nil {
		return exitUsage, err
	}
	model, err := spec.Build(params)
	if err != nil {
		return exitUsage, err
	}
	var notChecked []string
	cfg.Properties, notChecked = simProperties(c, spec, model)
	quiet := c.Bool("quiet")
	if !quiet {
		cfg.Progress, cfg.ProgressEvery = simProgressLine(stderr), progressEvery(c.Context)
	}
	ctx, stop := interruptible(c.Context, stderr)
	defer stop()
	cfg.Context = ctx
	res, err := simulate.Simulate(model, cfg)
	if err != nil {
		return exitUsage, simError(err)
	}
	if err := checkSimTypedMetrics(spec.Name, res); err != nil {
		return exitUsage, err
	}
	sim := report.Sim{Spec: spec.Name, Bug: spec.Bug, Params: params.Canonical(), Result: res, Rerun: rerunBase(c, spec, given),
		Involved: views.involved, TraceDiff: views.diff, NotChecked: notChecked}
	if views.msc {
		sim.Show = "msc"
	}
	if format == "json" {
		err = report.SimJSON(c.App.Writer, sim)
	} else {
		err = report.SimText(c.App.Writer, sim)
	}
	if err != nil {
		return exitModel, err
	}
	if !quiet {
		fmt.Fprintf(stderr, "vacheck: %s, %s in %s (%s steps/s) with %d worker%s\n", report.Count(res.Runs, "run"), report.Count(res.Steps, "step"),
			res.Elapsed.Round(time.Millisecond), report.Group(int64(float64(res.Steps)/max(res.Elapsed.Seconds(), 1e-9))), res.Workers, plural(res.Workers))
	}
	if err := simCharts(c, sim, stderr); err != nil {
		fmt.Fprintf(stderr, "vacheck: warning: %v; the chart was not written\n", err)
	}
	var violations []tracefile.Trace
	for _, v := range res.Violations {
		violations = append(violations, savedTrace(sim.Run(), v.Property, v.Kind.String(), "", v.Process, v.Trace))
	}
	if err := saveTraces(c, stderr, spec, sim.Params, given, violations, nil); err != nil {
		fmt.Fprintf(stderr, "vacheck: warning: %v; the traces were not saved\n", err)
	}
	return simExit(res), nil
}

// simExit is the exit code of a simulation: 1 violated, 4 the model
// failed, else 3: no violation, which proves nothing (incomplete).
func simExit(res *simulate.Result) int {
	switch res.Status {
	case explorer.Violated:
		return exitViolated
	case explorer.Failed:
		return exitModel
	}
	return exitIncomplete
}

// checkSimTypedMetrics refuses a metric messages:TYPE for a type that no
// complete run sent, as checkTypedMetrics does for check: most likely a
// misspelt type.
func checkSimTypedMetrics(spec string, res *simulate.Result) error {
	for _, m := range res.Metrics {
		typ, ok := strings.CutPrefix(m.Name, "messages:")
		if ok && m.Runs > 0 && m.Max == 0 {
			return usagef("--metric %s: no complete run of %s sent a message of type %s (%s runs measured); allowed: a message type the spec sends, spelt as a trace prints it before its first \"(\" (e.g. messages:REQUEST), or messages for all of them",
				input.Clip(m.Name), spec, input.Clip(typ), report.Group(m.Runs))
		}
	}
	return nil
}

// simProgressLine prints the progress of a simulation on stderr.
func simProgressLine(w io.Writer) func(simulate.Progress) {
	return func(p simulate.Progress) {
		rate := float64(p.Steps) / max(p.Elapsed.Seconds(), 1e-9)
		fmt.Fprintf(w, "vacheck: %.0fs  %s of %s runs  %s steps (%s/s)\n", p.Elapsed.Seconds(), report.Group(int64(p.Runs)), report.Group(int64(p.Asked)),
			report.Group(p.Steps), report.Group(int64(rate)))
	}
}

// simCharts writes --html FILE for a simulation: a histogram per metric,
// and a chart per counterexample.
func simCharts(c *urfave.Context, sim report.Sim, stderr io.Writer) error {
	file := c.String("html")
	if file == "" {
		return nil
	}
	r := sim.Result
	page := msc.Page{Spec: sim.Spec, Params: report.Params(sim.Params), Bug: sim.Bug, Result: report.SimVerdict(r)}
	for _, p := range r.Properties {
		switch {
		case p.Runs > 0:
			page.Properties = append(page.Properties, [3]string{p.Name, "violated", p.Doc})
		case p.Checked:
			page.Properties = append(page.Properties, [3]string{p.Name, "no violation", p.Doc})
		}
	}
	for _, name := range sim.NotChecked {
		page.Properties = append(page.Properties, [3]string{name, "not checked", report.SimNotCheckedWhy})
	}
	for _, m := range r.Metrics {
		var bars []plot.Bar
		for _, b := range m.Histogram {
			bars = append(bars, plot.Bar{Lo: b.Lo, Hi: b.Hi, Count: b.Runs})
		}
		title := fmt.Sprintf("%s over %s complete runs", m.Name, report.Group(m.Runs))
		var lines []string
		if m.Runs > 0 {
			lines = append(lines, fmt.Sprintf("mean %.2f, stddev %.2f, min %d, p50 %d, p90 %d, p99 %d, max %d", m.Mean, m.StdDev, m.Min, m.P50, m.P90, m.P99, m.Max))
		}
		page.Figures = append(page.Figures, msc.Figure{Title: title, Lines: lines, SVG: plot.Histogram(title, m.Name, bars)})
	}
	unordered := sim.Params["channels"] == "unordered"
	add := func(title string, lines []string, t explorer.Trace) {
		if cmd := sim.Run().RerunOf(t); cmd != "" {
			lines = append(lines, "Re-run this scenario: "+cmd)
		}
		if ch, err := msc.Build(t, unordered); err == nil {
			page.Sections = append(page.Sections, msc.Section{Title: title, Lines: lines, Explanation: t.Explanation, Chart: ch})
		}
	}
	for _, v := range r.Violations {
		title := "VIOLATED " + v.Property
		if v.Property == "deadlock-freedom" {
			title = "DEADLOCK"
		}
		add(title, []string{fmt.Sprintf("The shortest run to it: run #%d, %s; trace (%s) from the run's initial state.", v.Run+1, report.Count(v.Found, "step"), report.SimTraceKind(v))}, v.Trace)
	}
	if f := r.Failure; f != nil {
		add("MODEL ERROR", []string{fmt.Sprintf("Run #%d: %v", f.Run+1, r.FailureErr)}, f.Trace)
	}
	return writePage(file, page, stderr)
}

// writePage writes an HTML page to file, saying so on stderr.
func writePage(file string, page msc.Page, stderr io.Writer) error {
	if len(page.Sections) == 0 && len(page.Figures) == 0 {
		fmt.Fprintf(stderr, "vacheck: no metric or counterexample to draw, %s not written\n", file)
		return nil
	}
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("--html: %w", err)
	}
	if err := msc.HTML(f, page); err != nil {
		f.Close()
		return fmt.Errorf("--html: writing %s: %w", file, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--html: writing %s: %w", file, err)
	}
	n := len(page.Sections) + len(page.Figures)
	fmt.Fprintf(stderr, "vacheck: wrote %d chart%s to %s\n", n, plural(n), file)
	return nil
}
