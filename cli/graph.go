package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	urfave "github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/report"
	"github.com/vacheck/vacheck/specs"
	"github.com/vacheck/vacheck/stategraph"
)

// Bounds of `vacheck graph --max-states`: a picture of more states than
// graphMaxStates is unreadable, and the default is what a screen shows.
const (
	graphDefaultStates = 300
	graphMaxStates     = 5000
)

// graphCommand is `vacheck graph SPEC [parameters] --format dot|svg`: the
// whole state graph of a tiny instance, with its initial, terminal,
// deadlocked and violating states marked.
func graphCommand(stderr io.Writer, code *int, catalog []specs.Spec) *urfave.Command {
	flags := []urfave.Flag{
		&urfave.StringFlag{Name: "format", Value: "dot", Usage: "dot (Graphviz, with each state's variables) or svg (a layered picture drawn by vacheck itself, no Graphviz needed)"},
		&urfave.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to this `FILE` instead of standard output"},
		&urfave.StringFlag{Name: "max-states", Value: strconv.Itoa(graphDefaultStates), Usage: fmt.Sprintf("refuse a graph with more states than this (at most %d; a larger picture is unreadable)", graphMaxStates)},
	}
	flags = append(flags, hiddenSpecFlags(catalog)...)
	return &urfave.Command{
		Name:      "graph",
		Usage:     "draw the whole state graph of a tiny instance of SPEC (DOT or SVG)",
		ArgsUsage: "SPEC [parameters]",
		Description: "States are numbered in breadth-first order; initial states are drawn bold (DOT) or with a\n" +
			"blue ring (SVG), terminal states double (DOT) or grey (SVG), deadlocks and states that violate\n" +
			"an invariant or assertion red. Exit code: 0 written; 2 bad usage; 3 the graph has more states than\n" +
			"--max-states (the message says how many), nothing written; 4 the model failed.\n" + specParamsHelp("check"),
		Flags: flags,
		Action: func(c *urfave.Context) error {
			var err error
			*code, err = graph(c, stderr, catalog)
			return err
		},
	}
}

// specModel looks up the SPEC of a command and builds its model from the
// spec flags given.
func specModel(c *urfave.Context, command string, catalog []specs.Spec) (specs.Spec, *specs.Params, error) {
	if c.NArg() != 1 {
		return specs.Spec{}, nil, usagef("%s takes one SPEC (see 'vacheck list'), got %d arguments", command, c.NArg())
	}
	spec, err := lookupSpec(c.Args().First(), catalog)
	if err != nil {
		return spec, nil, err
	}
	given := map[string]string{}
	for _, f := range specFlags(catalog) {
		name := f.Names()[0]
		if c.IsSet(name) {
			given[name] = c.String(name)
		}
	}
	params, err := specs.NewParams(spec, given)
	return spec, params, err
}

func graph(c *urfave.Context, stderr io.Writer, catalog []specs.Spec) (int, error) {
	spec, params, err := specModel(c, "graph", catalog)
	if err != nil {
		return exitUsage, err
	}
	format := c.String("format")
	if format != "dot" && format != "svg" {
		return exitUsage, usagef("--format %q: allowed values are dot and svg", format)
	}
	limit, err := strconv.Atoi(c.String("max-states"))
	if err != nil || limit < 1 || limit > graphMaxStates {
		return exitUsage, usagef("--max-states %q: a whole number from 1 to %d (a larger picture is unreadable)", c.String("max-states"), graphMaxStates)
	}
	out := c.String("output")
	if c.IsSet("output") && out == "" {
		return exitUsage, usagef("--output: the file name is empty")
	}
	model, err := spec.Model(params)
	if err != nil {
		return exitUsage, err
	}
	ctx, stop := interruptible(c.Context, stderr)
	defer stop()
	g, err := stategraph.Build(ctx, model, stategraph.Options{MaxStates: limit})
	var tl *stategraph.TooLargeError
	switch {
	case errors.As(err, &tl):
		fmt.Fprintf(stderr, "vacheck: graph %s %s: %v (--max-states %d); nothing written. Draw a smaller instance (fewer processes, --ids increasing), or raise --max-states up to %d\n",
			spec.Name, report.Params(params.Canonical()), tl, limit, graphMaxStates)
		return exitIncomplete, nil
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "vacheck: graph %s: %v; nothing written\n", spec.Name, context.Cause(ctx))
		return exitIncomplete, nil
	case err != nil:
		return exitModel, err
	}
	title := stategraph.Title(spec.Name + " " + report.Params(params.Canonical()))
	var b bytes.Buffer
	if format == "dot" {
		err = g.DOT(&b, title)
	} else {
		err = g.SVG(&b, title)
	}
	if err != nil {
		return exitModel, err
	}
	if out == "" {
		_, err = c.App.Writer.Write(b.Bytes())
	} else if err = os.WriteFile(out, b.Bytes(), 0o644); err == nil {
		fmt.Fprintf(stderr, "vacheck: wrote the graph of %s and %s to %s\n", report.Count(len(g.Nodes), "state"), report.Count(len(g.Edges), "transition"), out)
	}
	if err != nil {
		return exitUsage, usagef("--output %s: %v", out, err)
	}
	return exitOK, nil
}
