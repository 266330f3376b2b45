package report

import (
	"fmt"
	"strings"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/report/msc"
)

// Counted returns the messages (indexes into c.Messages) of the witness
// chart c that the metric named metric counted, when it counts messages
// ("messages": every message sent, self-messages excluded; "messages:TYPE":
// those of one type) and the chart's messages of that kind add up to value,
// the witness's figure. ok is false for another metric, or when the chart
// cannot tell which messages were counted: a witness then marks none
// rather than marks the wrong ones.
func Counted(metric string, value int64, c *msc.Chart) (counted []int, ok bool) {
	typ, typed := strings.CutPrefix(metric, "messages:")
	if metric != "messages" && !typed {
		return nil, false
	}
	for k, m := range c.Messages {
		if m.Sent == 0 || m.From == m.To {
			continue // in a channel initially, or sent to itself
		}
		if typed {
			name, _, _ := strings.Cut(m.Value, "(")
			if name != typ {
				continue
			}
		}
		counted = append(counted, k)
	}
	return counted, int64(len(counted)) == value
}

// countedLine says which messages of the witness t a metric counted, or
// "" (Counted): by their numbers in the chart when one is drawn, else by
// the steps that sent them.
func countedLine(metric string, value int64, t explorer.Trace, unordered, chart bool) string {
	c, err := msc.Build(t, unordered)
	if err != nil {
		return ""
	}
	counted, ok := Counted(metric, value, c)
	if !ok || len(counted) == 0 {
		return ""
	}
	noun := "messages"
	if len(counted) == 1 {
		noun = "message"
	}
	var parts []string
	if chart {
		for _, k := range counted {
			parts = append(parts, fmt.Sprintf("m%d", c.Messages[k].ID))
		}
		return fmt.Sprintf("the %d %s counted: %s", len(counted), noun, strings.Join(parts, " "))
	}
	per := map[int]int{}
	var steps []int
	for _, k := range counted {
		s := c.Messages[k].Sent
		if per[s] == 0 {
			steps = append(steps, s)
		}
		per[s]++
	}
	for _, s := range steps {
		if per[s] > 1 {
			parts = append(parts, fmt.Sprintf("%d (%d)", s, per[s]))
		} else {
			parts = append(parts, fmt.Sprint(s))
		}
	}
	return fmt.Sprintf("the %d %s counted are sent in steps %s", len(counted), noun, strings.Join(parts, ", "))
}
