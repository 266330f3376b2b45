package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	urfave "github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/internal/input"
	"github.com/vacheck/vacheck/properties"
	"github.com/vacheck/vacheck/report"
	"github.com/vacheck/vacheck/shard"
)

// maxCertBytes bounds a part's certificate: its counterexamples, with
// every state, make up most of it.
const maxCertBytes = 256 << 20

// mergeCommand is `vacheck merge CERT...`.
func mergeCommand(stderr io.Writer, code *int) *urfave.Command {
	return &urfave.Command{
		Name:      "merge",
		Usage:     "merge the certificates of the parts of a check split with --shard into the whole check's report and exit code",
		ArgsUsage: "CERT...",
		Description: "Reads the certificates that 'vacheck check ... --shard k/K --cert FILE' wrote, one per part, refuses a set\n" +
			"with a part missing, given twice, or from another build, model, parameters or K (exit 2), and prints\n" +
			"the report of the whole check, with its exit code. See docs/cluster.md.\n\n" + exitCodesHelp,
		Flags: []urfave.Flag{
			&urfave.StringFlag{Name: "format", Value: "text", Usage: "output: text or json"},
		},
		Action: func(c *urfave.Context) error {
			format := c.String("format")
			if format != "text" && format != "json" {
				return usagef("--format %q: allowed values are text and json", format)
			}
			if c.NArg() == 0 {
				return usagef("merge takes the certificates of every part, e.g. vacheck merge out/shard-*.json; got none")
			}
			m, err := mergeCerts(c.Args().Slice())
			if err != nil {
				return err
			}
			if format == "json" {
				err = report.JSON(c.App.Writer, m.run)
				fmt.Fprintln(stderr, "vacheck merge: "+m.note)
			} else {
				if err = report.Text(c.App.Writer, m.run); err == nil {
					_, err = fmt.Fprintf(c.App.Writer, "\nmerge: %s\n", m.note)
				}
			}
			if err != nil {
				return err
			}
			*code = statusCode(m.run.Result.Status)
			return nil
		},
	}
}

// merged is the whole check made of its parts.
type merged struct {
	run  report.Run
	note string // how the counts were established
}

// loadedCert is a certificate and the file it came from.
type loadedCert struct {
	path string
	shardCert
}

// readCert reads the certificate at path.
func readCert(path string) (loadedCert, error) {
	data, err := input.ReadBounded(path, "a certificate", maxCertBytes)
	if err != nil {
		return loadedCert{}, usagef("merge: %v", err)
	}
	var c shardCert
	if err := json.Unmarshal(data, &c); err != nil || c.Format == "" {
		return loadedCert{}, usagef("merge: %s is not the certificate of a part that 'vacheck check --shard k/K --cert FILE' writes", path)
	}
	if c.Format != shardCertFormat {
		return loadedCert{}, usagef("merge: %s is a certificate of format %q; this vacheck reads %q", path, c.Format, shardCertFormat)
	}
	return loadedCert{path: path, shardCert: c}, nil
}

