package simulate

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"time"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// ErrConfig reports a Config, property or metric that Simulate cannot run
// with; the command line exits with code 2 on it.
var ErrConfig = errors.New("simulate: bad configuration")

// ConfigError is a Config that Simulate refuses, with the field at fault.
// It matches ErrConfig (errors.Is).
type ConfigError struct {
	// Field is the Config field at fault, as Go spells it ("Runs",
	// "Metrics", ...), or "" when the model is at fault.
	Field string
	// Value is the value at fault, as text.
	Value string
	// Msg says what is wrong and what is allowed.
	Msg string
}

func (e *ConfigError) Error() string {
	if e.Field == "" {
		return "simulate: " + e.Msg
	}
	return fmt.Sprintf("simulate: Config.%s %s: %s", e.Field, e.Value, e.Msg)
}

// Is reports whether target is ErrConfig.
func (e *ConfigError) Is(target error) bool { return target == ErrConfig }

func configError(field, value, format string, args ...any) *ConfigError {
	return &ConfigError{Field: field, Value: value, Msg: fmt.Sprintf(format, args...)}
}

// Limits of a Config.
const (
	// DefaultMaxSteps is the step cap of a run when Config.MaxSteps is 0.
	DefaultMaxSteps = 10000
	// MaxRuns bounds Config.Runs.
	MaxRuns = 1_000_000_000
	// DefaultShrinkSteps bounds the steps that shrinking one
	// counterexample replays, when Config.ShrinkSteps is 0.
	DefaultShrinkSteps = 100_000
	// MaxInitialEnumerated is the most initial states Simulate lists to
	// draw from, for a model that cannot draw one itself
	// (explorer.InitialSampler).
	MaxInitialEnumerated = 100_000
)

// Config sets how Simulate runs. The zero value of each field but Runs is
// its default.
type Config struct {
	// Runs is the number of runs, at least 1.
	Runs int
	// Seed chooses the runs: run k draws its initial state and its steps
	// from a random source seeded by (Seed, k) alone, so that the result
	// is the same for every number of workers.
	Seed uint64
	// MaxSteps ends a run after this many steps (DefaultMaxSteps when 0).
	MaxSteps int
	// Workers is the number of goroutines; GOMAXPROCS when 0.
	Workers int
	// Properties names the properties to check in every state; nil checks
	// every invariant, assertion and deadlock-freedom of the model.
	// Assertions are always checked. Liveness properties cannot be asked
	// for: a finite run cannot refute them.
	Properties []string
	// Metrics names the measures to take of every complete run:
	// "messages" (sent, self-messages excluded), "messages:TYPE" (see
	// explorer.TypedWorker), "steps", and for a model that offers it
	// (explorer.Instrumenter) "time" (causal depth).
	Metrics []string
	// Timeout stops handing out runs after this long; zero means no limit.
	Timeout time.Duration
	// Context, when set, stops handing out runs once it is done.
	Context context.Context
	// ShrinkSteps bounds the steps that shrinking one counterexample
	// replays, all candidates together (DefaultShrinkSteps when 0); -1
	// leaves counterexamples as the runs found them.
	ShrinkSteps int64
	// Progress, when set, is called about every ProgressEvery (one second
	// when zero) from another goroutine.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// Coverage counts the transitions the runs take, by step name, message
	// type and receive case, against what the model declares
	// (explorer.Coverable), into Result.Coverage. The model's workers must
	// describe their transitions (explorer.CoverWorker). The counts are
	// sums over the runs, so they do not depend on Workers.
	Coverage bool

	// pick, when set, replaces the uniform choice: tests set a biased
	// one that the statistical tests must catch.
	pick picker
}

// Progress is a snapshot of a running simulation.
type Progress struct {
	Runs, Asked int
	Steps       int64
	Elapsed     time.Duration
}

// Metric names Simulate measures.
const (
	MetricMessages = "messages"
	MetricSteps    = "steps"
)

// allowedMetrics says which metrics Simulate measures, for errors.
const allowedMetrics = "messages, messages:TYPE (e.g. messages:REQUEST), steps, time"

