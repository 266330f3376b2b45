package cli

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	urfave "github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/internal/input"
	"github.com/vacheck/vacheck/report"
	"github.com/vacheck/vacheck/shard"
	"github.com/vacheck/vacheck/specs"
	"github.com/vacheck/vacheck/tracefile"
)

// bitstateFlags are --bitstate and --hashes of `check`.
func bitstateFlags() []urfave.Flag {
	return []urfave.Flag{
		&urfave.StringFlag{Name: "bitstate", Usage: "bitstate (supertrace) search: a depth-first search whose visited set is a Bloom filter of this size, e.g. 64MiB; it runs in that memory and may omit states, so it never reports ok (safety properties only; see docs/swarm.md)"},
		&urfave.StringFlag{Name: "hashes", Usage: fmt.Sprintf("hash functions of the bitstate table, 1 to %d (default %d)", explorer.MaxBitstateHashes, explorer.DefaultBitstateHashes)},
	}
}

// coverageFlag is --coverage of `check` and `swarm`.
func coverageFlag() urfave.Flag {
	return &urfave.BoolFlag{Name: "coverage", Usage: "count the transitions fired per step, message type and receive case, and list the declared steps and message types that never fired (see docs/coverage.md)"}
}

// bitstateConfig reads --bitstate, --hashes and --coverage into cfg.
func bitstateConfig(c *urfave.Context, cfg *explorer.Config) error {
	cfg.Coverage = c.Bool("coverage")
	if c.IsSet("bitstate") {
		s := c.String("bitstate")
		b, err := parseBytes(s)
		if err != nil {
			return usagef("--bitstate %q: %v", input.Clip(s), err)
		}
		cfg.Bitstate = b
	}
	if c.IsSet("hashes") {
		k, err := parseDecimal("hashes", c.String("hashes"), 1, explorer.MaxBitstateHashes)
		if err != nil {
			return err
		}
		if cfg.Bitstate == 0 && c.Command.Name == "check" {
			return usagef("--hashes %d needs --bitstate: it is the number of hash functions of the bitstate table", k)
		}
		cfg.BitstateHashes = int(k)
	}
	return nil
}

// swarmFlags are the flags of `swarm` that are not spec parameters.
func swarmFlags() []urfave.Flag {
	flags := []urfave.Flag{
		&urfave.StringFlag{Name: "jobs", Value: strconv.Itoa(explorer.DefaultSwarmJobs), Usage: "number of diversified searches (K)"},
		&urfave.StringFlag{Name: "memory", Value: "256MiB", Usage: "bitstate memory of all the jobs (M): each job's table has M/K bytes"},
		&urfave.StringFlag{Name: "time", Usage: "stop the swarm after this long, e.g. 1m (default: no limit); jobs not started by then are not run"},
		&urfave.StringFlag{Name: "seed", Value: "1", Usage: "the swarm's seed, from which each job's successor order and hash functions are drawn"},
		bitstateFlags()[1],
		coverageFlag(),
		&urfave.StringFlag{Name: "shard", Usage: "run only the k-th of K parts of the swarm's jobs (job j when j-1 is k modulo K), each as the whole swarm runs it: k/K, or env/K as for check (docs/cluster.md)"},
	}
	for _, f := range engineFlags() {
		switch f.Names()[0] {
		case "workers":
			flags = append(flags, &urfave.StringFlag{Name: "workers", Value: f.(*urfave.StringFlag).Value, Usage: "jobs run at a time (W)"})
		case "max-states", "max-depth", "max-memory", "property", "continue", "symmetry", "format", "quiet", "show", "trace", "save-trace":
			flags = append(flags, f)
		}
	}
	return flags
}

// swarmCommand is `vacheck swarm SPEC [parameters] --jobs K --memory M
// --time T [--seed S] [--workers W]`.
func swarmCommand(stderr io.Writer, code *int, catalog []specs.Spec) *urfave.Command {
	return &urfave.Command{
		Name:      "swarm",
		Usage:     "run many small diversified bitstate searches of SPEC, to find bugs in state spaces too large to store",
		ArgsUsage: "SPEC",
		Description: "Each job is a depth-first search with its own order of successors and its own hash\n" +
			"functions, storing its states in a bitstate table of M/K bytes; W jobs run at a time. The\n" +
			"report gives each job's figures, the shortest counterexample of each property violated,\n" +
			"and the union of the jobs. Safety properties only. A job's result depends only on its seed,\n" +
			"unless --time stops it. Exit code: 1 if a property is violated, 3 otherwise (a swarm never\n" +
			"proves a property), 2 bad usage, 4 the model failed.\n" + specParamsHelp("swarm"),
		Flags: append(swarmFlags(), hiddenSpecFlags(catalog)...),
		Action: func(c *urfave.Context) error {
			var err error
			*code, err = swarm(c, stderr, catalog)
			return err
		},
	}
}

