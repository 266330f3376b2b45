package specs

import (
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// TestMailboxAgainstUnordered cross-checks --channels mailbox with
// --channels unordered on catalog specs. A mailbox holds (sender,
// message) pairs and the receiver is told the sender, so it has exactly
// the states and transitions of one unordered channel per sender: on a
// ring (one sender per mailbox) and on a complete graph (two senders per
// mailbox) alike, with or without partial-order reduction. The
// capacity is what differs: it bounds each mailbox as a whole, so
// ricart-agrawala --n 3 with its default capacity 2 overfills a mailbox
// (three REQUESTs and a REPLY can head for one process), while per-pair
// channels hold.
func TestMailboxAgainstUnordered(t *testing.T) {
	tests := []struct {
		spec                string
		flags               map[string]string
		por                 bool
		states, transitions int64
	}{
		// The unordered figures, printed by vacheck check with
		// --channels unordered.
		{"chang-roberts", map[string]string{"n": "3", "ids": "all"}, false, 375, 780},
		{"ricart-agrawala", map[string]string{"n": "3", "capacity": "4"}, false, 3237, 10199},
		{"echo-election", map[string]string{"n": "3", "capacity": "6"}, true, 224, 294},
	}
	for _, tt := range tests {
		// Channel-bound is the property every spec has (chang-roberts
		// offers termination too, which needs FIFO channels).
		ec := explorer.Config{Workers: 1, Properties: []string{properties.ChannelBound}}
		if tt.por {
			ec.Reduction, ec.Strategy = explorer.PartialOrder, explorer.DFS
		}
		for _, disc := range []string{"unordered", "mailbox"} {
			flags := map[string]string{"channels": disc}
			for k, v := range tt.flags {
				flags[k] = v
			}
			r, err := explorer.Check(build(t, tt.spec, flags), ec)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != explorer.OK || r.States != tt.states || r.Transitions != tt.transitions {
				t.Errorf("%s %v: %v %v, %d states, %d transitions; want ok, %d, %d", tt.spec, flags, r.Status, r.Violations, r.States, r.Transitions, tt.states, tt.transitions)
			}
		}
	}
	for disc, want := range map[string]explorer.Status{"unordered": explorer.OK, "mailbox": explorer.Violated} {
		r, err := explorer.Check(build(t, "ricart-agrawala", map[string]string{"n": "3", "channels": disc}), explorer.Config{Workers: 1, Properties: []string{properties.ChannelBound}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != want || want == explorer.Violated && r.Violations[0].Property != properties.ChannelBound {
			t.Errorf("ricart-agrawala --n 3 --channels %s (capacity 2): %v %v; want %v (channel-bound)", disc, r.Status, r.Violations, want)
		}
	}
}
