// Package specs is vacheck's catalog of distributed algorithms, each written
// as I/O automata with the automaton package and explained in
// docs/algorithms. Every algorithm has a deliberately broken twin that must
// yield a counterexample.
package specs

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/internal/input"
	"github.com/vacheck/vacheck/properties"
)

// ErrUsage reports a bad spec name or parameter; the CLI exits with code 2.
var ErrUsage = errors.New("bad usage")

// ErrSpec reports a mistake of a spec itself rather than of the command
// line: a property it claims that its model does not offer, a parameter
// its Build reads that it does not declare, a step its Do does not
// handle. The CLI exits with code 4, the model failed.
var ErrSpec = errors.New("the spec is wrong")

// Param is a parameter a spec takes, as a CLI flag.
type Param struct {
	Flag    string // without dashes: "n", "ids"
	Default string
	Usage   string
	// Max is the largest value Build accepts for an integer parameter, or
	// 0 when the spec does not say. `vacheck list` shows it; for --n it
	// is what the spec's process masks allow (maxN, maxRingN).
	Max int
}

// Spec is one algorithm of the catalog.
type Spec struct {
	Name string
	// Section orders the catalog: "1.1" to "1.15" for leader election,
	// "2.1" to "2.12" for mutual exclusion, in the order of the pages
	// under docs/algorithms.
	Section string
	Summary string
	// Page is where the algorithm is explained: for the catalog, the path
	// of its page in the vacheck repository, docs/algorithms/NAME.md
	// (Catalog sets it from the name, a broken twin's from its
	// algorithm's); a user's spec may give a path or URL of its own.
	// `vacheck list` and `vacheck check SPEC --help` show it.
	Page string
	// Bug, for a broken twin, says in one line what was broken on purpose.
	Bug    string
	Params []Param
	// Claims are the properties the spec claims; they are checked by
	// default. Offered lists every property, claimed or not (some are
	// expected to fail, such as termination of plain Chang-Roberts).
	Claims []string
	// Build makes the model for the given parameters.
	Build func(p *Params) (explorer.Model, error)
	// Hint, when set, suggests parameters that make a run smaller, for
	// the CLI to print when a run with p is incomplete; "" when it has
	// nothing to suggest.
	Hint func(p *Params) string
	// Provisional, when set, says why the spec is provisional: its rules
	// are a reconstruction that the source has not confirmed yet.
	// `vacheck list` shows it.
	Provisional string
	// Symmetry, when set, names the symmetry group the spec's models
	// declare (automaton.Config.Symmetry), for `check --symmetry`:
	// "rotations" or "dihedral".
	Symmetry string
	// Formulas are closed forms the spec's source gives for its metrics,
	// as functions of --n, which `sweep --simulate` prints and draws next
	// to what the runs measure. A broken twin does not inherit them.
	Formulas []Formula
	// Broken, when set, declares the spec's broken twin, which WithTwins
	// (and so Catalog and the cli) makes a spec of its own: the same spec
	// named Name+"-broken", whose Build sees p.Broken() true.
	Broken *Twin

	// twin marks the spec WithTwins made from a Broken declaration, for
	// NewParams to tell its Build (Params.Broken).
	twin bool
}

// Formula is a closed form of one statistic of a metric over the runs,
// as a function of the number of processes n.
type Formula struct {
	Metric string // as --metric names it: "messages"
	// Stat is the statistic it gives: "mean" (over uniformly drawn initial
	// states and schedules), "min" or "max".
	Stat string
	// Expr is the formula over n, in the syntax of simulate.ParseFormula:
	// "n*H(n)", "n*(n+1)/2".
	Expr string
	// Source says where it comes from: "Chang & Roberts 1979".
	Source string
}

// Twin declares a spec's broken twin: the same algorithm with a bug put in
// on purpose, which must yield a counterexample. Its symmetry, hint, page
// and Build are the spec's, and so are its name, section and parameters
// unless the fields below say otherwise; Build tells the two apart with
// Params.Broken.
type Twin struct {
	Summary string
	// Bug says in one line what was broken on purpose (Spec.Bug).
	Bug string
	// Claims are the twin's claims; nil means the spec's.
	Claims []string
	// Params are the twin's parameters, for a bug that shows only with
	// other defaults or without some parameter; nil means the spec's.
	Params []Param
	// Name is the twin's name; "" means the spec's name + "-broken".
	Name string
	// Section is the twin's section; "" means the spec's.
	Section string
}

