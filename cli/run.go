package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"

	urfave "github.com/urfave/cli/v2"
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
	// exitBounded: no violation, but the model's bound cut states, so the
	// properties hold within the bound only.
	exitBounded = 5
)

// exitCodesHelp lists the exit codes in `vacheck --help` and `vacheck check
// --help`.
const exitCodesHelp = "Exit codes: 0 every property holds; 1 a property is violated; 2 bad usage or input;\n" +
	"3 incomplete (a limit was reached); 4 the model failed (or vacheck did: internal error);\n" +
	"5 bounded (no violation, but the model's bound cut states: the properties hold within the bound only)."

// usageError is a bad command line; it exits with code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// engineFlags are the flags of `check` that are not spec parameters.
func engineFlags() []urfave.Flag {
	return []urfave.Flag{
		&urfave.StringFlag{Name: "strategy", DefaultText: "bfs, or dfs with --reduction por", Usage: "search order: bfs (shortest counterexamples) or dfs (one worker, a third of the memory per state, and with --reduction por far fewer states)"},
		&urfave.StringFlag{Name: "workers", Value: strconv.Itoa(runtime.GOMAXPROCS(0)), Usage: "parallel workers (BFS)"},
		&urfave.StringFlag{Name: "max-states", Value: "0", Usage: "stop after this many distinct states (0: no limit)"},
		&urfave.StringFlag{Name: "max-depth", Value: "0", Usage: "do not explore beyond this depth (0: no limit)"},
		&urfave.StringFlag{Name: "timeout", Usage: "stop after this long, e.g. 30s or 5m (default: no limit)"},
		&urfave.StringFlag{Name: "max-memory", Usage: "stop when memory use reaches this, e.g. 4GiB (default: 3/4 of physical memory or of the cgroup (container) memory limit, whichever is smaller)"},
		&urfave.StringSliceFlag{Name: "property", Usage: "check only this property (repeatable; default: the spec's claims)"},
		&urfave.BoolFlag{Name: "continue", Usage: "after a violation, go on until every property, assertions such as channel-bound included, has a counterexample, or every state is explored"},
		&urfave.BoolFlag{Name: "symmetry", Usage: "store one state per orbit of the symmetry group the spec declares (ring rotations, reflections): exact verdicts, metrics and counterexamples, counts of orbits next to the raw counts; safety properties and metrics only"},
		&urfave.StringFlag{Name: "reduction", Value: "none", Usage: "state-space reduction: none (exact counts) or por (partial-order reduction: safety properties only, far fewer states where processes interact only by messages)"},
		&urfave.StringFlag{Name: "fairness", Value: "weak", Usage: "fairness for liveness: weak, strong or none"},
		&urfave.StringSliceFlag{Name: "metric", Usage: "exhaustive min and max over complete executions, with witnesses: messages, messages:TYPE, steps, time (causal depth), and for mutual exclusion messages-per-entry and sync-delay (repeatable)"},
		&urfave.StringFlag{Name: "format", Value: "text", Usage: "output: text or json"},
		&urfave.BoolFlag{Name: "quiet", Usage: "no progress lines on stderr"},
		&urfave.StringSliceFlag{Name: "show", Usage: "how a counterexample reads, a comma-separated list: story (the default: each step with what it changed), msc (a message sequence chart), involved (only the processes that change, send or receive in it)"},
		&urfave.StringFlag{Name: "trace", Value: "full", Usage: "JSON traces: full (every step's state) or diff (the first step's state, then only the changed variables)"},
		chartFlags()[0], // --html: see chart.go
		// --bitstate, --hashes and --coverage: see swarm.go.
		bitstateFlags()[0], bitstateFlags()[1], coverageFlag(),
		saveTraceFlag(),  // see replay.go
		perInitialFlag(), // see perinitial.go
		cpuProfileFlag(), // see profile.go
	}
}

// differs starts the general help of a parameter whose usage differs by
// spec.
const differs = "a parameter whose meaning or values differ by spec"

