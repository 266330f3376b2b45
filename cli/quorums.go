package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	urfave "github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/quorum"
)

// quorumsCommand is `vacheck quorums SYSTEM --n N`: it prints a quorum system
// (docs/algorithms/maekawa.md) and its analysis, with a witness for every
// property that fails.
func quorumsCommand() *urfave.Command {
	return &urfave.Command{
		Name:      "quorums",
		Usage:     "print a quorum system and its properties (intersection, coterie, symmetry, non-domination, ideal)",
		ArgsUsage: "fpp|grid|majority|weighted:W1,W2,...|tree|wall:ROWS|single|all|FILE",
		Flags: []urfave.Flag{
			&urfave.StringFlag{Name: "n", Usage: "number of processes (required)"},
			&urfave.StringFlag{Name: "format", Value: "text", Usage: "output: text or json"},
		},
		OnUsageError: func(_ *urfave.Context, err error, _ bool) error { return usageError{err} },
		Action: func(c *urfave.Context) error {
			return quorums(c)
		},
	}
}

// quorumsJSON is the JSON form of `vacheck quorums`, 1-based throughout.
type quorumsJSON struct {
	Name         string  `json:"name"`
	N            int     `json:"n"`
	Quorums      [][]int `json:"quorums"`
	Intersecting bool    `json:"intersecting"`
	Coterie      bool    `json:"coterie"`
	Symmetric    bool    `json:"symmetric"`
	K            int     `json:"k,omitempty"`
	D            int     `json:"d,omitempty"`
	NonDominated string  `json:"non_dominated"`
	Ideal        bool    `json:"ideal"`
	SelfIncluded bool    `json:"self_included"`
	// Witnesses of the properties that fail.
	Disjoint   []int    `json:"disjoint,omitempty"`
	Contained  []int    `json:"contained,omitempty"`
	Meets      []int    `json:"meets_all_contains_none,omitempty"`
	Dominating [][]int  `json:"dominating_coterie,omitempty"`
	NotSelf    int      `json:"not_self_included,omitempty"`
	Explained  []string `json:"explained"`
}

func oneBased(xs []int) []int {
	out := make([]int, len(xs))
	for k, x := range xs {
		out[k] = x + 1
	}
	return out
}

// setOf formats a set of 0-based processes 1-based, e.g. "{1,2,4}".
func setOf(q []int) string {
	parts := make([]string, len(q))
	for k, m := range q {
		parts[k] = strconv.Itoa(m + 1)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func quorums(c *urfave.Context) error {
	if c.NArg() != 1 {
		return usagef("quorums takes one quorum system (fpp, grid, majority, weighted:W1,..., tree, wall:ROWS, single, all or a file), got %d arguments", c.NArg())
	}
	if !c.IsSet("n") {
		return usagef("--n is required: the number of processes, e.g. vacheck quorums %s --n 7", c.Args().First())
	}
	n64, err := parseDecimal("n", c.String("n"), 1, 1024)
	if err != nil {
		return err
	}
	n := int(n64)
	format := c.String("format")
	if format != "text" && format != "json" {
		return usagef("--format %q: allowed: text and json", format)
	}
	if c.Args().First() == "" {
		return usagef("quorums takes one quorum system (fpp, grid, majority, weighted:W1,..., tree, wall:ROWS, single, all or a file), got an empty one")
	}
	s, err := quorum.Parse(c.Args().First(), n)
	if err == nil {
		err = s.WellFormed()
	}
	if err != nil {
		return usageError{err}
	}
	r := quorum.Analyze(s)
	w := quorum.Explain(s)
	lines := r.Lines(s, w)
	out := c.App.Writer
	if format == "json" {
		return writeQuorumsJSON(out, s, r, w, lines)
	}
	fmt.Fprintf(out, "%s, N=%d: %d quorums (%d distinct), sizes %d", s.Name, s.N, len(s.Quorums), r.Distinct, r.MinSize)
	if r.MaxSize != r.MinSize {
		fmt.Fprintf(out, " to %d", r.MaxSize)
	}
	fmt.Fprintln(out)
	for i, q := range s.Quorums {
		fmt.Fprintf(out, "  %-5s %s\n", "S_"+strconv.Itoa(i+1), setOf(q))
	}
	fmt.Fprintln(out)
	for _, l := range lines {
		fmt.Fprintln(out, "  "+l)
	}
	return nil
}

func writeQuorumsJSON(out io.Writer, s quorum.System, r quorum.Report, w quorum.Witnesses, lines []string) error {
	j := quorumsJSON{
		Name: s.Name, N: s.N, Intersecting: r.Intersecting, Coterie: r.Coterie,
		Symmetric: r.Symmetric, K: r.K, D: r.D, NonDominated: r.NonDominated.String(),
		Ideal: r.Ideal, SelfIncluded: r.SelfIncluded, Explained: lines,
	}
	for _, q := range s.Quorums {
		j.Quorums = append(j.Quorums, oneBased(q))
	}
	if !r.Intersecting {
		j.Disjoint = oneBased(r.Disjoint[:])
	}
	if w.Contained != nil {
		j.Contained = oneBased(w.Contained)
	}
	if r.Witness != nil {
		j.Meets = oneBased(r.Witness)
	}
	for _, d := range w.Dominating {
		j.Dominating = append(j.Dominating, oneBased(d))
	}
	if w.NotSelf >= 0 {
		j.NotSelf = w.NotSelf + 1
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(j)
}