// checkParts refuses certificates that are not the K parts of one check,
// each once: it names every foreign, duplicate and missing part.
func checkParts(certs []loadedCert) error {
	ref := certs[0]
	var problems []string
	for _, c := range certs[1:] {
		var why []string
		add := func(what string, theirs, ours any) {
			if theirs != ours {
				why = append(why, fmt.Sprintf("%s %v, not %v", what, theirs, ours))
			}
		}
		add("another build:", c.Build, ref.Build)
		if c.Digest != ref.Digest {
			why = append(why, fmt.Sprintf("another model, parameters or engine flags: %s, not %s", c.Identity, ref.Identity))
		}
		add("another K:", c.Shards, ref.Shards)
		if len(why) == 0 {
			// Same build and settings: these follow, unless a file was edited.
			add("another number of initial states:", c.AllInitial, ref.AllInitial)
			add("another mode:", c.Mode, ref.Mode)
			add("other constant parts:", c.Constants, ref.Constants)
		}
		if len(why) > 0 {
			problems = append(problems, fmt.Sprintf("%s is foreign to %s (%s)", c.path, ref.path, strings.Join(why, "; ")))
		}
	}
	if len(problems) > 0 {
		return usagef("merge: %s", strings.Join(problems, "; "))
	}
	K := ref.Shards
	byPart := map[int][]string{}
	for _, c := range certs {
		if c.Shard < 0 || c.Shard >= K {
			problems = append(problems, fmt.Sprintf("%s is part %d of %d, which does not exist", c.path, c.Shard, K))
			continue
		}
		byPart[c.Shard] = append(byPart[c.Shard], c.path)
		if want := partSize(ref.AllInitial, c.Shard, K); c.Initial != want {
			problems = append(problems, fmt.Sprintf("%s checked %d initial states, and part %d of %d has %d", c.path, c.Initial, c.Shard, K, want))
		}
	}
	var missing []string
	for k := range K {
		switch files := byPart[k]; {
		case len(files) == 0:
			missing = append(missing, fmt.Sprint(k))
		case len(files) > 1:
			problems = append(problems, fmt.Sprintf("part %d is given twice: %s", k, strings.Join(files, ", ")))
		}
	}
	if len(missing) > 0 {
		verb := "part %s of %d is missing (parts are 0 to %d)"
		if len(missing) > 1 {
			verb = "parts %s of %d are missing (parts are 0 to %d)"
		}
		problems = append(problems, fmt.Sprintf(verb, strings.Join(missing, ", "), K, K-1))
	}
	if len(problems) > 0 {
		return usagef("merge: %s", strings.Join(problems, "; "))
	}
	return nil
}

// partSize is the number of initial states of part k of K of n: those
// whose index is k modulo K.
func partSize(n, k, K int) int {
	if k >= n {
		return 0
	}
	return (n-1-k)/K + 1
}

// mergeCerts reads the certificates at paths and merges them into the
// report of the whole check.
func mergeCerts(paths []string) (*merged, error) {
	var certs []loadedCert
	for _, p := range paths {
		c, err := readCert(p)
		if err != nil {
			return nil, err
		}
		certs = append(certs, c)
	}
	if err := checkParts(certs); err != nil {
		return nil, err
	}
	slices.SortFunc(certs, func(a, b loadedCert) int { return a.Shard - b.Shard })
	ref := certs[0]
	results := make([]*explorer.Result, len(certs))
	for k, c := range certs {
		results[k] = c.Report.Result.result()
	}
	r := mergeResults(results)
	mode, err := shard.ParseMode(ref.Mode)
	if err != nil {
		return nil, usagef("merge: %s: %v", ref.path, err)
	}
	K := ref.Shards
	var note string
	switch mode {
	case shard.Disjoint:
		for _, p := range results {
			r.States += p.States
			r.Transitions += p.Transitions
			r.Terminal += p.Terminal
			r.Depth = max(r.Depth, p.Depth)
		}
		note = fmt.Sprintf("%d parts of %s initial states (round-robin by index); counts summed: the parts are disjoint, as no two initial states share a constant part and every part checked that each state it expanded kept its initial state's", K, report.Group(int64(ref.AllInitial)))
	case shard.Union:
		var sets []shard.Set
		for _, c := range certs {
			if c.SetFile == "" || c.Set == nil || filepath.Base(c.SetFile) != c.SetFile {
				return nil, usagef("merge: %s names no fingerprint set file (a file next to it)", c.path)
			}
			sets = append(sets, shard.Set{Path: filepath.Join(filepath.Dir(c.path), c.SetFile), Info: *c.Set})
		}
		t, err := shard.MergeSets(sets)
		if err != nil {
			if errors.Is(err, shard.ErrSet) {
				return nil, usageError{fmt.Errorf("merge: %w", err)}
			}
			return nil, err
		}
		r.States, r.Transitions, r.Terminal, r.Depth = t.States, t.Transitions, t.Terminal, t.Depth
		note = fmt.Sprintf("%d parts of %s initial states (round-robin by index); counts from the union of the parts' fingerprint sets (%s), in which %s states were reached by more than one part", K, report.Group(int64(ref.AllInitial)), ref.ModeWhy, report.Group(t.Shared))
		if r.Unchecked > 0 {
			// A state a part left unchecked may be checked in another:
			// the sum is at most the union's unchecked states.
			r.Unchecked = min(r.Unchecked, r.States)
			note += fmt.Sprintf("; the %s states the parts' stops left stored and not checked are summed over the parts: another part may have checked some of them", report.Group(r.Unchecked))
		}
		if r.Cut > 0 {
			note += fmt.Sprintf("; the %s states outside the model's constraint are summed over the parts, at most the whole check's", report.Group(r.Cut))
		}
	}
	var longest time.Duration
	for _, p := range results {
		longest = max(longest, p.Elapsed)
	}
	note += fmt.Sprintf("; the parts took %s in all, the longest %s", r.Elapsed.Round(time.Millisecond), longest.Round(time.Millisecond))
	rep := ref.Report
	run := report.Run{Spec: rep.Spec, Bug: rep.Bug, BoundDoc: rep.BoundDoc, Params: rep.Params, Result: r, Reducible: rep.Reducible,
		Hint: rep.Hint, NotChecked: rep.NotChecked, NotCheckedWhy: rep.NotCheckedWhy, Metrics: rep.Metrics, Continue: rep.Continue}
	return &merged{run: run, note: note}, nil
}

