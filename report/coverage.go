package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/vacheck/vacheck/explorer"
)

// CoverageText returns the coverage table of a run (check, swarm or
// simulate with --coverage): the transitions fired by step, the messages
// by type, the receive cases, and the declared steps and message types
// that never fired, with the spec's explanation when it has one.
func CoverageText(c *explorer.Coverage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "coverage: %s fired\n", Count(c.Transitions, "transition"))
	rows := [][]string{{"step", "fired", ""}}
	for _, s := range c.Steps {
		rows = append(rows, []string{s.Name, Group(s.Fired), undeclared(s.Declared, c.DeclaresSteps)})
	}
	writeTable(&b, "lrl", rows)
	if len(c.Messages) > 0 {
		rows = [][]string{{"message", "sent", "received", ""}}
		for _, m := range c.Messages {
			rows = append(rows, []string{m.Type, Group(m.Sent), Group(m.Received), undeclared(m.Declared, c.DeclaresMessages)})
		}
		writeTable(&b, "lrrl", rows)
	}
	if len(c.ReceiveCases) > 0 {
		rows = [][]string{{"receive case", "fired"}}
		for _, rc := range c.ReceiveCases {
			rows = append(rows, []string{ReceiveCaseName(rc), Group(rc.Fired)})
		}
		writeTable(&b, "lr", rows)
	}
	var never []string
	for _, s := range c.UnfiredSteps {
		never = append(never, "step "+s+why(c, s))
	}
	for _, m := range c.UnfiredMessages {
		never = append(never, "message "+m+why(c, m))
	}
	switch {
	case len(never) > 0:
		fmt.Fprintf(&b, "  never fired: %s\n", strings.Join(never, "; "))
	case c.DeclaresSteps && c.DeclaresMessages:
		b.WriteString("  every declared step and message type fired\n")
	case c.DeclaresSteps:
		b.WriteString("  every declared step fired\n")
	}
	if !c.DeclaresSteps || !c.DeclaresMessages {
		var what []string
		if !c.DeclaresSteps {
			what = append(what, "step names (automaton.Config.StepNames)")
		}
		if !c.DeclaresMessages {
			what = append(what, "message types (automaton.Config.MessageTypes)")
		}
		fmt.Fprintf(&b, "  the spec declares no %s, so those that never fired cannot be listed\n", strings.Join(what, " and no "))
	}
	if n := len(c.UndeclaredSteps) + len(c.UndeclaredMessages); n > 0 {
		fmt.Fprintf(&b, "  fired but not declared (a mistake of the spec's declaration): %s\n",
			strings.Join(append(prefixed("step ", c.UndeclaredSteps), prefixed("message ", c.UndeclaredMessages)...), "; "))
	}
	return b.String()
}

// ReceiveCaseName names a receive case: "REQUEST → LOCKED", "RELEASE →
// nothing", "REQUEST → discarded (receiver crashed)".
func ReceiveCaseName(rc explorer.ReceiveCase) string {
	switch {
	case rc.Discarded:
		return rc.Received + " → discarded (receiver crashed)"
	case len(rc.Sent) == 0:
		return rc.Received + " → nothing sent"
	}
	return rc.Received + " → " + strings.Join(rc.Sent, ", ")
}

func undeclared(declared, declares bool) string {
	if declares && !declared {
		return "not declared"
	}
	return ""
}

func why(c *explorer.Coverage, name string) string {
	if w := c.MayNotFire[name]; w != "" {
		return " (the spec says: " + w + ")"
	}
	return ""
}

func prefixed(p string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = p + n
	}
	return out
}

// writeTable writes rows as columns indented by two spaces, column i
// aligned left or right as align[i] is 'l' or 'r', trailing spaces dropped.
func writeTable(b *strings.Builder, align string, rows [][]string) {
	widths := make([]int, len(align))
	for _, r := range rows {
		for i, cell := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	for _, r := range rows {
		var line strings.Builder
		line.WriteString(" ")
		for i, cell := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			if align[i] == 'l' {
				line.WriteString(" " + cell + pad)
			} else {
				line.WriteString(" " + pad + cell)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// JSONCoverage is the JSON of a coverage table (CoverageJSON).
type JSONCoverage struct {
	Transitions  int64             `json:"transitions"`
	Steps        []jsonCoverStep   `json:"steps"`
	Messages     []jsonCoverMsg    `json:"messages"`
	ReceiveCases []jsonReceiveCase `json:"receive_cases"`
	// DeclaresSteps and DeclaresMessages say whether the spec declares
	// them, so that the unfired lists are meaningful.
	DeclaresSteps      bool              `json:"declares_steps"`
	DeclaresMessages   bool              `json:"declares_messages"`
	UnfiredSteps       []string          `json:"unfired_steps"`
	UnfiredMessages    []string          `json:"unfired_messages"`
	UndeclaredSteps    []string          `json:"undeclared_steps,omitempty"`
	UndeclaredMessages []string          `json:"undeclared_messages,omitempty"`
	MayNotFire         map[string]string `json:"may_not_fire,omitempty"`
}

type jsonCoverStep struct {
	Name     string `json:"name"`
	Fired    int64  `json:"fired"`
	Declared bool   `json:"declared"`
}

type jsonCoverMsg struct {
	Type     string `json:"type"`
	Sent     int64  `json:"sent"`
	Received int64  `json:"received"`
	Declared bool   `json:"declared"`
}

type jsonReceiveCase struct {
	Received  string   `json:"received"`
	Sent      []string `json:"sent"`
	Discarded bool     `json:"discarded,omitempty"`
	Fired     int64    `json:"fired"`
}

// CoverageJSON returns the JSON form of c, or nil for nil.
func CoverageJSON(c *explorer.Coverage) *JSONCoverage {
	if c == nil {
		return nil
	}
	j := &JSONCoverage{
		Transitions: c.Transitions, DeclaresSteps: c.DeclaresSteps, DeclaresMessages: c.DeclaresMessages,
		Steps: []jsonCoverStep{}, Messages: []jsonCoverMsg{}, ReceiveCases: []jsonReceiveCase{},
		UnfiredSteps: nonNil(c.UnfiredSteps), UnfiredMessages: nonNil(c.UnfiredMessages),
		UndeclaredSteps: c.UndeclaredSteps, UndeclaredMessages: c.UndeclaredMessages, MayNotFire: c.MayNotFire,
	}
	for _, s := range c.Steps {
		j.Steps = append(j.Steps, jsonCoverStep{Name: s.Name, Fired: s.Fired, Declared: s.Declared})
	}
	for _, m := range c.Messages {
		j.Messages = append(j.Messages, jsonCoverMsg{Type: m.Type, Sent: m.Sent, Received: m.Received, Declared: m.Declared})
	}
	for _, rc := range c.ReceiveCases {
		j.ReceiveCases = append(j.ReceiveCases, jsonReceiveCase{Received: rc.Received, Sent: nonNil(rc.Sent), Discarded: rc.Discarded, Fired: rc.Fired})
	}
	return j
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
