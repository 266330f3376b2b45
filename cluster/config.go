package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ErrUsage marks an error in the configuration of a distributed run, or
// ranks that disagree on the model: the command line's fault (exit 2).
var ErrUsage = errors.New("cluster: bad usage")

// usageErr is a usage error worded for the user.
type usageErr struct{ msg string }

func (e *usageErr) Error() string        { return e.msg }
func (e *usageErr) Is(target error) bool { return target == ErrUsage }

func usagef(format string, args ...any) error { return &usageErr{fmt.Sprintf(format, args...)} }

// DefaultTimeout is how long a rank waits for a rank it does not hear
// from, or for the server, before the run ends as incomplete.
const DefaultTimeout = 30 * time.Second

// Config is one rank's part of a distributed run.
type Config struct {
	// Server is the NATS server's URL, nats://HOST:PORT.
	Server string
	// Embedded, when not 0, is the loopback port of a NATS server this
	// rank starts in its own process (and stops when it leaves); Server
	// is then nats://127.0.0.1:Embedded.
	Embedded int
	// Ranks is the number of ranks K; Rank this one's, 0 to K-1.
	Ranks, Rank int
	// Workers is the number of local workers (1 or more).
	Workers int
	// Timeout bounds every wait for another rank or for the server
	// (DefaultTimeout when 0).
	Timeout time.Duration
	// Run names the run: the subjects begin with vacheck.<Run>, so that
	// two runs on one server do not mix. Letters, digits, - and _.
	Run string
	// Digest identifies the model, its parameters and the engine's
	// settings; every rank must give the same.
	Digest string
	// Properties selects the properties to check by name (nil: all).
	Properties []string
	// Context stops the run when cancelled (as incomplete).
	Context context.Context
	// Log receives a line per level, or nothing when nil.
	Log io.Writer
	// batchBytes is the size a batch is sent at (defaultBatchBytes when
	// 0); tests make it small to send many.
	batchBytes int
	// mutant, for tests only, makes the search deliberately wrong.
	mutant mutant
}

// mutant names a deliberate mistake a test injects to see it caught.
type mutant uint8

const (
	// mutantWrongRank sends every successor to the rank after its owner.
	// (The zero value is the search as it is.)
	mutantWrongRank mutant = 1 + iota
	// mutantEarlyClose sends a rank's done message before its last
	// batches, and closes a level on the done messages alone.
	mutantEarlyClose
)

const defaultBatchBytes = 256 << 10

// runName is what a run name may hold: one NATS subject token.
var runName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func (c *Config) validate() error {
	if c.Ranks < 1 || c.Ranks > 1<<15 {
		return usagef("--ranks %d: allowed values are 1 to %d", c.Ranks, 1<<15)
	}
	if c.Rank < 0 || c.Rank >= c.Ranks {
		return usagef("--rank %d: allowed values are 0 to %d (--ranks %d)", c.Rank, c.Ranks-1, c.Ranks)
	}
	if c.Workers < 1 {
		return usagef("--workers %d: allowed values are 1 or more", c.Workers)
	}
	if !runName.MatchString(c.Run) {
		return usagef("--cluster-run %q: allowed are 1 to 64 letters, digits, - and _", c.Run)
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Timeout < 0 {
		return usagef("--cluster-timeout %v: allowed values are positive durations", c.Timeout)
	}
	if c.Embedded != 0 {
		c.Server = "nats://127.0.0.1:" + strconv.Itoa(c.Embedded)
	}
	if c.Context == nil {
		c.Context = context.Background()
	}
	if c.batchBytes == 0 {
		c.batchBytes = defaultBatchBytes
	}
	return nil
}

// ParseServer reads the value of --cluster: nats://HOST:PORT (the server
// to join) or embedded:PORT (a server this rank starts on 127.0.0.1:PORT).
// It returns the URL, or the embedded port.
func ParseServer(s string) (server string, embedded int, err error) {
	if p, ok := strings.CutPrefix(s, "embedded:"); ok {
		port, err := strconv.Atoi(p)
		if err != nil || port < 1 || port > 65535 {
			return "", 0, usagef("--cluster %q: the port of embedded:PORT must be 1 to 65535", s)
		}
		return "", port, nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "nats" || u.Hostname() == "" || u.Port() == "" {
		return "", 0, usagef("--cluster %q: allowed values are nats://HOST:PORT (a NATS server) and embedded:PORT (a server started in this process on 127.0.0.1:PORT)", s)
	}
	return s, 0, nil
}

// RankEnvVars are the variables --rank env reads, in order: a Kubernetes
// Indexed Job's and a Slurm array's task index, both 0-based.
var RankEnvVars = []string{"JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"}

// ParseRank reads the value of --rank: a number, or env for the first of
// RankEnvVars that is set (getenv is os.Getenv but for tests).
func ParseRank(s string, getenv func(string) string) (int, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if s == "env" {
		for _, v := range RankEnvVars {
			if x := getenv(v); x != "" {
				k, err := strconv.Atoi(x)
				if err != nil || k < 0 {
					return 0, usagef("--rank env: %s=%q is not a rank (0, 1, ...)", v, x)
				}
				return k, nil
			}
		}
		return 0, usagef("--rank env: neither %s is set; give the rank as a number (0-based; a Slurm array must start at 0: --array=0-%s)", strings.Join(RankEnvVars, " nor "), "K-1")
	}
	k, err := strconv.Atoi(s)
	if err != nil || k < 0 {
		return 0, usagef("--rank %q: allowed values are a rank 0 to K-1, or env", s)
	}
	return k, nil
}
