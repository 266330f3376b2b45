package msc

import (
	"fmt"
	"strings"
)

// Width is the width the text chart aims at: it fits for up to 5
// processes.
const Width = 100

const (
	gutter   = 6 // the step number column
	margin   = 4 // room left of the first lifeline, for self-messages
	lifeline = '│'
	downLine = '┆'
)

// Legend explains the glyphs of the text chart.
const Legend = "● a step  ╌m1╌> sent  ──m1─▶ received  ╌m1╌▷ in transit at the end (◁ leftwards)  ↺m1 sent to itself  ✕ crash or lost"

// Text renders the chart as plain text, one row per step (a step that
// receives and sends across the same lifelines takes two), with the action
// and what it changed on the right.
func (c *Chart) Text() string {
	t := textChart{c: c, w: max(8, min(16, (Width-gutter-margin-44)/max(1, c.N)))}
	return t.render()
}

type textChart struct {
	c       *Chart
	w       int // columns per lifeline
	out     strings.Builder
	contRow []rune // the lifelines of continuation rows, without the gutter
}

func (t *textChart) x(p int) int { return gutter + margin + p*t.w }

func (t *textChart) notesAt() int { return gutter + margin + t.c.N*t.w - margin/2 }

// base returns an empty row with the lifelines after step k.
func (t *textChart) base(k int) []rune {
	row := []rune(strings.Repeat(" ", t.notesAt()))
	for p := 0; p < t.c.N; p++ {
		g := lifeline
		if t.c.Crashed[k][p] {
			g = downLine
		}
		row[t.x(p)] = g
	}
	return row
}

// line draws ch from a to b (inclusive) where the row is empty, and a
// crossing where it passes a lifeline.
func line(row []rune, a, b int, ch rune) {
	if a > b {
		a, b = b, a
	}
	for i := max(a, 0); i <= b && i < len(row); i++ {
		switch row[i] {
		case ' ':
			row[i] = ch
		case lifeline, downLine:
			row[i] = '┼'
		}
	}
}

func put(row []rune, at int, s string) {
	for _, r := range s {
		if at >= 0 && at < len(row) {
			row[at] = r
		}
		at++
	}
}

func free(row []rune, at, n int) bool {
	for i := at; i < at+n; i++ {
		if i < 0 || i >= len(row) || row[i] != ' ' {
			return false
		}
	}
	return true
}

// arrow draws a message from lifeline s to lifeline d with its label just
// before the head.
func (t *textChart) arrow(row []rune, s, d int, stroke rune, headR, headL string, label string) {
	if s == d {
		// a message to itself: sent on the right of the lifeline (↺m1),
		// received on its left (m1▶)
		tag, at := "↺"+label, t.x(s)+1
		if stroke == '─' {
			tag = label + headR
			at = t.x(s) - len([]rune(tag))
		}
		if !free(row, at, len([]rune(tag))) && stroke != '─' {
			at = t.x(s) - len([]rune(tag)) // the right is taken: on the left
		}
		if free(row, at, len([]rune(tag))) {
			put(row, at, tag)
		}
		return
	}
	if d > s {
		end := t.x(d) - 1
		line(row, t.x(s)+1, end, stroke)
		put(row, end-len(label), label+headR)
		return
	}
	end := t.x(d) + 1
	line(row, end, t.x(s)-1, stroke)
	put(row, end, headL+label)
}

// span is the part of a row an arrow covers.
func (t *textChart) span(s, d int) (int, int) {
	return min(t.x(s), t.x(d)) + 1, max(t.x(s), t.x(d)) - 1
}

func (t *textChart) emit(num string, row []rune, notes []string) {
	fmt.Fprintf(&t.out, "%-*s", gutter, num)
	// the number column is part of row: overwrite it
	s := strings.TrimRight(string(row[gutter:]), " ")
	if len(notes) > 0 && notes[0] != "" {
		s = string(row[gutter:]) + notes[0]
	}
	t.out.WriteString(s + "\n")
	for _, n := range notes[1:] {
		// continuation rows: lifelines only
		t.out.WriteString(strings.Repeat(" ", gutter) + string(t.contRow) + n + "\n")
	}
}

