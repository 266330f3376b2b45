package topology

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/vacheck/vacheck/internal/input"
)

// Sentinel errors. Every error returned by this package wraps one or more of
// them, so callers can test with errors.Is; the messages themselves name the
// flag or file, the line, the offending value and what is allowed.
var (
	// ErrBadTopology is wrapped by every error Parse returns.
	ErrBadTopology = errors.New("invalid --topology")
	// ErrBadSize reports a number of processes out of 1..MaxNodes.
	ErrBadSize = errors.New("bad number of nodes")
	// ErrEdgeCount reports an edge count no connected simple graph can have.
	ErrEdgeCount = errors.New("edge count out of range")
	// ErrSyntax reports an edge-list line that is neither "a b" nor "nodes K".
	ErrSyntax = errors.New("syntax error")
	// ErrNodeCount reports a "nodes K" directive that contradicts --n.
	ErrNodeCount = errors.New("node count mismatch")
	// ErrUnknownNode reports a node number outside 1..N.
	ErrUnknownNode = errors.New("unknown node")
	// ErrSelfLoop reports an edge from a node to itself.
	ErrSelfLoop = errors.New("self-loop")
	// ErrDuplicateEdge reports an edge listed twice (in either direction).
	ErrDuplicateEdge = errors.New("duplicate edge")
	// ErrNotConnected reports a graph in which some node cannot reach node 1.
	ErrNotConnected = errors.New("not connected")
	// ErrBadFile reports a path that is not a regular file (a directory, a
	// device, a FIFO) or a file larger than MaxFileSize.
	ErrBadFile = errors.New("bad edge-list file")
)

// allowed describes the accepted --topology values for error messages.
const allowed = "allowed: ring, line, star, complete, grid, random:SEED:EDGES or an edge-list file"

// ParseFile reads an edge-list file and returns the connected graph it
// describes. The graph's name is path.
//
// The format has one edge per line, "a b", with 1-based node numbers
// separated by spaces, tabs or one comma. Text from '#' to the end of a line
// is a comment; blank lines are ignored. An optional directive "nodes K"
// before the first edge gives the number of nodes. If n > 0 it is the number
// of nodes (--n) and K, if present, must equal it; if n == 0, N is K or, with
// no directive, the largest node number in the file.
//
// Errors name the file and, where there is one, the line ("g.txt:3: unknown
// node 9: --n is 5"), and wrap ErrBadSize, ErrSyntax, ErrNodeCount,
// ErrUnknownNode, ErrSelfLoop, ErrDuplicateEdge or ErrNotConnected, quoting
// at most 40 characters of the file. Only a regular file of at most
// MaxFileSize bytes is read: a directory, a device such as /dev/zero, a FIFO
// or a larger file gives ErrBadFile without being read; a file that cannot
// be read gives the error from the os package, prefixed with the file name.
func ParseFile(path string, n int) (Graph, error) {
	if n < 0 || n > MaxNodes {
		return Graph{}, fmt.Errorf("%s: %w: --n must be 0 (unset) or between 1 and %d, got %d", path, ErrBadSize, MaxNodes, n)
	}
	data, err := input.ReadBounded(path, "an edge-list file", MaxFileSize)
	if errors.Is(err, input.ErrNotFile) || errors.Is(err, input.ErrTooLarge) {
		return Graph{}, fmt.Errorf("%s: %w: %w", path, ErrBadFile, err)
	}
	if err != nil {
		return Graph{}, fmt.Errorf("%s: %w", path, err)
	}
	return parseEdgeList(path, string(data), n)
}

