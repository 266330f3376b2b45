package cli

import (
	urfave "github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/specs"
)

// rerunBase is the check command line of spec with the parameters given
// (in the order the spec declares them, then --channels and --capacity),
// as words: the command a counterexample's re-run command starts from
// (report.Run.Rerun). The program is named as the app is, so that a user
// binary built with Main names itself.
func rerunBase(c *urfave.Context, spec specs.Spec, given map[string]string) []string {
	words := []string{c.App.Name, "check", spec.Name}
	for _, p := range append(append([]specs.Param(nil), spec.Params...), specs.Param{Flag: "channels"}, specs.Param{Flag: "capacity"}) {
		if v, ok := given[p.Flag]; ok {
			words = append(words, "--"+p.Flag, v)
		}
	}
	return words
}
