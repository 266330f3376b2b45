package cli

import (
	"cmp"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vacheck/vacheck/internal/input"
	"github.com/vacheck/vacheck/specs"
)

// outputWriter is the standard output of a command line: it keeps the
// first write error, so that a report that could not be written (a full
// disk, `vacheck list > /dev/full`) ends the command with an error, not
// exit 0.
type outputWriter struct {
	w   io.Writer
	err error
}

func (o *outputWriter) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	o.err = err
	return n, err
}

// clipEcho shortens, in an error message, every argument of the command
// line (a flag's value, or a spec, path or word) longer than
// input.MaxToken that the message quotes, as input.Clip does: a long value
// (a pasted file, a mistaken argument) echoed in full would bury what the
// message says. It covers every flag and every parser, whatever wording
// each has, quoted (%q) or not. A path is left whole (see isPath): an
// error about a file must name it, and its end, which the clip would cut,
// is what tells the file, as in "--topology DIR/tree.txt:3: self-loop".
func clipEcho(msg string, args []string) string {
	var long []string
	for _, a := range args {
		vals := []string{a, strings.TrimSpace(a)}
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			vals = append(vals, v, strings.TrimSpace(v))
		}
		for _, v := range vals {
			if utf8.RuneCountInString(v) > input.MaxToken && !isPath(v) {
				long = append(long, v)
			}
		}
	}
	// The longest first, so that a value inside another is not cut twice.
	slices.SortFunc(long, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	for _, v := range long {
		msg = strings.ReplaceAll(msg, strconv.Quote(v), strconv.Quote(input.Clip(v)))
		msg = strings.ReplaceAll(msg, v, input.Clip(v))
	}
	return msg
}

// maxPath bounds what isPath takes for a path: PATH_MAX is 4096 on Linux,
// and a longer argument is no path a person typed.
const maxPath = 1024

// isPath reports whether v names a file or directory, or may: it exists,
// or it has a path separator and no control character, within maxPath.
func isPath(v string) bool {
	if _, err := os.Stat(v); err == nil {
		return true
	}
	return len(v) <= maxPath && strings.ContainsAny(v, "/"+string(os.PathSeparator)) &&
		!strings.ContainsFunc(v, unicode.IsControl)
}

// helpTopic answers `vacheck help WORD`: a command's help is `vacheck WORD
// --help` (ok is false: the app prints it), a spec's is `vacheck check
// SPEC --help`, and anything else is a usage error that suggests a topic.
func helpTopic(word string, catalog []specs.Spec) (spec specs.Spec, isSpec bool, err error) {
	if slices.Contains(commands, word) || word == "help" {
		return spec, false, nil
	}
	if s, err := specs.Find(catalog, word); err == nil {
		return s, true, nil
	}
	topics := append(append([]string(nil), commands...), specNames(catalog)...)
	if s := suggest(word, topics); s != "" {
		return spec, false, usagef("no help topic %q; did you mean 'vacheck help %s'? (topics: the commands %s, and every spec: 'vacheck list')", word, s, strings.Join(commands, ", "))
	}
	return spec, false, usagef("no help topic %q; topics: the commands %s, and every spec (see 'vacheck list')", word, strings.Join(commands, ", "))
}