// mergeResults combines the results of the parts, in part order, into the
// whole check's, counts aside: a property is violated if a part violates
// it (with the shortest counterexample of any part), holds if it holds in
// every part, and is unknown otherwise; a reachability property is met if
// a part meets it.
func mergeResults(parts []*explorer.Result) *explorer.Result {
	first := parts[0]
	r := &explorer.Result{Strategy: first.Strategy, Workers: first.Workers, Fairness: first.Fairness, Tracked: first.Tracked, Exhaustive: true}
	for _, p := range parts {
		r.Exhaustive = r.Exhaustive && p.Exhaustive
		r.Cut += p.Cut
		r.Unchecked += p.Unchecked
		r.Elapsed += p.Elapsed
		r.PeakMemory = max(r.PeakMemory, p.PeakMemory)
	}
	for k, pr := range first.Properties {
		verdicts := make([]explorer.Verdict, len(parts))
		for j, p := range parts {
			verdicts[j] = p.Properties[k].Verdict
		}
		pr.Verdict = mergeVerdict(pr.Kind == properties.Reachable, verdicts)
		r.Properties = append(r.Properties, pr)
	}
	r.Violations = shortest(parts, func(p *explorer.Result) []explorer.Violation { return p.Violations })
	r.Witnesses = shortest(parts, func(p *explorer.Result) []explorer.Violation { return p.Witnesses })
	// A reachability property is violated (Unreached) only if no part met
	// it: its merged verdict says.
	r.Violations = slices.DeleteFunc(r.Violations, func(v explorer.Violation) bool {
		return v.Unreached && !slices.ContainsFunc(r.Properties, func(p explorer.PropertyResult) bool {
			return p.Name == v.Property && p.Verdict == explorer.ViolatedVerdict
		})
	})
	r.Metrics = mergeMetrics(parts)
	var failed, incomplete *explorer.Result
	for _, p := range parts {
		switch {
		case p.Status == explorer.Failed && failed == nil:
			failed = p
		case p.Status == explorer.Incomplete && incomplete == nil, p.Status == explorer.Violated && p.Reason != "" && incomplete == nil:
			incomplete = p
		}
	}
	switch {
	case failed != nil:
		r.Status, r.Reason, r.Err, r.Failure = explorer.Failed, failed.Reason, failed.Err, failed.Failure
	case len(r.Violations) > 0:
		r.Status = explorer.Violated
		if incomplete != nil {
			r.Reason, r.Limit = incomplete.Reason, incomplete.Limit
		}
	case incomplete != nil || !r.Exhaustive:
		r.Status = explorer.Incomplete
		if incomplete != nil {
			r.Reason, r.Limit = incomplete.Reason, incomplete.Limit
		} else {
			r.Reason = "a part stopped at a violation before it explored its states"
		}
	case r.Cut > 0:
		r.Status = explorer.Bounded
		r.Reason = fmt.Sprintf("%d states lie outside the model's constraint: checked, not expanded", r.Cut)
	default:
		r.Status = explorer.OK
	}
	return r
}

