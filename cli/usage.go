package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	urfave "github.com/urfave/cli/v2"
	"github.com/vacheck/vacheck/internal/input"
	"github.com/vacheck/vacheck/specs"
)

// commands are the subcommands, for the "did you mean" of an unknown one.
var commands = []string{"list", "check", "sweep", "quorums", "resume", "graph", "explore", "swarm", "simulate", "merge", "replay"}

// suggest returns the candidate closest to name, if it is close enough to
// be a typo (or name is a prefix of it), else "".
func suggest(name string, candidates []string) string { return input.Suggest(name, candidates) }

func specNames(catalog []specs.Spec) []string {
	var names []string
	for _, s := range catalog {
		names = append(names, s.Name)
	}
	return names
}

// unknownCommand is the usage error for `vacheck WORD` where WORD is not a
// command: a spec name suggests `vacheck check WORD`.
func unknownCommand(word string, catalog []specs.Spec) error {
	if slices.Contains(specNames(catalog), word) {
		return usagef("unknown command %q; %s is a spec: did you mean 'vacheck check %s'?", word, word, word)
	}
	if s := suggest(word, commands); s != "" {
		return usagef("unknown command %q; did you mean 'vacheck %s'? (commands: %s)", word, s, strings.Join(commands, ", "))
	}
	if s := suggest(word, specNames(catalog)); s != "" {
		return usagef("unknown command %q; did you mean 'vacheck check %s'? (commands: %s)", word, s, strings.Join(commands, ", "))
	}
	return usagef("unknown command %q; commands: %s (see 'vacheck --help')", word, strings.Join(commands, ", "))
}

var undefinedFlag = regexp.MustCompile(`flag provided but not defined: -+(\S+)`)

// flagUsageError turns the flag parser's error into a usage error that
// names the flag with two dashes and suggests the closest flag of cmd.
func flagUsageError(err error, flags []urfave.Flag) error {
	m := undefinedFlag.FindStringSubmatch(err.Error())
	if m == nil {
		return usageError{err}
	}
	var names []string
	for _, f := range flags {
		names = append(names, f.Names()...)
	}
	msg := fmt.Sprintf("unknown flag --%s", m[1])
	if s := suggest(m[1], names); s != "" {
		msg += fmt.Sprintf("; did you mean --%s?", s)
	}
	return usagef("%s (see --help)", msg)
}

// lookupSpec is specs.Find in catalog with a "did you mean" for a typo.
func lookupSpec(name string, catalog []specs.Spec) (specs.Spec, error) {
	spec, err := specs.Find(catalog, name)
	if err != nil {
		if s := suggest(name, specNames(catalog)); s != "" {
			return spec, usagef("unknown spec %q; did you mean %s? (see 'vacheck list')", name, s)
		}
	}
	return spec, err
}

// modulePath is vacheck's module.
const modulePath = "github.com/vacheck/vacheck"

// sentinelPrefix matches what Go errors put before a message that a user
// of the command line has no use for: a package's name ("explorer: ") and
// a sentinel's words ("bad usage: ", "bad configuration: ").
var sentinelPrefix = regexp.MustCompile(`(^|: |; |\()((explorer|automaton|specs|simulate|stategraph|props|channel|web|offheap|report|input|cli): )+|(^|: )(bad usage|bad configuration): `)

// userMessage is an error's message without the package names and the
// sentinels' words that wrap it: "checkpoint refused: ..." where Go says
// "explorer: checkpoint refused: ...", and "invalid --topology ..." for
// "bad usage: invalid --topology ...".
func userMessage(msg string) string {
	for {
		out := sentinelPrefix.ReplaceAllString(msg, "$1$4")
		if out == msg {
			return out
		}
		msg = out
	}
}

// programName is the name the command line calls the program by: the
// base name of args[0], so that a user's binary built with Main names
// itself in its help, version and messages; "vacheck" when args[0] says
// nothing.
func programName(args []string) string {
	if len(args) == 0 {
		return "vacheck"
	}
	name := strings.TrimSuffix(filepath.Base(args[0]), ".exe")
	if name == "" || name == "." || name == string(filepath.Separator) {
		return "vacheck"
	}
	return name
}

// programVersion is version as the program prog says it: a user's binary
// named other than vacheck gives its own name first, then vacheck's
// version: "mycheck, built on vacheck v0.4.0 (in example.com/my (devel)) go1.26.8".
func programVersion(prog string) string {
	if prog == "vacheck" {
		return version()
	}
	return prog + ", built on " + version()
}

// renamer writes to w with the program name prog, rather than vacheck,
// at the start of each line and in the commands it quotes ('vacheck
// resume DIR'): the messages of a user's binary name it.
// It may be written from several goroutines (progress lines and
// messages), as os.Stderr may.
type renamer struct {
	w       io.Writer
	prog    string
	mu      sync.Mutex
	midLine bool // the last write did not end a line
}

