package specs

import "testing"

// TestKitsReportFirstBadFlag: the ring and mutex kits read a spec's flags
// in the order its parameters list them, so that of several bad flags the
// first is the one reported, as each Build did before it shared the kits;
// and a flag read with Params.oneOf names the value and what is allowed.
func TestKitsReportFirstBadFlag(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		spec  string
		flags map[string]string
		want  string
	}{
		{"chang-roberts", map[string]string{"n": "0", "ids": "x", "objective": "x"}, "--n 0"},
		{"chang-roberts", map[string]string{"ids": "x", "objective": "x", "channels": "x"}, "--ids x"},
		{"chang-roberts", map[string]string{"objective": "x", "channels": "x"}, "--objective x"},
		{"lelann", map[string]string{"initiators": "9", "objective": "x"}, "--initiators 9"},
		{"chang-roberts-announce", map[string]string{"crashes": "9", "objective": "x"}, "--crashes 9"},
		{"chang-roberts-wakeup", map[string]string{"wakeup": "x", "compare": "x"}, "--wakeup x: allowed: join, join-opt or relay"},
		{"chang-roberts-wakeup", map[string]string{"compare": "x", "announce": "x"}, "--compare x: allowed: own or best"},
		{"chang-roberts-wakeup", map[string]string{"announce": "x", "objective": "x"}, "--announce x: allowed: on or off"},
		{"chang-roberts-wakeup-broken", map[string]string{"wakeup": "join"}, "--wakeup join: allowed for chang-roberts-wakeup: relay"},
		{"chang-roberts-bidirectional", map[string]string{"channels": "x", "directions": "x"}, "--channels x"},
		{"singhal", map[string]string{"requests": "9", "choice": "x"}, "--requests 9"},
		{"singhal", map[string]string{"choice": "x", "channels": "x"}, "--choice x: allowed values are round-robin and any"},
		{"carvalho-roucairol", map[string]string{"permissions": "x"}, "--permissions x: allowed values are none and ordered"},
		{"maekawa", map[string]string{"yield": "x"}, "--yield x: allowed values are a and b"},
		{"maekawa", map[string]string{"quorums": "x", "yield": "x"}, "--quorums x"},
		{"suzuki-kasami", map[string]string{"crashes": "9", "channels": "x"}, "--crashes 9"},
		{"raymond", map[string]string{"topology": "ring", "requests": "9"}, "--topology ring"},
	} {
		s, err := Lookup(tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		wantUsage(t, buildErr(s, tt.flags), tt.flags, tt.want)
	}
}
