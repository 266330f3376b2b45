package report

import (
	"slices"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/report/msc"
)

// TestCounted: a witness marks the messages its metric counted: every
// message sent for "messages" (not one in a channel at the start, not one
// sent to itself), those of the type for "messages:TYPE"; none when the
// chart's count is not the witness's figure (the mutant that marks them
// anyway would mislead), nor for a metric that counts no messages.
func TestCounted(t *testing.T) {
	c := &msc.Chart{Messages: []msc.Message{
		{ID: 1, From: 0, To: 1, Value: "REQUEST(1,1)", Sent: 1},
		{ID: 2, From: 1, To: 0, Value: "REPLY", Sent: 2},
		{ID: 3, From: 1, To: 1, Value: "REPLY", Sent: 2},
		{ID: 4, From: 0, To: 1, Value: "REPLY", Sent: 0},
	}}
	tests := []struct {
		metric string
		value  int64
		want   []int
		ok     bool
	}{
		{"messages", 2, []int{0, 1}, true},
		{"messages:REPLY", 1, []int{1}, true},
		{"messages:REQUEST", 1, []int{0}, true},
		{"messages", 3, nil, false},
		{explorer.MetricTime, 2, nil, false},
	}
	for _, tc := range tests {
		got, ok := Counted(tc.metric, tc.value, c)
		if ok != tc.ok || ok && !slices.Equal(got, tc.want) {
			t.Errorf("Counted(%s, %d) = %v, %v; want %v, %v", tc.metric, tc.value, got, ok, tc.want, tc.ok)
		}
	}
}