// specFlags are the union of the parameters of every spec of catalog, as
// string flags; a spec rejects the ones it does not take. The help of one
// that specs take with different values says so, rather than give one
// spec's values as everybody's.
func specFlags(catalog []specs.Spec) []urfave.Flag {
	var flags []urfave.Flag
	seen := map[string]*urfave.StringFlag{}
	first := map[string]string{} // the first spec with the flag
	add := func(spec string, p specs.Param) {
		f := seen[p.Flag]
		switch {
		case f == nil:
			f = &urfave.StringFlag{Name: p.Flag, Usage: p.Usage}
			seen[p.Flag], first[p.Flag] = f, spec
			flags = append(flags, f)
		case f.Usage != p.Usage && !strings.HasPrefix(f.Usage, differs):
			// Shared by specs that take different values: the general
			// help must not give one spec's values as everybody's.
			f.Usage = fmt.Sprintf("%s; 'vacheck check SPEC --help' gives a spec's own (%s: %s)", differs, first[p.Flag], f.Usage)
		}
	}
	for _, s := range catalog {
		for _, p := range s.Params {
			add(s.Name, p)
		}
	}
	add("", specs.Param{Flag: "channels", Usage: "channel discipline: fifo, unordered or mailbox (default: what the algorithm assumes)"})
	add("", specs.Param{Flag: "capacity", Usage: "bound on every channel; exceeding it is a modelling error"})
	return flags
}

// hiddenSpecFlags are specFlags left out of a command's --help: 60
// parameters of 50 specs, most with "values differ by spec", buried the
// engine flags. specParamsHelp points to where a spec's own are.
func hiddenSpecFlags(catalog []specs.Spec) []urfave.Flag {
	flags := specFlags(catalog)
	for _, f := range flags {
		f.(*urfave.StringFlag).Hidden = true
	}
	return flags
}

// specParamsHelp ends the help of a command whose spec parameters are
// hidden (hiddenSpecFlags).
func specParamsHelp(cmd string) string {
	return fmt.Sprintf("\nSPEC's parameters (--n, --ids, --channels, --capacity, ...) differ by spec: 'vacheck %s SPEC --help'\nlists them; 'vacheck list' lists the specs.", cmd)
}

