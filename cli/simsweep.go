package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
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
)

// simSweepHelp says what sweep --simulate does, for `vacheck sweep --help`.
const simSweepHelp = "With --simulate, each N is simulated instead ('vacheck simulate', --runs runs from --seed) and the\n" +
	"table gives the mean and percentiles of each --metric per N, next to the formulas the spec declares\n" +
	"and those of --formula; --html draws the curves. Exit code: 1 if a property is violated, 4 if the\n" +
	"model failed, else 3 (a simulation is not a proof)."

// maxSimSweep bounds the values of --n of a simulated sweep.
const maxSimSweep = 1024

// simSweepFlags are the flags sweep takes for --simulate.
func simSweepFlags() []urfave.Flag {
	return append([]urfave.Flag{
		&urfave.BoolFlag{Name: "simulate", Usage: "simulate each N ('vacheck simulate') instead of checking it: statistics of the --metric per N, from 4..256 on"},
		&urfave.StringSliceFlag{Name: "formula", Usage: "with --simulate: a formula of one's own to print and draw next to the measured figures, [STAT[@METRIC]=]EXPR, e.g. 'n*H(n)' (the mean of the first --metric) or 'max@messages=n*(n+1)/2'; " + simulate.FormulaHelp + " (repeatable)"},
		&urfave.StringFlag{Name: "html", Usage: "with --simulate: draw each metric against N, with the formulas, in this self-contained HTML `FILE`"},
	}, simulateFlags()...)
}

// exhaustiveOnly are the flags of sweep that a simulated sweep does not
// take.
var exhaustiveOnly = []string{"strategy", "max-states", "max-memory", "symmetry", "reduction", "fairness", "baseline", "show", "trace"}

// simulated reports whether sweep is asked to simulate: --simulate, or one
// of its own flags, which simulateSweep then refuses without it.
func simulated(c *urfave.Context) bool {
	for _, f := range simSweepFlags() {
		if c.IsSet(f.Names()[0]) {
			return true
		}
	}
	return false
}

// sweepFormula is a formula drawn next to a metric: the spec's or one of
// --formula.
type sweepFormula struct {
	specs.Formula
	f *simulate.Formula
}

// statOf returns the statistic stat of s.
func statOf(s simulate.Stats, stat string) float64 {
	switch stat {
	case "min":
		return float64(s.Min)
	case "max":
		return float64(s.Max)
	case "p50":
		return float64(s.P50)
	case "p90":
		return float64(s.P90)
	case "p99":
		return float64(s.P99)
	}
	return s.Mean
}

var formulaStats = []string{"mean", "min", "max", "p50", "p90", "p99"}

// parseFormulaFlag reads --formula [STAT[@METRIC]=]EXPR.
func parseFormulaFlag(v string, metrics []string) (sweepFormula, error) {
	if len(metrics) == 0 {
		return sweepFormula{}, usagef("--formula %q: give the --metric it is a formula of", input.Clip(v))
	}
	f := sweepFormula{Formula: specs.Formula{Metric: metrics[0], Stat: "mean", Expr: v, Source: "--formula"}}
	if lhs, expr, ok := strings.Cut(v, "="); ok {
		stat, metric, hasMetric := strings.Cut(strings.TrimSpace(lhs), "@")
		if !slices.Contains(formulaStats, stat) {
			return f, usagef("--formula %q: unknown statistic %q; allowed: %s, as STAT=EXPR or STAT@METRIC=EXPR", input.Clip(v), input.Clip(stat), strings.Join(formulaStats, ", "))
		}
		if hasMetric && !slices.Contains(metrics, metric) {
			return f, usagef("--formula %q: %q is not a --metric of this sweep (%s)", input.Clip(v), input.Clip(metric), strings.Join(metrics, ", "))
		}
		f.Stat, f.Expr = stat, expr
		if hasMetric {
			f.Metric = metric
		}
	}
	var err error
	if f.f, err = simulate.ParseFormula(f.Expr); err != nil {
		return f, usagef("--formula: %v", err)
	}
	return f, nil
}

// simRow is what a simulated sweep records per N (--format json).
type simRow struct {
	N          int                     `json:"n"`
	Params     map[string]any          `json:"params"`
	Status     string                  `json:"status"`
	Reason     string                  `json:"reason,omitempty"`
	Runs       int                     `json:"runs"`
	Steps      int64                   `json:"steps"`
	Ends       map[string]int64        `json:"ends"`
	Violated   map[string]int64        `json:"violated,omitempty"` // property: runs that violated it
	Metrics    map[string]simRowMetric `json:"metrics,omitempty"`
	Formulas   []simRowFormula         `json:"formulas,omitempty"`
	Elapsed    float64                 `json:"elapsed_seconds"`
	stats      map[string]simulate.Stats
	violations []string
}

