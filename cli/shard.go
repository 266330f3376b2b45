package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	urfave "github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/report"
	"github.com/vacheck/vacheck/shard"
	"github.com/vacheck/vacheck/specs"
	"github.com/zeebo/xxh3"
)

// shardFlags are the flags of `check` that split it by initial state
// (docs/cluster.md).
func shardFlags() []urfave.Flag {
	return []urfave.Flag{
		&urfave.StringFlag{Name: "shard", Usage: "check only the k-th of K parts of the initial states (round-robin by index, k from 0): k/K, or env/K to take k from JOB_COMPLETION_INDEX (Kubernetes Indexed Job) or SLURM_ARRAY_TASK_ID (Slurm array submitted as --array=0-(K-1)); merge the parts' --cert files with 'vacheck merge'"},
		&urfave.StringFlag{Name: "cert", Usage: "write this part's certificate (JSON) to FILE, and next to it (FILE without .json, plus .fps) its fingerprint set when the parts may overlap, for 'vacheck merge'"},
	}
}

// shardCertFormat names the format of the certificates `check --cert`
// writes and `merge` reads.
const shardCertFormat = "vacheck-shard-certificate/1"

// shardCert is the certificate of one part of a sharded check: enough for
// `vacheck merge` to refuse parts that do not belong together and to
// give the report of the whole check.
type shardCert struct {
	Format string `json:"format"`
	// Build is the vacheck that ran the part (version and VCS revision).
	Build string `json:"build"`
	// Digest digests the spec, its canonical parameters and the engine
	// flags that change counts or verdicts (Identity, in words).
	Digest   string `json:"digest"`
	Identity string `json:"identity"`
	Shard    int    `json:"shard"`
	Shards   int    `json:"shards"`
	// Initial is the number of initial states of the part, and
	// AllInitial of the whole check.
	Initial    int `json:"initial_states"`
	AllInitial int `json:"all_initial_states"`
	// Mode says how the parts' counts combine (shard.Mode); ModeWhy why
	// they may overlap; Constants digests the constant parts of every
	// initial state (disjoint).
	Mode      string `json:"mode"`
	ModeWhy   string `json:"mode_reason,omitempty"`
	Constants string `json:"constants,omitempty"`
	// SetFile is the fingerprint set (union mode), relative to the
	// certificate's directory.
	SetFile string         `json:"fingerprint_set,omitempty"`
	Set     *shard.SetInfo `json:"fingerprint_set_info,omitempty"`
	Exit    int            `json:"exit_code"`
	// Summary is the part's figures and verdicts in the format of sweep's
	// certificates (format 2).
	Summary certificate `json:"summary"`
	// Report is what the report of the part, and of the merge, is made of.
	Report certReport `json:"report"`
}

// certReport is a report.Run without its model: what the merge needs to
// print the whole check's report.
type certReport struct {
	Spec          string         `json:"spec"`
	Bug           string         `json:"bug,omitempty"`
	BoundDoc      string         `json:"bound_doc,omitempty"`
	Params        map[string]any `json:"params"`
	Reducible     bool           `json:"reducible,omitempty"`
	Hint          string         `json:"hint,omitempty"`
	NotChecked    []string       `json:"not_checked,omitempty"`
	NotCheckedWhy string         `json:"not_checked_reason,omitempty"`
	Metrics       []string       `json:"metric_flags,omitempty"`
	Continue      bool           `json:"continue,omitempty"`
	Result        certResult     `json:"result"`
}

// certResult is the part of an explorer.Result a certificate keeps.
type certResult struct {
	Status      explorer.Status           `json:"status"`
	Strategy    explorer.Strategy         `json:"strategy"`
	Workers     int                       `json:"workers"`
	States      int64                     `json:"states"`
	Unchecked   int64                     `json:"unchecked_states,omitempty"`
	Transitions int64                     `json:"transitions"`
	Depth       int                       `json:"depth"`
	Terminal    int64                     `json:"terminal"`
	Exhaustive  bool                      `json:"exhaustive"`
	Cut         int64                     `json:"cut,omitempty"`
	Elapsed     time.Duration             `json:"elapsed_ns"`
	PeakMemory  uint64                    `json:"peak_memory"`
	Properties  []explorer.PropertyResult `json:"properties"`
	Violations  []explorer.Violation      `json:"violations,omitempty"`
	Witnesses   []explorer.Violation      `json:"witnesses,omitempty"`
	Reason      string                    `json:"reason,omitempty"`
	Limit       explorer.Limit            `json:"limit,omitempty"`
	Failure     *explorer.Trace           `json:"failure,omitempty"`
	Fairness    explorer.Fairness         `json:"fairness"`
	Metrics     []explorer.Metric         `json:"metrics,omitempty"`
	Tracked     string                    `json:"tracked,omitempty"`
}