// runContext runs the command line args on the specs of catalog;
// cancelling ctx stops a check as SIGINT does. Every path ends in one of
// the documented exit codes; with --format json an error is a JSON object
// on stdout as well. A spec of catalog that declares a broken twin
// (specs.Spec.Broken) brings it along (specs.WithTwins).
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer, catalog []specs.Spec) (code int) {
	catalog = specs.WithTwins(catalog)
	// A write error on stdout ends the command with exit 4, as a report
	// that could not be written does: not 2, the input was fine, and no
	// verdict's code, as the verdict was not delivered. A resume's check
	// writes through the resume's writer, which reports it once.
	out, nested := stdout.(*outputWriter)
	told := false // the write error was reported as the command's error
	if !nested {
		out = &outputWriter{w: stdout}
		defer func() {
			if out.err != nil && code != exitUsage {
				if !told {
					fmt.Fprintf(stderr, "vacheck: writing the output: %v\n", out.err)
				}
				code = exitModel
			}
		}()
	}
	stdout = out
	prog := programName(args)
	if prog != "vacheck" {
		if _, ok := stderr.(*renamer); !ok {
			stderr = &renamer{w: stderr, prog: prog}
		}
	}
	fail := func(c int, err error) int {
		if out.err != nil && errors.Is(err, out.err) {
			told, err = true, fmt.Errorf("writing the output: %w", err)
		}
		msg := clipEcho(userMessage(err.Error()), args[1:])
		if prog != "vacheck" {
			msg = strings.ReplaceAll(msg, "'vacheck ", "'"+prog+" ")
		}
		fmt.Fprintf(stderr, "vacheck: %s\n", msg)
		if wantsJSON(args) {
			jsonError(stdout, c, errors.New(msg))
		}
		return c
	}
	if len(args) == 0 {
		args = []string{"vacheck"}
	}
	defer func() {
		if p := recover(); p != nil {
			code = fail(exitModel, fmt.Errorf("internal error: %v", p))
		}
	}()
	rest := args[1:]
	if len(rest) > 0 {
		switch w := rest[0]; {
		case w == "--version" || w == "-version" || w == "-V" || w == "version":
			fmt.Fprintln(stdout, programVersion(prog))
			return exitOK
		case w == "help":
			if len(rest) > 1 && rest[1] == "help" {
				rest = rest[:1] // vacheck help help: the general help
			}
			if len(rest) > 1 {
				spec, isSpec, err := helpTopic(rest[1], catalog)
				if err != nil {
					return fail(exitUsage, err)
				}
				if isSpec {
					specHelp(stdout, prog, "check", spec)
					return exitOK
				}
			}
			rest = append(rest[1:min(len(rest), 2)], "--help")
			args = append([]string{args[0]}, rest...)
		case !strings.HasPrefix(w, "-") && !slices.Contains(commands, w):
			return fail(exitUsage, unknownCommand(w, catalog))
		case len(rest) == 2 && rest[1] == "help":
			// vacheck check help: the command's help, as urfave's help
			// command gave it before each run had its own (helpFlag).
			rest = []string{w, "--help"}
			args = append([]string{args[0]}, rest...)
		}
	}
	if len(rest) > 1 && (rest[0] == "check" || rest[0] == "sweep" || rest[0] == "swarm" || rest[0] == "simulate") {
		flags, positional := splitArgs(rest[1:])
		if len(positional) > 0 && slices.ContainsFunc(flags, func(a string) bool { return a == "-h" || a == "--help" || a == "-help" }) {
			spec, err := lookupSpec(positional[0], catalog)
			if err != nil {
				return fail(exitUsage, err)
			}
			specHelp(stdout, prog, rest[0], spec)
			return exitOK
		}
	}
	code = exitOK
	checkFlags := append(append(append(append(append(engineFlags(), propFlags()...), checkpointFlags()...), clusterFlags()...), shardFlags()...), hiddenSpecFlags(catalog)...)
	app := &urfave.App{
		Name:            prog,
		Usage:           "exhaustive model checker for distributed algorithms written as I/O automata",
		UsageText:       strings.ReplaceAll("vacheck list [FILTER]\n   vacheck check SPEC [parameters] [engine flags]   (vacheck check SPEC --help: its parameters and properties)\n   vacheck resume DIR   (a check run with --checkpoint DIR)\n   vacheck sweep SPEC --n 3..8 [--budget 10m]\n   vacheck swarm SPEC [parameters] --jobs K --memory M --time T [--seed S]\n   vacheck simulate SPEC [parameters] --runs R --seed S [--metric messages]\n   vacheck quorums SYSTEM --n N\n   vacheck explore SPEC [parameters]   (step through SPEC in the browser)\n   vacheck graph SPEC [parameters] --format dot|svg\n   vacheck merge CERT...   (the parts of a check run with --shard k/K --cert FILE)\n   vacheck replay FILE   (the traces saved by check --save-trace FILE)\n   vacheck --version", "vacheck ", prog+" "),
		Writer:          stdout,
		ErrWriter:       stderr,
		Description:     exitCodesHelp,
		HideHelpCommand: true,
		HideVersion:     true,
		HideHelp:        true, // its own --help instead: see helpFlag
		Flags:           []urfave.Flag{helpFlag()},
		// Never os.Exit from inside the library: run decides the code.
		ExitErrHandler: func(*urfave.Context, error) {},
		OnUsageError: func(_ *urfave.Context, err error, _ bool) error {
			return flagUsageError(err, []urfave.Flag{urfave.HelpFlag})
		},
		Commands: []*urfave.Command{
			{
				Name:      "list",
				Usage:     "list the specs, their parameters and properties; FILTER keeps those whose name, summary or section contains it",
				ArgsUsage: "[FILTER]",
				Flags:     []urfave.Flag{&urfave.StringFlag{Name: "format", Value: "text", Usage: "output: text or json"}},
				Action: func(c *urfave.Context) error {
					return listCommand(c, catalog)
				},
			},
			{
				Name:        "check",
				Usage:       "explore every interleaving of SPEC and check its properties",
				ArgsUsage:   "SPEC [parameters]",
				Description: exitCodesHelp + "\n" + specParamsHelp("check"),
				Flags:       checkFlags,
				Action: func(c *urfave.Context) error {
					var err error
					code, err = check(c, stderr, catalog)
					return err
				},
			},
			sweepCommand(stderr, &code, catalog),
			swarmCommand(stderr, &code, catalog),
			simulateCommand(stderr, &code, catalog),
			quorumsCommand(),
			resumeCommand(stdout, stderr, &code, catalog),
			graphCommand(stderr, &code, catalog),
			exploreCommand(stdout, stderr, &code, catalog),
			mergeCommand(stderr, &code),
			replayCommand(stderr, &code, catalog),
		},
	}
	for _, cmd := range app.Commands {
		flags := cmd.Flags
		cmd.OnUsageError = func(_ *urfave.Context, err error, _ bool) error {
			return flagUsageError(err, flags)
		}
		cmd.HideHelp, cmd.Flags = true, append(cmd.Flags, helpFlag())
	}
	// A check's command line, for the checkpoint that resume reads.
	ctx = context.WithValue(ctx, checkArgsKey{}, args[1:])
	err := app.RunContext(ctx, reorder(args))
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) || errors.Is(err, specs.ErrUsage) || errors.Is(err, explorer.ErrConfig) || errors.Is(err, explorer.ErrCheckpoint) {
			return fail(exitUsage, inFlags(err))
		}
		return fail(exitModel, err)
	}
	return code
}

