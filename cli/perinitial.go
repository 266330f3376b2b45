package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	urfave "github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/report"
	"github.com/vacheck/vacheck/specs"
	"github.com/vacheck/vacheck/tracefile"
)

// perInitialFlag is --per-initial-state of check.
func perInitialFlag() urfave.Flag {
	return &urfave.BoolFlag{Name: "per-initial-state", Usage: "check each initial state on its own (as --continue does): for each property, how many initial states violate it, which (as the parameters that re-run them), and one counterexample per distinct cause"}
}

// number matches the numbers of an action label: process numbers, IDs
// and rounds, which a cause abstracts away.
var number = regexp.MustCompile(`[0-9]+`)

// causeOf is the cause of a counterexample (docs/replay.md): the actions
// of its steps, then of its cycle, with every number written #, so that
// two initial states whose shortest counterexamples take the same steps up
// to which processes take them and which IDs they carry have one cause.
func causeOf(t explorer.Trace) string {
	var words []string
	for _, s := range t.Steps {
		words = append(words, number.ReplaceAllString(s.Action, "#"))
	}
	if len(t.Cycle) > 0 {
		words = append(words, "then repeated:")
		for _, s := range t.Cycle {
			words = append(words, number.ReplaceAllString(s.Action, "#"))
		}
	}
	return strings.Join(words, " ")
}

// perCause is one cause of a property's violations: the initial states
// whose counterexample has it, and the first of their counterexamples.
type perCause struct {
	cause   string
	initial []map[string]string
	trace   explorer.Trace
}

// perProperty is what the searches of every initial state found of one
// property.
type perProperty struct {
	name, kind, doc string
	verdicts        map[string]int      // verdict → initial states
	violating       []map[string]string // the initial states that violate it, by their parameters
	causes          []*perCause
}

