// Package cli is the vacheck command line, for any catalog of specs: the
// command cmd/vacheck runs it on specs.Catalog(), and a user's module gets
// the same commands (list, check, sweep, swarm, quorums, help, --version), flags,
// reports, JSON, metrics, progress lines and HTML charts for its own specs
// with a main of a few lines:
//
//	package main
//
//	import (
//		"os"
//
//		"github.com/vacheck/vacheck/cli"
//		"github.com/vacheck/vacheck/specs"
//	)
//
//	func main() {
//		os.Exit(cli.Main(append(specs.Catalog(), tokenPass)))
//	}
//
// Exit codes: 0 every property holds, 1 a property is violated, 2 bad usage
// or input, 3 incomplete (a limit was reached), 4 the model failed, or
// vacheck itself did ("internal error", with a request to report it), 5
// bounded (no violation, but the model's bound cut states: the properties
// hold within the bound only).
package cli

import (
	"context"
	"io"
	"os"

	"github.com/vacheck/vacheck/specs"
)

// Main runs the command line of the process (os.Args) on the specs of
// catalog, writing to os.Stdout and os.Stderr, and returns the exit code
// for os.Exit. SIGINT and SIGTERM stop a check and print the report of
// what was explored, as in cmd/vacheck.
func Main(catalog []specs.Spec) int {
	return Run(os.Args, os.Stdout, os.Stderr, catalog)
}

// Run runs the command line args (args[0] is the program name) on the
// specs of catalog: `list` lists them, `check NAME` and `sweep NAME` look
// NAME up among them (with a "did you mean" from their names), and their
// parameters are the spec flags. A spec that declares a broken twin
// (specs.Spec.Broken) brings it along, right after it. It returns the exit code; a panic becomes
// an internal error with exit code 4.
func Run(args []string, stdout, stderr io.Writer, catalog []specs.Spec) int {
	return guard(func(args []string, stdout, stderr io.Writer) int {
		return runContext(context.Background(), args, stdout, stderr, catalog)
	}, args, stdout, stderr)
}
