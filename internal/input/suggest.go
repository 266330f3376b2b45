package input

import "strings"

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
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
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Suggest returns the candidate closest to name, if it is close enough to
// be a typo (or name is a prefix of it), else "": the "did you mean" of an
// unknown name.
func Suggest(name string, candidates []string) string {
	best, bestD := "", 0
	for _, c := range candidates {
		d := distance(name, c)
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	if best != "" && (bestD <= max(1, len(name)/3) || len(name) >= 3 && strings.HasPrefix(best, name)) {
		return best
	}
	return ""
}