// perInitial checks each initial state of model (the model of spec with
// the parameters given) on its own, with cfg and --continue, and reports
// for each property how many initial states violate it, which, and one
// counterexample per cause. Its exit code is the one the whole check
// would give: 4 if a search failed, else 1 if a property is violated,
// else 3 if a search stopped at a limit, else 5 if one was bounded, else 0.
func perInitial(c *urfave.Context, stderr io.Writer, spec specs.Spec, given map[string]string, params *specs.Params,
	model explorer.Model, cfg explorer.Config, format string, views views) (int, error) {
	if err := perInitialRefused(c); err != nil {
		return exitUsage, err
	}
	// Name every initial state first: a spec that cannot is refused
	// before anything is checked.
	var names []map[string]string
	var unnamed bool
	err := explorer.EachInitial(model, func(st []byte) bool {
		p, err := explorer.NameInitial(model, st)
		if err != nil || p == nil {
			unnamed = true
			return false
		}
		names = append(names, p)
		return true
	})
	if err != nil {
		return exitModel, err
	}
	if unnamed {
		return exitUsage, usagef("--per-initial-state: %s cannot name its initial states by parameters (initial state %d has no name), so it cannot check them one by one", spec.Name, len(names)+1)
	}
	cfg.Continue = true
	cfg.Progress = nil
	var deadline time.Time
	if cfg.Timeout > 0 {
		deadline = time.Now().Add(cfg.Timeout)
	}
	props := map[string]*perProperty{}
	var order []string
	code, checked := exitOK, 0
	stopped := ""
	start := time.Now()
	for k, named := range names {
		if cfg.Context != nil && cfg.Context.Err() != nil {
			stopped = "interrupted"
			break
		}
		if !deadline.IsZero() {
			if cfg.Timeout = time.Until(deadline); cfg.Timeout <= 0 {
				stopped = "the --timeout ran out"
				break
			}
		}
		one := maps.Clone(given)
		maps.Copy(one, named)
		p, err := specs.NewParams(spec, one)
		if err != nil {
			return exitModel, fmt.Errorf("initial state %d, %v: %w", k+1, named, err)
		}
		m, err := spec.Model(p)
		if err != nil {
			return exitModel, fmt.Errorf("initial state %d, %v: %w", k+1, named, err)
		}
		if m, _, err = attachProps(c, cfg, m, spec, p); err != nil {
			return exitUsage, err
		}
		res, err := explorer.Check(m, cfg)
		if err != nil {
			return exitUsage, err
		}
		checked++
		code = worse(code, res.Status)
		for _, pr := range res.Properties {
			if pr.Verdict == explorer.Skipped {
				continue
			}
			pp := props[pr.Name]
			if pp == nil {
				pp = &perProperty{name: pr.Name, kind: pr.Kind.String(), doc: pr.Doc, verdicts: map[string]int{}}
				props[pr.Name] = pp
				order = append(order, pr.Name)
			}
			pp.verdicts[pr.Verdict.String()]++
		}
		for _, v := range res.Violations {
			pp := props[v.Property]
			if pp == nil || v.Unreached {
				continue
			}
			pp.violating = append(pp.violating, named)
			cause := causeOf(v.Trace)
			i := slices.IndexFunc(pp.causes, func(pc *perCause) bool { return pc.cause == cause })
			if i < 0 {
				t := v.Trace
				t.InitialParams = named
				pp.causes = append(pp.causes, &perCause{cause: cause, trace: t})
				i = len(pp.causes) - 1
			}
			pp.causes[i].initial = append(pp.causes[i].initial, named)
		}
	}
	if stopped != "" && code != exitViolated && code != exitModel {
		code = exitIncomplete
	}
	run := report.Run{Spec: spec.Name, Bug: spec.Bug, Params: params.Canonical(), Involved: views.involved, Rerun: rerunBase(c, spec, given)}
	if views.msc {
		run.Show = "msc"
	}
	var list []*perProperty
	for _, name := range order {
		list = append(list, props[name])
	}
	var err2 error
	if format == "json" {
		err2 = perInitialJSON(c.App.Writer, run, list, len(names), checked, stopped, code)
	} else {
		err2 = perInitialText(c.App.Writer, run, list, len(names), checked, stopped, code, time.Since(start))
	}
	if err2 != nil {
		return exitModel, err2
	}
	var saved []tracefile.Trace
	for _, pp := range list {
		for _, pc := range pp.causes {
			saved = append(saved, savedTrace(run, pp.name, pp.kind, "", -1, pc.trace))
		}
	}
	if err := saveTraces(c, stderr, spec, run.Params, given, saved, nil); err != nil {
		fmt.Fprintf(stderr, "vacheck: warning: %v; the traces were not saved\n", err)
	}
	return code, nil
}

// perInitialRefused refuses, before anything is built or written, the flags
// of check that --per-initial-state does not combine with.
func perInitialRefused(c *urfave.Context) error {
	if !c.Bool("per-initial-state") {
		return nil
	}
	for _, flag := range []string{"checkpoint", "html", "metric", "bitstate", "shard", "cert"} {
		if c.IsSet(flag) {
			return usagef("--per-initial-state checks each initial state on its own, which --%s does not combine with", flag)
		}
	}
	return nil
}

// worse returns the exit code of a check made of searches whose codes so
// far give code, and one more whose status is st.
func worse(code int, st explorer.Status) int {
	rank := map[int]int{exitOK: 0, exitBounded: 1, exitIncomplete: 2, exitViolated: 3, exitModel: 4}
	next := map[explorer.Status]int{explorer.OK: exitOK, explorer.Bounded: exitBounded, explorer.Incomplete: exitIncomplete,
		explorer.Violated: exitViolated, explorer.Failed: exitModel}[st]
	if rank[next] > rank[code] {
		return next
	}
	return code
}

// paramWords writes named initial-state parameters as flags, in the order
// of their names: "--ids 2,1,3 --initiators 1".
func paramWords(p map[string]string) string {
	keys := slices.Sorted(maps.Keys(p))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = "--" + k + " " + p[k]
	}
	return strings.Join(parts, " ")
}

