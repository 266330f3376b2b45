package props_test

import (
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/props"
)

// TestChannelPorts: chans gives each channel's port. At N = 2,
// chang-roberts-bidirectional has two channels per pair, cw and ccw; a
// message on a ccw channel is reachable (a process that sends
// counter-clockwise), and every channel has one of the two ports. At N = 3
// the channels have none.
func TestChannelPorts(t *testing.T) {
	const ccw = `any(chans, .port == "ccw" && len(.msgs) > 0)`
	const named = `all(chans, .port in ["cw", "ccw"])`
	r := check(t, "chang-roberts-bidirectional", map[string]string{"n": "2"}, explorer.Config{},
		props.Property{Kind: props.Reach, Expr: ccw}, inv(named))
	if r.Status != explorer.OK || verdict(r, ccw) != explorer.Holds || verdict(r, named) != explorer.Holds {
		t.Errorf("N=2: %v, %v, %v; want ok, holds, holds", r.Status, verdict(r, ccw), verdict(r, named))
	}
	r = check(t, "chang-roberts-bidirectional", map[string]string{"n": "3"}, explorer.Config{}, inv(`all(chans, .port == "")`))
	if r.Status != explorer.OK {
		t.Errorf("N=3: %v; want every port \"\"", r.Status)
	}
}