type simRowMetric struct {
	Runs   int64   `json:"runs"`
	Mean   float64 `json:"mean"`
	StdDev float64 `json:"stddev"`
	Min    int64   `json:"min"`
	Max    int64   `json:"max"`
	P50    int64   `json:"p50"`
	P90    int64   `json:"p90"`
	P99    int64   `json:"p99"`
}

type simRowFormula struct {
	Metric   string   `json:"metric"`
	Stat     string   `json:"stat"`
	Expr     string   `json:"formula"`
	Source   string   `json:"source"`
	Value    float64  `json:"value"`
	Measured *float64 `json:"measured"`
	Ratio    *float64 `json:"ratio"` // measured / value
}

func simulateSweep(c *urfave.Context, stderr io.Writer, catalog []specs.Spec) (int, error) {
	if !c.Bool("simulate") {
		for _, f := range simSweepFlags() {
			if name := f.Names()[0]; c.IsSet(name) {
				return exitUsage, usagef("--%s: only with --simulate (a simulated sweep)", name)
			}
		}
	}
	for _, name := range exhaustiveOnly {
		if c.IsSet(name) {
			return exitUsage, usagef("--%s: not with --simulate (it is a flag of the exhaustive search)", name)
		}
	}
	if c.NArg() != 1 {
		return exitUsage, usagef("sweep takes one SPEC (see 'vacheck list'), got %d arguments", c.NArg())
	}
	spec, err := lookupSpec(c.Args().First(), catalog)
	if err != nil {
		return exitUsage, err
	}
	if !slices.Contains(paramFlags(spec), "n") {
		return exitUsage, usagef("sweep: %s has no --n to sweep", spec.Name)
	}
	if !c.IsSet("n") {
		return exitUsage, usagef("sweep needs --n, e.g. --n 4..64")
	}
	ns, err := parseRangeUpTo(c.String("n"), maxSimSweep)
	if err != nil {
		return exitUsage, err
	}
	cfg, err := simConfig(c)
	if err != nil {
		return exitUsage, err
	}
	var budget time.Duration
	if s := c.String("budget"); s != "" {
		if budget, err = time.ParseDuration(s); err != nil || budget <= 0 {
			return exitUsage, usagef("--budget %q: a positive duration such as 30s, 10m or 2h", s)
		}
	}
	format := c.String("format")
	if format != "text" && format != "json" {
		return exitUsage, usagef("--format %q: allowed values are text and json", input.Clip(format))
	}
	if err := checkHTML(c); err != nil {
		return exitUsage, err
	}
	var formulas []sweepFormula
	for _, f := range spec.Formulas {
		if slices.Contains(cfg.Metrics, f.Metric) {
			e, err := simulate.ParseFormula(f.Expr)
			if err != nil {
				return exitModel, fmt.Errorf("%s declares a formula that does not parse: %w", spec.Name, err)
			}
			formulas = append(formulas, sweepFormula{f, e})
		}
	}
	for _, v := range c.StringSlice("formula") {
		f, err := parseFormulaFlag(v, cfg.Metrics)
		if err != nil {
			return exitUsage, err
		}
		formulas = append(formulas, f)
	}
	// Every N's parameters are checked before any is simulated.
	given := simParams(c, catalog, "n")
	models := make([]explorer.Model, len(ns))
	params := make([]*specs.Params, len(ns))
	for k, n := range ns {
		given["n"] = strconv.Itoa(n)
		if params[k], err = specs.NewParams(spec, given); err != nil {
			return exitUsage, err
		}
		params[k].SetSampling(true)
		if models[k], err = spec.Build(params[k]); err != nil {
			return exitUsage, err
		}
	}
	ctx, stop := interruptible(c.Context, stderr)
	defer stop()
	cfg.Context = ctx
	w := c.App.Writer
	if format == "text" {
		fmt.Fprintf(w, "%s: simulated sweep of --n %s, %s runs per N, seed %d, at most %s steps per run\n", spec.Name, c.String("n"),
			report.Group(int64(cfg.Runs)), cfg.Seed, report.Group(int64(cfg.MaxSteps)))
		for k, f := range formulas {
			fmt.Fprintf(w, "  f%d = %s: the %s of %s (%s)\n", k+1, f.Expr, f.Stat, f.Metric, f.Source)
		}
		writeSimHeader(w, formulas)
	}
	start := time.Now()
	var rows []simRow
	code := exitIncomplete
	for k, n := range ns {
		run := cfg
		run.Properties, _ = simProperties(c, spec, models[k])
		byBudget := false
		if budget > 0 {
			left := max(budget-time.Since(start), time.Millisecond)
			if run.Timeout == 0 || left < run.Timeout {
				run.Timeout, byBudget = left, true
			}
		}
		if !c.Bool("quiet") {
			run.Progress, run.ProgressEvery = simProgressLine(stderr), progressEvery(c.Context)
		}
		res, err := simulate.Simulate(models[k], run)
		if err != nil {
			return exitUsage, simError(err)
		}
		if err := checkSimTypedMetrics(spec.Name, res); err != nil {
			return exitUsage, err
		}
		if res.Limit == explorer.TimeLimit && byBudget {
			res.Reason = strings.Replace(res.Reason, fmt.Sprintf("time limit (%s)", run.Timeout), fmt.Sprintf("sweep budget (--budget %s)", budget), 1)
		}
		row := newSimRow(n, params[k].Canonical(), res, formulas)
		rows = append(rows, row)
		if format == "text" {
			writeSimRow(w, row, cfg.Metrics, formulas)
		}
		switch res.Status {
		case explorer.Violated:
			code = exitViolated
		case explorer.Failed:
			if code != exitViolated {
				code = exitModel
			}
		}
		if res.Limit != explorer.NoLimit {
			if format == "text" {
				fmt.Fprintf(w, "     %s; the sweep ends here\n", res.Reason)
			}
			break
		}
	}
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			return exitModel, err
		}
	}
	if err := sweepCharts(c, spec, rows, cfg, formulas, stderr); err != nil {
		fmt.Fprintf(stderr, "vacheck: warning: %v; the chart was not written\n", err)
	}
	return code, nil
}

