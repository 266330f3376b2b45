package cli

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/vacheck/vacheck/specs"
)

// readmeExits is the exit code each command of the documents' shell blocks
// promises: 0 when every property holds, 1 when the comment beside it
// promises a counterexample, 5 when it promises a bounded run. A command
// missing here fails the test, so that no document shows a command whose
// outcome nobody checked.
var readmeExits = map[string]int{
	"vacheck list":                                                                                     0,
	"vacheck list mutex":                                                                               0,
	"vacheck list lelann --format json":                                                                0,
	"vacheck check chang-roberts --n 6 --ids all":                                                      0,
	"vacheck check chang-roberts --n 4 --ids 2,4,1,3":                                                  0,
	"vacheck check chang-roberts-broken --n 3 --ids increasing":                                        1,
	"vacheck check chang-roberts --n 5 --metric messages":                                              0,
	"vacheck check maekawa-basic --n 3":                                                                1,
	"vacheck check chang-roberts --n 5 --format json":                                                  0,
	"vacheck --version":                                                                                0,
	"vacheck check chang-roberts --help":                                                               0,
	"vacheck sweep chang-roberts --n 3..5":                                                             0,
	"vacheck quorums fpp --n 7":                                                                        0,
	"vacheck check maekawa-basic --n 3 --html deadlock.html":                                           1,
	"vacheck check chang-roberts --n 4 --metric messages --html witnesses.html":                        0,
	"vacheck simulate chang-roberts --n 32 --ids all --runs 2000 --metric messages":                    3,
	"vacheck swarm maekawa-basic --n 7 --jobs 8 --memory 64MiB --time 1m --seed 12":                    1,
	"vacheck check maekawa --coverage":                                                                 0,
	"vacheck graph chang-roberts --n 3 --ids increasing --format svg":                                  0,
	"vacheck check floodmax --topology line --n 4 --diameter 2 --ids all --per-initial-state":          1,
	"vacheck check lamport --n 3 --constraint 'all(procs, .C <= 6)'":                                   5,
	`vacheck check chang-roberts --n 4 --ids all --invariant 'count(procs, .status == "chosen") <= 1'`: 0,
	`vacheck check chang-roberts-broken --n 3 --reach 'count(procs, .status == "chosen") == 2'`:        0,
	`vacheck check chang-roberts --n 3 --action 'count(new.procs, .status == "chosen") >= count(old.procs, .status == "chosen")'`: 0,
	`vacheck check ricart-agrawala --leads-to 'procs[0].ust == "trying" ~> procs[0].ust == "critical"'`:                           0,
	`vacheck check perpetuum-mobile --stable 'none(procs, .hasToken)'`:                                                            1,
}

// readmeSlow lists shell commands of the documents that take more than a
// few seconds; -short skips them.
var readmeSlow = map[string]bool{
	"vacheck check chang-roberts --n 6 --ids all": true,
}

// docFiles are the documents whose commands the tests run: the README and
// the user documentation under docs/ that the repository's own tests keep
// true. A document added there belongs in this list.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"../README.md", "../docs/reference.md", "../docs/reductions.md",
		"../docs/tutorial.md", "../docs/internals.md", "../docs/properties.md", "../docs/properties-language.md",
		"../docs/swarm.md", "../docs/coverage.md", "../docs/simulate.md", "../docs/shared-actions.md", "../docs/replay.md",
		"../docs/channels.md", "../docs/limits.md", "../docs/traces.md", "../docs/trackers.md"}
	pages, err := filepath.Glob("../docs/algorithms/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages under docs/algorithms: %v", err)
	}
	return append(files, pages...)
}

// docExample is one command of a document: in a ```sh block, a line that
// starts with "vacheck " (its exit code is in readmeExits); in a
// ```console block, a line "$ vacheck ..." followed by an excerpt of its
// output, the lines that must appear in that order in what it prints (a
// line "..." stands for lines left out, and a line ending in "…" for every
// line that begins with the rest). A console command's exit code is
// that of the excerpt's "result:" line (OK 0, VIOLATED 1, INCOMPLETE 3,
// BOUNDED 5, ERROR 4), or 0 without one, unless the command ends in a
// comment "# exit N".
type docExample struct {
	file, cmd string
	line      int
	console   bool
	want      []string
	exit      int
}

