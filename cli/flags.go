package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	urfave "github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/internal/input"
)

// parseDecimal reads an integer flag value in [lo, hi]: decimal digits with
// an optional minus sign, no plus sign and no leading zeros, so that 010
// is refused rather than read as 8 (octal) or 10. It is the rule of the
// spec parameters (--n, --requests, ...), so every integer flag reads alike.
func parseDecimal(flag, s string, lo, hi int64) (int64, error) {
	v, ok := input.Decimal(s)
	if !ok {
		return 0, usagef("--%s %q: not a decimal integer (digits only, no sign or leading zeros); allowed: %d to %d", flag, input.Clip(s), lo, hi)
	}
	if v < lo || v > hi {
		return 0, usagef("--%s %d: out of range; allowed: %d to %d", flag, v, lo, hi)
	}
	return v, nil
}

// sizeSyntax is a --max-memory value: decimal digits, optionally with a
// fraction, then optionally a unit.
var sizeSyntax = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?) *(GiB|MiB|KiB|GB|MB|KB|G|M|K|B)?$`)

// maxBytes bounds --max-memory: 1 EiB, far beyond any machine, and small
// enough that the value and 7/8 of it are exact.
const maxBytes = 1 << 60

// parseBytes reads sizes such as 512MiB, 4GiB, 2G, 1.5GB or 1000000
// (bytes). It refuses signs, exponents, NaN and Inf, sizes below one byte
// (which used to mean "no limit") and sizes above 1 EiB.
func parseBytes(s string) (uint64, error) {
	const allowed = "allowed: a size from 1B to 1EiB, written as digits with an optional fraction and unit B, K, KiB, KB, M, MiB, MB, G, GiB or GB, such as 512MiB or 4GiB"
	m := sizeSyntax.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, errors.New(allowed)
	}
	mult := map[string]float64{"": 1, "B": 1, "K": 1 << 10, "KiB": 1 << 10, "KB": 1e3, "M": 1 << 20, "MiB": 1 << 20, "MB": 1e6, "G": 1 << 30, "GiB": 1 << 30, "GB": 1e9}[m[2]]
	v, err := strconv.ParseFloat(m[1], 64)
	b := math.Floor(v * mult)
	if err != nil || b < 1 || b > maxBytes {
		return 0, fmt.Errorf("%s is %.0f bytes; %s", m[0], b, allowed)
	}
	return uint64(b), nil
}

// parseTimeout reads --timeout: a positive Go duration.
func parseTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d <= 0 {
		return 0, usagef("--timeout %q: allowed: a positive duration such as 30s, 5m or 1h", input.Clip(s))
	}
	return d, nil
}

// engineLimits reads --workers, --max-states, --max-depth, --timeout and
// --max-memory into cfg.
func engineLimits(c *urfave.Context, cfg *explorer.Config) error {
	w, err := parseDecimal("workers", c.String("workers"), 1, 256)
	if err != nil {
		return err
	}
	cfg.Workers = int(w)
	if cfg.MaxStates, err = parseDecimal("max-states", c.String("max-states"), 0, math.MaxInt64); err != nil {
		return err
	}
	if s := c.String("max-depth"); c.IsSet("max-depth") || s != "" { // sweep has no --max-depth
		d, err := parseDecimal("max-depth", s, 0, math.MaxInt32)
		if err != nil {
			return err
		}
		cfg.MaxDepth = int(d)
	}
	if s := c.String("timeout"); c.IsSet("timeout") || s != "" {
		if cfg.Timeout, err = parseTimeout(s); err != nil {
			return err
		}
	}
	cfg.MaxMemory = defaultMaxMemory()
	if s := c.String("max-memory"); c.IsSet("max-memory") || s != "" {
		m, err := parseBytes(s)
		if err != nil {
			return usagef("--max-memory %q: %v", input.Clip(s), err)
		}
		cfg.MaxMemory = m
	}
	return nil
}

// checkTypedMetrics refuses a metric messages:TYPE for a type that no
// execution sends: without it, a misspelt type reported min 0 and max 0.
// The model does not list its message types ahead of the run, so this is
// decided over the exhaustive run: a complete run in which no transition
// sent a TYPE message.
func checkTypedMetrics(spec string, res *explorer.Result) error {
	if res.Status == explorer.Incomplete {
		return nil
	}
	for _, m := range res.Metrics {
		typ, ok := strings.CutPrefix(m.Name, "messages:")
		if ok && m.Max == 0 && !m.Unbounded && m.Executions {
			return usagef("--metric %s: no transition of %s sends a message of type %s with these parameters; allowed: a message type the spec sends, spelt as a trace prints it before its first \"(\" (e.g. messages:REQUEST), or messages for all of them", input.Clip(m.Name), spec, input.Clip(typ))
		}
	}
	return nil
}

// guard runs the command line and turns a panic into an internal error:
// exit code 4 and a message asking for a report, never exit code 2 (which
// the Go runtime uses for a crash and which reads as bad usage).
func guard(run func([]string, io.Writer, io.Writer) int, args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "vacheck: internal error: %v\n%s\nvacheck: this is a bug in vacheck, not in your input: please report it with the command line at https://github.com/vacheck/vacheck/issues\n", r, debug.Stack())
			code = exitModel
		}
	}()
	return run(args, stdout, stderr)
}
