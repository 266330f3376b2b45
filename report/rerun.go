package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/vacheck/vacheck/explorer"
)

// RerunCommand returns the command line that re-runs exactly the scenario
// of a trace whose initial state init names (explorer.Trace.InitialParams):
// base, the words of the run's own command line (["vacheck", "check",
// "chang-roberts", "--n", "4", "--ids", "all"]), with each --flag of init
// put over the value base gives it, or added after base in the order of
// the flags' names. Words that the shell would split or expand are
// quoted. It returns "" when init is nil: the trace's initial state has no
// name.
func RerunCommand(base []string, init map[string]string) string {
	if init == nil {
		return ""
	}
	words := slices.Clone(base)
	done := map[string]bool{}
	for k := 0; k+1 < len(words); k++ {
		name, ok := strings.CutPrefix(words[k], "--")
		if !ok {
			continue
		}
		if v, named := init[name]; named {
			words[k+1] = v
			done[name] = true
			k++
		}
	}
	names := make([]string, 0, len(init))
	for name := range init {
		if !done[name] {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		words = append(words, "--"+name, init[name])
	}
	for k, w := range words {
		words[k] = shellQuote(w)
	}
	return strings.Join(words, " ")
}

// shellQuote returns w as a POSIX shell reads it back: as it is when it
// has only characters the shell leaves alone, otherwise in single quotes.
func shellQuote(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789,._-+=:/@%") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// rerunBase is the command line the run's re-run commands start from: the
// run's own (Run.Rerun), or `vacheck check SPEC` with the run's canonical
// parameters.
func (run Run) rerunBase() []string {
	if len(run.Rerun) > 0 {
		return run.Rerun
	}
	base := []string{"vacheck", "check", run.Spec}
	keys := make([]string, 0, len(run.Params))
	for k := range run.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		base = append(base, "--"+k, fmt.Sprint(run.Params[k]))
	}
	return base
}

// RerunOf returns the command that re-runs exactly the scenario of t, a
// trace of run, or "" when t's initial state has no name.
func (run Run) RerunOf(t explorer.Trace) string { return run.rerun(t) }

// rerun is RerunOf.
func (run Run) rerun(t explorer.Trace) string {
	return RerunCommand(run.rerunBase(), t.InitialParams)
}

// from is how a trace's header names its start: " from initial state #k"
// (its place among the model's initial states, as `vacheck explore` and
// the state graph number them), or "" for a trace with no such place (a
// simulation's). The re-run command that ends the trace says which
// parameters select that state.
func from(t explorer.Trace) string {
	if t.Initial < 0 {
		return ""
	}
	return fmt.Sprintf(" from initial state #%d", t.Initial+1)
}

// writeRerun writes the line that ends a trace: the command that re-runs
// exactly its scenario, when its initial state has a name.
func writeRerun(b *strings.Builder, t explorer.Trace, run Run) {
	if cmd := run.rerun(t); cmd != "" {
		fmt.Fprintf(b, "  Re-run this scenario: %s\n", cmd)
	}
}

// WriteSteps writes the steps of t, a trace of run, as a counterexample
// reads (the initial state, each step with what it changed or the chart
// run asks for, what the last state means), and the command that re-runs
// its scenario: for a trace told apart from a check's report, such as one
// that `vacheck replay` replayed.
func WriteSteps(b *strings.Builder, t explorer.Trace, run Run) {
	writeSteps(b, t, run)
	writeRerun(b, t, run)
}

// TraceJSON returns t, a trace of run violating prop of kind kind, as the
// JSON of a check gives a violation (with its re-run command), for a
// report that is not a check's.
func (run Run) TraceJSON(prop, kind string, t explorer.Trace) any {
	v := traceJSON(prop, kind, t, run.TraceDiff)
	v.Rerun = run.rerun(t)
	return v
}