func (c Config) validate(props []properties.Info, live []explorer.LiveProperty) (Config, error) {
	if c.Runs < 1 || c.Runs > MaxRuns {
		return c, configError("Runs", fmt.Sprint(c.Runs), "allowed: 1 to %d", MaxRuns)
	}
	if c.MaxSteps < 0 {
		return c, configError("MaxSteps", fmt.Sprint(c.MaxSteps), "must not be negative")
	}
	if c.MaxSteps == 0 {
		c.MaxSteps = DefaultMaxSteps
	}
	if c.Workers < 0 || c.Workers > 256 {
		return c, configError("Workers", fmt.Sprint(c.Workers), "allowed: 1 to 256")
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.Timeout < 0 {
		return c, configError("Timeout", c.Timeout.String(), "must not be negative")
	}
	if c.ShrinkSteps < -1 {
		return c, configError("ShrinkSteps", fmt.Sprint(c.ShrinkSteps), "allowed: -1 (no shrinking), 0 (the default) or a positive bound")
	}
	if c.ShrinkSteps == 0 {
		c.ShrinkSteps = DefaultShrinkSteps
	}
	if c.ProgressEvery <= 0 {
		c.ProgressEvery = time.Second
	}
	if len(props) > 63 {
		return c, configError("", "", "a model may have at most 63 invariants")
	}
	for _, name := range c.Properties {
		found := name == properties.DeadlockFreedom
		for _, p := range props {
			found = found || p.Name == name
		}
		if found {
			continue
		}
		for _, l := range live {
			if l.Name == name {
				return c, configError("Properties", fmt.Sprintf("%q", name), "a liveness property: a simulation checks safety properties, assertions and deadlock-freedom only (a finite run cannot refute %s); 'vacheck check' checks it", name)
			}
		}
		names := []string{}
		for _, p := range props {
			if p.Kind != properties.Assertion {
				names = append(names, p.Name)
			}
		}
		names = append(names, properties.DeadlockFreedom)
		return c, configError("Properties", fmt.Sprintf("%q", name), "unknown property; a simulation checks %s", strings.Join(names, ", "))
	}
	seen := map[string]bool{}
	for _, m := range c.Metrics {
		switch {
		case seen[m]:
			return c, configError("Metrics", fmt.Sprintf("%q", m), "asked for twice")
		case m == MetricMessages || m == MetricSteps || m == explorer.MetricTime:
		case strings.HasPrefix(m, "messages:") && len(m) > len("messages:"):
		case m == explorer.MetricSyncDelay || m == explorer.MetricMessagesPerEntry:
			return c, configError("Metrics", fmt.Sprintf("%q", m), "not one figure per run (%s), so a simulation does not measure it; allowed: %s; 'vacheck check --metric %s' computes its exact min and max", metricWhy[m], allowedMetrics, m)
		default:
			return c, configError("Metrics", fmt.Sprintf("%q", m), "unknown metric; allowed: %s", allowedMetrics)
		}
		seen[m] = true
	}
	return c, nil
}

// metricWhy says why a simulation does not measure a metric.
var metricWhy = map[string]string{
	explorer.MetricSyncDelay:        "it is a sample taken at each entry that follows an exit",
	explorer.MetricMessagesPerEntry: "it is a figure per critical-section entry",
}

// picker chooses one transition of a state as the state offers them one
// by one, without knowing how many there are.
type picker interface {
	// take is asked about the k-th transition (from 1) and reports whether
	// it replaces the one chosen so far; it always takes the first.
	take(r *rand.Rand, k int) bool
}

// uniform is reservoir sampling with a reservoir of one (Knuth, TAOCP
// vol. 2, 3.4.2, algorithm R): the k-th transition replaces the choice
// with probability 1/k, so that each of the K transitions is chosen with
// probability 1/k · k/(k+1) · ... · (K-1)/K = 1/K, and only about ln K of
// the successors are built.
type uniform struct{}

func (uniform) take(r *rand.Rand, k int) bool { return k == 1 || r.IntN(k) == 0 }
