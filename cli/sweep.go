package cli

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	urfave "github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/report"
	"github.com/vacheck/vacheck/specs"
)

// sweepCommand is `vacheck sweep SPEC --n 3..8 [--budget 10m]`: it checks
// N upward until the budget or the memory runs out and prints a table, or
// with --format json one certificate per N; --compare OLD.json fails when
// a count or verdict changed.
func sweepCommand(stderr io.Writer, code *int, catalog []specs.Spec) *urfave.Command {
	flags := []urfave.Flag{
		&urfave.StringFlag{Name: "budget", Usage: "total wall time for the whole sweep, e.g. 10m (default: no limit)"},
		&urfave.StringFlag{Name: "baseline", Usage: "certificates of an earlier sweep of SPEC (--format json): fail (exit 1) naming every count, verdict or metric that changed; without --n, re-check the N it has, and without --metric or --property, with its own; other parameters or engine flags than its own are refused (exit 2), and a run of it left uncompared is no pass (exit 3). --compare FILE.json says the same (--compare without .json is the parameter of the wakeup specs)"},
	}
	for _, f := range engineFlags() {
		// A sweep prints a table or certificates: no trace views or charts.
		switch f.Names()[0] {
		case "continue", "max-depth", "show", "trace", "html", "bitstate", "hashes", "coverage", "save-trace", "per-initial-state":
		default:
			flags = append(flags, f)
		}
	}
	flags = append(flags, simSweepFlags()...)
	flags = append(flags, sweepShardFlags()...) // see shard.go
	flags = append(flags, specFlags(catalog)...)
	return &urfave.Command{
		Name:      "sweep",
		Usage:     "check SPEC for N = 3, 4, ... until the budget or the memory runs out; print a table or certificates",
		ArgsUsage: "SPEC --n FROM..TO",
		Description: "The other flags are those of 'vacheck check'. The run that does not finish is reported as\n" +
			"incomplete and ends the sweep. Exit code: 1 if a property is violated (with --baseline: if a\n" +
			"count, verdict or metric changed), 3 if interrupted or no N finished (with --baseline: if a run\n" +
			"it finished was not compared, or none was), 5 if a run was bounded (the model's bound cut\n" +
			"states: no violation within it), 2 if the baseline is of another spec, other parameters or\n" +
			"other engine flags, else 0.\n" + simSweepHelp,
		Flags: flags,
		Action: func(c *urfave.Context) error {
			var err error
			*code, err = sweep(c, stderr, catalog)
			return err
		},
	}
}

// certificate is what a sweep records per N: enough to archive and to
// compare with a later run.
type certificate struct {
	// Format is certificateFormat; 0 (absent) in a certificate of format 1.
	Format  int            `json:"format,omitempty"`
	Spec    string         `json:"spec"`
	Params  map[string]any `json:"params"`
	Version string         `json:"version"`
	Status  string         `json:"status"`
	Reason  string         `json:"reason,omitempty"`
	States  int64          `json:"states"`
	// Unchecked counts the states of States that a stop left stored and
	// not checked (explorer.Result.Unchecked).
	Unchecked   int64             `json:"unchecked_states,omitempty"`
	Transitions int64             `json:"transitions"`
	Depth       int               `json:"depth"`
	Exhaustive  bool              `json:"exhaustive"`
	Terminal    int64             `json:"terminal_states"`
	Verdicts    map[string]string `json:"verdicts"`
	// NotCheckedWhy says why the verdicts "not-checked" were not checked.
	NotCheckedWhy string                `json:"not_checked_reason,omitempty"`
	Metrics       map[string]certMetric `json:"metrics,omitempty"`
	Strategy      string                `json:"strategy"`
	Reduction     string                `json:"reduction"`
	Symmetry      string                `json:"symmetry,omitempty"`
	RawStates     int64                 `json:"raw_states,omitempty"`
	Fairness      string                `json:"fairness"`
	// The flags besides strategy, reduction, symmetry and fairness that
	// change the figures or verdicts (format 2): the --metric values (and
	// what they add to the states), and the --property values (none: the
	// spec's claims).
	MetricFlags     []string `json:"metric_flags,omitempty"`
	Tracked         string   `json:"tracked,omitempty"`
	PropertyFlags   []string `json:"property_flags,omitempty"`
	FingerprintBits int      `json:"fingerprint_bits"`
	CollisionBound  float64  `json:"collision_bound"`
	Elapsed         float64  `json:"elapsed_seconds"`
}