// paramFlags lists the flags of spec's parameters.
func paramFlags(spec specs.Spec) []string {
	var out []string
	for _, p := range spec.Params {
		out = append(out, p.Flag)
	}
	return out
}

func newSimRow(n int, params map[string]any, res *simulate.Result, formulas []sweepFormula) simRow {
	e := res.Ends
	row := simRow{N: n, Params: params, Status: res.Status.String(), Reason: res.Reason, Runs: res.Runs, Steps: res.Steps,
		Ends:    map[string]int64{"valid_end": e.ValidEnd, "deadlock": e.Deadlock, "violation": e.Violation, "step_cap": e.StepCap, "beyond_bound": e.Cut, "model_error": e.Failed},
		Elapsed: res.Elapsed.Seconds(), stats: map[string]simulate.Stats{}}
	for _, p := range res.Properties {
		if p.Runs > 0 {
			if row.Violated == nil {
				row.Violated = map[string]int64{}
			}
			row.Violated[p.Name] = p.Runs
			row.violations = append(row.violations, p.Name)
		}
	}
	for _, m := range res.Metrics {
		row.stats[m.Name] = m
		if row.Metrics == nil {
			row.Metrics = map[string]simRowMetric{}
		}
		row.Metrics[m.Name] = simRowMetric{m.Runs, m.Mean, m.StdDev, m.Min, m.Max, m.P50, m.P90, m.P99}
	}
	for _, f := range formulas {
		rf := simRowFormula{Metric: f.Metric, Stat: f.Stat, Expr: f.Expr, Source: f.Source, Value: f.f.Eval(float64(n))}
		if s, ok := row.stats[f.Metric]; ok && s.Runs > 0 {
			v := statOf(s, f.Stat)
			rf.Measured = &v
			if rf.Value != 0 && !math.IsNaN(rf.Value) {
				r := v / rf.Value
				rf.Ratio = &r
			}
		}
		row.Formulas = append(row.Formulas, rf)
	}
	return row
}

func writeSimHeader(w io.Writer, formulas []sweepFormula) {
	fmt.Fprintf(w, "\n%5s  %-24s %-14s %9s %9s %7s %7s %7s %7s %7s", "N", "result", "metric", "mean", "stddev", "min", "p50", "p90", "p99", "max")
	for k, f := range formulas {
		fmt.Fprintf(w, " %9s %8s", fmt.Sprintf("f%d", k+1), fmt.Sprintf("%s/f%d", f.Stat, k+1))
	}
	fmt.Fprintln(w)
}

