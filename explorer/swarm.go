package explorer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/vacheck/vacheck/internal/hll"
	"golang.org/x/sync/errgroup"
)

// SwarmConfig sets how Swarm runs: Jobs diversified bitstate searches,
// Workers of them at a time.
type SwarmConfig struct {
	// Config is what every job searches for: its Properties, Continue,
	// MaxDepth, MaxStates (per job), MaxMemory (the process's), Symmetry,
	// Coverage, BitstateHashes and Context. Each job is a depth-first
	// search with a bitstate table of Memory/Jobs bytes, seeded by the
	// job (see SwarmJob), so Strategy, Workers, Bitstate, BitstateSeed,
	// OrderSeed, Checkpoint, Progress and Timeout must be left zero: the
	// swarm's time is Timeout below.
	Config Config
	// Jobs is the number of searches (K); 8 when zero.
	Jobs int
	// Memory is the bitstate memory of all the jobs (M): each job's table
	// has Memory/Jobs bytes (at least MinBitstateBytes). 256 MiB when
	// zero.
	Memory uint64
	// Workers is how many jobs run at a time; GOMAXPROCS when zero.
	Workers int
	// Seed is the swarm's seed, from which each job's is drawn.
	Seed uint64
	// Timeout ends the swarm after this long: the jobs running then end
	// incomplete with what they found, and those not started are not run.
	// Zero means no limit.
	Timeout time.Duration
	// JobDone, when set, is called as each job ends, one call at a time.
	JobDone func(SwarmJob)
	// Shard, when set, runs only the jobs of that part of the swarm's
	// Jobs: job j (numbered from 1) when j-1 is Shard.Index modulo
	// Shard.Count. Each is the job the whole swarm runs (the same seeds,
	// the same table of Memory/Jobs bytes), so the parts, run apart, run
	// the whole swarm's jobs between them.
	Shard Shard
}

// DefaultSwarmJobs and DefaultSwarmMemory are SwarmConfig's Jobs and Memory
// when zero.
const (
	DefaultSwarmJobs   = 8
	DefaultSwarmMemory = 256 << 20
)

// SwarmJob is one job of a swarm: a depth-first search that explores the
// new successors of each state in an order drawn from OrderSeed
// (Config.OrderSeed), with a bitstate table whose hash functions are seeded
// by HashSeed. Both come from the job's Seed alone, which comes from the
// swarm's seed and the job's number, so a job's result depends only on its
// seed and its table's size, and not on the other jobs or the number of
// workers (unless a time or memory limit stopped it).
type SwarmJob struct {
	Index              int // from 1
	Seed               uint64
	OrderSeed          uint64
	HashSeed           uint64
	Bytes              uint64 // the bitstate table's size
	Started            bool   // false: the swarm's time ran out first
	Start              time.Duration
	Result             *Result // nil unless Started
	Err                error
	firstViolationTime time.Duration
}

// SwarmViolation is a counterexample a swarm found: the shortest found for
// its property, by job Job, and how many jobs found one.
type SwarmViolation struct {
	Violation
	Job   int
	Found int
}

// SwarmResult is the outcome of a swarm.
type SwarmResult struct {
	// Status is Violated when a job found a counterexample, Failed when
	// the model failed in a job (Err), and Incomplete otherwise: a swarm
	// never tells that a property holds.
	Status Status
	// Reason says why the swarm is incomplete.
	Reason string
	Jobs   []SwarmJob
	// Properties gives each property's verdict over the jobs: violated
	// when a job violated it, unknown otherwise (or skipped).
	Properties []PropertyResult
	// Violations are the shortest counterexample of each property
	// violated, shortest first.
	Violations []SwarmViolation
	// States estimates the distinct states the jobs stored between them
	// (their union, from a HyperLogLog sketch of each job's states, about
	// 0.8% standard error); Stored is the sum of the jobs' states, which
	// counts a state once per job that stored it.
	States                 float64
	Stored, Transitions    int64
	Depth                  int
	ExpectedOmitted        float64 // summed over the jobs
	Elapsed, FirstFound    time.Duration
	FirstFoundJob          int // 0 when no job found a violation
	Workers                int
	Memory, BytesPerJob    uint64
	Hashes                 int
	Seed                   uint64
	Timeout                time.Duration
	TimedOut, Interrupted  bool
	Coverage               *Coverage // the union, with Config.Coverage
	Err                    error
	jobsNotStarted, failed int
}

