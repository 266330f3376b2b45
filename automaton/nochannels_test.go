package automaton_test

import (
	"testing"

	"github.com/vacheck/vacheck/automaton"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// TestNoChannelBoundWithoutChannels: a system without channels has no
// channel-bound property, so its report has no channel-bound line; one
// with channels keeps it (issue 34 item 5).
func TestNoChannelBoundWithoutChannels(t *testing.T) {
	has := func(m explorer.Model) bool {
		for _, p := range m.Properties() {
			if p.Name == properties.ChannelBound {
				return true
			}
		}
		return false
	}
	alone := mustNew[rnode, int, *rnode](t, automaton.Config[rnode, int]{Initial: [][]rnode{{{Y: 2}}}})
	if has(alone) {
		t.Error("a system without channels has channel-bound")
	}
	r, err := explorer.Check(alone, explorer.Config{Workers: 1})
	if err != nil || r.Status != explorer.OK || r.States == 0 {
		t.Fatalf("the system without channels: %v, %v", r.Status, err)
	}
	linked := mustNew[rnode, int, *rnode](t, automaton.Config[rnode, int]{Initial: [][]rnode{{{Budget: 1}, {}}}, Links: automaton.Complete(2, false)})
	if !has(linked) {
		t.Error("a system with channels lacks channel-bound")
	}
}