func writeSimRow(w io.Writer, row simRow, metrics []string, formulas []sweepFormula) {
	result := "no violation"
	switch row.Status {
	case "violated":
		result = "VIOLATED " + strings.Join(row.violations, ",")
	case "error":
		result = "ERROR in the model"
	}
	if row.Status == "incomplete" && row.Reason != "" && !strings.HasPrefix(row.Reason, "no violation in") {
		result = "INCOMPLETE"
	}
	if len(metrics) == 0 {
		fmt.Fprintf(w, "%5d  %s\n", row.N, result)
		return
	}
	for i, name := range metrics {
		var b strings.Builder
		n, res := strconv.Itoa(row.N), result
		if i > 0 {
			n, res = "", ""
		}
		fmt.Fprintf(&b, "%5s  %-24s %-14s", n, res, name)
		s := row.stats[name]
		if s.Runs == 0 {
			b.WriteString(" no complete run")
		} else {
			fmt.Fprintf(&b, " %9.2f %9.2f %7d %7d %7d %7d %7d", s.Mean, s.StdDev, s.Min, s.P50, s.P90, s.P99, s.Max)
		}
		for k, f := range formulas {
			rf := row.Formulas[k]
			if f.Metric != name || s.Runs == 0 {
				fmt.Fprintf(&b, " %9s %8s", "", "")
				continue
			}
			ratio := "-"
			if rf.Ratio != nil {
				ratio = fmt.Sprintf("%.3f", *rf.Ratio)
			}
			fmt.Fprintf(&b, " %9.2f %8s", rf.Value, ratio)
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// sweepCharts writes --html FILE for a simulated sweep: one figure per
// metric, its mean, p99 and measured range against N, with the formulas.
func sweepCharts(c *urfave.Context, spec specs.Spec, rows []simRow, cfg simulate.Config, formulas []sweepFormula, stderr io.Writer) error {
	file := c.String("html")
	if file == "" {
		return nil
	}
	// The parameters every N shares (not --capacity, which grows with N).
	params := map[string]any{}
	if len(rows) > 0 {
		for k, v := range rows[0].Params {
			same := k != "n"
			for _, r := range rows[1:] {
				same = same && fmt.Sprint(r.Params[k]) == fmt.Sprint(v)
			}
			if same {
				params[k] = v
			}
		}
	}
	page := msc.Page{Spec: spec.Name, Params: "--n " + c.String("n") + " " + report.Params(params),
		Result: fmt.Sprintf("simulated sweep: %s runs per N, seed %d (simulation: not a proof)", report.Group(int64(cfg.Runs)), cfg.Seed)}
	for _, name := range cfg.Metrics {
		var xs, mean, p99, lo, hi []float64
		for _, r := range rows {
			s, ok := r.stats[name]
			if !ok || s.Runs == 0 {
				continue
			}
			xs = append(xs, float64(r.N))
			mean, p99 = append(mean, s.Mean), append(p99, float64(s.P99))
			lo, hi = append(lo, float64(s.Min)), append(hi, float64(s.Max))
		}
		series := []plot.Series{{Name: "mean (measured)", X: xs, Y: mean}, {Name: "p99 (measured)", X: xs, Y: p99}}
		var lines []string
		for k, f := range formulas {
			if f.Metric != name {
				continue
			}
			// The formula at every N from the first to the last, so that
			// its curve is smooth between the measured points.
			var fx, fy []float64
			if len(xs) > 0 {
				for n := xs[0]; n <= xs[len(xs)-1]; n++ {
					fx, fy = append(fx, n), append(fy, f.f.Eval(n))
				}
			}
			series = append(series, plot.Series{Name: fmt.Sprintf("f%d: %s = %s", k+1, f.Stat, f.Expr), X: fx, Y: fy, Formula: true})
			lines = append(lines, fmt.Sprintf("f%d = %s, the %s of %s (%s)", k+1, f.Expr, f.Stat, f.Metric, f.Source))
		}
		title := fmt.Sprintf("%s: %s against N", spec.Name, name)
		svg := plot.Curves(title, "N", name, series, []plot.Band{{Name: "min–max (measured)", X: xs, Lo: lo, Hi: hi}})
		page.Figures = append(page.Figures, msc.Figure{Title: title, Lines: lines, SVG: svg})
	}
	return writePage(file, page, stderr)
}
