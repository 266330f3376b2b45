package report

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/vacheck/vacheck/explorer"
)

// lineWidth is the width long lines of a trace are wrapped to.
const lineWidth = 100

// wrap breaks s at spaces into lines of at most width characters (a word
// longer than that stays whole); the lines after the first start with
// cont, so that a wrapped value reads as one.
func wrap(s string, width int, cont string) []string {
	if len([]rune(s)) <= width {
		return []string{s}
	}
	var lines []string
	line := ""
	for _, w := range strings.Split(s, " ") {
		if line != "" && strings.TrimSpace(line) != "" && len([]rune(line))+1+len([]rune(w)) > width {
			lines = append(lines, line)
			line = cont
		}
		if line != "" && line != cont {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

// queueLen is the number of messages in a channel's value, or -1.
func queueLen(v any) int {
	if xs, ok := v.([]any); ok {
		return len(xs)
	}
	return -1
}

// processOf returns the process numbers (1-based) a variable belongs to:
// pK and pK.field to K, queue_{i,j} and bag_{i,j} to i and j; none for the global ones
// (crashed, failed-assertion...).
func processOf(name string) []int {
	if m := queueVar.FindStringSubmatch(name); m != nil {
		i, _ := strconv.Atoi(m[1])
		j, _ := strconv.Atoi(m[2])
		return []int{i, j}
	}
	if m := processVar.FindStringSubmatch(name); m != nil {
		k, _ := strconv.Atoi(m[1])
		return []int{k}
	}
	return nil
}

var (
	queueVar   = regexp.MustCompile(`^(?:queue|bag)_\{(\d+),(\d+)\}$`)
	processVar = regexp.MustCompile(`^p(\d+)(\.|$)`)
	// actionProcs is the process list an action ends with, as in
	// request_{1} or receive(5)_{2,3}.
	actionProcs = regexp.MustCompile(`_\{([\d,]+)\}$`)
)

// involved returns the processes involved in t, those whose variables
// change or which send or receive in it (in sorted order), the variables
// that change somewhere in it, and the processes of the initial state.
func involved(t explorer.Trace) (procs []int, changed map[string]bool, all []int) {
	in := map[int]bool{}
	changed = map[string]bool{}
	for _, v := range t.InitialState {
		for _, p := range processOf(v.Name) {
			if !slices.Contains(all, p) {
				all = append(all, p)
			}
		}
	}
	prev := t.InitialState
	for _, s := range append(append([]explorer.Step(nil), t.Steps...), t.Cycle...) {
		before := map[string]any{}
		for _, v := range prev {
			before[v.Name] = v.Value
		}
		for _, v := range changedVars(prev, s.State) {
			changed[v.Name] = true
			ps := processOf(v.Name)
			if len(ps) == 2 {
				// A channel from ps[0] to ps[1]: the sender is involved
				// when it grows, the receiver when it shrinks.
				a, b := queueLen(before[v.Name]), queueLen(v.Value)
				switch {
				case b > a:
					ps = ps[:1]
				case b < a:
					ps = ps[1:]
				}
			}
			for _, p := range ps {
				in[p] = true
			}
		}
		// An action of one process, such as crash_{4}, involves it even
		// if it changes none of its variables.
		if m := actionProcs.FindStringSubmatch(s.Action); m != nil && !strings.Contains(m[1], ",") {
			if p, err := strconv.Atoi(m[1]); err == nil {
				in[p] = true
			}
		}
		prev = s.State
	}
	for p := range in {
		procs = append(procs, p)
	}
	slices.Sort(procs)
	slices.Sort(all)
	return procs, changed, all
}

// involvedOnly keeps, in every state of t, the variables of the processes
// involved in it, the channels that change in it and the global variables;
// it writes a line saying which processes are hidden.
func involvedOnly(b *strings.Builder, t explorer.Trace) explorer.Trace {
	procs, changed, all := involved(t)
	var hidden []string
	for _, p := range all {
		if !slices.Contains(procs, p) {
			hidden = append(hidden, strconv.Itoa(p))
		}
	}
	keep := func(v explorer.Var) bool {
		ps := processOf(v.Name)
		switch {
		case mailboxVar.MatchString(v.Name): // a mailbox, as a channel
			return changed[v.Name] || queueLen(v.Value) != 0
		case len(ps) == 0:
			return true
		case len(ps) == 2: // a channel: shown if it changes or is not empty
			return changed[v.Name] || queueLen(v.Value) != 0
		}
		return slices.Contains(procs, ps[0])
	}
	filter := func(vs []explorer.Var) []explorer.Var {
		if vs == nil {
			return nil
		}
		out := []explorer.Var{}
		for _, v := range vs {
			if keep(v) {
				out = append(out, v)
			}
		}
		return out
	}
	steps := func(ss []explorer.Step) []explorer.Step {
		out := make([]explorer.Step, len(ss))
		for i, s := range ss {
			s.State = filter(s.State)
			out[i] = s
		}
		return out
	}
	t.InitialState = filter(t.InitialState)
	if len(hidden) > 0 {
		fmt.Fprintf(b, "  (--show involved: processes %s; hidden: %s %s (no change, send or receive), empty channels)\n",
			joinInts(procs), plural2(len(hidden), "process", "processes"), strings.Join(hidden, ", "))
	} else {
		fmt.Fprintf(b, "  (--show involved: every process is involved; hidden: the channels that stay empty)\n")
	}
	t.Steps = steps(t.Steps)
	t.Cycle = steps(t.Cycle)
	return t
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

func plural2(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// changedVars returns the variables of after whose values differ from
// before, and those of before that after no longer has (with value nil).
func changedVars(before, after []explorer.Var) []explorer.Var {
	old := map[string]string{}
	for _, v := range before {
		old[v.Name] = formatValue(v.Value)
	}
	now := map[string]bool{}
	var out []explorer.Var
	for _, v := range after {
		now[v.Name] = true
		if was, ok := old[v.Name]; !ok || was != formatValue(v.Value) {
			out = append(out, v)
		}
	}
	for _, v := range before {
		if !now[v.Name] {
			out = append(out, explorer.Var{Name: v.Name})
		}
	}
	return out
}

// wrapJoined joins the var=value items with two spaces into lines of at
// most width characters, breaking between items, and a single item longer
// than that inside its value.
func wrapJoined(items []string, width int) []string {
	var lines []string
	line := ""
	for _, it := range items {
		switch {
		case line == "":
			line = it
		case len([]rune(line))+2+len([]rune(it)) <= width:
			line += "  " + it
		default:
			lines = append(lines, line)
			line = it
		}
		if len([]rune(line)) > width {
			parts := wrap(line, width, "    ")
			lines = append(lines, parts[:len(parts)-1]...)
			line = parts[len(parts)-1]
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// writeChange writes one "name: before → after" line of a step, wrapped.
func writeChange(b *strings.Builder, c string) {
	for _, line := range wrap(c, lineWidth-8, "    ") {
		fmt.Fprintf(b, "        %s\n", line)
	}
}
