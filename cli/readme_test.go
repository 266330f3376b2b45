package cli

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readmeExits is the exit code each command of the README promises: 0 when
// every property holds, 1 when the comment beside it promises a
// counterexample, 5 when it promises a bounded run. A README command missing here fails the test, so the
// README cannot show a command whose outcome nobody checked.
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

// readmeSlow lists README commands that take more than a few seconds;
// -short skips them.
var readmeSlow = map[string]bool{
	"vacheck check chang-roberts --n 6 --ids all":            true,
	"vacheck check chang-roberts --n 6 --metric messages":    true,
	"vacheck check chang-roberts --n 6 --ids all --symmetry": true,
}

// TestReadmeCommands runs every `vacheck` command of the README's shell
// blocks and checks the exit code its comment promises.
func TestReadmeCommands(t *testing.T) {
	f, err := os.Open("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []string
	inBlock := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			inBlock = strings.HasPrefix(line, "```sh") && !inBlock
			continue
		}
		if inBlock && strings.HasPrefix(line, "vacheck ") {
			cmd, _, _ := strings.Cut(line, "#")
			cmds = append(cmds, strings.Join(strings.Fields(cmd), " "))
		}
	}
	if len(cmds) < len(readmeExits) {
		t.Errorf("the README shows %d commands, the table expects %d", len(cmds), len(readmeExits))
	}
	for _, cmd := range cmds {
		want, ok := readmeExits[cmd]
		if !ok {
			t.Errorf("README command %q has no expected exit code in readmeExits", cmd)
			continue
		}
		t.Run(cmd, func(t *testing.T) {
			if testing.Short() && readmeSlow[cmd] {
				t.Skip("a few seconds; run without -short")
			}
			args := strings.Fields(cmd)[1:]
			if args[0] == "check" || args[0] == "sweep" {
				args = append(args, "--quiet")
			}
			for k := range args {
				if k > 0 && args[k-1] == "--html" {
					args[k] = filepath.Join(t.TempDir(), args[k]) // not into the source tree
				}
			}
			code, _, stderr := vacheck(args...)
			if code != want {
				t.Errorf("exit %d, the README promises %d\n%s", code, want, stderr)
			}
		})
	}
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
