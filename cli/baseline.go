package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	urfave "github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/internal/input"
)

// certificateFormat is the format of the certificates sweep writes. Format
// 2 adds to format 1 (no "format" field) what format 1 left unrecorded of
// the flags that change a run's figures or verdicts: metric_flags (the
// --metric values, some of which add to the states what they track, said
// in tracked) and property_flags (--property). A format 1 certificate is
// still read: its metrics are the names in its "metrics", and it is taken
// to have had no --property.
const certificateFormat = 2

// maxBaselineBytes bounds a baseline file: a certificate takes about a
// kilobyte, and a sweep has at most 64 of them.
const maxBaselineBytes = 16 << 20

// engineSettings are the settings of a run, besides the spec's
// parameters, that change its figures or its verdicts: a baseline made
// with other ones cannot be compared with it.
type engineSettings struct {
	strategy, reduction, fairness string
	symmetry                      bool
}

// differences names, as the flags that give them, the settings of b (the
// baseline's) that e (this sweep's) lacks.
func (e engineSettings) differences(b engineSettings) []string {
	var out []string
	add := func(flag string, base, now any) {
		if base != now {
			out = append(out, fmt.Sprintf("%s (this sweep: %v)", flag, now))
		}
	}
	add("--strategy "+b.strategy, b.strategy, e.strategy)
	add("--reduction "+b.reduction, b.reduction, e.reduction)
	add("--fairness "+b.fairness, b.fairness, e.fairness)
	if b.symmetry != e.symmetry {
		out = append(out, map[bool]string{true: "--symmetry (this sweep: without)", false: "no --symmetry (this sweep: with)"}[b.symmetry])
	}
	return out
}

// baseline is the file of certificates a sweep is compared with
// (--baseline, or --compare FILE.json).
type baseline struct {
	path  string
	certs []certificate
	// What every certificate of it shares: the settings, and the --metric
	// and --property values (nil: none given). The parameters may differ
	// by N (a channel capacity of N, by default).
	engine     engineSettings
	metrics    []string
	properties []string
}

// readBaseline reads the certificates of the file path, through the
// bounded reader (a regular file of at most maxBaselineBytes), and refuses
// a file that holds none, holds those of another spec than spec, mixes
// settings, or has a format this build does not know.
func readBaseline(path, spec string) (*baseline, error) {
	bad := func(format string, args ...any) error {
		return usagef("--baseline %s: "+format, append([]any{path}, args...)...)
	}
	data, err := input.ReadBounded(path, "a baseline", maxBaselineBytes)
	if err != nil {
		return nil, bad("%v", err)
	}
	b := &baseline{path: path}
	if err := json.Unmarshal(data, &b.certs); err != nil {
		return nil, bad("not the JSON array of certificates 'vacheck sweep --format json' writes: %v", err)
	}
	if len(b.certs) == 0 {
		return nil, bad("holds no certificate: nothing to compare with")
	}
	var others []string
	for k, c := range b.certs {
		switch n, ok := c.Params["n"].(float64); {
		case c.Format > certificateFormat:
			return nil, bad("certificate %d is of format %d; this vacheck reads formats 1 to %d: compare it with the vacheck that wrote it", k+1, c.Format, certificateFormat)
		case c.Format < 0:
			return nil, bad("certificate %d is of format %d", k+1, c.Format)
		case !ok || n != float64(int(n)) || n < 1:
			return nil, bad("certificate %d has no N (params.n)", k+1)
		}
		if c.Spec != spec && !slices.Contains(others, c.Spec) {
			others = append(others, c.Spec)
		}
		e, metrics, props := c.settings()
		if k == 0 {
			b.engine, b.metrics, b.properties = e, metrics, props
			continue
		}
		if e != b.engine || !slices.Equal(metrics, b.metrics) || !slices.Equal(props, b.properties) {
			return nil, bad("its certificates were made with different engine flags (certificate %d: %s; certificate 1: %s): one sweep's certificates, please", k+1, c.flags(), b.certs[0].flags())
		}
	}
	if len(others) > 0 {
		theirs, ours := input.Clip(strings.Join(others, ", ")), input.Clip(spec)
		return nil, bad("it holds certificates of %s, not of %s: compare it with a sweep of %s, or make a baseline of %s with 'vacheck sweep %s --n ... --format json'",
			theirs, ours, theirs, ours, ours)
	}
	return b, nil
}