// parseDoc returns the commands of the document at path.
func parseDoc(t *testing.T, path string) []docExample {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []docExample
	block := ""
	for k, line := range strings.Split(string(src), "\n") {
		switch {
		case strings.HasPrefix(line, "```") && block == "":
			block = strings.TrimPrefix(line, "```")
			if block == "" {
				block = "text"
			}
			continue
		case strings.HasPrefix(line, "```"):
			block = ""
			continue
		}
		switch {
		case block == "sh" && strings.HasPrefix(line, "vacheck "):
			cmd, _, _ := strings.Cut(line, "#")
			out = append(out, docExample{file: path, line: k + 1, cmd: strings.Join(strings.Fields(cmd), " ")})
		case block == "console" && strings.HasPrefix(line, "$ vacheck "):
			cmd, comment, _ := strings.Cut(strings.TrimPrefix(line, "$ "), "#")
			ex := docExample{file: path, line: k + 1, cmd: strings.Join(strings.Fields(cmd), " "), console: true, exit: -1}
			if n, ok := strings.CutPrefix(strings.TrimSpace(comment), "exit "); ok {
				ex.exit, err = strconv.Atoi(n)
				if err != nil {
					t.Fatalf("%s:%d: %q", path, k+1, comment)
				}
			}
			out = append(out, ex)
		case block == "console" && strings.HasPrefix(line, "$ "):
			out = append(out, docExample{file: path, line: k + 1}) // not a vacheck command: its lines are not checked
		case block == "console" && len(out) > 0 && out[len(out)-1].console:
			if l := strings.TrimSpace(line); l != "" && l != "..." && l != "…" {
				out[len(out)-1].want = append(out[len(out)-1].want, l)
			}
		}
	}
	var cmds []docExample
	for _, ex := range out {
		if ex.cmd == "" {
			continue
		}
		if ex.console && ex.exit < 0 {
			ex.exit = 0
			for _, w := range ex.want {
				for prefix, code := range map[string]int{"result: OK": exitOK, "result: VIOLATED": exitViolated,
					"result: INCOMPLETE": exitIncomplete, "result: BOUNDED": exitBounded, "result: ERROR": exitModel} {
					if strings.HasPrefix(w, prefix) {
						ex.exit = code
					}
				}
			}
		}
		cmds = append(cmds, ex)
	}
	return cmds
}

// runDocCommand runs a document's command as the documented binary would,
// without progress lines and with every file it names in a temporary
// directory, and returns its exit code and output (stdout, then stderr).
func runDocCommand(t *testing.T, cmd string) (int, string) {
	t.Helper()
	args := shellFields(cmd)[1:]
	if args[0] == "check" || args[0] == "sweep" || args[0] == "resume" {
		args = append(args, "--quiet")
	}
	for k := range args {
		if k > 0 && (args[k-1] == "--html" || args[k-1] == "--checkpoint") {
			args[k] = filepath.Join(t.TempDir(), args[k]) // not into the source tree
		}
	}
	code, stdout, stderr := vacheck(args...)
	return code, stdout + stderr
}

