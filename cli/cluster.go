package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	urfave "github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/cluster"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/report"
	"github.com/vacheck/vacheck/specs"
)

// clusterFlags are the flags of a distributed check (see docs/distributed.md).
func clusterFlags() []urfave.Flag {
	return []urfave.Flag{
		&urfave.StringFlag{Name: "cluster", Usage: "distributed search over NATS: nats://HOST:PORT (a server to join) or embedded:PORT (start one in this process on 127.0.0.1:PORT); with --ranks and --rank (see docs/distributed.md)"},
		&urfave.StringFlag{Name: "ranks", Usage: "with --cluster: the number of processes (ranks) K of the distributed search"},
		&urfave.StringFlag{Name: "rank", Usage: "with --cluster: this process's rank, 0 to K-1, or env (JOB_COMPLETION_INDEX, else SLURM_ARRAY_TASK_ID, 0-based); rank 0 prints the report"},
		&urfave.StringFlag{Name: "cluster-timeout", Value: cluster.DefaultTimeout.String(), Usage: "with --cluster: a rank not heard from, or the server lost, for this long ends the run as incomplete (exit 3)"},
		&urfave.StringFlag{Name: "cluster-run", Usage: "with --cluster: the run's name, so that two runs on one server do not mix (default: the spec's name and K)"},
	}
}

// clusterOnly are the flags that only a distributed check takes.
var clusterOnly = []string{"ranks", "rank", "cluster-timeout", "cluster-run"}

// wantsCluster reports whether c asks for a distributed check, and refuses
// the flags of one without --cluster.
func wantsCluster(c *urfave.Context) (bool, error) {
	if c.IsSet("cluster") {
		return true, nil
	}
	for _, f := range clusterOnly {
		if c.IsSet(f) {
			return false, usagef("--%s is a flag of a distributed run: give --cluster nats://HOST:PORT or --cluster embedded:PORT too", f)
		}
	}
	return false, nil
}

// clusterRefused are the flags of check that a distributed run does not
// take, with what to do instead.
var clusterRefused = []struct{ flag, why string }{
	{"max-states", "a distributed run has no state limit"},
	{"max-depth", "a distributed run has no depth limit"},
	{"timeout", "a distributed run has no time limit; --cluster-timeout bounds waiting for a rank"},
	{"max-memory", "a distributed run has no memory limit"},
	{"continue", "a distributed run stops at the first level with a violation"},
	{"symmetry", "a distributed run stores every state"},
	{"metric", "metrics need the whole state graph in one place"},
	{"bitstate", "a distributed run is exhaustive"},
	{"hashes", "a distributed run is exhaustive"},
	{"coverage", "a distributed run does not count coverage"},
	{"checkpoint", "a distributed run keeps no checkpoint"},
	{"checkpoint-every", "a distributed run keeps no checkpoint"},
	{"html", "a distributed run writes no chart"},
	{"fair", "fairness is for liveness, which a distributed run does not check"},
	{"per-initial-state", "a distributed run checks every initial state in one search"},
	{"save-trace", "a distributed run saves no trace"},
}

// clusterConfig reads the distributed flags of c into a cluster.Config.
func clusterConfig(c *urfave.Context, spec specs.Spec, params *specs.Params, props []string) (cluster.Config, error) {
	var cfg cluster.Config
	for _, r := range clusterRefused {
		if c.IsSet(r.flag) {
			return cfg, usagef("--%s with --cluster: %s; run without --cluster to use --%s", r.flag, r.why, r.flag)
		}
	}
	if c.IsSet("strategy") && c.String("strategy") != "bfs" {
		return cfg, usagef("--strategy %q with --cluster: a distributed run is breadth first; allowed value is bfs", c.String("strategy"))
	}
	if c.IsSet("reduction") && c.String("reduction") != "none" {
		return cfg, usagef("--reduction %q with --cluster: a distributed run explores every state; allowed value is none", c.String("reduction"))
	}
	var err error
	if cfg.Server, cfg.Embedded, err = cluster.ParseServer(c.String("cluster")); err != nil {
		return cfg, err
	}
	if !c.IsSet("ranks") || !c.IsSet("rank") {
		return cfg, usagef("--cluster needs --ranks K (the number of processes) and --rank k (this one's, 0 to K-1, or env)")
	}
	if cfg.Ranks, err = strconv.Atoi(c.String("ranks")); err != nil || cfg.Ranks < 1 {
		return cfg, usagef("--ranks %q: allowed values are 1 or more", c.String("ranks"))
	}
	if cfg.Rank, err = cluster.ParseRank(c.String("rank"), nil); err != nil {
		return cfg, err
	}
	if cfg.Workers, err = strconv.Atoi(c.String("workers")); err != nil || cfg.Workers < 1 {
		return cfg, usagef("--workers %q: allowed values are 1 or more", c.String("workers"))
	}
	if cfg.Timeout, err = time.ParseDuration(c.String("cluster-timeout")); err != nil || cfg.Timeout <= 0 {
		return cfg, usagef("--cluster-timeout %q: allowed values are positive durations such as 30s or 2m", c.String("cluster-timeout"))
	}
	cfg.Run = c.String("cluster-run")
	if cfg.Run == "" {
		cfg.Run = fmt.Sprintf("%s-k%d", spec.Name, cfg.Ranks)
	}
	cfg.Properties = props
	cfg.Digest = clusterDigest(c, spec, params, props, cfg.Ranks)
	return cfg, nil
}

