package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	urfave "github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/report"
	"github.com/vacheck/vacheck/report/msc"
)

// chartFlags are the flags of `check` that draw traces as charts besides
// --show msc (parsed with the other --show values in run.go).
func chartFlags() []urfave.Flag {
	return []urfave.Flag{
		&urfave.StringFlag{Name: "html", Usage: "write the counterexamples and metric witnesses as message sequence charts to this self-contained HTML `FILE`"},
	}
}

// checkHTML checks before a run that --html names a file that can be
// written (checkOutputFile).
func checkHTML(c *urfave.Context) error { return checkOutputFile(c, "html") }

// checkOutputFile checks before a run that the flag (--html, --save-trace)
// names a file that can be written: its directory exists and takes a new
// file, and the file, if it exists, is a regular file. The run's report is
// then not lost to a typo in the path at its end.
func checkOutputFile(c *urfave.Context, flag string) error {
	file := c.String(flag)
	if !c.IsSet(flag) {
		return nil
	}
	if file == "" {
		return usagef("--%s: the file name is empty", flag)
	}
	dir := filepath.Dir(file)
	switch st, err := os.Stat(dir); {
	case err != nil:
		return usagef("--%s %s: the directory %s does not exist", flag, file, dir)
	case !st.IsDir():
		return usagef("--%s %s: %s is not a directory", flag, file, dir)
	}
	if st, err := os.Stat(file); err == nil {
		if !st.Mode().IsRegular() {
			return usagef("--%s %s: not a regular file", flag, file)
		}
		// An existing file is rewritten: it must open for writing (its
		// directory need not take new files).
		f, err := os.OpenFile(file, os.O_WRONLY, 0)
		if err != nil {
			return usagef("--%s %s: cannot be written: %v", flag, file, err)
		}
		f.Close()
		return nil
	}
	probe, err := os.CreateTemp(dir, ".vacheck-"+flag+"-*")
	if err != nil {
		return usagef("--%s %s: the directory %s takes no new file: %v", flag, file, dir, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// charts writes --html FILE when the run has a counterexample or a
// witness, saying so on stderr.
func charts(c *urfave.Context, run *report.Run, stderr io.Writer) error {
	file := c.String("html")
	if file == "" {
		return nil
	}
	page, ok := chartPage(*run)
	if !ok {
		fmt.Fprintf(stderr, "vacheck: no counterexample or witness, %s not written\n", file)
		return nil
	}
	return writePage(file, page, stderr)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// chartPage makes the HTML page of a run: one chart per counterexample,
// per metric witness and for a model error. It reports false when there
// is nothing to draw.
func chartPage(run report.Run) (msc.Page, bool) {
	r := run.Result
	unordered := run.Params["channels"] == "unordered"
	page := msc.Page{Spec: run.Spec, Params: report.Params(run.Params), Bug: run.Bug}
	docs := map[string]string{}
	for _, p := range r.Properties {
		docs[p.Name] = p.Doc
		if verdict := run.VerdictOf(p); verdict != "" {
			page.Properties = append(page.Properties, [3]string{p.Name, verdict, p.Doc})
		}
	}
	switch r.Status {
	case explorer.OK:
		page.Result = run.OKLine()
	case explorer.Violated:
		page.Result = "VIOLATED"
	case explorer.Incomplete:
		page.Result = "INCOMPLETE, " + r.Reason
	case explorer.Bounded:
		page.Result = "BOUNDED: no violation within the model's bound; " + r.Reason
	case explorer.Failed:
		page.Result = "ERROR in the model: " + r.Reason
	}
	add := func(title string, lines []string, t explorer.Trace) {
		ch, err := msc.Build(t, unordered)
		if err != nil {
			return
		}
		page.Sections = append(page.Sections, msc.Section{Title: title, Lines: append(lines, traceLine(t, r.Strategy, run.RerunOf(t))), Explanation: t.Explanation, Chart: ch})
	}
	for _, v := range r.Violations {
		title := "VIOLATED " + v.Property
		if v.Process >= 0 {
			title += fmt.Sprintf(" (for process %d)", v.Process+1)
		}
		var lines []string
		if d := docs[v.Property]; d != "" {
			lines = append(lines, v.Property+": "+d)
		}
		switch {
		case v.Property == "deadlock-freedom":
			title = "DEADLOCK"
			lines = append(lines, "A terminal state that is not a valid end state.")
		case len(v.Trace.Cycle) > 0:
			lines = append(lines, fmt.Sprintf("A fair execution (%s fairness) that repeats a cycle forever without reaching the goal.", r.Fairness))
		case v.Kind.String() == "liveness" || v.Kind.String() == "termination":
			lines = append(lines, "A fair execution that stops in a terminal state where the goal does not hold.")
		}
		add(title, lines, v.Trace)
	}
	// witness adds a metric witness whose figure is value, with the
	// messages it counted marked (report.Counted).
	witness := func(title, summary, metric string, value int64, t explorer.Trace) {
		ch, err := msc.Build(t, unordered)
		if err != nil {
			return
		}
		lines := []string{summary}
		if counted, ok := report.Counted(metric, value, ch); ok && len(counted) > 0 && len(t.Cycle) == 0 {
			var ids []string
			for _, k := range counted {
				ch.Messages[k].Counted = true
				ids = append(ids, fmt.Sprintf("m%d", ch.Messages[k].ID))
			}
			lines = append(lines, fmt.Sprintf("The %d messages counted, drawn bold: %s.", len(ids), strings.Join(ids, " ")))
		}
		page.Sections = append(page.Sections, msc.Section{Title: title, Lines: append(lines, traceLine(t, r.Strategy, run.RerunOf(t))), Explanation: t.Explanation, Chart: ch})
	}
	for _, m := range r.Metrics {
		summary := fmt.Sprintf("%s over all complete executions: min %d, max %d", m.Name, m.Min, m.Max)
		if m.Unbounded {
			summary = fmt.Sprintf("%s: max unbounded, a reachable cycle adds to it", m.Name)
		}
		if report.SameWitness(m) {
			witness(fmt.Sprintf("%s: witness (min = max = %d)", m.Name, m.Min), summary, m.Name, m.Min, *m.MinWitness)
			continue
		}
		if m.MinWitness != nil {
			witness(fmt.Sprintf("%s: min witness (%d)", m.Name, m.Min), summary, m.Name, m.Min, *m.MinWitness)
		}
		if m.MaxWitness != nil && m.Unbounded {
			add(m.Name+": unbounded, a cycle adds to it", []string{summary}, *m.MaxWitness)
		} else if m.MaxWitness != nil {
			witness(fmt.Sprintf("%s: max witness (%d)", m.Name, m.Max), summary, m.Name, m.Max, *m.MaxWitness)
		}
	}
	if r.Failure != nil {
		add("MODEL ERROR", []string{r.Reason}, *r.Failure)
	}
	return page, len(page.Sections) > 0
}

// traceLine says what kind of trace t is and how to re-run its scenario
// (rerun, report.Run.RerunOf), or which initial state it starts from when
// rerun is "".
func traceLine(t explorer.Trace, st explorer.Strategy, rerun string) string {
	line := fmt.Sprintf("Trace (%s) from initial state #%d.", report.TraceKind(t, st), t.Initial+1)
	if rerun != "" {
		line += " Re-run this scenario: " + rerun
	}
	return line
}