func (t *textChart) render() string {
	c := t.c
	head := []rune(strings.Repeat(" ", t.notesAt()-gutter))
	for p := 0; p < c.N; p++ {
		put(head, t.x(p)-gutter, fmt.Sprintf("p%d", p+1))
	}
	t.out.WriteString(strings.Repeat(" ", gutter) + strings.TrimRight(string(head), " ") + "\n")
	last := len(c.Steps) - 1
	for k, st := range c.Steps {
		if k > 0 && k == c.CycleStart {
			t.separator(k-1, fmt.Sprintf("cycle: steps %d-%d, repeated forever", k, last), tasks(c.CycleTasks))
		}
		t.step(k, st)
	}
	if c.CycleStart > 0 {
		t.separator(last, fmt.Sprintf("back to the state after step %d", c.CycleStart-1), "")
	}
	for _, m := range c.Messages {
		if !m.InTransit() {
			continue
		}
		row := t.base(last)
		t.arrow(row, m.From, m.To, '╌', "▷", "◁", fmt.Sprintf("m%d", m.ID))
		t.contRow = t.base(last)[gutter:]
		t.emit("", row, t.wrap([]string{fmt.Sprintf("m%d in transit: %s", m.ID, m.Value)}))
	}
	return t.out.String()
}

func tasks(ts []string) string {
	if len(ts) == 0 {
		return ""
	}
	return "tasks " + strings.Join(ts, ", ")
}

func (t *textChart) separator(k int, note, more string) {
	row := t.base(k)
	for i := gutter; i < len(row)-1; i++ {
		if row[i] == ' ' {
			row[i] = '┄'
		}
	}
	t.contRow = t.base(k)[gutter:]
	frags := []string{note}
	if more != "" {
		frags = append(frags, more)
	}
	t.emit("", row, t.wrap(frags))
}

func (t *textChart) step(k int, st Step) {
	c := t.c
	row := t.base(k)
	t.contRow = t.base(k)[gutter:]
	lbl := func(m int) string { return fmt.Sprintf("m%d", c.Messages[m].ID) }
	var second []rune // the sends, when they would cross the receive
	if st.Recv >= 0 {
		m := c.Messages[st.Recv]
		t.arrow(row, m.From, m.To, '─', "▶", "◀", lbl(st.Recv))
	}
	for _, m := range st.Lost {
		msg := c.Messages[m]
		t.arrow(row, msg.From, msg.To, '─', "✕", "✕", lbl(m))
	}
	for _, m := range st.Taken {
		msg := c.Messages[m]
		t.arrow(row, msg.From, msg.To, '─', "▶", "◀", lbl(m))
	}
	// A shared action: a double line from the actor to each partner,
	// whose lifeline is marked like the actor's.
	for _, p := range st.With {
		if p >= 0 && p < c.N && st.Actor >= 0 {
			a, b := t.x(min(p, st.Actor)), t.x(max(p, st.Actor))
			line(row, a+1, b-1, '═')
			row[t.x(p)] = '●'
		}
	}
	if len(st.Sends) > 0 {
		target := row
		if st.Recv >= 0 {
			m := c.Messages[st.Recv]
			ra, rb := t.span(m.From, m.To)
			for _, s := range st.Sends {
				sa, sb := t.span(c.Messages[s].From, c.Messages[s].To)
				self := m.From == m.To || c.Messages[s].From == c.Messages[s].To
				if !self && sa <= rb && ra <= sb {
					second = t.base(k)
					target = second
					break
				}
			}
		}
		// one arrow per channel, the longest first, so that nearer labels
		// are drawn over the line (step 0 may send from several processes)
		var chans []channel
		ids := map[channel][]string{}
		for _, m := range st.Sends {
			ch := channel{c.Messages[m].From, c.Messages[m].To}
			if ids[ch] == nil {
				chans = append(chans, ch)
			}
			ids[ch] = append(ids[ch], lbl(m))
		}
		dist := func(ch channel) int { d := ch.to - ch.from; return max(d, -d) }
		for i := 1; i < len(chans); i++ {
			for j := i; j > 0 && dist(chans[j]) > dist(chans[j-1]); j-- {
				chans[j], chans[j-1] = chans[j-1], chans[j]
			}
		}
		for _, ch := range chans {
			t.arrow(target, ch.from, ch.to, '╌', ">", "<", strings.Join(ids[ch], ","))
		}
	}
	if st.Actor >= 0 && st.Actor < c.N {
		g := '●'
		if st.Kind == Crash {
			g = '✕'
		}
		row[t.x(st.Actor)] = g
	}
	notes := t.notes(k, st)
	num := fmt.Sprintf("%4d", k)
	if second == nil {
		t.emit(num, row, notes)
		return
	}
	first := notes
	if len(notes) > 0 {
		first = notes[:1]
	}
	t.emit(num, row, first)
	if len(notes) < 2 {
		notes = append(notes, "")
	}
	t.emit("", second, notes[1:])
}