// clusterDigest identifies what every rank must agree on: the build, the
// spec, its parameters, the properties (and their expressions) and K.
func clusterDigest(c *urfave.Context, spec specs.Spec, params *specs.Params, props []string, ranks int) string {
	h := sha256.New()
	canon, _ := json.Marshal(params.Canonical()) // sorted keys
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%q\x00%d\x00", explorer.BuildID(), spec.Name, canon, props, ranks)
	for _, f := range propFlags() {
		name := f.Names()[0]
		if c.IsSet(name) {
			fmt.Fprintf(h, "%s=%v\x00", name, c.Generic(name))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// clusterCheck runs check as one rank of a distributed search: rank 0
// prints the report as check does, the others one line of their part.
func clusterCheck(c *urfave.Context, stderr io.Writer, spec specs.Spec, params *specs.Params, cfg explorer.Config, format string, v views, model explorer.Model) (int, error) {
	props, notChecked := cfg.Properties, []string(nil)
	if !c.IsSet("property") {
		props, notChecked = safetyClaims(model, cfg.Properties)
	}
	ccfg, err := clusterConfig(c, spec, params, props)
	if err != nil {
		if errors.Is(err, cluster.ErrUsage) {
			err = usageError{err}
		}
		return exitUsage, err
	}
	if !c.Bool("quiet") {
		ccfg.Log = stderr
	}
	ctx, stop := interruptible(c.Context, stderr)
	defer stop()
	ccfg.Context = ctx
	out, err := cluster.Run(model, ccfg)
	if err != nil {
		if errors.Is(err, cluster.ErrUsage) {
			return exitUsage, usageError{err}
		}
		return exitModel, err
	}
	res := out.Result
	code := exitModel
	switch res.Status {
	case explorer.OK:
		code = exitOK
	case explorer.Violated:
		code = exitViolated
	case explorer.Incomplete:
		code = exitIncomplete
	}
	if ccfg.Rank != 0 {
		if format == "json" {
			err = json.NewEncoder(c.App.Writer).Encode(struct {
				Status string        `json:"status"`
				Reason string        `json:"reason,omitempty"`
				Share  cluster.Share `json:"share"`
			}{res.Status.String(), res.Reason, out.Share})
		} else {
			_, err = fmt.Fprintf(c.App.Writer, "%s: %s\n", res.Status, out.Share)
		}
		if err != nil {
			return exitModel, err
		}
		return code, nil
	}
	fmt.Fprintf(stderr, "vacheck: %s\n", out.Share)
	run := report.Run{Spec: spec.Name, Bug: spec.Bug, Params: params.Canonical(), Result: res,
		Involved: v.involved, TraceDiff: v.diff, NotChecked: notChecked,
		NotCheckedWhy: "--cluster checks safety properties only; run without --cluster to check liveness"}
	if v.msc {
		run.Show = "msc"
	}
	if spec.Hint != nil {
		run.Hint = spec.Hint(params)
	}
	if format == "json" {
		err = report.JSON(c.App.Writer, run)
	} else {
		err = report.Text(c.App.Writer, run)
	}
	if err != nil {
		return exitModel, err
	}
	return code, nil
}
