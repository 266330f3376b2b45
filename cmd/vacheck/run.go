package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/report"
	"github.com/vacheck/vacheck/specs"
)

// Exit codes.
const (
	exitOK         = 0
	exitViolated   = 1
	exitUsage      = 2
	exitIncomplete = 3
	exitModel      = 4
)

// usageError is a bad command line; it exits with code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// engineFlags are the flags of `check` that are not spec parameters.
func engineFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "strategy", DefaultText: "bfs, or dfs with --reduction por", Usage: "search order: bfs (shortest counterexamples) or dfs (one worker, a third of the memory per state, and with --reduction por far fewer states)"},
		&cli.StringFlag{Name: "workers", Value: strconv.Itoa(runtime.GOMAXPROCS(0)), Usage: "parallel workers (BFS)"},
		&cli.StringFlag{Name: "max-states", Value: "0", Usage: "stop after this many distinct states (0: no limit)"},
		&cli.StringFlag{Name: "max-depth", Value: "0", Usage: "do not explore beyond this depth (0: no limit)"},
		&cli.StringFlag{Name: "timeout", Usage: "stop after this long, e.g. 30s or 5m (default: no limit)"},
		&cli.StringFlag{Name: "max-memory", Usage: "stop when memory use reaches this, e.g. 4GiB (default: 3/4 of physical memory)"},
		&cli.StringSliceFlag{Name: "property", Usage: "check only this property (repeatable; default: the spec's claims)"},
		&cli.BoolFlag{Name: "continue", Usage: "after a violation, go on until every property has a counterexample"},
		&cli.StringFlag{Name: "reduction", Value: "none", Usage: "state-space reduction: none (exact counts) or por (partial-order reduction: safety properties only, far fewer states where processes interact only by messages)"},
		&cli.StringFlag{Name: "fairness", Value: "weak", Usage: "fairness for liveness: weak, strong or none"},
		&cli.StringSliceFlag{Name: "metric", Usage: "exhaustive min and max over complete executions: messages, messages:TYPE or steps (repeatable)"},
		&cli.StringFlag{Name: "format", Value: "text", Usage: "output: text or json"},
		&cli.BoolFlag{Name: "quiet", Usage: "no progress lines on stderr"},
	}
}

// specFlags are the union of every spec's parameters, as string flags; a
// spec rejects the ones it does not take.
func specFlags() []cli.Flag {
	var flags []cli.Flag
	seen := map[string]bool{}
	add := func(p specs.Param) {
		if !seen[p.Flag] {
			seen[p.Flag] = true
			flags = append(flags, &cli.StringFlag{Name: p.Flag, Usage: p.Usage})
		}
	}
	for _, s := range specs.Catalog() {
		for _, p := range s.Params {
			add(p)
		}
	}
	add(specs.Param{Flag: "channels", Usage: "channel discipline: fifo or unordered (default: what the algorithm assumes)"})
	add(specs.Param{Flag: "capacity", Usage: "bound on every channel; exceeding it is a modelling error"})
	return flags
}

func run(args []string, stdout, stderr io.Writer) int {
	code := exitOK
	app := &cli.App{
		Name:            "vacheck",
		Usage:           "exhaustive model checker for distributed algorithms written as I/O automata",
		Writer:          stdout,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError{err}
		},
		Commands: []*cli.Command{
			{
				Name:  "list",
				Usage: "list the specs, their parameters and properties",
				Action: func(c *cli.Context) error {
					return list(c.App.Writer)
				},
			},
			{
				Name:      "check",
				Usage:     "explore every interleaving of SPEC and check its properties",
				ArgsUsage: "SPEC",
				Flags:     append(engineFlags(), specFlags()...),
				OnUsageError: func(_ *cli.Context, err error, _ bool) error {
					return usageError{err}
				},
				Action: func(c *cli.Context) error {
					var err error
					code, err = check(c, stderr)
					return err
				},
			},
			quorumsCommand(),
		},
	}
	err := app.Run(reorder(args))
	if err != nil {
		fmt.Fprintf(stderr, "vacheck: %v\n", err)
		var ue usageError
		if errors.As(err, &ue) || errors.Is(err, specs.ErrUsage) || errors.Is(err, explorer.ErrConfig) {
			return exitUsage
		}
		return exitModel
	}
	return code
}