// notes says what step k did: the action, the variables it changed, the
// messages it sent, received or lost.
func (t *textChart) notes(k int, st Step) []string {
	c := t.c
	if k == 0 {
		frags := []string{"initial state"}
		frags = append(frags, t.sends(st)...)
		return t.wrap(frags)
	}
	first := st.Action
	if st.Recv >= 0 {
		m := c.Messages[st.Recv]
		first += fmt.Sprintf(" m%d", m.ID)
		if len(m.Overtakes) > 0 {
			var ids []string
			for _, o := range m.Overtakes {
				ids = append(ids, fmt.Sprintf("m%d", c.Messages[o].ID))
			}
			first += " overtakes " + strings.Join(ids, ",")
		}
	}
	frags := []string{first}
	var vars []string
	for _, ch := range st.Changes {
		if queueRE.MatchString(ch.Name) || mailboxRE.MatchString(ch.Name) {
			continue
		}
		name := ch.Name
		if ch.Proc >= 0 && ch.Proc == st.Actor {
			name = strings.TrimPrefix(name, fmt.Sprintf("p%d.", ch.Proc+1))
		}
		vars = append(vars, name+"="+ch.New)
	}
	frags = append(frags, vars...)
	frags = append(frags, t.sends(st)...)
	for _, m := range st.Lost {
		frags = append(frags, fmt.Sprintf("lost m%d %s", c.Messages[m].ID, c.Messages[m].Value))
	}
	return t.wrap(frags)
}

// sends describes the messages a step sent, grouped by value; the value is
// left out when the action's label shows it.
func (t *textChart) sends(st Step) []string {
	c := t.c
	_, arg, _, _ := ParseAction(st.Action)
	var out []string
	for i := 0; i < len(st.Sends); {
		j := i
		var ids []string
		for ; j < len(st.Sends) && c.Messages[st.Sends[j]].Value == c.Messages[st.Sends[i]].Value; j++ {
			ids = append(ids, fmt.Sprintf("m%d", c.Messages[st.Sends[j]].ID))
		}
		s := "→" + strings.Join(ids, ",")
		if v := c.Messages[st.Sends[i]].Value; v != arg {
			s += " " + v
		}
		out = append(out, s)
		i = j
	}
	return out
}

// wrap joins fragments with two spaces into lines that fit the notes
// column.
func (t *textChart) wrap(frags []string) []string {
	width := max(30, Width-t.notesAt())
	var lines []string
	cur := ""
	for _, f := range frags {
		switch {
		case cur == "":
			cur = f
		case len([]rune(cur))+2+len([]rune(f)) <= width:
			cur += "  " + f
		default:
			lines = append(lines, cur)
			cur = "  " + f
		}
	}
	return append(lines, cur)
}