// shellFields splits a command line into words as a shell does with
// quotes: 'a b' and "a b" are one word each (without the quotes), so that
// a document can quote an expression (docs/properties-language.md).
func shellFields(cmd string) []string {
	var words []string
	var w strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// TestReadmeCommands runs every `vacheck` command of the shell blocks of
// the README and the documents of docFiles and checks the exit code its
// comment promises (readmeExits).
func TestReadmeCommands(t *testing.T) {
	t.Parallel()
	seen := 0
	for _, file := range docFiles(t) {
		for _, ex := range parseDoc(t, file) {
			if ex.console {
				continue
			}
			seen++
			want, ok := readmeExits[ex.cmd]
			if !ok {
				t.Errorf("%s:%d: command %q has no expected exit code in readmeExits", ex.file, ex.line, ex.cmd)
				continue
			}
			t.Run(ex.cmd, func(t *testing.T) {
				t.Parallel()
				if testing.Short() && readmeSlow[ex.cmd] {
					t.Skip("a few seconds; run without -short")
				}
				if code, out := runDocCommand(t, ex.cmd); code != want {
					t.Errorf("%s:%d: exit %d, the document promises %d\n%s", ex.file, ex.line, code, want, out)
				}
			})
		}
	}
	if seen < len(readmeExits) {
		t.Errorf("the documents show %d shell commands, readmeExits expects %d", seen, len(readmeExits))
	}
}

// TestDocExamples runs every command of the console blocks of docFiles and
// checks its exit code and that its output has the excerpt's lines, in
// order (whitespace aside), so that a document cannot quote output vacheck
// no longer prints. About 140 commands, a few seconds in all on 2 cores
// but several times that under the race detector: -short skips them (the
// plain go test of CI runs them).
func TestDocExamples(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs every console example of the documents; run without -short")
	}
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	n := 0
	for _, file := range docFiles(t) {
		for _, ex := range parseDoc(t, file) {
			if !ex.console {
				continue
			}
			n++
			name := strings.TrimPrefix(ex.file, "../") + ":" + strconv.Itoa(ex.line)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				code, out := runDocCommand(t, ex.cmd)
				if code != ex.exit {
					t.Errorf("%s: exit %d, the document says %d", ex.cmd, code, ex.exit)
				}
				lines := strings.Split(out, "\n")
				at := 0
				for _, w := range ex.want {
					match := func(l string) bool { return norm(l) == norm(w) }
					if prefix, ok := strings.CutSuffix(w, "…"); ok { // the line's beginning
						match = func(l string) bool { return strings.HasPrefix(norm(l), norm(prefix)) }
					}
					k := slices.IndexFunc(lines[at:], match)
					if k < 0 {
						t.Errorf("%s: the output has no line %q (after the lines matched before it); it is:\n%s", ex.cmd, w, out)
						return
					}
					at += k + 1
				}
			})
		}
	}
	if n < 100 {
		t.Errorf("only %d console examples in the documents", n)
	}
}

// tutorialCondensed lists the lines of docs/tutorial.md that condense
// their file's code on purpose (a callback written out there).
var tutorialCondensed = []string{
	"Mutex:      mutex.Metrics(users.R, user, serves), // a REPLY serves its receiver, the rest their sender",
}

// tutorialFiles are the tutorial's files, as a user's module has them.
var tutorialFiles = []string{"main.go", "main_test.go"}

// tutorialPart is one numbered part of the tutorial's files: the text from
// its comment "// N. " to the next part, whitespace normalized.
type tutorialPart struct {
	n          int
	file, text string
}

var partRE = regexp.MustCompile(`(?m)^// (\d+)\. `)

// tutorialParts returns the numbered parts of tutorial/main.go and
// tutorial/main_test.go, in order.
func tutorialParts(t *testing.T) []tutorialPart {
	t.Helper()
	var parts []tutorialPart
	for _, f := range tutorialFiles {
		src, err := os.ReadFile(filepath.Join("../tutorial", f))
		if err != nil {
			t.Fatal(err)
		}
		locs := partRE.FindAllSubmatchIndex(src, -1)
		for k, l := range locs {
			end := len(src)
			if k+1 < len(locs) {
				end = locs[k+1][0]
			}
			n, _ := strconv.Atoi(string(src[l[2]:l[3]]))
			parts = append(parts, tutorialPart{n: n, file: f, text: strings.Join(strings.Fields(string(src[l[0]:end])), " ")})
		}
	}
	return parts
}

var stepRE = regexp.MustCompile(`^\*\*(\d+)\. `)