// helpFlag returns a new --help (-h) flag, as urfave.HelpFlag is. Each
// run gives its app and commands flags of their own, with HideHelp set so
// that urfave adds neither urfave.HelpFlag nor its help command: both are
// package variables that urfave writes to whenever an app or command
// runs (BoolFlag.Apply, Command.setup), so that two runs at once in one
// process, as in cli's parallel tests or a program calling Run from two
// goroutines, raced on them. The help they print is the same: urfave
// finds --help by name (its checkHelp) and shows a command's help for a
// command without subcommands that hides urfave's.
func helpFlag() urfave.Flag {
	return &urfave.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show help", DisableDefaultText: true}
}

// splitArgs separates flags (with their values) from positional arguments.
func splitArgs(args []string) (flags, positional []string) {
	bools := map[string]bool{"continue": true, "quiet": true, "symmetry": true, "coverage": true, "help": true, "h": true, "open": true, "simulate": true, "per-initial-state": true}
	for k := 0; k < len(args); k++ {
		a := args[k]
		if a == "--" {
			positional = append(positional, args[k+1:]...)
			break
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && !bools[name] && k+1 < len(args) {
				flags = append(flags, args[k+1])
				k++
			}
			continue
		}
		positional = append(positional, a)
	}
	return flags, positional
}

// reorder moves the positional argument of `check` and `sweep` (SPEC) and
// `quorums` (SYSTEM) after their flags: the flag parser stops at the first
// positional argument, and people write `vacheck check chang-roberts --n 4`.
func reorder(args []string) []string {
	i := slices.IndexFunc(args, func(a string) bool {
		return a == "list" || a == "check" || a == "sweep" || a == "quorums" || a == "resume" || a == "graph" || a == "explore" || a == "swarm" || a == "simulate" || a == "replay"
	})
	if i < 0 {
		return args
	}
	flags, positional := splitArgs(args[i+1:])
	out := append(append([]string(nil), args[:i+1]...), flags...)
	return append(out, positional...)
}

