package specs

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/automaton/automatontest"
	"github.com/vacheck/vacheck/explorer"
)

var update = flag.Bool("update", false, "rewrite the expected figures of testdata/counts from this run")

// TestCounts runs the pinned counts of testdata/counts/*.txt, scripts in
// the style of etcd-io/raft's datadriven tests. An entry is a check
// command, a line "----" and the figures it must give, up to a blank
// line; the comment lines before it say where the figures come from (a
// hand derivation, a formula of the algorithm's page in docs/algorithms,
// a reference model, or a regression value):
//
//	# N=3 with increasing IDs, by hand: ...
//	check ref chang-roberts --n 3 --ids increasing --metric messages
//	----
//	ok: 39 states, 76 transitions, 1 terminal
//	messages: 5..5
//
// The command is that of the CLI without --strategy and --workers: the
// spec, its parameters, and --property (repeatable, or a comma-separated
// list; the spec's claims by default, its safety claims with --reduction
// por), --metric (repeatable), --continue and --reduction. Each entry is
// checked breadth first on one worker and on two and depth first, which
// must agree (automatontest.CheckStrategies), and gives the figures of
// automatontest.Figures. Words before the spec set how the entry runs:
//
//   - ref: the spec's independent reference model (references) must find
//     the same states, transitions and terminal states, and, with
//     --metric messages, the same message range;
//   - long: a large instance, checked only with -long;
//   - noshort: skipped with -short.
//
// go test ./specs -run TestCounts -update rewrites the figures from the
// run (entries it skips keep theirs): review the diff.
func TestCounts(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "counts", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/counts/*.txt (%v)", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			runCounts(t, path)
		})
	}
}

// countsEntry is one check command of a counts file and its figures.
type countsEntry struct {
	line               int // of the command, from 1
	command            string
	ref, long, noshort bool
	spec               string
	flags              map[string]string
	props, metrics     []string
	cont               bool
	reduction          explorer.Reduction
	// want is the expected block, lines [from, to) of the file.
	want     string
	from, to int
}

// runCounts checks every entry of the counts file at path and, with
// -update, rewrites its figures.
func runCounts(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	entries, err := parseCounts(lines)
	if err != nil {
		t.Fatalf("%s:%v", path, err)
	}
	got := make([]string, len(entries))
	for k, e := range entries {
		got[k] = e.want
		name := fmt.Sprintf("%d:%s", e.line, strings.TrimPrefix(e.command, "check "))
		t.Run(name, func(t *testing.T) {
			got[k] = runCountsEntry(t, e)
			if !*update && got[k] != e.want {
				t.Errorf("%s:%d: %s\ngot:\n%s\nwant:\n%s\n(go test ./specs -run TestCounts -update rewrites the file)", path, e.line, e.command, got[k], e.want)
			}
		})
	}
	if !*update {
		return
	}
	var out []string
	next := 0
	for k, e := range entries {
		out = append(out, lines[next:e.from]...)
		if got[k] != "" { // an entry skipped before its first run has no figures
			out = append(out, got[k])
		}
		next = e.to
	}
	out = append(out, lines[next:]...)
	if text := strings.Join(out, "\n") + "\n"; text != string(data) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runCountsEntry checks e's model with every strategy, compares it with
// the reference model if e asks, and returns its figures (e.want when e is
// skipped).
func runCountsEntry(t *testing.T, e countsEntry) (figures string) {
	if e.long {
		skipUnlessLong(t)
	}
	if e.noshort && testing.Short() {
		t.Skip("skipped with -short")
	}
	s, err := Lookup(e.spec)
	if err != nil {
		t.Fatal(err)
	}
	m := buildSpec(t, s, e.flags)
	cfg := explorer.Config{Properties: e.props, Metrics: e.metrics, Continue: e.cont, Reduction: e.reduction}
	if cfg.Properties == nil {
		cfg.Properties = s.Claims
		if e.reduction == explorer.PartialOrder {
			cfg.Properties = withoutLiveness(m, s.Claims)
		}
	}
	r := automatontest.CheckStrategies(t, m, cfg)
	if e.ref {
		ref, ok := references()[e.spec]
		if !ok {
			t.Fatalf("%s has no reference model", e.spec)
		}
		p, err := NewParams(s, e.flags)
		if err != nil {
			t.Fatal(err)
		}
		compareReference(t, ref(t, p), r)
	}
	return automatontest.Figures(r)
}

// withoutLiveness returns claims without m's liveness properties, which
// partial-order reduction does not preserve (as the CLI does).
func withoutLiveness(m explorer.Model, claims []string) []string {
	lm, ok := m.(explorer.LiveModel)
	if !ok {
		return claims
	}
	return slices.DeleteFunc(slices.Clone(claims), func(name string) bool {
		return slices.ContainsFunc(lm.Liveness(), func(p explorer.LiveProperty) bool { return p.Name == name })
	})
}

// compareReference fails the test unless the reference figures f are r's
// states, transitions and terminal states and, when r has the messages
// metric, its range.
func compareReference(t testing.TB, f refFigures, r *explorer.Result) {
	t.Helper()
	if !r.Exhaustive {
		t.Fatalf("the search did not reach every state (%v): nothing to compare with the reference model", r.Status)
		return
	}
	if f.states != r.States || f.transitions != r.Transitions || f.terminal != r.Terminal {
		t.Errorf("reference model: %d states, %d transitions, %d terminal; the spec: %d, %d, %d",
			f.states, f.transitions, f.terminal, r.States, r.Transitions, r.Terminal)
	}
	for _, mt := range r.Metrics {
		if mt.Name != "messages" {
			continue
		}
		if f.byClass == nil {
			t.Fatal("the reference model does not count messages")
			return
		}
		if f.lo != mt.Min || f.hi != mt.Max || mt.Unbounded {
			t.Errorf("reference model: messages %d..%d; the spec: %d..%d (unbounded %v)", f.lo, f.hi, mt.Min, mt.Max, mt.Unbounded)
		}
	}
}

// parseCounts reads the entries of a counts file. Any line outside an
// expected block is blank, a comment (#) or a check command.
func parseCounts(lines []string) ([]countsEntry, error) {
	var entries []countsEntry
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		e, err := parseCountsCommand(l)
		if err != nil {
			return nil, fmt.Errorf("%d: %v", i+1, err)
		}
		e.line = i + 1
		if i+1 >= len(lines) || lines[i+1] != "----" {
			return nil, fmt.Errorf("%d: the command is not followed by a line ----", i+1)
		}
		e.from = i + 2
		for e.to = e.from; e.to < len(lines) && strings.TrimSpace(lines[e.to]) != ""; e.to++ {
		}
		e.want = strings.Join(lines[e.from:e.to], "\n")
		entries = append(entries, e)
		i = e.to
	}
	return entries, nil
}

// parseCountsCommand reads a check command (see TestCounts).
func parseCountsCommand(l string) (countsEntry, error) {
	e := countsEntry{command: l, flags: map[string]string{}}
	words := strings.Fields(l)
	if words[0] != "check" {
		return e, fmt.Errorf("%q: want a comment, a blank line or a check command", l)
	}
	words = words[1:]
options:
	for len(words) > 0 {
		switch words[0] {
		case "ref":
			e.ref = true
		case "long":
			e.long = true
		case "noshort":
			e.noshort = true
		default:
			break options
		}
		words = words[1:]
	}
	if len(words) == 0 || strings.HasPrefix(words[0], "-") {
		return e, fmt.Errorf("%q: no spec", l)
	}
	e.spec, words = words[0], words[1:]
	for len(words) > 0 {
		flag, ok := strings.CutPrefix(words[0], "--")
		if !ok {
			return e, fmt.Errorf("%q: %q is not a flag", l, words[0])
		}
		if flag == "continue" {
			e.cont, words = true, words[1:]
			continue
		}
		if len(words) < 2 {
			return e, fmt.Errorf("%q: --%s has no value", l, flag)
		}
		v := words[1]
		words = words[2:]
		switch flag {
		case "property":
			e.props = append(e.props, strings.Split(v, ",")...)
		case "metric":
			e.metrics = append(e.metrics, v)
		case "reduction":
			r, err := explorer.ParseReduction(v)
			if err != nil {
				return e, err
			}
			e.reduction = r
		case "strategy", "workers":
			return e, fmt.Errorf("%q: --%s: every entry runs with every strategy", l, flag)
		default:
			e.flags[flag] = v
		}
	}
	return e, nil
}

// references are the specs' independent reference models, by spec name,
// for the entries marked ref: each returns its model's figures for the
// spec's parameters p.
func references() map[string]func(t testing.TB, p *Params) refFigures {
	return map[string]func(testing.TB, *Params) refFigures{
		"adoption":               adReference,
		"bully":                  buReference,
		"carvalho-roucairol":     cvReference,
		"cao-singhal":            ownWalk("cao-singhal"),
		"chang-roberts":          crReference,
		"chang-roberts-broken":   crReference,
		"chang-roberts-wakeup":   crwReference,
		"floodmax":               fmReference,
		"maekawa":                ownWalk("maekawa"),
		"maekawa-basic":          ownWalk("maekawa-basic"),
		"peterson":               ptReference,
		"ricart-agrawala":        func(t testing.TB, p *Params) refFigures { return raReference(t, p, false) },
		"ricart-agrawala-broken": func(t testing.TB, p *Params) refFigures { return raReference(t, p, true) },
		"raymond":                func(t testing.TB, p *Params) refFigures { return rayReference(t, p, false) },
		"raymond-broken":         func(t testing.TB, p *Params) refFigures { return rayReference(t, p, true) },
		"suzuki-kasami":          skReference,
		"token-ring-recovery":    trReference,
		"tree-election":          teReference,
		"virtual-tree":           func(t testing.TB, p *Params) refFigures { return vtReference(t, p, false) },
		"virtual-tree-broken":    func(t testing.TB, p *Params) refFigures { return vtReference(t, p, true) },
	}
}

// TestCountsParse checks the script syntax: the options, the flags the
// runner reads itself, and the errors of a malformed file.
func TestCountsParse(t *testing.T) {
	t.Parallel()
	lines := strings.Split(`# a comment

check ref noshort chang-roberts --n 3 --property uniqueness,validity --metric messages --continue
----
ok: 1 states

check long lamport --reduction por --property deadlock-freedom --property mutual-exclusion
----
ok
`, "\n")
	entries, err := parseCounts(lines)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Fatalf("%d entries, want 2", len(entries))
	}
	e := entries[0]
	if !e.ref || !e.noshort || e.long || e.spec != "chang-roberts" || e.flags["n"] != "3" || len(e.flags) != 1 ||
		!slices.Equal(e.props, []string{"uniqueness", "validity"}) || !slices.Equal(e.metrics, []string{"messages"}) ||
		!e.cont || e.line != 3 || e.want != "ok: 1 states" || e.from != 4 || e.to != 5 {
		t.Errorf("first entry %+v", e)
	}
	e = entries[1]
	if e.ref || !e.long || e.reduction != explorer.PartialOrder || !slices.Equal(e.props, []string{"deadlock-freedom", "mutual-exclusion"}) ||
		e.want != "ok" || e.from != 8 || e.to != 9 {
		t.Errorf("second entry %+v", e)
	}
	for _, bad := range []struct{ text, want string }{
		{"chang-roberts --n 3\n----\nok", `1: "chang-roberts --n 3": want a comment`},
		{"check chang-roberts --n 3\nok", "1: the command is not followed by a line ----"},
		{"check ref\n----\nok", `1: "check ref": no spec`},
		{"check chang-roberts n 3\n----\nok", `1: "check chang-roberts n 3": "n" is not a flag`},
		{"check chang-roberts --n\n----\nok", `1: "check chang-roberts --n": --n has no value`},
		{"check chang-roberts --workers 2\n----\nok", "--workers: every entry runs with every strategy"},
		{"\n\ncheck chang-roberts --reduction some\n----\nok", `--reduction "some"`},
	} {
		_, err := parseCounts(strings.Split(bad.text, "\n"))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.text, err, bad.want)
		}
	}
}

// TestCountsCatchesAWrongReference is the runner's mutant test: the
// reference model of the broken twin (which forwards smaller IDs) in
// place of the correct one's must be reported, with both figures.
func TestCountsCatchesAWrongReference(t *testing.T) {
	t.Parallel()
	flags := map[string]string{"n": "3", "ids": "increasing"}
	wrong := crRefModel(crIDs(t, 3, "increasing"), true)
	rec := &recorder{TB: t}
	compareReference(rec, refWalk(t, wrong), check(t, "chang-roberts", flags, explorer.Config{}))
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "136 states, 300 transitions, 1 terminal; the spec: 39, 76, 1") {
		t.Errorf("compareReference reported %q", rec.errors)
	}
	// A reference without message figures cannot vouch for a message range.
	rec = &recorder{TB: t}
	r := check(t, "chang-roberts", flags, explorer.Config{Metrics: []string{"messages"}})
	compareReference(rec, refWalk(t, crRefModel(crIDs(t, 3, "increasing"), false)), r)
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "does not count messages") {
		t.Errorf("compareReference reported %q", rec.errors)
	}
}

// recorder is a testing.TB that records what a helper reports, for the
// tests of the harness itself.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.errors = append(r.errors, "fatal: "+fmt.Sprintf(format, args...))
}

func (r *recorder) Fatal(args ...any) { r.errors = append(r.errors, "fatal: "+fmt.Sprint(args...)) }