// settings returns the engine settings of c, and its --metric and
// --property values.
func (c certificate) settings() (e engineSettings, metrics, props []string) {
	e = engineSettings{strategy: c.Strategy, reduction: c.Reduction, fairness: c.Fairness, symmetry: c.Symmetry != ""}
	metrics, props = c.MetricFlags, c.PropertyFlags
	if c.Format < 2 && len(c.Metrics) > 0 {
		// Format 1 kept the metrics' results only.
		metrics = slices.Sorted(maps.Keys(c.Metrics))
	}
	return e, metrics, props
}

// flags words the engine flags of c as a command line would give them.
func (c certificate) flags() string {
	e, metrics, props := c.settings()
	parts := []string{"--strategy " + e.strategy, "--reduction " + e.reduction, "--fairness " + e.fairness}
	if e.symmetry {
		parts = append(parts, "--symmetry")
	}
	for _, m := range metrics {
		parts = append(parts, "--metric "+m)
	}
	for _, p := range props {
		parts = append(parts, "--property "+p)
	}
	return strings.Join(parts, " ")
}

// n returns the N of c: a number in JSON, an int in a certificate made
// here; 0 if it has none.
func (c certificate) n() int {
	switch n := c.Params["n"].(type) {
	case float64:
		return int(n)
	case int:
		return n
	}
	return 0
}