type certMetric struct {
	Min       *int64 `json:"min"`
	Max       *int64 `json:"max"`
	Unbounded bool   `json:"unbounded,omitempty"`
}

func (m certMetric) String() string {
	s := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatInt(*p, 10)
	}
	if m.Unbounded {
		return s(m.Min) + "..∞"
	}
	return s(m.Min) + ".." + s(m.Max)
}

// parseRange reads --n for a sweep: 3..8, 3,5,7 or 5.
func parseRange(s string) ([]int, error) { return parseRangeUpTo(s, 64) }

// parseRangeUpTo is parseRange for at most most values of N.
func parseRangeUpTo(s string, most int) ([]int, error) {
	bad := usagef("--n %q: a range such as 3..8, a list such as 3,5,7 or one N (at most %d values)", s, most)
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "..")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 1 {
			return nil, bad
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, bad
			}
		}
		for n := a; n <= b; n++ {
			out = append(out, n)
		}
	}
	if len(out) == 0 || len(out) > most {
		return nil, bad
	}
	return out, nil
}

func sweep(c *urfave.Context, stderr io.Writer, catalog []specs.Spec) (int, error) {
	if simulated(c) { // sweep --simulate: see simsweep.go
		return simulateSweep(c, stderr, catalog)
	}
	if c.NArg() != 1 {
		return exitUsage, usagef("sweep takes one SPEC (see 'vacheck list'), got %d arguments", c.NArg())
	}
	spec, err := lookupSpec(c.Args().First(), catalog)
	if err != nil {
		return exitUsage, err
	}
	if !slices.ContainsFunc(spec.Params, func(p specs.Param) bool { return p.Flag == "n" }) {
		return exitUsage, usagef("sweep: %s has no --n to sweep", spec.Name)
	}
	var base *baseline
	path := c.String("baseline")
	if v := c.String("compare"); strings.HasSuffix(v, ".json") {
		if path != "" {
			return exitUsage, usagef("--compare %s and --baseline %s: give one file to compare with", v, path)
		}
		path = v
	}
	if path != "" {
		if base, err = readBaseline(path, spec.Name); err != nil {
			return exitUsage, err
		}
	}
	var ns []int
	switch {
	case c.IsSet("n"):
		if ns, err = parseRange(c.String("n")); err != nil {
			return exitUsage, err
		}
		if base != nil && !slices.ContainsFunc(ns, func(n int) bool { return slices.Contains(base.ns(), n) }) {
			return exitUsage, usagef("--baseline %s has n=%s, none of this sweep's --n %s: nothing would be compared",
				path, joinInts(base.ns()), c.String("n"))
		}
	case base != nil:
		ns = base.ns() // the baseline supplies its N
	default:
		return exitUsage, usagef("sweep needs --n, e.g. --n 3..8")
	}
	var budget time.Duration
	if s := c.String("budget"); s != "" {
		if budget, err = time.ParseDuration(s); err != nil || budget <= 0 {
			return exitUsage, usagef("--budget %q: a positive duration such as 30s, 10m or 2h", s)
		}
	}
	cfg, format, err := engineConfig(c, spec, catalog)
	if err != nil {
		return exitUsage, err
	}
	if base != nil {
		// The baseline supplies its --metric and --property values, and
		// refuses other settings that change the figures.
		if err := base.configure(c, &cfg); err != nil {
			return exitUsage, err
		}
	}
	part, certDir, err := sweepShard(c, base != nil) // --shard, --cert: see shard.go
	if err != nil {
		return exitUsage, err
	}
	given := map[string]string{}
	for _, f := range specFlags(catalog) {
		if name := f.Names()[0]; name != "n" && c.IsSet(name) && !(name == "compare" && c.String(name) == path) {
			given[name] = c.String(name)
		}
	}
	// Check every N's parameters before spending time on any.
	models := make([]explorer.Model, len(ns))
	params := make([]*specs.Params, len(ns))
	for k, n := range ns {
		given["n"] = strconv.Itoa(n)
		if params[k], err = specs.NewParams(spec, given); err != nil {
			return exitUsage, err
		}
		if models[k], err = spec.Model(params[k]); err != nil {
			return exitUsage, err
		}
		if base != nil {
			if err := base.checkParams(n, params[k].Canonical()); err != nil {
				return exitUsage, err
			}
		}
	}
	defer tuneGC(cfg.MaxMemory)()
	ctx, stop := interruptible(c.Context, stderr)
	defer stop()
	cfg.Context = ctx
	w := c.App.Writer
	if format == "text" {
		var list []string
		for _, n := range ns {
			list = append(list, strconv.Itoa(n))
		}
		fmt.Fprintf(w, "%s: sweep of --n %s", spec.Name, strings.Join(list, ","))
		if budget > 0 {
			fmt.Fprintf(w, " within %s", budget)
		}
		states := "states"
		if cfg.Symmetry {
			states = "orbits" // the counts are orbits of states under the symmetry
		}
		fmt.Fprintf(w, "\n%4s %14s %14s %6s %9s  %-30s %s\n", "N", states, "transitions", "depth", "time", "verdicts", "metrics")
	}
	start := time.Now()
	var certs []certificate
	code := exitOK
	for k := range ns {
		run := cfg
		byBudget := false
		if budget > 0 {
			left := max(budget-time.Since(start), time.Millisecond)
			if run.Timeout == 0 || left < run.Timeout {
				run.Timeout, byBudget = left, true
			}
		}
		var notChecked []string
		run.Properties, notChecked = leaveOutLiveness(c, run, models[k])
		if !c.Bool("quiet") {
			run.Progress, run.ProgressEvery = progressLine(stderr), progressEvery(c.Context)
		}
		var sr *shardRun
		if !part.Whole() {
			sr = &shardRun{part: part, spec: spec, params: params[k], cert: sweepCertPath(certDir, spec.Name, ns[k], part)}
			if err := sr.attach(models[k], &run); err != nil {
				return exitUsage, err
			}
		}
		res, err := explorer.Check(models[k], run)
		if err != nil {
			return exitUsage, err
		}
		if res.Status == explorer.Incomplete && byBudget && res.Limit == explorer.TimeLimit {
			res.Reason = fmt.Sprintf("sweep budget reached (--budget %s)", budget)
		}
		if sr != nil {
			rr := report.Run{Spec: spec.Name, Bug: spec.Bug, Params: params[k].Canonical(), Result: res, NotChecked: notChecked,
				Metrics: run.Metrics, Continue: run.Continue}
			if len(notChecked) > 0 {
				rr.NotCheckedWhy = safetyOnlyWhy(run)
			}
			if err := sr.finish(res, rr, run, statusCode(res.Status)); err != nil {
				return exitModel, err
			}
		}
		cert := newCertificate(spec.Name, params[k].Canonical(), res)
		cert.recordFlags(run, c.StringSlice("property"))
		for _, name := range notChecked {
			cert.Verdicts[name] = report.NotCheckedStatus
		}
		if len(notChecked) > 0 {
			cert.NotCheckedWhy = safetyOnlyWhy(run)
		}
		certs = append(certs, cert)
		if format == "text" {
			writeSweepRow(w, ns[k], cert)
		}
		switch res.Status {
		case explorer.Violated:
			code = exitViolated
		case explorer.Failed:
			if code == exitOK || code == exitBounded {
				code = exitModel
			}
		case explorer.Bounded:
			// Not a proof: the properties hold within the bound only.
			if code == exitOK {
				code = exitBounded
			}
		}
		if res.Status == explorer.Incomplete || res.Status == explorer.Failed {
			if ctx.Err() != nil || k == 0 {
				code = cmp.Or(code, exitIncomplete)
			}
			break
		}
	}
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(certs); err != nil {
			return exitModel, err
		}
	} else if !part.Whole() {
		fmt.Fprintf(w, "\npart %s of each N's initial states: the figures and verdicts are the part's; 'vacheck merge' of every part's certificates of an N gives that check's\n", part)
	}
	if base != nil {
		out := w
		if format == "json" {
			out = stderr
		}
		// Against a baseline, a violation it has too (a broken twin's) is
		// what is expected: only a change fails. Nothing compared, or a
		// run of the baseline left uncompared, is no pass.
		switch v := base.compare(out, ns, certs); {
		case v.changes > 0:
			code = exitViolated
		case v.compared == 0 || len(v.missing) > 0:
			code = exitIncomplete
		case code == exitViolated:
			code = exitOK
		}
	}
	return code, nil
}

