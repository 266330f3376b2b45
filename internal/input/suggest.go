package input

import "strings"

// distance is the edit distance between a and b with adjacent
// transpositions (optimal string alignment): an insertion, a deletion, a
// substitution or a swap of two neighbouring letters costs 1 each, so
// that "ts" is 1 from "st", not 2.
func distance(a, b string) int {
	// d[i][j] is the distance between a[:i] and b[:j]; three rows kept.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// keyRows are the letter rows of a QWERTY keyboard, each shifted half a
// key right of the one above.
var keyRows = [3]string{"qwertyuiop", "asdfghjkl", "zxcvbnm"}

// neighbours reports whether the letters x and y are next to each other
// on a QWERTY keyboard (case aside): a slip of the finger.
func neighbours(x, y byte) bool {
	rx, cx := keyAt(x)
	ry, cy := keyAt(y)
	switch {
	case rx < 0 || ry < 0:
		return false
	case rx == ry:
		return cx-cy == 1 || cy-cx == 1
	case ry == rx+1: // y in the row below, shifted right: below-left and below
		return cy == cx || cy == cx-1
	case rx == ry+1:
		return cx == cy || cx == cy-1
	}
	return false
}

// keyAt returns the row and column of the letter c in keyRows, or -1, -1.
func keyAt(c byte) (row, col int) {
	c |= 0x20 // lower case, for letters
	for r, keys := range keyRows {
		if k := strings.IndexByte(keys, c); k >= 0 {
			return r, k
		}
	}
	return -1, -1
}

// closeness ranks a candidate c for name among those at the same edit
// distance, the smaller the closer: first one that is name with two
// neighbouring letters swapped, then one with name's first letter (rarely
// the one mistyped), then one of name's length (a letter mistyped rather
// than one missed or doubled), then one whose letters that differ from
// name's at the same place are keyboard neighbours of them or differ in
// case only.
func closeness(name, c string) [4]int {
	r := [4]int{1, 1, 1, 0}
	if swapped(name, c) {
		r[0] = 0
	}
	if c != "" && name != "" && c[0] == name[0] {
		r[1] = 0
	}
	if len(c) == len(name) {
		r[2] = 0
		for i := range len(c) {
			if c[i] != name[i] && c[i]|0x20 != name[i]|0x20 && !neighbours(c[i], name[i]) {
				r[3]++
			}
		}
	}
	return r
}

// swapped reports whether b is a with two neighbouring letters swapped.
func swapped(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
}

// Suggest returns the candidate closest to name, if it is close enough to
// be a typo (or name is a prefix of it), else "": the "did you mean" of an
// unknown name. Among candidates at the same edit distance it prefers, in
// turn, name with two letters swapped, one with name's first letter, one
// of name's length, and one whose differing letters are keyboard
// neighbours of name's (.tz suggests ts, not to); then the first listed.
func Suggest(name string, candidates []string) string {
	best, bestD := "", 0
	var bestC [4]int
	for _, c := range candidates {
		d := distance(name, c)
		cl := closeness(name, c)
		if best == "" || d < bestD || d == bestD && less(cl, bestC) {
			best, bestD, bestC = c, d, cl
		}
	}
	if best != "" && (bestD <= max(1, len(name)/3) || len(name) >= 3 && strings.HasPrefix(best, name)) {
		return best
	}
	return ""
}

// less orders closeness ranks.
func less(a, b [4]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}
