// Command vacheck model-checks distributed algorithms: it explores every
// interleaving of a catalog spec for small N and checks its properties.
//
//	vacheck list
//	vacheck check chang-roberts --n 5 --ids all
//
// Exit codes: 0 every property holds, 1 a property is violated, 2 bad usage
// or input, 3 incomplete (a limit was reached), 4 the model failed, or
// vacheck itself did ("internal error", with a request to report it), 5
// bounded (no violation, but the model's bound cut states: the properties
// hold within the bound only).
//
// The command line is package cli run on specs.Catalog(); a module with
// its own specs gets the same command line from cli.Main.
package main

import (
	"os"

	"github.com/vacheck/vacheck/cli"
	"github.com/vacheck/vacheck/specs"
)

func main() {
	os.Exit(cli.Main(specs.Catalog()))
}
