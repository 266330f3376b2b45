package input

import "testing"

// TestSuggestBreaksTiesSensibly: among candidates at the same edit
// distance, Suggest prefers the name with two letters swapped, then one
// with the same first letter, then one of the same length, then one whose
// differing letters are keyboard neighbours (or differ in case); a swap
// of two letters costs one edit. Most cases list the winner after the
// candidates that tie with it, so that the first listed (what Suggest took
// before) is wrong: .tz suggested to, the first of the members
// ricart-agrawala's properties know (vars, from, to, ..., ts).
func TestSuggestBreaksTiesSensibly(t *testing.T) {
	for _, tt := range []struct {
		name       string
		candidates []string
		want       string
	}{
		{"tz", []string{"id", "from", "to", "port", "type", "ts"}, "ts"},                     // z and s are neighbours, o is not
		{"st", []string{"sa", "ts"}, "ts"},                                                   // a swap: 1 edit, 2 before
		{"recieve", []string{"receiver", "receive"}, "receive"},                              // swap (1) before insertion (1+1)
		{"ts", []string{"t", "tx"}, "tx"},                                                    // same length before a letter missed
		{"myts", []string{"mats", "myTs"}, "myTs"},                                           // T is t: a letter's case
		{"wating", []string{"dating", "waiting"}, "waiting"},                                 // a letter missed (1), dating 1 too, but not the first letter
		{"busy", []string{"bust", "busk"}, "bust"},                                           // both neighbours of y? t is, k is not
		{"zz", []string{"ab", "cd"}, ""},                                                     // too far
		{"dea", []string{"deadlock-freedom", "dead"}, "dead"},                                // a prefix, the closest
		{"chanels", []string{"channel", "channels"}, "channels"},                             // one missed letter
		{"tz", []string{"ts", "to"}, "ts"},                                                   // in either order
		{"quiesence", []string{"quiescence", "liveness"}, "quiescence"},                      // unchanged where nothing ties
		{"cpacity", []string{"capacity", "opacity"}, "capacity"},                             // a letter missed before a substitution
		{"validty", []string{"validity", "valid"}, "validity"},                               // unchanged
		{"uniquness", []string{"uniqueness", "unique"}, "uniqueness"},                        // unchanged
		{"termnation", []string{"termination", "terminal"}, "termination"},                   // unchanged
		{"lemma", []string{"lemma1", "lemmas"}, "lemma1"},                                    // a tie all through: the first listed
		{"chang-robets", []string{"chang-roberts", "chang-roberts-broken"}, "chang-roberts"}, // unchanged
	} {
		if got := Suggest(tt.name, tt.candidates); got != tt.want {
			t.Errorf("Suggest(%q, %q) = %q, want %q", tt.name, tt.candidates, got, tt.want)
		}
	}
	// The distance itself: a swap is one edit.
	for _, tt := range []struct {
		a, b string
		d    int
	}{{"ts", "st", 1}, {"abc", "acb", 1}, {"abc", "cba", 2}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"ca", "abc", 3}} {
		if d := distance(tt.a, tt.b); d != tt.d {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, d, tt.d)
		}
	}
}