// reorder moves the positional argument of `check` (SPEC) and `quorums`
// (SYSTEM) after their flags: the flag parser stops at the first positional
// argument, and people write `vacheck check chang-roberts --n 4`.
func reorder(args []string) []string {
	i := slices.IndexFunc(args, func(a string) bool { return a == "check" || a == "quorums" })
	if i < 0 {
		return args
	}
	bools := map[string]bool{"continue": true, "quiet": true, "help": true, "h": true}
	out := append([]string(nil), args[:i+1]...)
	var positional []string
	for k := i + 1; k < len(args); k++ {
		a := args[k]
		if a == "--" {
			positional = append(positional, args[k+1:]...)
			break
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			out = append(out, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && !bools[name] && k+1 < len(args) {
				out = append(out, args[k+1])
				k++
			}
			continue
		}
		positional = append(positional, a)
	}
	return append(out, positional...)
}

func list(w io.Writer) error {
	width := 0
	for _, s := range specs.Catalog() {
		width = max(width, len(s.Name))
	}
	indent := strings.Repeat(" ", width+7)
	for _, s := range specs.Catalog() {
		fmt.Fprintf(w, "%-*s %-5s %s\n", width, s.Name, s.Section, s.Summary)
		if s.Bug != "" {
			fmt.Fprintf(w, "%sbug: %s\n", indent, s.Bug)
		}
		if s.Provisional != "" {
			fmt.Fprintf(w, "%sprovisional: %s\n", indent, s.Provisional)
		}
		var ps []string
		for _, p := range s.Params {
			if p.Default == "" {
				ps = append(ps, "--"+p.Flag)
			} else {
				ps = append(ps, fmt.Sprintf("--%s (default %s)", p.Flag, p.Default))
			}
		}
		fmt.Fprintf(w, "%sparameters: %s\n", indent, strings.Join(ps, ", "))
		fmt.Fprintf(w, "%sclaims: %s\n", indent, strings.Join(s.Claims, ", "))
		if all, err := s.Offered(); err == nil && len(all) > len(s.Claims) {
			fmt.Fprintf(w, "%salso offers: %s\n", indent, strings.Join(all[len(s.Claims):], ", "))
		}
	}
	return nil
}

func check(c *cli.Context, stderr io.Writer) (int, error) {
	if c.NArg() != 1 {
		return exitUsage, usagef("check takes one SPEC (see 'vacheck list'), got %d arguments", c.NArg())
	}
	spec, err := specs.Lookup(c.Args().First())
	if err != nil {
		return exitUsage, err
	}
	given := map[string]string{}
	for _, f := range specFlags() {
		name := f.Names()[0]
		if c.IsSet(name) {
			given[name] = c.String(name)
		}
	}
	params, err := specs.NewParams(spec, given)
	if err != nil {
		return exitUsage, err
	}
	cfg, format, err := engineConfig(c, spec)
	if err != nil {
		return exitUsage, err
	}
	if cfg.MaxMemory > 0 {
		// The limit counts what the runtime holds, garbage included; with
		// the default GOGC the heap may hold twice what is live before a
		// collection. A soft limit below --max-memory makes the collector
		// work harder instead, so the visited set can fill most of it.
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(int64(cfg.MaxMemory / 8 * 7)))
	}
	model, err := spec.Build(params)
	if err != nil {
		return exitUsage, err
	}
	if cfg.Reduction == explorer.PartialOrder && !c.IsSet("property") {
		cfg.Properties = safetyClaims(model, cfg.Properties)
	}
	if !c.Bool("quiet") && isTerminal(stderr) {
		cfg.Progress = func(p explorer.Progress) {
			fmt.Fprintf(stderr, "  ... %s states, %s transitions, depth %d, %.0fs, %s\n",
				commas(p.States), commas(p.Transitions), p.Depth, p.Elapsed.Seconds(), bytesString(p.Memory))
		}
	}
	res, err := explorer.Check(model, cfg)
	if err == nil {
		err = checkTypedMetrics(spec.Name, res)
	}
	if err != nil {
		return exitUsage, err
	}
	_, reducible := model.NewWorker().(explorer.Reducer)
	run := report.Run{Spec: spec.Name, Bug: spec.Bug, Params: params.Canonical(), Result: res, Reducible: reducible}
	if spec.Hint != nil {
		run.Hint = spec.Hint(params)
	}
	if b, ok := model.(interface{ BoundDoc() string }); ok {
		run.BoundDoc = b.BoundDoc()
	}
	if format == "json" {
		err = report.JSON(c.App.Writer, run)
	} else {
		err = report.Text(c.App.Writer, run)
	}
	if err != nil {
		return exitModel, err
	}
	switch res.Status {
	case explorer.OK:
		return exitOK, nil
	case explorer.Violated:
		return exitViolated, nil
	case explorer.Incomplete:
		return exitIncomplete, nil
	}
	return exitModel, nil
}

func engineConfig(c *cli.Context, spec specs.Spec) (explorer.Config, string, error) {
	var cfg explorer.Config
	var err error
	if c.IsSet("strategy") {
		if cfg.Strategy, err = explorer.ParseStrategy(c.String("strategy")); err != nil {
			return cfg, "", usageError{err}
		}
	}
	if err := engineLimits(c, &cfg); err != nil {
		return cfg, "", err
	}
	cfg.Continue = c.Bool("continue")
	if cfg.Fairness, err = explorer.ParseFairness(c.String("fairness")); err != nil {
		return cfg, "", usageError{err}
	}
	if cfg.Reduction, err = explorer.ParseReduction(c.String("reduction")); err != nil {
		return cfg, "", usageError{err}
	}
	if cfg.Reduction == explorer.PartialOrder && !c.IsSet("strategy") {
		// Depth first, the cycle proviso expands fully only states that
		// close a cycle with the search stack; breadth first, every state
		// that reaches an earlier level, which is far more.
		cfg.Strategy = explorer.DFS
	}
	cfg.Metrics = c.StringSlice("metric")
	cfg.Properties = spec.Claims
	if ps := c.StringSlice("property"); len(ps) > 0 {
		cfg.Properties = ps
	}
	format := c.String("format")
	if format != "text" && format != "json" {
		return cfg, "", usagef("--format %q: allowed values are text and json", format)
	}
	return cfg, format, nil
}

// safetyClaims drops the liveness properties from claims: partial-order
// reduction does not preserve them, so by default it checks the rest, and
// the report shows the liveness claims as skipped.
func safetyClaims(m explorer.Model, claims []string) []string {
	lm, ok := m.(explorer.LiveModel)
	if !ok {
		return claims
	}
	var out []string
	for _, name := range claims {
		if !slices.ContainsFunc(lm.Liveness(), func(p explorer.LiveProperty) bool { return p.Name == name }) {
			out = append(out, name)
		}
	}
	return out
}

// defaultMaxMemory is three quarters of physical memory, so that a run that
// outgrows the machine ends as incomplete instead of being killed.
func defaultMaxMemory() uint64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 8 << 30
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseUint(f[1], 10, 64)
			if err == nil {
				return kb * 1024 / 4 * 3
			}
		}
	}
	return 8 << 30
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func bytesString(b uint64) string {
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}