// parseEdgeList parses the contents of an edge-list file named name.
func parseEdgeList(name, text string, n int) (Graph, error) {
	lineErr := func(line int, sentinel error, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %w"+format, append([]any{name, line, sentinel}, args...)...)
	}
	// bound describes where the node range comes from, for "unknown node".
	bound := fmt.Sprintf("--n is %d", n)
	nodesLine := 0
	seen := make(map[[2]int]int) // edge -> line of its first occurrence
	var es [][2]int
	maxNode := 0
	for i, raw := range strings.Split(text, "\n") {
		line := i + 1
		if c := strings.IndexByte(raw, '#'); c >= 0 {
			raw = raw[:c]
		}
		if strings.Count(raw, ",") > 1 {
			return Graph{}, lineErr(line, ErrSyntax, `: want "a b" with at most one comma, got %q`, input.Clip(strings.TrimSpace(raw)))
		}
		f := strings.FieldsFunc(raw, func(r rune) bool {
			return r == ' ' || r == '\t' || r == ',' || r == '\r'
		})
		if len(f) == 0 {
			continue
		}
		if f[0] == "nodes" {
			switch {
			case nodesLine > 0:
				return Graph{}, lineErr(line, ErrSyntax, ": second nodes directive (first on line %d)", nodesLine)
			case len(es) > 0:
				return Graph{}, lineErr(line, ErrSyntax, ": nodes directive must come before the first edge")
			}
			if len(f) != 2 {
				return Graph{}, lineErr(line, ErrSyntax, `: want "nodes K", got %q`, input.Clip(strings.TrimSpace(raw)))
			}
			k, err := strconv.Atoi(f[1])
			if err != nil || k < 1 || k > MaxNodes {
				return Graph{}, lineErr(line, ErrBadSize, ": nodes %s: want an integer between 1 and %d", input.Clip(f[1]), MaxNodes)
			}
			if n > 0 && k != n {
				return Graph{}, lineErr(line, ErrNodeCount, ": nodes %d but --n is %d", k, n)
			}
			n = k
			nodesLine = line
			bound = fmt.Sprintf("nodes %d on line %d", k, line)
			continue
		}
		if len(f) != 2 {
			return Graph{}, lineErr(line, ErrSyntax, `: want two node numbers "a b", got %q`, input.Clip(strings.TrimSpace(raw)))
		}
		var e [2]int
		for j, s := range f {
			v, err := strconv.Atoi(s)
			if err != nil {
				return Graph{}, lineErr(line, ErrSyntax, ": %q is not an integer", input.Clip(s))
			}
			switch {
			case v < 1 && n == 0:
				return Graph{}, lineErr(line, ErrUnknownNode, " %d: nodes are numbered from 1", v)
			case v < 1 || n > 0 && v > n:
				return Graph{}, lineErr(line, ErrUnknownNode, " %d: %s", v, bound)
			case v > MaxNodes:
				return Graph{}, lineErr(line, ErrBadSize, ": node %d exceeds the limit of %d nodes", v, MaxNodes)
			}
			e[j] = v - 1
			maxNode = max(maxNode, v)
		}
		if e[0] == e[1] {
			return Graph{}, lineErr(line, ErrSelfLoop, " %d-%d", e[0]+1, e[1]+1)
		}
		key := [2]int{min(e[0], e[1]), max(e[0], e[1])}
		if first, dup := seen[key]; dup {
			return Graph{}, lineErr(line, ErrDuplicateEdge, " %d-%d (first on line %d)", e[0]+1, e[1]+1, first)
		}
		seen[key] = line
		es = append(es, key)
	}
	if n == 0 {
		if maxNode == 0 {
			return Graph{}, fmt.Errorf("%s: %w: no edges and no nodes directive, and --n is not set", name, ErrBadSize)
		}
		n = maxNode
	}
	g := build(n, name, es)
	if u := g.unreachable(); u >= 0 {
		return Graph{}, fmt.Errorf("%s: %w: node %d is not reachable from node 1", name, ErrNotConnected, u+1)
	}
	return g, nil
}

// Parse interprets the value of the --topology flag for n processes (--n):
// one of the names ring, line, star, complete and grid (see the constructor
// of the same name), random:SEED:EDGES (see Random; SEED is a non-negative
// integer, EDGES an integer in n-1..n(n-1)/2), or else the path of an
// existing edge-list file (see ParseFile; only then may n be 0). Names, and
// values starting with "random:", take precedence over files of the same
// name; write ./ring to read a file called ring.
//
// Every error wraps ErrBadTopology, and the more specific sentinel where
// there is one, and reads like
//
//	invalid --topology random:x:5: SEED must be a non-negative integer; want random:SEED:EDGES
func Parse(value string, n int) (Graph, error) {
	bad := func(sentinel error, format string, args ...any) (Graph, error) {
		prefix := []any{ErrBadTopology, value}
		if sentinel != nil {
			return Graph{}, fmt.Errorf("%w %s: %w: "+format, append(append(prefix, sentinel), args...)...)
		}
		return Graph{}, fmt.Errorf("%w %s: "+format, append(prefix, args...)...)
	}
	builders := map[string]func(int) Graph{
		"ring": Ring, "line": Line, "star": Star, "complete": Complete, "grid": Grid,
	}
	ctor, named := builders[value]
	isRandom := strings.HasPrefix(value, "random:") || value == "random"
	if (named || isRandom) && (n < 1 || n > MaxNodes) {
		return bad(ErrBadSize, "--n must be between 1 and %d, got %d", MaxNodes, n)
	}
	switch {
	case named:
		return ctor(n), nil
	case isRandom:
		parts := strings.Split(value, ":")
		if len(parts) != 3 {
			return bad(nil, "want random:SEED:EDGES")
		}
		seed, err := strconv.ParseUint(parts[1], 10, 64)
		if err != nil {
			return bad(nil, "SEED must be a non-negative integer; want random:SEED:EDGES")
		}
		lo, hi := edgeRange(n)
		edges, err := strconv.Atoi(parts[2])
		if err != nil {
			return bad(nil, "EDGES must be an integer between %d and %d for --n %d", lo, hi, n)
		}
		if edges < lo || edges > hi {
			return bad(ErrEdgeCount, "EDGES must be an integer between %d and %d for --n %d", lo, hi, n)
		}
		return Random(n, seed, edges)
	case value == "":
		return bad(nil, "empty value; %s", allowed)
	}
	if _, err := os.Stat(value); err != nil {
		return bad(nil, "not a known name or an existing file; %s", allowed)
	}
	g, err := ParseFile(value, n)
	if err != nil {
		// err already starts with the file name, which is value.
		return Graph{}, fmt.Errorf("%w %w", ErrBadTopology, err)
	}
	return g, nil
}