func (r *renamer) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b bytes.Buffer
	for line := range bytes.SplitAfterSeq(p, []byte("\n")) {
		if len(line) == 0 {
			continue // after the last newline
		}
		if !r.midLine && bytes.HasPrefix(line, []byte("vacheck: ")) {
			b.WriteString(r.prog)
			line = line[len("vacheck"):]
		}
		b.Write(bytes.ReplaceAll(line, []byte("'vacheck "), []byte("'"+r.prog+" ")))
		r.midLine = !bytes.HasSuffix(line, []byte("\n"))
	}
	if _, err := r.w.Write(b.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// version says which build this is: the module version and, when the
// binary was built from a git checkout, the revision.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "vacheck (unknown version: no build information) " + runtime.Version()
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	if bi.Main.Path != "" && bi.Main.Path != modulePath {
		// A user's command built on package cli: vacheck is a dependency.
		for _, d := range bi.Deps {
			if d.Path == modulePath {
				return fmt.Sprintf("vacheck %s (in %s %s) %s", d.Version, bi.Main.Path, v, runtime.Version())
			}
		}
	}
	var rev, when, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	out := "vacheck " + v
	if rev != "" {
		out += fmt.Sprintf(" (revision %.12s, %s%s)", rev, when, dirty)
	}
	return out + " " + runtime.Version()
}

// specHelp prints what `vacheck list` says about one spec, with the usage
// of each parameter, for the command cmd: `vacheck check SPEC --help`, or
// swarm with its own flags.
func specHelp(w io.Writer, prog, cmd string, spec specs.Spec) error {
	fmt.Fprintf(w, "%s: %s\n", spec.Name, spec.Summary)
	if spec.Bug != "" {
		fmt.Fprintf(w, "broken on purpose: %s\n", spec.Bug)
	}
	if spec.Page != "" {
		fmt.Fprintf(w, "explained in: %s\n", spec.Page)
	}
	fmt.Fprintf(w, "\nusage: %s %s %s [parameters] [%s flags]\n\nparameters:\n", prog, cmd, spec.Name, flagKind(cmd))
	params := append(append([]specs.Param(nil), spec.Params...),
		specs.Param{Flag: "channels", Usage: "channel discipline: fifo, unordered or mailbox (default: what the algorithm assumes)"},
		specs.Param{Flag: "capacity", Usage: "bound on every channel; exceeding it is a modelling error (default: the spec's)"})
	width := 0
	for _, p := range params {
		width = max(width, len(p.Flag))
	}
	for _, p := range params {
		def := ""
		if p.Default != "" {
			def = " (default " + p.Default + ")"
		}
		fmt.Fprintf(w, "  --%-*s  %s%s\n", width, p.Flag, p.Usage, def)
	}
	switch cmd {
	case "simulate", "swarm":
		fmt.Fprintf(w, "\nclaims (their safety properties are checked by default): %s\n", strings.Join(spec.Claims, ", "))
	default:
		fmt.Fprintf(w, "\nclaims (checked by default): %s\n", strings.Join(spec.Claims, ", "))
	}
	if all, err := spec.Offered(); err == nil && len(all) > len(spec.Claims) {
		fmt.Fprintf(w, "also offers (--property NAME): %s\n", strings.Join(all[len(spec.Claims):], ", "))
	}
	var engine []string
	for _, f := range commandFlags(cmd) {
		engine = append(engine, "--"+f.Names()[0])
	}
	fmt.Fprintf(w, "\n%s flags: %s\n(see '%s %s --help' for what they do)\n", flagKind(cmd), strings.Join(engine, ", "), prog, cmd)
	return nil
}

// flagKind names the flags of cmd that are not spec parameters, in
// `vacheck CMD SPEC --help`.
func flagKind(cmd string) string {
	if cmd == "check" || cmd == "sweep" {
		return "engine"
	}
	return cmd
}

// commandFlags are the flags of the command cmd (check, sweep, swarm or
// simulate) that are not spec parameters.
func commandFlags(cmd string) []urfave.Flag {
	var all []urfave.Flag
	switch cmd {
	case "swarm":
		return swarmFlags()
	case "simulate":
		all = simulateCommand(io.Discard, new(int), nil).Flags
	case "sweep":
		all = sweepCommand(io.Discard, new(int), nil).Flags
	default:
		return engineFlags()
	}
	params := map[string]bool{}
	for _, f := range specFlags(nil) {
		params[f.Names()[0]] = true
	}
	var out []urfave.Flag
	for _, f := range all {
		if !params[f.Names()[0]] {
			out = append(out, f)
		}
	}
	return out
}

// wantsJSON reports whether the command line asks for --format json, so
// that even a usage error is written as JSON.
func wantsJSON(args []string) bool {
	for k, a := range args {
		switch a {
		case "--format=json", "-format=json":
			return true
		case "--format", "-format":
			if k+1 < len(args) && args[k+1] == "json" {
				return true
			}
		}
	}
	return false
}

// jsonError writes an error as the JSON object scripts get instead of a
// report: {"status": "error", "exit_code": 2, "error": "..."}.
func jsonError(w io.Writer, code int, err error) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(struct {
		Status   string `json:"status"`
		ExitCode int    `json:"exit_code"`
		Error    string `json:"error"`
	}{"error", code, err.Error()})
}