// ns returns the N of the baseline's certificates, in order.
func (b *baseline) ns() []int {
	var ns []int
	for _, c := range b.certs {
		if n := c.n(); !slices.Contains(ns, n) {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	return ns
}

// configure makes this sweep's configuration the baseline's: the baseline
// supplies its --metric and --property values when the command line gives
// none (as it supplies its N), and the command line's must otherwise be the
// same; the settings that change the figures (--strategy, --reduction,
// --symmetry, --fairness) must be the same.
func (b *baseline) configure(c *urfave.Context, cfg *explorer.Config) error {
	bad := func(format string, args ...any) error {
		return usagef("--baseline %s: "+format, append([]any{b.path}, args...)...)
	}
	if !c.IsSet("metric") {
		cfg.Metrics = slices.Clone(b.metrics)
	} else if !sameSet(cfg.Metrics, b.metrics) {
		return bad("it was made with %s, this sweep asks for %s: give the same --metric flags, or none to take the baseline's",
			wordFlags("--metric", b.metrics), wordFlags("--metric", cfg.Metrics))
	}
	if props := c.StringSlice("property"); len(props) == 0 {
		if b.properties != nil {
			cfg.Properties = slices.Clone(b.properties)
		}
	} else if !sameSet(props, b.properties) {
		return bad("it was made with %s, this sweep with %s: give the same --property flags, or none to take the baseline's",
			wordFlags("--property", b.properties), wordFlags("--property", props))
	}
	strategy := cfg.Strategy
	if strategy == 0 {
		strategy = explorer.BFS
	}
	now := engineSettings{strategy: strategy.String(), reduction: cfg.Reduction.String(), fairness: cfg.Fairness.String(),
		symmetry: cfg.Symmetry}
	if diff := now.differences(b.engine); len(diff) > 0 {
		return bad("it was made with %s: these flags change the counts or the verdicts, so the sweep must have them as the baseline has; add them, or make a new baseline",
			strings.Join(diff, ", "))
	}
	return nil
}

// checkParams refuses the parameters of this sweep's run for N=n when
// the baseline has a certificate for n with other parameters, naming each
// that differs.
func (b *baseline) checkParams(n int, params map[string]any) error {
	var now map[string]any
	raw, _ := json.Marshal(params)
	if err := json.Unmarshal(raw, &now); err != nil {
		return err
	}
	for _, c := range b.certs {
		if c.n() != n {
			continue
		}
		var diffs []string
		for _, k := range unionKeys(c.Params, now) {
			a, inA := c.Params[k]
			v, inB := now[k]
			if inA != inB || fmt.Sprint(a) != fmt.Sprint(v) {
				diffs = append(diffs, fmt.Sprintf("--%s %s there, %s here", k, valueOr(a, inA), valueOr(v, inB)))
			}
		}
		if len(diffs) > 0 {
			return usagef("--baseline %s: n=%d was checked with other parameters: %s; give the baseline's (or make a new baseline)",
				b.path, n, input.Clip(strings.Join(diffs, "; ")))
		}
	}
	return nil
}

func valueOr(v any, ok bool) string {
	if !ok {
		return "(none)"
	}
	return fmt.Sprint(v)
}

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// wordFlags writes values as repetitions of flag, or "no flag".
func wordFlags(flag string, values []string) string {
	if len(values) == 0 {
		return "no " + flag
	}
	return flag + " " + strings.Join(values, " "+flag+" ")
}

// baselineVerdict is the outcome of comparing a sweep with its baseline.
type baselineVerdict struct {
	changes, compared int
	// missing: N that the baseline finished and this sweep did not
	// compare (it did not finish them, or did not reach them).
	missing []int
}

// compare names every count, verdict or metric that differs between the
// finished runs of the baseline and now with the same N, and says what
// was not compared and why. Runs that did not finish, in either, depend
// on the machine and are not compared; but every N the baseline finished
// that this sweep asked for must be, or the comparison is incomplete.
func (b *baseline) compare(w io.Writer, asked []int, now []certificate) baselineVerdict {
	label := func(n int) string { return "n=" + strconv.Itoa(n) }
	nOf := certificate.n
	olds := map[int]certificate{}
	for _, o := range b.certs {
		olds[nOf(o)] = o
	}
	var v baselineVerdict
	var notes []string
	done := map[int]bool{}
	for _, c := range now {
		n := nOf(c)
		done[n] = true
		o, ok := olds[n]
		switch {
		case !ok:
			notes = append(notes, fmt.Sprintf("%s: not in %s", label(n), b.path))
			continue
		case o.Status == "incomplete":
			notes = append(notes, fmt.Sprintf("%s: not compared (incomplete before)", label(n)))
			continue
		case c.Status == "incomplete":
			notes = append(notes, fmt.Sprintf("%s: not compared (incomplete now)", label(n)))
			v.missing = append(v.missing, n)
			continue
		}
		v.compared++
		diff := func(what string, before, after any) {
			if fmt.Sprint(before) != fmt.Sprint(after) {
				v.changes++
				fmt.Fprintf(w, "CHANGED %s: %s %v → %v\n", label(n), what, before, after)
			}
		}
		diff("status", o.Status, c.Status)
		diff("states", o.States, c.States)
		diff("transitions", o.Transitions, c.Transitions)
		diff("depth", o.Depth, c.Depth)
		diff("terminal states", o.Terminal, c.Terminal)
		for _, name := range unionKeys(o.Verdicts, c.Verdicts) {
			diff(name, orNone(o.Verdicts[name]), orNone(c.Verdicts[name]))
		}
		for _, name := range unionKeys(o.Metrics, c.Metrics) {
			before, inBefore := o.Metrics[name]
			after, inAfter := c.Metrics[name]
			diff("metric "+name, map[bool]string{true: before.String(), false: "none"}[inBefore], map[bool]string{true: after.String(), false: "none"}[inAfter])
		}
	}
	for _, n := range asked {
		if o, ok := olds[n]; ok && !done[n] && o.Status != "incomplete" {
			notes = append(notes, fmt.Sprintf("%s: not compared (the sweep ended before it)", label(n)))
			v.missing = append(v.missing, n)
		}
	}
	for _, n := range notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintf(w, "compared with %s: %d run%s, %d change%s", b.path, v.compared, plural(v.compared), v.changes, plural(v.changes))
	switch {
	case v.changes > 0:
	case v.compared == 0:
		fmt.Fprint(w, "; nothing was compared, which is no pass (exit 3)")
	case len(v.missing) > 0:
		fmt.Fprintf(w, "; %d run%s of the baseline not compared, so the comparison is incomplete (exit 3)", len(v.missing), plural(len(v.missing)))
	}
	fmt.Fprintln(w)
	return v
}
