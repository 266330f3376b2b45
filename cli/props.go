package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	urfave "github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/props"
	"github.com/vacheck/vacheck/specs"
)

// exprList is the value of an expression flag: every value given, in
// order, each whole (a StringSliceFlag would split an expression at its
// commas).
type exprList struct{ values []string }

func (l *exprList) Set(v string) error { l.values = append(l.values, v); return nil }
func (l *exprList) String() string     { return strings.Join(l.values, " ") }

// propUsage is the help of each expression flag.
var propUsage = map[props.Kind]string{
	props.Invariant:  "check that every reachable state satisfies EXPR, an expression over procs, chans and the spec's parameters (repeatable; docs/properties-language.md)",
	props.Reach:      "check that some reachable state satisfies EXPR, and show a shortest path to one; never met is a violation (repeatable)",
	props.Eventually: "check that every fair execution reaches a state that satisfies EXPR (repeatable)",
	props.LeadsTo:    "'P ~> Q': check that from every state satisfying P every fair execution reaches one satisfying Q (repeatable)",
	props.Stable:     "check that every fair execution reaches a point after which EXPR holds forever (eventually always; repeatable)",
	props.Action:     "check that every step satisfies EXPR, an expression over old and new, the states before and after it (repeatable)",
	props.Constraint: "explore only the states that satisfy EXPR, as TLC's state constraints: the others are checked, not expanded, and counted apart; a run that cut a state is bounded, exit 5 (repeatable; with the spec's own constraint, a conjunction)",
}

// propFlags are the expression flags of `check`, and --fair.
func propFlags() []urfave.Flag {
	var flags []urfave.Flag
	for _, k := range props.Kinds() {
		flags = append(flags, &urfave.GenericFlag{Name: k.Flag(), Usage: propUsage[k], Value: &exprList{}})
	}
	return append(flags, &urfave.StringSliceFlag{Name: "fair", Usage: "STEP[:strong]: the step STEP of each process is a fairness task of its own, weakly (or strongly) fair, besides what --fairness covers (repeatable; with --fairness none, the only fairness)"})
}

// fairSteps reads the --fair values.
func fairSteps(c *urfave.Context) ([]explorer.FairStep, error) {
	var out []explorer.FairStep
	for _, v := range c.StringSlice("fair") {
		f, err := explorer.ParseFairStep(v)
		if err != nil {
			return nil, usageError{err}
		}
		out = append(out, f)
	}
	return out, nil
}

// exprProps returns the properties the expression flags of c give, in the
// order of props.Kinds, each kind in the order given.
func exprProps(c *urfave.Context) []props.Property {
	var ps []props.Property
	for _, k := range props.Kinds() {
		if l, ok := c.Generic(k.Flag()).(*exprList); ok {
			for _, e := range l.values {
				ps = append(ps, props.Property{Kind: k, Expr: e})
			}
		}
	}
	return ps
}

// attachProps returns model checking the expression flags' properties
// too, and the properties cfg is to check: those expressions, and with
// --property what it names as well; without expression flags, model and
// cfg.Properties as they are.
func attachProps(c *urfave.Context, cfg explorer.Config, model explorer.Model, spec specs.Spec, params *specs.Params) (explorer.Model, []string, error) {
	ps := exprProps(c)
	if len(ps) == 0 {
		return model, cfg.Properties, nil
	}
	if cfg.Reduction == explorer.PartialOrder {
		return nil, nil, usagef("--%s with --reduction por: an expression may read any variable, so no transition is invisible to it; use --reduction none", ps[0].Kind.Flag())
	}
	m, err := props.Attach(model, params.Canonical(), ps...)
	var pe *props.Error
	switch {
	case errors.As(err, &pe):
		return nil, nil, usageError{err}
	case errors.Is(err, props.ErrNotObservable):
		return nil, nil, usagef("--%s: %s is a model whose states expressions cannot read (not an explorer.Observable, as every automaton.System is)", ps[0].Kind.Flag(), spec.Name)
	case err != nil:
		return nil, nil, fmt.Errorf("%s: the model refused the expression properties: %w", spec.Name, err)
	}
	var names []string
	for _, p := range ps {
		if p.Kind != props.Constraint {
			names = append(names, p.Expr)
		}
	}
	if len(names) == 0 {
		// Constraints only: the properties --property (or the spec's
		// claims) name.
		return m, cfg.Properties, nil
	}
	if c.IsSet("property") {
		names = append(slices.Clone(cfg.Properties), names...)
	}
	return m, names, nil
}