// mergeVerdict combines the verdicts of the parts on one property.
func mergeVerdict(reach bool, vs []explorer.Verdict) explorer.Verdict {
	has := func(v explorer.Verdict) bool { return slices.Contains(vs, v) }
	all := func(v explorer.Verdict) bool {
		return !slices.ContainsFunc(vs, func(w explorer.Verdict) bool { return w != v })
	}
	switch {
	case all(explorer.Skipped):
		return explorer.Skipped
	case reach && has(explorer.Holds):
		return explorer.Holds // met in a part
	case reach && all(explorer.ViolatedVerdict):
		return explorer.ViolatedVerdict // met in none, every part explored
	case reach:
		return explorer.Unknown
	case has(explorer.ViolatedVerdict):
		return explorer.ViolatedVerdict
	case has(explorer.Unknown) || has(explorer.Skipped):
		return explorer.Unknown
	case has(explorer.HoldsWithinBound):
		return explorer.HoldsWithinBound
	}
	return explorer.Holds
}

// traceLen is the number of steps of t, its cycle included.
func traceLen(t explorer.Trace) int { return len(t.Steps) + len(t.Cycle) }

// shortest keeps, for each property (and process) with a counterexample
// in some part, the shortest one (the lowest initial state's among equal
// lengths), in the order the properties are first met in part order.
func shortest(parts []*explorer.Result, of func(*explorer.Result) []explorer.Violation) []explorer.Violation {
	type key struct {
		prop string
		proc int
	}
	var out []explorer.Violation
	at := map[key]int{}
	for _, p := range parts {
		for _, v := range of(p) {
			k := key{v.Property, v.Process}
			i, ok := at[k]
			if !ok {
				at[k] = len(out)
				out = append(out, v)
				continue
			}
			o := out[i]
			if l, lo := traceLen(v.Trace), traceLen(o.Trace); o.Unreached || l < lo || l == lo && v.Trace.Initial < o.Trace.Initial {
				out[i] = v
			}
		}
	}
	return out
}

// mergeMetrics combines the metrics every part computed: the least of the
// minima and the greatest of the maxima, with their witnesses.
func mergeMetrics(parts []*explorer.Result) []explorer.Metric {
	var out []explorer.Metric
	for _, m := range parts[0].Metrics {
		acc, ok := m, true
		for _, p := range parts[1:] {
			i := slices.IndexFunc(p.Metrics, func(o explorer.Metric) bool { return o.Name == m.Name })
			if i < 0 {
				ok = false
				break
			}
			o := p.Metrics[i]
			switch {
			case !o.Executions && !o.AllRuns:
			case !acc.Executions && !acc.AllRuns:
				acc = o
			default:
				if o.Min < acc.Min {
					acc.Min, acc.MinWitness, acc.MinOf = o.Min, o.MinWitness, o.MinOf
				}
				if o.Max > acc.Max || o.Unbounded && !acc.Unbounded {
					acc.Max, acc.MaxWitness, acc.MaxOf, acc.Unbounded, acc.Capped, acc.Cap = o.Max, o.MaxWitness, o.MaxOf, o.Unbounded, o.Capped, o.Cap
				}
				acc.Executions = acc.Executions || o.Executions
			}
		}
		if ok {
			out = append(out, acc)
		}
	}
	return out
}