func perInitialText(w io.Writer, run report.Run, list []*perProperty, total, checked int, stopped string, code int, elapsed time.Duration) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", run.Spec, report.Params(run.Params))
	if run.Bug != "" {
		fmt.Fprintf(&b, "broken on purpose: %s\n", run.Bug)
	}
	fmt.Fprintf(&b, "\nper initial state: %d initial states, each checked on its own (as with --continue)", total)
	if checked < total {
		fmt.Fprintf(&b, "; %d checked before %s", checked, stopped)
	}
	b.WriteString("\n\n")
	width := 0
	for _, pp := range list {
		width = max(width, len(pp.name))
	}
	for _, pp := range list {
		var parts []string
		for _, v := range slices.Sorted(maps.Keys(pp.verdicts)) {
			parts = append(parts, fmt.Sprintf("%s in %d", v, pp.verdicts[v]))
		}
		fmt.Fprintf(&b, "  %-*s  %s\n", width, pp.name, strings.Join(parts, ", "))
	}
	fmt.Fprintf(&b, "\n%d searches in %.2f s\n", checked, elapsed.Seconds())
	for _, pp := range list {
		if len(pp.violating) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\nVIOLATED %s in %d of %d initial states, with %d distinct cause%s:\n", pp.name, len(pp.violating), checked, len(pp.causes), plural(len(pp.causes)))
		for _, p := range pp.violating {
			fmt.Fprintf(&b, "  %s\n", paramWords(p))
		}
		for k, pc := range pp.causes {
			fmt.Fprintf(&b, "\n%s, cause %d of %d, in %d initial state%s (the first: %s)\n", pp.name, k+1, len(pp.causes), len(pc.initial), plural(len(pc.initial)), paramWords(pc.initial[0]))
			fmt.Fprintf(&b, "Counterexample (%s):\n", report.TraceKind(pc.trace, explorer.BFS))
			report.WriteSteps(&b, pc.trace, run)
		}
	}
	result := map[int]string{exitOK: "OK, every property holds in every initial state", exitViolated: "VIOLATED", exitIncomplete: "INCOMPLETE",
		exitBounded: "BOUNDED: no violation within the model's bound", exitModel: "ERROR in the model"}[code]
	if stopped != "" {
		result += " (" + stopped + ")"
	}
	fmt.Fprintf(&b, "\nresult: %s\n", result)
	_, err := io.WriteString(w, b.String())
	return err
}

type jsonPerCause struct {
	Actions        []string            `json:"actions"`
	InitialStates  []map[string]string `json:"initial_states"`
	Counterexample any                 `json:"counterexample"`
}

type jsonPerProperty struct {
	Name      string              `json:"name"`
	Kind      string              `json:"kind"`
	Verdicts  map[string]int      `json:"verdicts"`
	Violating []map[string]string `json:"violating"`
	Causes    []jsonPerCause      `json:"causes"`
}

func perInitialJSON(w io.Writer, run report.Run, list []*perProperty, total, checked int, stopped string, code int) error {
	out := struct {
		Spec          string            `json:"spec"`
		Params        map[string]any    `json:"params"`
		Status        string            `json:"status"`
		Reason        string            `json:"reason,omitempty"`
		InitialStates int               `json:"initial_states"`
		Checked       int               `json:"checked"`
		Properties    []jsonPerProperty `json:"properties"`
	}{Spec: run.Spec, Params: run.Params, InitialStates: total, Checked: checked, Reason: stopped, Properties: []jsonPerProperty{},
		Status: map[int]string{exitOK: "ok", exitViolated: "violated", exitIncomplete: "incomplete", exitBounded: "bounded", exitModel: "failed"}[code]}
	for _, pp := range list {
		jp := jsonPerProperty{Name: pp.name, Kind: pp.kind, Verdicts: pp.verdicts, Violating: pp.violating, Causes: []jsonPerCause{}}
		if jp.Violating == nil {
			jp.Violating = []map[string]string{}
		}
		for _, pc := range pp.causes {
			jp.Causes = append(jp.Causes, jsonPerCause{Actions: strings.Fields(pc.cause), InitialStates: pc.initial, Counterexample: run.TraceJSON(pp.name, pp.kind, pc.trace)})
		}
		out.Properties = append(out.Properties, jp)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