// TwinName returns the name of the broken twin s declares (Spec.Broken),
// or "" when it declares none.
func (s Spec) TwinName() string {
	switch {
	case s.Broken == nil:
		return ""
	case s.Broken.Name != "":
		return s.Broken.Name
	}
	return s.Name + "-broken"
}

// WithTwins returns catalog with the broken twin of every spec that
// declares one (Spec.Broken) right after it, unless catalog has a spec of
// the twin's name already; so WithTwins of its own result changes nothing.
// A catalog without declared twins is returned as it is.
func WithTwins(catalog []Spec) []Spec {
	var out []Spec
	for k, s := range catalog {
		if s.Broken == nil || slices.ContainsFunc(catalog, func(c Spec) bool { return c.Name == s.TwinName() }) {
			if out != nil {
				out = append(out, s)
			}
			continue
		}
		if out == nil {
			out = append(make([]Spec, 0, len(catalog)+1), catalog[:k]...)
		}
		t := s
		t.Name, t.Summary, t.Bug, t.Broken, t.twin = s.TwinName(), s.Broken.Summary, s.Broken.Bug, nil, true
		t.Formulas = nil // the bug breaks them
		if s.Broken.Claims != nil {
			t.Claims = s.Broken.Claims
		}
		if s.Broken.Params != nil {
			t.Params = s.Broken.Params
		}
		if s.Broken.Section != "" {
			t.Section = s.Broken.Section
		}
		out = append(out, s, t)
	}
	if out == nil {
		return catalog
	}
	return out
}

// algorithms returns the catalog's algorithms, each declaring its broken
// twin (Spec.Broken), which Catalog expands.
func algorithms() []Spec {
	return []Spec{
		changRoberts(), changRobertsAnnounce(), changRobertsWakeup(), changRobertsBidirectional(),
		lelann(), peterson(), tokenRingRecovery(), bully(), floodmax(), treeElection(),
		echoElection(), adoption(), waiting(), dfsToken(), virtualTree(),
		central(), lamport(), ricartAgrawala(), carvalhoRoucairol(), suzukiKasami(),
		singhal(), raymond(), maekawa(), perpetuumMobile(), caoSinghal(),
	}
}

// Catalog returns every spec, ordered by section then name.
func Catalog() []Spec {
	all := algorithms()
	for k := range all {
		if all[k].Page == "" {
			all[k].Page = "docs/algorithms/" + all[k].Name + ".md"
		}
	}
	all = WithTwins(all) // a twin's page is its algorithm's
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].Section != all[j].Section {
			return sectionLess(all[i].Section, all[j].Section)
		}
		return all[i].Name < all[j].Name
	})
	return all
}

func sectionLess(a, b string) bool {
	var a1, a2, b1, b2 int
	fmt.Sscanf(a, "%d.%d", &a1, &a2)
	fmt.Sscanf(b, "%d.%d", &b1, &b2)
	if a1 != b1 {
		return a1 < b1
	}
	return a2 < b2
}

// Lookup returns the spec of the catalog called name.
func Lookup(name string) (Spec, error) {
	return Find(Catalog(), name)
}