func certResultOf(r *explorer.Result) certResult {
	return certResult{Status: r.Status, Strategy: r.Strategy, Workers: r.Workers, States: r.States, Unchecked: r.Unchecked, Transitions: r.Transitions,
		Depth: r.Depth, Terminal: r.Terminal, Exhaustive: r.Exhaustive, Cut: r.Cut, Elapsed: r.Elapsed, PeakMemory: r.PeakMemory,
		Properties: r.Properties, Violations: r.Violations, Witnesses: r.Witnesses, Reason: r.Reason, Limit: r.Limit,
		Failure: r.Failure, Fairness: r.Fairness, Metrics: r.Metrics, Tracked: r.Tracked}
}

func (c certResult) result() *explorer.Result {
	r := &explorer.Result{Status: c.Status, Strategy: c.Strategy, Workers: c.Workers, States: c.States, Unchecked: c.Unchecked, Transitions: c.Transitions,
		Depth: c.Depth, Terminal: c.Terminal, Exhaustive: c.Exhaustive, Cut: c.Cut, Elapsed: c.Elapsed, PeakMemory: c.PeakMemory,
		Properties: c.Properties, Violations: c.Violations, Witnesses: c.Witnesses, Reason: c.Reason, Limit: c.Limit,
		Failure: c.Failure, Fairness: c.Fairness, Metrics: c.Metrics, Tracked: c.Tracked}
	if r.Status == explorer.Failed {
		r.Err = fmt.Errorf("%s", c.Reason)
	}
	return r
}

// shardRun is a check's part: what --shard and --cert asked for.
type shardRun struct {
	part     explorer.Shard
	cert     string // --cert, or ""
	rec      *shard.Recorder
	spec     specs.Spec
	params   *specs.Params
	identity string
}

// shardConfig reads --shard and --cert into cfg for a check of model, or
// returns nil when neither is given.
func shardConfig(c *urfave.Context, spec specs.Spec, params *specs.Params, model explorer.Model, cfg *explorer.Config) (*shardRun, error) {
	if !c.IsSet("shard") && !c.IsSet("cert") {
		return nil, nil
	}
	sr := &shardRun{part: explorer.Shard{Index: 0, Count: 1}, spec: spec, params: params}
	if c.IsSet("shard") {
		part, err := shard.Parse("shard", c.String("shard"), os.Getenv)
		if err != nil {
			return nil, usageError{err}
		}
		sr.part = part
	}
	if sr.cert = c.String("cert"); c.IsSet("cert") {
		if strings.TrimSpace(sr.cert) == "" || strings.HasSuffix(sr.cert, string(filepath.Separator)) {
			return nil, usagef("--cert %q: allowed: the name of a file to write, such as shard-0.json", sr.cert)
		}
		if st, err := os.Stat(filepath.Dir(sr.cert)); err != nil || !st.IsDir() {
			return nil, usagef("--cert %q: its directory %s does not exist", sr.cert, filepath.Dir(sr.cert))
		}
		if cfg.Checkpoint != nil {
			return nil, usagef("--cert with --checkpoint: a certificate covers the whole run of its part, and 'vacheck resume' does not write one; run the part without --checkpoint, or without --cert")
		}
	}
	return sr, sr.attach(model, cfg)
}

// attach sets the part in cfg, for a check of model, and when a
// certificate is asked for, the recorder that establishes how the parts'
// counts combine.
func (sr *shardRun) attach(model explorer.Model, cfg *explorer.Config) error {
	cfg.Shard = sr.part
	sr.identity = shardIdentity(sr.spec.Name, sr.params, *cfg)
	if sr.cert == "" {
		return nil
	}
	// The recorder reads the states the search explores: those of the
	// model instrumented for the metrics asked for.
	explored, err := explorer.Instrument(model, cfg.Metrics)
	if err != nil {
		return err
	}
	if sr.rec, err = shard.NewRecorder(explored, sr.part); err != nil {
		return err
	}
	cfg.OnExpand = sr.rec.Hook
	return nil
}

// sweepShardFlags are the flags of `sweep` that split each N's check.
func sweepShardFlags() []urfave.Flag {
	return []urfave.Flag{
		&urfave.StringFlag{Name: "shard", Usage: "check only the k-th of K parts of each N's initial states, as check --shard does: k/K or env/K"},
		&urfave.StringFlag{Name: "cert", Usage: "with --shard: write each N's part certificate into this directory, as SPEC-nN-shard-k.json, for 'vacheck merge DIR/SPEC-nN-shard-*.json'"},
	}
}

// sweepShard reads sweep's --shard and --cert: the part of each N's
// initial states to check (the whole when not given) and the directory of
// the certificates.
func sweepShard(c *urfave.Context, baseline bool) (explorer.Shard, string, error) {
	if !c.IsSet("shard") {
		if c.IsSet("cert") {
			return explorer.Shard{}, "", usagef("--cert %q needs --shard k/K: a sweep writes the certificates of its parts", c.String("cert"))
		}
		return explorer.Shard{}, "", nil
	}
	part, err := shard.Parse("shard", c.String("shard"), os.Getenv)
	if err != nil {
		return part, "", usageError{err}
	}
	if baseline {
		return part, "", usagef("--shard with --baseline: a part's figures are not the whole check's; merge the parts' certificates, then compare")
	}
	dir := c.String("cert")
	if c.IsSet("cert") {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return part, "", usagef("--cert %q: allowed: an existing directory, where each N's certificate is written", dir)
		}
	}
	return part, dir, nil
}

