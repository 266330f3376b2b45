package quorum

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/vacheck/vacheck/internal/input"
)

// allowed describes the accepted --quorums values for error messages.
const allowed = "allowed: fpp, grid, majority, weighted:W1,W2,..., tree, wall:ROWS, single, all, or the path of a quorum file"

// Parse returns the quorum system for N=n processes named by the value of
// the --quorums flag (docs/algorithms/maekawa.md):
//
//	fpp                finite projective plane (ProjectivePlane)
//	grid               grid (Grid)
//	majority           majority (Majority)
//	weighted:W1,...,WN weighted majority, one weight per process (WeightedMajority)
//	tree               tree quorums (Tree)
//	wall:ROWS          crumbling wall, ROWS = row widths such as 1,2,3 (Wall)
//	single             single coordinator (Single)
//	all                all processes (All)
//	FILE               a quorum file (ParseFile)
//	(empty)            Default: fpp where a plane exists, else grid
//
// The empty string is how a caller asks for the default; a value of spaces
// only is refused, and so should a caller refuse an empty value that a
// user gave, which would otherwise mean the default silently.
//
// A keyword takes precedence over a file of the same name; write ./grid for
// the file. The returned system is not validated; call Validate. Every error
// wraps one of the sentinel errors (ErrNoConstruction, ErrNoPlane,
// ErrUnknown, ErrBadParam, ErrBadFile) and names the flag, the value and
// what is allowed, for example
//
//	--quorums fpp: no finite projective plane has N=5 processes (N must be q²+q+1 for a prime power q, or 3: 3, 7, 13, 21, 31, 57, 73, 91, ...)
func Parse(value string, n int) (System, error) {
	v := strings.TrimSpace(value)
	kind, params, hasParams := strings.Cut(v, ":")
	var (
		s   System
		err error
	)
	switch {
	case value == "":
		s, err = Default(n)
	case v == "":
		// Spaces only: a mistake, not the empty value that asks for the
		// default.
		err = fmt.Errorf("--quorums %q: %w: the value is blank (%s)", value, ErrUnknown, allowed)
	case !hasParams && kind == "fpp":
		s, err = ProjectivePlane(n)
	case !hasParams && kind == "grid":
		s, err = Grid(n)
	case !hasParams && kind == "majority":
		s, err = Majority(n)
	case !hasParams && kind == "tree":
		s, err = Tree(n)
	case !hasParams && kind == "single":
		s, err = Single(n)
	case !hasParams && kind == "all":
		s, err = All(n)
	case kind == "weighted":
		var ws []int
		if ws, err = parseInts(v, params, "weighted:W1,W2,...,WN with one non-negative integer weight per process"); err == nil {
			if len(ws) != n {
				err = fmt.Errorf("--quorums %s: %w: %d weights for N=%d processes (expected weighted:W1,W2,...,WN with one weight per process)", v, ErrBadParam, len(ws), n)
			} else {
				s, err = WeightedMajority(ws)
			}
		}
	case kind == "wall":
		var rows []int
		if rows, err = parseInts(v, params, fmt.Sprintf("wall:W1,W2,... with positive row widths summing to N=%d, e.g. wall:1,2,3 for N=6", n)); err == nil {
			s, err = Wall(n, rows)
		}
	default:
		if _, statErr := os.Stat(v); statErr == nil {
			// ParseFile refuses what is not a regular file.
			s, err = ParseFile(v, n)
		} else {
			err = fmt.Errorf("--quorums %s: %w and no such file (%s)", v, ErrUnknown, allowed)
		}
	}
	if err != nil {
		return System{}, err
	}
	return s, nil
}

// parseInts parses the comma-separated integers after "kind:".
func parseInts(value, params, expected string) ([]int, error) {
	if strings.TrimSpace(params) == "" {
		return nil, fmt.Errorf("--quorums %s: %w: missing parameters (expected %s)", value, ErrBadParam, expected)
	}
	var xs []int
	for f := range strings.SplitSeq(params, ",") {
		x, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("--quorums %s: %w: %q is not an integer (expected %s)", value, ErrBadParam, input.Clip(f), expected)
		}
		xs = append(xs, x)
	}
	return xs, nil
}

// ParseFile reads a quorum file for N=n processes. The file has one line
// per process: line k lists the members of S_k as 1-based process numbers
// separated by spaces, tabs or commas. Text from '#' to the end of a line is
// a comment; blank lines are ignored and do not count. The system's name is
// path; it is not validated (call Validate).
//
// Errors wrap ErrBadFile and name the file, the line and what is wrong (not
// an integer, member outside 1..n, duplicate member, wrong number of lines),
// quoting at most 40 characters of the file; a file that cannot be read
// also wraps the error from the os package. Only a regular file of at most
// MaxFileSize bytes is read: a directory, a device such as /dev/zero or a
// FIFO is refused without reading from it.
func ParseFile(path string, n int) (System, error) {
	fail := func(format string, args ...any) (System, error) {
		return System{}, fmt.Errorf("--quorums %s: %w: "+format, append([]any{path, ErrBadFile}, args...)...)
	}
	if n < 1 {
		return fail("N must be at least 1, got %d", n)
	}
	data, err := input.ReadBounded(path, "a quorum file", MaxFileSize)
	if err != nil {
		return System{}, fmt.Errorf("--quorums %s: %w: cannot read the quorum file: %w", path, ErrBadFile, err)
	}
	return parseText(path, string(data), n)
}

// parseText parses the contents of the quorum file path for N=n (n ≥ 1).
func parseText(path, text string, n int) (System, error) {
	fail := func(format string, args ...any) (System, error) {
		return System{}, fmt.Errorf("--quorums %s: %w: "+format, append([]any{path, ErrBadFile}, args...)...)
	}
	type quorumLine struct {
		line    int
		members []int // 1-based as written
	}
	var lines []quorumLine
	for k, raw := range strings.Split(text, "\n") {
		text, _, _ := strings.Cut(raw, "#")
		if strings.TrimSpace(text) == "" {
			continue
		}
		fields := strings.FieldsFunc(text, func(r rune) bool {
			return r == ',' || r == ' ' || r == '\t' || r == '\r'
		})
		if len(fields) == 0 {
			return fail("line %d: no members (list the members of S_%d as numbers in 1..%d)", k+1, len(lines)+1, n)
		}
		ql := quorumLine{line: k + 1}
		for _, f := range fields {
			m, err := strconv.Atoi(f)
			if err != nil {
				return fail("line %d: %q is not an integer (members are process numbers 1..%d)", k+1, input.Clip(f), n)
			}
			ql.members = append(ql.members, m)
		}
		lines = append(lines, ql)
	}
	if len(lines) != n {
		return fail("%d quorum lines, but --n is %d (one line per process: line k lists S_k)", len(lines), n)
	}
	qs := make([][]int, n)
	for i, ql := range lines {
		seen := make(map[int]bool, len(ql.members))
		for _, m := range ql.members {
			if m < 1 || m > n {
				return fail("line %d: member %d of S_%d is outside 1..%d (--n is %d)", ql.line, m, i+1, n, n)
			}
			if seen[m] {
				return fail("line %d: member %d of S_%d is listed twice", ql.line, m, i+1)
			}
			seen[m] = true
		}
		qs[i] = ql.members
	}
	return fromOneBased(path, qs), nil
}
