package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/specs"
)

// readmeExits is the exit code each command of the documents' shell blocks
// promises: 0 when every property holds, 1 when the comment beside it
// promises a counterexample, 5 when it promises a bounded run. A command
// missing here fails the test, so that no document shows a command whose
// outcome nobody checked.
var readmeExits = map[string]int{
	"vacheck list": 0,
	"vacheck check chang-roberts --n 6 --ids all":                                                                0,
	"vacheck check chang-roberts --n 4 --ids 2,4,1,3":                                                            0,
	"vacheck check chang-roberts-broken --n 3 --ids increasing":                                                  1,
	"vacheck check chang-roberts --n 5 --format json":                                                            0,
	"vacheck check chang-roberts --n 6 --metric messages":                                                        0,
	"vacheck check chang-roberts-announce --n 3 --crashes 1 --property termination":                              1,
	"vacheck check chang-roberts-wakeup-broken --n 3":                                                            1,
	"vacheck check chang-roberts-bidirectional --n 4 --metric messages":                                          0,
	"vacheck check lelann --n 3 --channels unordered":                                                            1,
	"vacheck check peterson --n 5 --metric messages":                                                             0,
	"vacheck check token-ring-recovery --n 3 --ids 1,2,3 --losses 0 --timeouts unrestricted":                     1,
	"vacheck check tree-election --info off":                                                                     1,
	"vacheck check floodmax --n 3 --ids 3,1,2 --diameter 1":                                                      1,
	"vacheck check dfs-token --n 4 --method coloring --topology complete --initiators subsets --metric messages": 0,
	"vacheck check echo-election --n 4 --topology complete --initiators subsets --reduction por":                 0,
	"vacheck check adoption-broken --n 4 --topology star --property uniqueness":                                  1,
	"vacheck check waiting --n 4 --initiators subsets --metric messages":                                         0,
	"vacheck check bully --n 3 --crashes 1 --recoveries 1 --property uniqueness":                                 1,
	"vacheck check bully --n 4 --start crashed --crashes 0 --detectors 1 --metric messages":                      0,
	"vacheck check maekawa --n 7 --requesters 1,2,3 --metric messages":                                           0,
	"vacheck check virtual-tree-broken":                                                                          1,
	"vacheck check central --n 2 --crashes 1 --property progress":                                                1,
	"vacheck check lamport --n 3 --channels unordered --property mutual-exclusion":                               1,
	"vacheck check ricart-agrawala-broken --n 2":                                                                 1,
	"vacheck check carvalho-roucairol --n 2 --requests 2 --property timestamp-order":                             1,
	"vacheck check maekawa-basic --n 3":                                                                          1,
	"vacheck check maekawa --n 3 --requests 2 --yield a":                                                         1,
	"vacheck check cao-singhal --n 4 --quorums grid --requesters 1,4":                                            0,
	"vacheck check perpetuum-mobile-broken --n 3":                                                                1,
	"vacheck check suzuki-kasami --n 3 --crashes 1 --property progress":                                          1,
	"vacheck check raymond --n 5 --topology star":                                                                0,
	"vacheck check singhal --n 3 --requests 2":                                                                   1,
	"vacheck quorums fpp --n 13":                                                                                 0,
	"vacheck --version":                                                                                          0,
	"vacheck check maekawa-basic --n 3 --html deadlock.html":                                                     1,
	"vacheck check chang-roberts --n 4 --metric messages --html witnesses.html":                                  0,
	"vacheck check lamport --n 3 --clock-limit 6":                                                                5,
	"vacheck check chang-roberts --n 6 --ids all --symmetry":                                                     0,
	"vacheck check chang-roberts-bidirectional --n 4 --symmetry --metric messages":                               0,
}

// readmeSlow lists shell commands of the documents that take more than a
// few seconds; -short skips them.
var readmeSlow = map[string]bool{
	"vacheck check chang-roberts --n 6 --ids all":            true,
	"vacheck check chang-roberts --n 6 --metric messages":    true,
	"vacheck check chang-roberts --n 6 --ids all --symmetry": true,
}

// docFiles are the documents whose commands the tests run: the README and
// the user documentation under docs/ that the repository's own tests keep
// true. A document added there belongs in this list.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"../README.md", "../docs/properties.md"}
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
	args := strings.Fields(cmd)[1:]
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

// TestReadmeCommands runs every `vacheck` command of the shell blocks of
// the README and the documents of docFiles and checks the exit code its
// comment promises (readmeExits).
func TestReadmeCommands(t *testing.T) {
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
// no longer prints.
func TestDocExamples(t *testing.T) {
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
				if testing.Short() && docSlow[ex.cmd] {
					t.Skip("a few seconds; run without -short")
				}
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

// docSlow lists console commands of the documents that take more than a
// second or so; -short skips them.
var docSlow = map[string]bool{
	"vacheck check maekawa-basic --n 13 --requesters 7,8,11 --strategy dfs": true,
	"vacheck check maekawa --n 7 --requesters 1,2,3 --metric messages":      true,
	"vacheck check maekawa --n 3 --requests 2 --yield a":                    true,
}

// readmeCondensed lists the tutorial's README lines that condense their
// file's code on purpose (a callback written out there).
var readmeCondensed = []string{
	"Mutex:      mutex.Metrics(users.R, user, serves), // a REPLY serves its receiver, the rest their sender",
}

// TestReadmeTutorialMatchesItsFile: every line of Go in the README's
// tutorial is a line (or part of one) of tutorial/central_test.go, whose
// tests compile and run it, so that the README cannot show code that does
// not compile. Lines with "..." stand for code left out.
func TestReadmeTutorialMatchesItsFile(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../tutorial/central_test.go")
	if err != nil {
		t.Fatal(err)
	}
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	file := norm(string(src))
	_, tutorial, ok := strings.Cut(string(readme), "\n## Tutorial: ")
	if !ok {
		t.Fatal("the README has no tutorial section")
	}
	tutorial, _, _ = strings.Cut(tutorial, "\n## ")
	inGo, checked := false, 0
	for _, line := range strings.Split(tutorial, "\n") {
		if strings.HasPrefix(line, "```") {
			inGo = line == "```go" && !inGo
			continue
		}
		code, _, _ := strings.Cut(strings.TrimSpace(line), " // ")
		if !inGo || code == "" || strings.HasPrefix(code, "//") || strings.Contains(line, "...") || slices.Contains(readmeCondensed, strings.TrimSpace(line)) {
			continue
		}
		checked++
		if !strings.Contains(file, norm(code)) {
			t.Errorf("the README's tutorial shows %q, which tutorial/central_test.go does not have", code)
		}
	}
	if checked < 30 {
		t.Errorf("only %d lines of the tutorial were compared", checked)
	}
}

// TestDocPages checks that the catalog and its pages under docs/algorithms
// match: every spec names a page that exists (Spec.Page), every page but
// the index is some spec's, names all of its specs in commands it runs
// and only specs of the catalog, links the property glossary, and is
// linked from the index; `vacheck list` and `vacheck check SPEC --help`
// show the page and never send the user to a document they do not have.
func TestDocPages(t *testing.T) {
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