// sweepCertPath is the certificate of part p of N's check in dir, or ""
// without a directory.
func sweepCertPath(dir, spec string, n int, p explorer.Shard) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, fmt.Sprintf("%s-n%d-shard-%d.json", spec, n, p.Index))
}

// shardIdentity says in words what decides a part's counts and verdicts
// besides the part: the spec, its canonical parameters and the engine
// settings. Limits (time, memory, states) and workers are left out: parts
// may run with different ones.
func shardIdentity(spec string, params *specs.Params, cfg explorer.Config) string {
	p, _ := json.Marshal(params.Canonical()) // map keys sorted
	var fair []string
	for _, f := range cfg.FairSteps {
		fair = append(fair, fmt.Sprint(f))
	}
	if cfg.Strategy == 0 {
		cfg.Strategy = explorer.BFS
	}
	return fmt.Sprintf("spec %s, params %s, strategy %s, reduction %s, symmetry %v, fairness %s, fair %v, properties %v, metrics %v, continue %v, max-depth %d, coverage %v",
		spec, p, cfg.Strategy, cfg.Reduction, cfg.Symmetry, cfg.Fairness, fair, cfg.Properties, cfg.Metrics, cfg.Continue, cfg.MaxDepth, cfg.Coverage)
}

// note says, under the text report of a part, that its figures and
// verdict are the part's, not the whole check's: an "OK" of one part is
// not a proof.
func (sr *shardRun) note(w io.Writer, format string) {
	if sr == nil || sr.part.Whole() || format != "text" {
		return
	}
	var part, all int
	if sr.rec != nil {
		part, all = sr.rec.Initial()
		fmt.Fprintf(w, "\npart %s: %d of the %d initial states; the figures and the verdict are this part's: 'vacheck merge' of every part's --cert gives the whole check's\n", sr.part, part, all)
		return
	}
	fmt.Fprintf(w, "\npart %s of the initial states; the figures and the verdict are this part's: run every part with --cert and 'vacheck merge' them for the whole check's\n", sr.part)
}

// setFileOf is the fingerprint set file written next to the certificate
// cert.
func setFileOf(cert string) string {
	return strings.TrimSuffix(cert, ".json") + ".fps"
}

// finish writes the part's certificate, when --cert asked for one: the
// fingerprint set first (union mode), then the certificate, each whole or
// not at all.
func (sr *shardRun) finish(res *explorer.Result, run report.Run, cfg explorer.Config, code int) error {
	if sr == nil || sr.cert == "" {
		return nil
	}
	if err := sr.rec.Verify(res); err != nil {
		return err
	}
	part, all := sr.rec.Initial()
	c := shardCert{
		Format: shardCertFormat, Build: version(), Identity: sr.identity,
		Digest: fmt.Sprintf("%016x", xxh3.HashString(sr.identity)),
		Shard:  sr.part.Index, Shards: sr.part.Count, Initial: part, AllInitial: all,
		Mode: sr.rec.Mode().String(), ModeWhy: sr.rec.Why(), Exit: code,
		Summary: newCertificate(sr.spec.Name, sr.params.Canonical(), res),
		Report: certReport{Spec: run.Spec, Bug: run.Bug, BoundDoc: run.BoundDoc, Params: run.Params, Reducible: run.Reducible,
			Hint: run.Hint, NotChecked: run.NotChecked, NotCheckedWhy: run.NotCheckedWhy, Metrics: run.Metrics, Continue: run.Continue,
			Result: certResultOf(res)},
	}
	c.Summary.recordFlags(cfg, cfg.Properties)
	if sr.rec.Mode() == shard.Disjoint {
		c.Constants = fmt.Sprintf("%016x", sr.rec.Constants())
	} else {
		path := setFileOf(sr.cert)
		info, err := shard.WriteSet(path, sr.rec.Records())
		if err != nil {
			return err
		}
		c.SetFile, c.Set = filepath.Base(path), &info
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("--cert %s: %w", sr.cert, err)
	}
	return writeWhole(sr.cert, append(data, '\n'))
}

// writeWhole writes data to path whole or not at all: a temporary file in
// the same directory, renamed.
func writeWhole(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("--cert %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("--cert %s: %w", path, err)
	}
	return nil
}

// statusCode is the exit code of a check that ended with status st.
func statusCode(st explorer.Status) int {
	switch st {
	case explorer.OK:
		return exitOK
	case explorer.Violated:
		return exitViolated
	case explorer.Incomplete:
		return exitIncomplete
	case explorer.Bounded:
		return exitBounded
	}
	return exitModel
}