// Find returns the spec of catalog called name, or an ErrUsage error that
// names the specs catalog has.
func Find(catalog []Spec, name string) (Spec, error) {
	var names []string
	for _, s := range catalog {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return Spec{}, fmt.Errorf("%w: unknown spec %q; known specs: %s (see 'vacheck list')", ErrUsage, name, strings.Join(names, ", "))
}

// Params holds the parameter values given for one run: flags the user set,
// and each parameter's default otherwise.
//
// Besides the methods that return an error (Int, Channels), Params has
// sticky ones in the style of bufio.Scanner (IntFlag, ChannelFlags, Fail):
// they record the first error, return zero values once there is one, and
// Err returns it, so that a Build reads its parameters in a row and checks
// once:
//
//	n := p.IntFlag("n", 1, 8)
//	disc, capacity := p.ChannelFlags(channel.FIFO, n)
//	if err := p.Err(); err != nil {
//		return nil, err
//	}
type Params struct {
	spec   string
	given  map[string]string
	params []Param
	canon  map[string]any
	err    error // the first error of a sticky method
	broken bool  // building the broken twin (Spec.Broken)
	// sampling: the model is for a run that draws its initial states at
	// random (SetSampling).
	sampling bool
	// undeclared is the ErrSpec error of the first parameter read that
	// the spec does not declare, or nil.
	undeclared error
}

// NewParams checks that every given flag is a parameter of spec (or a
// common one) and returns the parameter values. Of several flags that are
// not, it names the first in alphabetical order, so that a command gives
// the same error every time.
func NewParams(spec Spec, given map[string]string) (*Params, error) {
	all := append(append([]Param(nil), spec.Params...), commonParams...)
	for _, flag := range slices.Sorted(maps.Keys(given)) {
		ok := false
		for _, p := range all {
			ok = ok || p.Flag == flag
		}
		if !ok {
			var names []string
			for _, p := range spec.Params {
				names = append(names, "--"+p.Flag)
			}
			return nil, fmt.Errorf("%w: --%s does not apply to %s; its parameters are %s", ErrUsage, flag, spec.Name, strings.Join(names, ", "))
		}
	}
	return &Params{spec: spec.Name, given: given, params: all, canon: map[string]any{}, broken: spec.twin}, nil
}

// commonParams are taken by every spec.
var commonParams = []Param{
	{Flag: "channels", Default: "", Usage: "channel discipline: fifo, unordered or mailbox (default: what the algorithm assumes)"},
	{Flag: "capacity", Default: "", Usage: "bound on every channel; exceeding it is a modelling error (default: the spec's)"},
}

// String returns the value of flag, or its default. A flag the spec does
// not declare reads as "", and Spec.Model reports it as the spec's
// mistake (ErrSpec).
func (p *Params) String(flag string) string {
	if !p.declared(flag) {
		return ""
	}
	v, ok := p.given[flag]
	if !ok {
		for _, q := range p.params {
			if q.Flag == flag {
				v = q.Default
			}
		}
	}
	return v
}

// Given reports whether the user set flag.
func (p *Params) Given(flag string) bool {
	_, ok := p.given[flag]
	return ok && p.declared(flag)
}

// declared reports whether flag is a parameter of the spec (or a common
// one), and records the spec's mistake when it is not.
func (p *Params) declared(flag string) bool {
	if slices.ContainsFunc(p.params, func(q Param) bool { return q.Flag == flag }) {
		return true
	}
	if p.undeclared == nil {
		p.undeclared = fmt.Errorf("%w: %s reads the parameter --%s, which it does not declare (Spec.Params)", ErrSpec, p.spec, flag)
	}
	return false
}

// Int returns flag as an integer in [lo, hi].
func (p *Params) Int(flag string, lo, hi int) (int, error) {
	if !p.declared(flag) {
		return 0, p.undeclared
	}
	s := p.String(flag)
	d, ok := input.Decimal(s)
	v := int(d)
	if !ok || int64(v) != d {
		return 0, fmt.Errorf("%w: --%s %q: not an integer; allowed: %d to %d", ErrUsage, flag, input.Clip(s), lo, hi)
	}
	if v < lo || v > hi {
		return 0, fmt.Errorf("%w: --%s %d: out of range for %s; allowed: %d to %d", ErrUsage, flag, v, p.spec, lo, hi)
	}
	p.Set(flag, v)
	return v, nil
}

// IntFlag is Int with a sticky error: it returns flag as an integer in
// [lo, hi], or records Int's error (see Err) and returns 0. Once p has an
// error it returns 0 without reading flag.
func (p *Params) IntFlag(flag string, lo, hi int) int {
	return sticky(p, func() (int, error) { return p.Int(flag, lo, hi) })
}

// Fail records err as p's error (see Err) unless p has one already; a nil
// err changes nothing. A Build calls it for a check of its own between
// sticky reads, such as p.Fail(Usagef(...)).
func (p *Params) Fail(err error) {
	if p.err == nil {
		p.err = err
	}
}

// Err returns the first error recorded by a sticky method (IntFlag,
// ChannelFlags, Fail), or nil.
func (p *Params) Err() error { return p.err }

// Broken reports whether the model to build is the broken twin that the
// spec declares (Spec.Broken) rather than the spec itself.
func (p *Params) Broken() bool { return p.broken }

// SetSampling marks p as the parameters of a run that draws its initial
// states at random (a random simulation) and never enumerates them: the
// bounds on --n that only keep the number of initial states within reach
// of a search (N! for --ids all, 2^N−1 for --initiators subsets) do not
// apply to the model Build makes. Its initial states are still yielded
// one at a time, so a search of it stops at its limits.
func (p *Params) SetSampling(on bool) { p.sampling = on }

// Sampling reports whether p is for a run that samples its initial states
// (SetSampling).
func (p *Params) Sampling() bool { return p.sampling }

// sticky runs read unless p has an error, records its error, and returns
// its value, or the zero T when there is an error: the sticky form of a
// spec's own parser.
func sticky[T any](p *Params, read func() (T, error)) T {
	var zero T
	if p.err != nil {
		return zero
	}
	v, err := read()
	if err != nil {
		p.err = err
		return zero
	}
	return v
}

// Set records the canonical value of a parameter for reports.
func (p *Params) Set(flag string, v any) { p.canon[flag] = v }

// Canonical returns the parameter values the model was built with.
func (p *Params) Canonical() map[string]any { return p.canon }

// Usage marks err (from a package that parses a flag value, such as quorum
// or topology, and already names the flag) as bad usage.
func Usage(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrUsage, err)
}