func check(c *urfave.Context, stderr io.Writer, catalog []specs.Spec) (int, error) {
	if c.NArg() != 1 {
		return exitUsage, usagef("check takes one SPEC (see 'vacheck list'), got %d arguments", c.NArg())
	}
	spec, err := lookupSpec(c.Args().First(), catalog)
	if err != nil {
		return exitUsage, err
	}
	given := map[string]string{}
	for _, f := range specFlags(catalog) {
		name := f.Names()[0]
		if c.IsSet(name) {
			given[name] = c.String(name)
		}
	}
	params, err := specs.NewParams(spec, given)
	if err != nil {
		return exitUsage, err
	}
	cfg, format, err := engineConfig(c, spec, catalog)
	if err != nil {
		return exitUsage, err
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
	if err := checkOutputFile(c, "cpuprofile"); err != nil {
		return exitUsage, err
	}
	defer tuneGC(cfg.MaxMemory)()
	model, err := spec.Model(params)
	if err != nil {
		return exitUsage, err
	}
	if model, cfg.Properties, err = attachProps(c, cfg, model, spec, params); err != nil {
		return exitUsage, err
	}
	if cfg.FairSteps, err = fairSteps(c); err != nil {
		return exitUsage, err
	}
	if c.IsSet("cluster") && (c.IsSet("shard") || c.IsSet("cert")) {
		return exitUsage, usagef("--shard and --cert split a check by initial state into runs of their own; --cluster spreads one search over ranks: give one or the other")
	}
	if err := perInitialRefused(c); err != nil { // see perinitial.go
		return exitUsage, err
	}
	if distributed, err := wantsCluster(c); err != nil || distributed {
		if err != nil {
			return exitUsage, err
		}
		return clusterCheck(c, stderr, spec, params, cfg, format, views, model) // see cluster.go
	}
	var notChecked []string
	cfg.Properties, notChecked = leaveOutLiveness(c, cfg, model)
	if !c.Bool("quiet") {
		cfg.Progress, cfg.ProgressEvery = progressLine(stderr), progressEvery(c.Context)
	}
	if cfg.Checkpoint, err = checkpointConfig(c, stderr, spec, params); err != nil {
		return exitUsage, err
	}
	sharded, err := shardConfig(c, spec, params, model, &cfg) // --shard, --cert: see shard.go
	if err != nil {
		return exitUsage, err
	}
	ctx, stop := interruptible(c.Context, stderr)
	defer stop()
	cfg.Context = ctx
	stopProfile, err := startCPUProfile(c)
	if err != nil {
		return exitUsage, err
	}
	defer func() {
		if err := stopProfile(); err != nil {
			fmt.Fprintf(stderr, "vacheck: %v\n", err) // the verdict stands
		}
	}()
	if c.Bool("per-initial-state") {
		return perInitial(c, stderr, spec, given, params, model, cfg, format, views)
	}
	res, err := explorer.Check(model, cfg)
	if err != nil {
		abandonCheckpoint(cfg.Checkpoint)
	} else {
		finishCheckpoint(cfg.Checkpoint, res, stderr)
	}
	if err == nil {
		err = checkTypedMetrics(spec.Name, res)
	}
	var ce *explorer.ConfigError
	if errors.As(err, &ce) && ce.Field == "Symmetry" && strings.Contains(ce.Error(), "not closed under") &&
		slices.ContainsFunc(spec.Params, func(p specs.Param) bool { return p.Flag == "ids" }) {
		err = fmt.Errorf("%w (with IDs, give --ids all)", err)
	}
	if err != nil {
		return exitUsage, err
	}
	r, reducible := model.(explorer.Reducible)
	reducible = reducible && r.Reducible()
	run := report.Run{Spec: spec.Name, Bug: spec.Bug, Params: params.Canonical(), Result: res, Reducible: reducible,
		DefaultChannels: defaultChannels(spec),
		Involved:        views.involved, TraceDiff: views.diff, NotChecked: notChecked, NotCheckedWhy: safetyOnlyWhy(cfg), Metrics: cfg.Metrics,
		Continue: cfg.Continue, Rerun: rerunBase(c, spec, given)}
	if views.msc {
		run.Show = "msc"
	}
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
	sharded.note(c.App.Writer, format)
	// After the report, so that a chart that cannot be written (the disk
	// full, after checkHTML found the directory writable) loses nothing
	// else, and the exit code stays the verdict's.
	if err := charts(c, &run, stderr); err != nil { // --html: see chart.go
		fmt.Fprintf(stderr, "vacheck: warning: %v; the chart was not written\n", err)
	}
	violations, witnesses := checkTraces(run)
	if err := saveTraces(c, stderr, spec, run.Params, given, violations, witnesses); err != nil {
		fmt.Fprintf(stderr, "vacheck: warning: %v; the traces were not saved\n", err)
	}
	code := statusCode(res.Status)
	if err := sharded.finish(res, run, cfg, code); err != nil {
		return exitModel, err
	}
	return code, nil
}

func engineConfig(c *urfave.Context, spec specs.Spec, catalog []specs.Spec) (explorer.Config, string, error) {
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
	if cfg.Symmetry = c.Bool("symmetry"); cfg.Symmetry && spec.Symmetry == "" {
		return cfg, "", usageError{symmetryRefusal(spec.Name, catalog)}
	}
	if err := bitstateConfig(c, &cfg); err != nil {
		return cfg, "", err
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

// leaveOutLiveness returns the properties a search with cfg checks on m,
// and the claims it leaves out: by default, under partial-order reduction
// or symmetry, the liveness claims (safetyClaims); with --property, what
// was asked for (a liveness property is then refused).
func leaveOutLiveness(c *urfave.Context, cfg explorer.Config, m explorer.Model) (props, notChecked []string) {
	if (cfg.Reduction == explorer.PartialOrder || cfg.Symmetry || cfg.Bitstate > 0) && !c.IsSet("property") {
		return safetyClaims(m, cfg.Properties)
	}
	return cfg.Properties, nil
}

// safetyClaims splits claims into the safety properties and the liveness
// properties of m: partial-order reduction and symmetry do not preserve
// liveness, so by default they check the safety claims, and the report
// names the others as not checked (safetyOnlyWhy says why).
func safetyClaims(m explorer.Model, claims []string) (safety, live []string) {
	lm, ok := m.(explorer.LiveModel)
	if !ok {
		return claims, nil
	}
	for _, name := range claims {
		if slices.ContainsFunc(lm.Liveness(), func(p explorer.LiveProperty) bool { return p.Name == name }) {
			live = append(live, name)
		} else {
			safety = append(safety, name)
		}
	}
	return safety, live
}

// safetyOnlyWhy says why a search with cfg checks the safety claims only.
func safetyOnlyWhy(cfg explorer.Config) string {
	switch {
	case cfg.Bitstate > 0:
		return "--bitstate checks safety properties only (liveness needs the exact state graph)"
	case cfg.Symmetry && cfg.Reduction == explorer.PartialOrder:
		return "--symmetry and --reduction por check safety properties only"
	case cfg.Symmetry:
		return "--symmetry checks safety properties only; run without it to check liveness"
	case cfg.Reduction == explorer.PartialOrder:
		return "--reduction por checks safety properties only; run with --reduction none to check liveness"
	}
	return ""
}

// views are the --show and --trace choices of how a result reads.
type views struct {
	involved bool // --show involved
	msc      bool // --show msc
	diff     bool // --trace diff
}

// showValues are the values --show takes.
var showValues = []string{"story", "msc", "involved"}

func parseViews(c *urfave.Context) (views, error) {
	var v views
	for _, s := range c.StringSlice("show") {
		switch strings.TrimSpace(s) {
		case "involved":
			v.involved = true
		case "story":
		case "msc":
			v.msc = true
		default:
			return v, usagef("--show %q: allowed values (comma-separated) are %s", s, strings.Join(showValues, ", "))
		}
	}
	switch t := c.String("trace"); t {
	case "full":
	case "diff":
		v.diff = true
	default:
		return v, usagef("--trace %q: allowed values are full and diff", t)
	}
	return v, nil
}

// symmetryRefusal says that spec declares no symmetry, and which specs of
// catalog (the command line's own, for a module that has its own) do.
func symmetryRefusal(spec string, catalog []specs.Spec) error {
	var with []string
	for _, s := range catalog {
		if s.Symmetry != "" {
			with = append(with, s.Name)
		}
	}
	if len(with) == 0 {
		return fmt.Errorf("--symmetry: %s declares no symmetry (specs.Spec.Symmetry, with automaton.Config.Symmetry in its models), and no spec of the catalog does", spec)
	}
	return fmt.Errorf("--symmetry: %s declares no symmetry (specs.Spec.Symmetry, with automaton.Config.Symmetry in its models); the specs that do: %s", spec, strings.Join(with, ", "))
}

// configFlags are the flags of the Config fields an explorer.ConfigError
// names.
var configFlags = map[string]string{
	"Strategy": "strategy", "Workers": "workers", "Properties": "property", "Metrics": "metric",
	"Reduction": "reduction", "Symmetry": "symmetry", "Fairness": "fairness", "FairSteps": "fair",
	"MaxStates": "max-states", "MaxDepth": "max-depth", "Timeout": "timeout", "MaxMemory": "max-memory",
	"Bitstate": "bitstate", "BitstateHashes": "hashes", "Coverage": "coverage",
	"Shard": "shard", "OnExpand": "cert",
}

// inFlags words a configuration error of the explorer in the flags of the
// command line, without the explorer's prefix; other errors stay as they are.
func inFlags(err error) error { return inFlagsOf(err, configFlags) }

// inFlagsOf is inFlags with the flags of the Config fields given by flags.
func inFlagsOf(err error, flags map[string]string) error {
	var ce *explorer.ConfigError
	if !errors.As(err, &ce) {
		return err
	}
	worded := ce.Words(func(field, value string) string {
		flag, ok := flags[field]
		if !ok {
			flag = strings.ToLower(field)
		}
		if value == "" {
			return "--" + flag
		}
		return "--" + flag + " " + value
	})
	return errors.New(strings.Replace(err.Error(), ce.Error(), worded, 1))
}
