package specs

import (
	"strconv"
	"strings"

	"github.com/vacheck/vacheck/internal/input"
)

// procListWhy phrases, for one flag, why parseProcList refused an element
// of a list; each returns the text that follows "--flag value: ".
type procListWhy struct {
	// notNumber: elem, as written between the commas, is not an integer.
	notNumber func(elem string) string
	// outside: there is no process i; nil means notNumber phrases it.
	outside func(i int) string
	// twice: process i is listed twice.
	twice func(i int) string
}

// parseProcList parses list, distinct process numbers from 1 to n separated
// by commas with spaces around each allowed, into a membership vector:
// set[i] tells whether process i+1 is listed. This is the grammar of every
// flag that is "all, or a list of processes" (--initiators, --requesters,
// --detectors); the words such as all are the caller's. A bad element is an
// ErrUsage error on --flag that shows list (cut short) and says why as why
// phrases it.
func parseProcList(flag, list string, n int, why procListWhy) ([]bool, error) {
	set := make([]bool, n)
	for elem := range strings.SplitSeq(list, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(elem))
		var msg string
		switch {
		case err != nil:
			msg = why.notNumber(elem)
		case i < 1 || i > n:
			if why.outside == nil {
				msg = why.notNumber(elem)
			} else {
				msg = why.outside(i)
			}
		case set[i-1]:
			msg = why.twice(i)
		default:
			set[i-1] = true
			continue
		}
		return nil, Usagef(flag, input.Clip(list), "%s", msg)
	}
	return set, nil
}

// procListCanon returns the canonical form of a list of processes: the
// members of set (0-based) 1-based in ascending order, joined by commas.
func procListCanon(set []bool) string {
	var ps []int
	for i, in := range set {
		if in {
			ps = append(ps, i)
		}
	}
	return joinOneBased(ps, ",")
}