// Usagef returns an ErrUsage error naming the flag and its value.
func Usagef(flag, value, format string, args ...any) error {
	return fmt.Errorf("%w: --%s %s: %s", ErrUsage, flag, value, fmt.Sprintf(format, args...))
}

// Model builds the model for p as Build does, and reports the spec's own
// mistakes as ErrSpec errors, whatever Build returned: a parameter Build
// read that the spec does not declare, and a claim (Claims) that the
// model does not offer. The CLI builds every model with it.
func (s Spec) Model(p *Params) (explorer.Model, error) {
	m, err := s.Build(p)
	if p.undeclared != nil {
		return nil, p.undeclared
	}
	if err != nil {
		return nil, err
	}
	offered := []string{properties.DeadlockFreedom}
	for _, info := range m.Properties() {
		offered = append(offered, info.Name)
	}
	if lm, ok := m.(explorer.LiveModel); ok {
		for _, l := range lm.Liveness() {
			offered = append(offered, l.Name)
		}
	}
	for _, c := range s.Claims {
		if !slices.Contains(offered, c) {
			return nil, fmt.Errorf("%w: %s claims the property %s, which its model does not offer (it offers %s)", ErrSpec, s.Name, c, strings.Join(offered, ", "))
		}
	}
	return m, nil
}

// Offered returns every property the spec's model has with its default
// parameters, the claims first, so that `vacheck list` shows what
// --property accepts. The channel-bound assertion, which every model has,
// is left out.
func (s Spec) Offered() ([]string, error) {
	p, err := NewParams(s, nil)
	if err != nil {
		return nil, err
	}
	m, err := s.Build(p)
	if err != nil {
		return nil, err
	}
	var all []string
	for _, info := range m.Properties() {
		if info.Name != properties.ChannelBound {
			all = append(all, info.Name)
		}
	}
	all = append(all, properties.DeadlockFreedom)
	if lm, ok := m.(explorer.LiveModel); ok {
		for _, l := range lm.Liveness() {
			all = append(all, l.Name)
		}
	}
	out := append([]string(nil), s.Claims...)
	for _, name := range all {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out, nil
}

// withParams returns a copy of params in which each parameter with the
// flag of one of repl is repl's, for a broken twin's parameters
// (Twin.Params) that differ in a default or a usage.
func withParams(params []Param, repl ...Param) []Param {
	out := slices.Clone(params)
	for _, r := range repl {
		for k := range out {
			if out[k].Flag == r.Flag {
				out[k] = r
			}
		}
	}
	return out
}

// withoutParams returns a copy of params without the given flags, for a
// broken twin that lacks a parameter (Twin.Params).
func withoutParams(params []Param, flags ...string) []Param {
	return slices.DeleteFunc(slices.Clone(params), func(q Param) bool { return slices.Contains(flags, q.Flag) })
}
