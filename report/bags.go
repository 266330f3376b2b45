package report

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/report/msc"
)

// mailboxVar matches a mailbox's variable, mailbox_{j}.
var mailboxVar = regexp.MustCompile(`^mailbox_\{(\d+)\}$`)

// sendOrder returns t with the messages of every unordered channel
// (bag_{i,j}) and every mailbox (mailbox_{j}) listed in the order they were sent, matched across the
// steps as the message sequence chart matches them (by value, the oldest
// pending copy first), instead of the canonical order the state keeps
// them in, so that a reader can see which message overtakes which; and,
// by step (1-based, the cycle's steps after the others), the lines that
// say so. A trace without bags, or one the chart cannot be drawn from, is
// returned as it is.
func sendOrder(t explorer.Trace) (explorer.Trace, map[int][]string) {
	hasBag, hasMailbox := false, false
	for _, v := range t.InitialState {
		hasBag = hasBag || strings.HasPrefix(v.Name, "bag_")
		hasMailbox = hasMailbox || strings.HasPrefix(v.Name, "mailbox_")
	}
	hasBag = hasBag || hasMailbox
	if !hasBag {
		return t, nil
	}
	c, err := msc.Build(t, true)
	if err != nil {
		return t, nil
	}
	// pending returns the values of the messages from i to j (0-based) in
	// their channel after step k, in the order they were sent.
	pending := func(i, j, k int) []string {
		var out []string
		for _, m := range c.Messages {
			gone := m.Received >= 0 && m.Received <= k || m.Lost >= 0 && m.Lost <= k
			if m.From == i && m.To == j && m.Sent <= k && !gone {
				out = append(out, m.Value)
			}
		}
		return out
	}
	// letters returns the messages in the mailbox of j (0-based) after
	// step k, in the order they were sent, each as the mailbox shows it:
	// "i:v" for v sent by i.
	letters := func(j, k int) []string {
		var out []string
		for _, m := range c.Messages {
			gone := m.Received >= 0 && m.Received <= k || m.Lost >= 0 && m.Lost <= k
			if m.To == j && m.Sent <= k && !gone {
				out = append(out, fmt.Sprintf("%d:%s", m.From+1, m.Value))
			}
		}
		return out
	}
	reorder := func(state []explorer.Var, k int) []explorer.Var {
		out := make([]explorer.Var, len(state))
		copy(out, state)
		for n, v := range out {
			ps := processOf(v.Name)
			list, ok := v.Value.([]any)
			var order []string
			switch {
			case !ok:
				continue
			case strings.HasPrefix(v.Name, "bag_") && len(ps) == 2:
				order = pending(ps[0]-1, ps[1]-1, k)
			case mailboxVar.MatchString(v.Name):
				j, _ := strconv.Atoi(mailboxVar.FindStringSubmatch(v.Name)[1])
				order = letters(j-1, k)
			default:
				continue
			}
			if len(order) != len(list) {
				continue // not matched: keep the state's order
			}
			used := make([]bool, len(list))
			sorted := make([]any, 0, len(list))
			for _, want := range order {
				for e, x := range list {
					if !used[e] && msc.Format(x) == want {
						used[e] = true
						sorted = append(sorted, x)
						break
					}
				}
			}
			if len(sorted) == len(list) {
				out[n].Value = sorted
			}
		}
		return out
	}
	sent := func(m msc.Message) string {
		if m.Sent == 0 {
			return "in the channel initially"
		}
		return fmt.Sprintf("sent in step %d", m.Sent)
	}
	notes := map[int][]string{}
	for k, st := range c.Steps {
		if k == 0 || st.Recv < 0 || len(c.Messages[st.Recv].Overtakes) == 0 {
			continue
		}
		m := c.Messages[st.Recv]
		var over []string
		for _, o := range m.Overtakes {
			om := c.Messages[o]
			over = append(over, fmt.Sprintf("%s (%s)", om.Value, sent(om)))
		}
		where := fmt.Sprintf("bag_{%d,%d}", m.From+1, m.To+1)
		if hasMailbox {
			where = fmt.Sprintf("the messages from %d in mailbox_{%d}", m.From+1, m.To+1)
		}
		notes[k] = append(notes[k], fmt.Sprintf("%s (%s) overtakes %s in %s",
			m.Value, sent(m), strings.Join(over, " and "), where))
	}
	out := t
	out.InitialState = reorder(t.InitialState, 0)
	out.Steps = make([]explorer.Step, len(t.Steps))
	for k, s := range t.Steps {
		s.State = reorder(s.State, k+1)
		out.Steps[k] = s
	}
	out.Cycle = make([]explorer.Step, len(t.Cycle))
	for k, s := range t.Cycle {
		s.State = reorder(s.State, len(t.Steps)+k+1)
		out.Cycle[k] = s
	}
	return out, notes
}