// recordFlags records in c the flags of its run, besides the strategy,
// reduction, symmetry and fairness its result gives, that change the
// figures or verdicts: the metrics (what they track, the result gives)
// and the --property values. (A sweep has no --continue.)
func (c *certificate) recordFlags(run explorer.Config, properties []string) {
	c.Format = certificateFormat
	c.MetricFlags = slices.Clone(run.Metrics)
	c.PropertyFlags = slices.Clone(properties)
}

// joinInts writes ns as "3,4,5".
func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for k, n := range ns {
		parts[k] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

func newCertificate(spec string, params map[string]any, r *explorer.Result) certificate {
	c := certificate{
		Spec: spec, Params: params, Version: version(), Status: r.Status.String(), Reason: r.Reason,
		States: r.States, Unchecked: r.Unchecked, Transitions: r.Transitions, Depth: r.Depth, Exhaustive: r.Exhaustive, Terminal: r.Terminal,
		Verdicts: map[string]string{}, Strategy: r.Strategy.String(), Reduction: r.Reduction.String(),
		Symmetry: r.Symmetry, RawStates: r.RawStates,
		Fairness: r.Fairness.String(), Tracked: r.Tracked, FingerprintBits: 64, CollisionBound: r.CollisionProbability(),
		Elapsed: r.Elapsed.Seconds(),
	}
	for _, p := range r.Properties {
		if p.Verdict != explorer.Skipped {
			c.Verdicts[p.Name] = p.Verdict.String()
		}
	}
	for _, m := range r.Metrics {
		if c.Metrics == nil {
			c.Metrics = map[string]certMetric{}
		}
		cm := certMetric{Unbounded: m.Unbounded}
		if m.Executions {
			lo, hi := m.Min, m.Max
			cm.Min = &lo
			if !m.Unbounded {
				cm.Max = &hi
			}
		}
		c.Metrics[m.Name] = cm
	}
	return c
}

func writeSweepRow(w io.Writer, n int, c certificate) {
	verdict := strings.ToUpper(c.Status)
	var bad []string
	for name, v := range c.Verdicts {
		if v == "violated" {
			bad = append(bad, name)
		}
	}
	slices.Sort(bad)
	if len(bad) > 0 {
		verdict += " " + strings.Join(bad, ",")
	}
	var unchecked []string
	for name, v := range c.Verdicts {
		if v == report.NotCheckedStatus {
			unchecked = append(unchecked, name)
		}
	}
	slices.Sort(unchecked)
	if len(unchecked) > 0 {
		verdict += " (not checked: " + strings.Join(unchecked, ",") + ")"
	}
	var ms []string
	for name, m := range c.Metrics {
		ms = append(ms, name+" "+m.String())
	}
	slices.Sort(ms)
	fmt.Fprintf(w, "%4d %14s %14s %6d %9s  %-30s %s\n", n, report.Group(c.States), report.Group(c.Transitions), c.Depth,
		fmt.Sprintf("%.2fs", c.Elapsed), verdict, strings.Join(ms, ", "))
	if c.Status == "incomplete" || c.Status == "error" {
		var unchecked string
		if c.Unchecked > 0 {
			unchecked = fmt.Sprintf(" (%s of its states stored, not checked)", report.Group(c.Unchecked))
		}
		fmt.Fprintf(w, "     %s: %s; the sweep ends here%s\n", c.Status, c.Reason, unchecked)
	}
}

func unionKeys[V any](a, b map[string]V) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