// Swarm runs cfg.Jobs diversified depth-first searches of m, each with its
// own successor order and its own bitstate hash functions in a table of
// cfg.Memory/cfg.Jobs bytes (Holzmann, Joshi and Groce, "Swarm
// verification", ASE 2008): small searches that each cover a different
// part of a state space too large to store, and together find bugs that
// none of them, nor an exhaustive search, would reach in the same memory.
// The error is non-nil only for a bad configuration.
func Swarm(m Model, cfg SwarmConfig) (*SwarmResult, error) {
	base, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	// Refuse a bad Config once, before any job runs.
	probe := base
	probe.Bitstate, probe.OrderSeed = cfg.Memory/uint64(cfg.Jobs), 1
	if _, err := probe.validate(m.Properties()); err != nil {
		return nil, err
	}
	ctx := cmp.Or(base.Context, context.Background())
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, cfg.Timeout, errSwarmTime)
		defer cancel()
	}
	res := &SwarmResult{
		Workers: cfg.Workers, Memory: cfg.Memory, BytesPerJob: probe.Bitstate, Hashes: cmp.Or(base.BitstateHashes, DefaultBitstateHashes),
		Seed: cfg.Seed, Timeout: cfg.Timeout,
	}
	for j := range cfg.Jobs {
		if cfg.Shard.Has(j) {
			res.Jobs = append(res.Jobs, SwarmJob{Index: j + 1})
		}
	}
	start := time.Now()
	var mu sync.Mutex // JobDone, one call at a time
	var g errgroup.Group
	g.SetLimit(cfg.Workers)
	for j := range res.Jobs {
		job := &res.Jobs[j]
		job.Seed = swarmSeed(cfg.Seed, uint64(job.Index))
		job.OrderSeed, job.HashSeed = nonzero(splitmix(job.Seed^0x6f72646572)), splitmix(job.Seed^0x68617368)
		job.Bytes = probe.Bitstate
		g.Go(func() error {
			if ctx.Err() != nil {
				return nil // the swarm's time is up, or it was interrupted
			}
			job.Started, job.Start = true, time.Since(start)
			jc := base
			jc.Strategy, jc.Workers = DFS, 1
			jc.Bitstate, jc.BitstateSeed, jc.OrderSeed = job.Bytes, job.HashSeed, job.OrderSeed
			jc.Context = ctx
			jc.Progress = nil
			job.Result, job.Err = Check(m, jc)
			if job.Result != nil && len(job.Result.Violations) > 0 {
				job.firstViolationTime = job.Start + job.Result.Elapsed
			}
			if cfg.JobDone != nil {
				mu.Lock()
				defer mu.Unlock()
				cfg.JobDone(*job)
			}
			return nil
		})
	}
	_ = g.Wait()
	for _, job := range res.Jobs {
		if errors.Is(job.Err, ErrConfig) {
			return nil, job.Err // every job has the same Config: refused
		}
	}
	res.Elapsed = time.Since(start)
	res.summarize(ctx, m)
	return res, nil
}

// errSwarmTime is the cause of the context that ends a swarm at its
// Timeout.
var errSwarmTime = errors.New("the swarm's time limit was reached")