// TestTutorialMatchesItsFiles: the steps of docs/tutorial.md carry the
// numbers of the parts of tutorial/main.go and main_test.go, in the same
// order and under the file's name, and every line of Go a step shows is a
// line (or part of one) of its part, which go test compiles and runs, so
// that the tutorial cannot show code that does not compile or that sits
// elsewhere. Lines with "..." stand for code left out.
func TestTutorialMatchesItsFiles(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/tutorial.md")
	if err != nil {
		t.Fatal(err)
	}
	parts := tutorialParts(t)
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	var steps []int
	file, inGo, checked := "", false, 0
	for _, line := range strings.Split(string(doc), "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			file = strings.Trim(strings.TrimPrefix(line, "## "), "`")
			if !slices.Contains(tutorialFiles, file) {
				file = ""
			}
			continue
		case strings.HasPrefix(line, "```"):
			inGo = line == "```go" && !inGo
			continue
		}
		if g := stepRE.FindStringSubmatch(line); g != nil && file != "" && !inGo {
			n, _ := strconv.Atoi(g[1])
			steps = append(steps, n)
			if k := len(steps) - 1; k < len(parts) && (parts[k].n != n || parts[k].file != file) {
				t.Errorf("the tutorial's step %d under %s is part %d of %s", n, file, parts[k].n, parts[k].file)
			}
			continue
		}
		code, _, _ := strings.Cut(strings.TrimSpace(line), " // ")
		if !inGo || file == "" || len(steps) == 0 || code == "" || strings.HasPrefix(code, "//") || strings.Contains(line, "...") || slices.Contains(tutorialCondensed, strings.TrimSpace(line)) {
			continue
		}
		checked++
		k := len(steps) - 1
		if k >= len(parts) || !strings.Contains(parts[k].text, norm(code)) {
			t.Errorf("the tutorial's step %d shows %q, which its part of the file does not have", steps[k], code)
		}
	}
	if len(steps) != len(parts) {
		t.Errorf("the tutorial has steps %v, its files %d parts", steps, len(parts))
	}
	if checked < 30 {
		t.Errorf("only %d lines of the tutorial were compared", checked)
	}
}

// userModule makes a new module named module, as a user's own: vacheck
// required and replaced by this clone, vacheck's go.sum, no network, and
// the files of the repository given as {from, to}. It returns the
// module's directory and a runner of commands in it (output and exit
// code; a command that cannot start fails the test).
func userModule(t *testing.T, module string, files [][2]string) (string, func(name string, args ...string) (string, int)) {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range append([][2]string{{"go.sum", "go.sum"}}, files...) { // go.sum: the checksums of vacheck's own requirements
		src, err := os.ReadFile(filepath.Join(root, f[0]))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f[1]), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(name string, args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return string(out), exit.ExitCode()
		}
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out), 0
	}
	for _, args := range [][]string{{"mod", "init", module}, {"mod", "edit", "-replace", "github.com/vacheck/vacheck=" + root}} {
		if out, code := run(goCmd, args...); code != 0 {
			t.Fatalf("go %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
	}
	return dir, run
}

// TestTutorialCopies follows the tutorial as a user would: a new module
// that requires vacheck (here this clone, replaced, with the module cache
// and no network) and holds copies of tutorial/main.go and main_test.go
// must build and pass its tests, the Example that runs its command line
// among them, so that the files' imports and package are those of a module
// of one's own.
func TestTutorialCopies(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a module of its own; run without -short")
	}
	var files [][2]string
	for _, f := range tutorialFiles {
		files = append(files, [2]string{filepath.Join("tutorial", f), f})
	}
	_, run := userModule(t, "example.com/central", files)
	if out, code := run("go", "test", "-count=1", "-v", "."); code != 0 || !strings.Contains(out, "--- PASS: Example") {
		t.Errorf("go test in the new module: exit %d, or it ran no Example (the command line):\n%s", code, out)
	}
}