func swarm(c *urfave.Context, stderr io.Writer, catalog []specs.Spec) (int, error) {
	if c.NArg() != 1 {
		return exitUsage, usagef("swarm takes one SPEC (see 'vacheck list'), got %d arguments", c.NArg())
	}
	spec, err := lookupSpec(c.Args().First(), catalog)
	if err != nil {
		return exitUsage, err
	}
	given := map[string]string{}
	for _, f := range specFlags(catalog) {
		if name := f.Names()[0]; c.IsSet(name) {
			given[name] = c.String(name)
		}
	}
	params, err := specs.NewParams(spec, given)
	if err != nil {
		return exitUsage, err
	}
	sc, format, err := swarmConfig(c, spec, catalog)
	if err != nil {
		return exitUsage, err
	}
	views, err := parseViews(c)
	if err != nil {
		return exitUsage, err
	}
	if err := checkOutputFile(c, "save-trace"); err != nil {
		return exitUsage, err
	}
	defer tuneGC(sc.Config.MaxMemory)()
	model, err := spec.Build(params)
	if err != nil {
		return exitUsage, err
	}
	var notChecked []string
	if !c.IsSet("property") {
		sc.Config.Properties, notChecked = safetyClaims(model, sc.Config.Properties)
	}
	if !c.Bool("quiet") {
		total := sc.Jobs
		sc.JobDone = func(job explorer.SwarmJob) {
			fmt.Fprintf(stderr, "vacheck: %s\n", report.JobLine(job, total))
		}
	}
	ctx, stop := interruptible(c.Context, stderr)
	defer stop()
	sc.Config.Context = ctx
	res, err := explorer.Swarm(model, sc)
	if err != nil {
		return exitUsage, usageError{swarmWords(err)}
	}
	run := report.SwarmRun{Spec: spec.Name, Bug: spec.Bug, Params: params.Canonical(), Result: res, Rerun: rerunBase(c, spec, given),
		Involved: views.involved, TraceDiff: views.diff, NotChecked: notChecked,
		NotCheckedWhy: "a swarm's bitstate searches check safety properties only (liveness needs the exact state graph)"}
	if views.msc {
		run.Show = "msc"
	}
	if format == "json" {
		err = report.SwarmJSON(c.App.Writer, run)
	} else {
		err = report.SwarmText(c.App.Writer, run)
	}
	if err != nil {
		return exitModel, err
	}
	if !sc.Shard.Whole() && format == "text" {
		var jobs []string
		for _, j := range res.Jobs {
			jobs = append(jobs, strconv.Itoa(j.Index))
		}
		fmt.Fprintf(c.App.Writer, "\npart %s of the swarm: jobs %s of %d; the other parts run the others\n", sc.Shard, strings.Join(jobs, ", "), sc.Jobs)
	}
	var violations []tracefile.Trace
	for _, v := range res.Violations {
		violations = append(violations, savedTrace(run.Run(), v.Property, v.Kind.String(), "", v.Process, v.Trace))
	}
	if err := saveTraces(c, stderr, spec, run.Params, given, violations, nil); err != nil {
		fmt.Fprintf(stderr, "vacheck: warning: %v; the traces were not saved\n", err)
	}
	switch res.Status {
	case explorer.Violated:
		return exitViolated, nil
	case explorer.Failed:
		return exitModel, nil
	}
	return exitIncomplete, nil
}

// swarmConfig reads the swarm's flags.
func swarmConfig(c *urfave.Context, spec specs.Spec, catalog []specs.Spec) (explorer.SwarmConfig, string, error) {
	var sc explorer.SwarmConfig
	jobs, err := parseDecimal("jobs", c.String("jobs"), 1, 1<<20)
	if err != nil {
		return sc, "", err
	}
	sc.Jobs = int(jobs)
	if sc.Memory, err = parseBytes(c.String("memory")); err != nil {
		return sc, "", usagef("--memory %q: %v", input.Clip(c.String("memory")), err)
	}
	if s := c.String("time"); c.IsSet("time") {
		if sc.Timeout, err = parseTimeout(s); err != nil {
			return sc, "", usagef("--time %q: allowed: a positive duration such as 30s, 5m or 1h", input.Clip(s))
		}
	}
	seed, err := parseDecimal("seed", c.String("seed"), 0, math.MaxInt64)
	if err != nil {
		return sc, "", err
	}
	sc.Seed = uint64(seed)
	if c.IsSet("shard") {
		if sc.Shard, err = shard.Parse("shard", c.String("shard"), os.Getenv); err != nil {
			return sc, "", usageError{err}
		}
	}
	cfg := &sc.Config
	if err := engineLimits(c, cfg); err != nil {
		return sc, "", err
	}
	sc.Workers, cfg.Workers = cfg.Workers, 0
	if err := bitstateConfig(c, cfg); err != nil {
		return sc, "", err
	}
	cfg.Continue = c.Bool("continue")
	if cfg.Symmetry = c.Bool("symmetry"); cfg.Symmetry && spec.Symmetry == "" {
		return sc, "", usageError{symmetryRefusal(spec.Name, catalog)}
	}
	cfg.Properties = spec.Claims
	if ps := c.StringSlice("property"); len(ps) > 0 {
		cfg.Properties = ps
	}
	format := c.String("format")
	if format != "text" && format != "json" {
		return sc, "", usagef("--format %q: allowed values are text and json", format)
	}
	return sc, format, nil
}

// swarmWords words a configuration error of a swarm in its flags: those
// of check, and of the SwarmConfig fields.
func swarmWords(err error) error {
	flags := map[string]string{"Jobs": "jobs", "Memory": "memory", "Timeout": "time", "Shard": "shard"}
	for field, flag := range configFlags {
		if _, ok := flags[field]; !ok {
			flags[field] = flag
		}
	}
	return inFlagsOf(err, flags)
}