// validate fills in cfg's defaults and returns the jobs' common Config.
func (cfg *SwarmConfig) validate() (Config, error) {
	c := cfg.Config
	switch {
	case cfg.Jobs < 0:
		return c, configError("Jobs", fmt.Sprint(cfg.Jobs), "{Jobs %d}: must be at least 1", cfg.Jobs)
	case cfg.Workers < 0:
		return c, configError("Workers", fmt.Sprint(cfg.Workers), "{Workers %d}: must be at least 1", cfg.Workers)
	case cfg.Timeout < 0:
		return c, configError("Timeout", fmt.Sprint(cfg.Timeout), "{Timeout %s}: must not be negative", cfg.Timeout)
	case c.Strategy == BFS:
		return c, configError("Strategy", "bfs", "{Strategy bfs}: a swarm's jobs are depth-first searches")
	case c.Workers != 0 || c.Bitstate != 0 || c.BitstateSeed != 0 || c.OrderSeed != 0 || c.Checkpoint != nil || c.Timeout != 0 || c.Progress != nil:
		return c, configError("", "", "a swarm sets its jobs' Workers, Bitstate, BitstateSeed, OrderSeed and time itself, and saves no checkpoints: leave them zero in SwarmConfig.Config")
	}
	cfg.Jobs = cmp.Or(cfg.Jobs, DefaultSwarmJobs)
	cfg.Memory = cmp.Or(cfg.Memory, DefaultSwarmMemory)
	if err := cfg.Shard.validate(); err != nil {
		return c, err
	}
	if !cfg.Shard.Whole() && cfg.Shard.Index >= cfg.Jobs {
		return c, configError("Shard", cfg.Shard.String(), "{Shard %s}: the swarm has %d jobs, so part %d has none; use at most %d parts", cfg.Shard, cfg.Jobs, cfg.Shard.Index, cfg.Jobs)
	}
	cfg.Workers = min(cmp.Or(cfg.Workers, runtime.GOMAXPROCS(0)), cfg.partJobs())
	if cfg.Jobs > 1<<20 {
		return c, configError("Jobs", fmt.Sprint(cfg.Jobs), "{Jobs %d}: at most %d", cfg.Jobs, 1<<20)
	}
	if per := cfg.Memory / uint64(cfg.Jobs); per < MinBitstateBytes {
		return c, configError("Memory", fmt.Sprint(cfg.Memory), "{Memory %d}: %d jobs would have %d bytes of bitstate table each, and a table takes at least %d", cfg.Memory, cfg.Jobs, per, MinBitstateBytes)
	}
	if c.MaxMemory > 0 && cfg.Memory/uint64(cfg.Jobs)*uint64(cfg.Workers) >= c.MaxMemory {
		return c, configError("Memory", fmt.Sprint(cfg.Memory), "{Memory %d}: %d jobs at a time, with %d bytes of table each, would not fit under {MaxMemory %d} with their stacks; give less memory, more jobs or fewer workers", cfg.Memory, cfg.Workers, cfg.Memory/uint64(cfg.Jobs), c.MaxMemory)
	}
	return c, nil
}

// partJobs is the number of jobs of the swarm's part (Shard).
func (cfg *SwarmConfig) partJobs() int {
	if cfg.Shard.Whole() {
		return cfg.Jobs
	}
	return max(1, (cfg.Jobs-1-cfg.Shard.Index)/cfg.Shard.Count+1)
}