// TestTutorialSharedCopies builds the tutorial's second example,
// tutorial/ewd840/main.go, in a new module of its own as TestTutorialCopies
// does the first, and runs its command line: ewd840 --n 4 holds with the
// 1,566 states and 13,938 transitions that a literal model of EWD840.tla
// counts (automaton's TestEWD840BothWays), and the broken twin is refuted
// (exit code 1).
func TestTutorialSharedCopies(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a module of its own; run without -short")
	}
	dir, run := userModule(t, "example.com/ewd840", [][2]string{{"tutorial/ewd840/main.go", "main.go"}})
	if out, code := run("go", "build", "-o", "ewd840", "."); code != 0 {
		t.Fatalf("go build: exit %d\n%s", code, out)
	}
	bin := filepath.Join(dir, "ewd840")
	if out, code := run(bin, "check", "ewd840", "--n", "4"); code != 0 || !strings.Contains(out, "1,566 distinct states, 13,938 transitions") {
		t.Errorf("ewd840 check ewd840 --n 4: exit %d, want 0 with 1,566 states and 13,938 transitions:\n%s", code, out)
	}
	if out, code := run(bin, "check", "ewd840-broken", "--n", "3"); code != 1 || !strings.Contains(out, "VIOLATED termination-detection") {
		t.Errorf("ewd840 check ewd840-broken --n 3: exit %d, want 1 with termination-detection violated:\n%s", code, out)
	}
}

// TestDocPages checks that the catalog and its pages under docs/algorithms
// match: every spec names a page that exists (Spec.Page), every page but
// the index is some spec's, names all of its specs in commands it runs
// and only specs of the catalog, links the property glossary, and is
// linked from the index; `vacheck list` and `vacheck check SPEC --help`
// show the page and never send the user to a document they do not have.
func TestDocPages(t *testing.T) {
	t.Parallel()
	catalog := specs.Catalog()
	bySpec := map[string]string{}
	byPage := map[string][]string{}
	for _, s := range catalog {
		if !strings.HasPrefix(s.Page, "docs/algorithms/") || !strings.HasSuffix(s.Page, ".md") {
			t.Errorf("%s: page %q, want docs/algorithms/NAME.md", s.Name, s.Page)
			continue
		}
		if _, err := os.Stat(filepath.Join("..", s.Page)); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
		bySpec[s.Name] = s.Page
		byPage[s.Page] = append(byPage[s.Page], s.Name)
	}
	if len(catalog) != 50 || len(byPage) != 25 {
		t.Errorf("%d specs on %d pages, want 50 on 25", len(catalog), len(byPage))
	}
	index, err := os.ReadFile("../docs/algorithms/README.md")
	if err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob("../docs/algorithms/*.md")
	for _, file := range pages {
		page := strings.TrimPrefix(file, "../")
		if filepath.Base(page) == "README.md" {
			continue
		}
		if byPage[page] == nil {
			t.Errorf("%s is the page of no spec", page)
			continue
		}
		if !strings.Contains(string(index), "("+filepath.Base(page)+")") {
			t.Errorf("docs/algorithms/README.md does not link %s", page)
		}
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "(../properties.md)") {
			t.Errorf("%s does not link the property glossary", page)
		}
		run := map[string]bool{}
		for _, ex := range parseDoc(t, file) {
			args := strings.Fields(ex.cmd)[1:]
			if len(args) < 2 || (args[0] != "check" && args[0] != "sweep") {
				continue
			}
			if _, ok := bySpec[args[1]]; !ok {
				t.Errorf("%s:%d: %q runs %s, which is not a spec of the catalog", page, ex.line, ex.cmd, args[1])
			}
			run[args[1]] = true
		}
		for _, name := range byPage[page] {
			if !run[name] {
				t.Errorf("%s runs no command on its spec %s", page, name)
			}
		}
	}
	code, list, _ := vacheck("list")
	if code != exitOK {
		t.Fatalf("vacheck list: exit %d", code)
	}
	for _, s := range catalog {
		if !strings.Contains(list, "explained in: "+s.Page) {
			t.Errorf("vacheck list does not show the page of %s", s.Name)
		}
		_, help, _ := vacheck("check", s.Name, "--help")
		if !strings.Contains(help, "explained in: "+s.Page) || strings.Contains(help, "ALGORITHMS") {
			t.Errorf("vacheck check %s --help does not name its page, or names ALGORITHMS.md:\n%s", s.Name, help)
		}
	}
	if strings.Contains(list, "ALGORITHMS") {
		t.Errorf("vacheck list names ALGORITHMS.md, which users do not have")
	}
}

// TestReadmeIsAFrontPage: the README stays a front page.
func TestReadmeIsAFrontPage(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(src), "\n"); n > 250 {
		t.Errorf("the README has %d lines; a front page has at most 250 (move reference material to docs/)", n)
	}
}

// TestDocLinks: every relative link of the documents leads to a file that
// exists and, with a #fragment into a Markdown file, to one of its
// headings (as GitHub names their anchors).
func TestDocLinks(t *testing.T) {
	t.Parallel()
	link := regexp.MustCompile(`\]\(([^)#:]*)(#[^)]*)?\)`)
	for _, file := range docFiles(t) {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(prose(string(src)), -1) {
			target := file
			if m[1] != "" {
				target = filepath.Join(filepath.Dir(file), m[1])
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s links %s: %v", file, m[1], err)
				continue
			}
			if m[2] != "" && !slices.Contains(anchors(t, target), strings.TrimPrefix(m[2], "#")) {
				t.Errorf("%s links %s%s: no such heading", file, m[1], m[2])
			}
		}
	}
}

var codeSpanRE = regexp.MustCompile("`[^`]*`")

// prose returns a Markdown text without its code blocks and code spans,
// where brackets are Go, not links.
func prose(md string) string {
	var b strings.Builder
	inCode := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
			continue
		}
		if !inCode {
			b.WriteString(codeSpanRE.ReplaceAllString(line, "") + "\n")
		}
	}
	return b.String()
}

// anchors returns the anchors GitHub gives the headings of a Markdown file:
// lower case, spaces as hyphens, punctuation other than - and _ dropped.
func anchors(t *testing.T, file string) []string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	inCode := false
	for _, line := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(line, "#") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#"))) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		out = append(out, b.String())
	}
	return out
}

// TestDocIdentifiers: every Go name a document quotes in a code span
// exists, so that no document sends a reader to an identifier that was
// renamed or removed: `pkg.Name` (and `pkg.Name.Field`) must be a
// top-level name of the repository's package pkg, and in `Field: name(...)`
// name a function or method somewhere in it.
func TestDocIdentifiers(t *testing.T) {
	t.Parallel()
	decls := map[string]map[string]bool{} // package name -> top-level names
	funcs := map[string]bool{}            // every function and method
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := filepath.Base(filepath.Dir(path))
		if decls[pkg] == nil {
			decls[pkg] = map[string]bool{}
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				funcs[d.Name.Name] = true
				if d.Recv == nil {
					decls[pkg][d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						decls[pkg][s.Name.Name] = true
					case *ast.ValueSpec:
						for _, n := range s.Names {
							decls[pkg][n.Name] = true
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	qualified := regexp.MustCompile(`^([a-z]+)\.([A-Z]\w*)`)
	call := regexp.MustCompile(`^[A-Z]\w*: ([a-z]\w*)\(`) // a Config field set by a call
	checked := 0
	for _, file := range docFiles(t) {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var prose strings.Builder
		inCode := false
		for _, line := range strings.Split(string(src), "\n") {
			if strings.HasPrefix(line, "```") {
				inCode = !inCode
			} else if !inCode {
				prose.WriteString(line + " ")
			}
		}
		for _, span := range codeSpanRE.FindAllString(prose.String(), -1) {
			span = strings.Trim(span, "`")
			if m := qualified.FindStringSubmatch(span); m != nil && decls[m[1]] != nil {
				checked++
				if !decls[m[1]][m[2]] {
					t.Errorf("%s quotes `%s`: package %s has no %s", file, span, m[1], m[2])
				}
			} else if m := call.FindStringSubmatch(span); m != nil {
				checked++
				if !funcs[m[1]] {
					t.Errorf("%s quotes `%s`: no function or method %s in the repository", file, span, m[1])
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d identifiers checked", checked)
	}
}