// summarize sets the swarm's verdicts, violations, union and status from
// its jobs.
func (r *SwarmResult) summarize(ctx context.Context, m Model) {
	var union *hll.Sketch
	var cover *CoverageCounter
	found := map[string]*SwarmViolation{}
	for _, job := range r.Jobs {
		if !job.Started {
			r.jobsNotStarted++
			continue
		}
		if job.Err != nil {
			r.failed++
			r.Err = cmp.Or(r.Err, job.Err)
			continue
		}
		jr := job.Result
		if jr.Status == Failed {
			r.failed++
			r.Err = cmp.Or(r.Err, fmt.Errorf("job %d: %w", job.Index, jr.Err))
		}
		r.Stored += jr.States
		r.Transitions += jr.Transitions
		r.Depth = max(r.Depth, jr.Depth)
		if jr.Bitstate != nil {
			r.ExpectedOmitted += jr.Bitstate.ExpectedOmitted
		}
		if jr.sketch != nil {
			if union == nil {
				union = new(hll.Sketch)
			}
			union.Merge(jr.sketch)
		}
		if jr.cover != nil {
			if cover == nil {
				cover = jr.cover.empty()
			}
			cover.Merge(jr.cover)
		}
		if r.Properties == nil {
			for _, p := range jr.Properties {
				if p.Verdict != Skipped {
					p.Verdict = Unknown
				}
				r.Properties = append(r.Properties, p)
			}
		}
		for _, v := range jr.Violations {
			for k := range r.Properties {
				if r.Properties[k].Name == v.Property {
					r.Properties[k].Verdict = ViolatedVerdict
				}
			}
			key := fmt.Sprintf("%s/%d", v.Property, v.Process)
			f := found[key]
			if f == nil {
				f = &SwarmViolation{Violation: v, Job: job.Index}
				found[key] = f
			} else if len(v.Trace.Steps)+len(v.Trace.Cycle) < len(f.Trace.Steps)+len(f.Trace.Cycle) {
				f.Violation, f.Job = v, job.Index
			}
			f.Found++
		}
		if len(jr.Violations) > 0 && (r.FirstFoundJob == 0 || job.firstViolationTime < r.FirstFound) {
			r.FirstFound, r.FirstFoundJob = job.firstViolationTime, job.Index
		}
	}
	if union != nil {
		r.States = union.Estimate()
	}
	if cover != nil {
		r.Coverage = cover.Coverage()
	}
	for _, f := range found {
		r.Violations = append(r.Violations, *f)
	}
	slices.SortFunc(r.Violations, func(a, b SwarmViolation) int {
		la, lb := len(a.Trace.Steps)+len(a.Trace.Cycle), len(b.Trace.Steps)+len(b.Trace.Cycle)
		return cmp.Or(cmp.Compare(la, lb), cmp.Compare(a.Property, b.Property), cmp.Compare(a.Process, b.Process))
	})
	if r.Properties == nil {
		// No job ran: the verdicts of the model's properties are unknown.
		for _, p := range m.Properties() {
			r.Properties = append(r.Properties, PropertyResult{Info: p, Verdict: Unknown})
		}
	}
	r.TimedOut = errors.Is(context.Cause(ctx), errSwarmTime)
	r.Interrupted = ctx.Err() != nil && !r.TimedOut
	switch {
	case r.failed > 0:
		r.Status = Failed
		r.Reason = r.Err.Error()
	case len(r.Violations) > 0:
		r.Status = Violated
	default:
		r.Status = Incomplete
		r.Reason = r.incompleteReason(ctx)
	}
}

// incompleteReason says why a swarm that found no violation is
// incomplete: always, since its jobs may omit states; and whether its
// time ran out.
func (r *SwarmResult) incompleteReason(ctx context.Context) string {
	why := fmt.Sprintf("a swarm of bitstate searches may omit states (%.3g expected over the jobs)", r.ExpectedOmitted)
	switch {
	case r.TimedOut:
		why = fmt.Sprintf("time limit reached (--time %s) with %d of %d jobs not started; %s", r.Timeout, r.jobsNotStarted, len(r.Jobs), why)
	case r.Interrupted:
		why = fmt.Sprintf("%s with %d of %d jobs not started; %s", context.Cause(ctx), r.jobsNotStarted, len(r.Jobs), why)
	}
	return why
}

// swarmSeed is the seed of job j of a swarm with seed seed.
func swarmSeed(seed, j uint64) uint64 { return splitmix(seed + j*0x9e3779b97f4a7c15) }

func nonzero(x uint64) uint64 { return cmp.Or(x, 1) }
