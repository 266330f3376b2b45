package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/cli"
	"github.com/vacheck/vacheck/specs"
)

// TestMainProcess runs main itself in a child process (the test binary
// with VACHECK_RUN_MAIN set): os.Args, os.Stdout, os.Stderr and the exit
// code are those of the command.
func TestMainProcess(t *testing.T) {
	if args := os.Getenv("VACHECK_RUN_MAIN"); args != "" {
		os.Args = append([]string{"vacheck"}, strings.Fields(args)...)
		main()
		return
	}
	tests := []struct {
		args string
		code int
		want string
	}{
		{"check chang-roberts --n 3 --quiet", 0, "result: OK, every property holds"},
		{"check chang-roberts-broken --n 3 --ids increasing --quiet", 1, "VIOLATED uniqueness"},
		{"check chang-robert --n 3", 2, "did you mean chang-roberts?"},
		{"--version", 0, "vacheck "},
	}
	for _, tt := range tests {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMainProcess$")
		cmd.Env = append(os.Environ(), "VACHECK_RUN_MAIN="+tt.args)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tt.code || !strings.Contains(out.String(), tt.want) {
			t.Errorf("vacheck %s: exit %d (want %d), output lacks %q:\n%s", tt.args, code, tt.code, tt.want, out.String())
		}
	}
}

// TestListsTheCatalog checks that the command line is run on the whole
// catalog: `vacheck list` names every spec of specs.Catalog().
func TestListsTheCatalog(t *testing.T) {
	var out, errb bytes.Buffer
	if code := cli.Run([]string{"vacheck", "list"}, &out, &errb, specs.Catalog()); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, s := range specs.Catalog() {
		if !strings.Contains(out.String(), "\n"+s.Name+" ") && !strings.HasPrefix(out.String(), s.Name+" ") {
			t.Errorf("vacheck list does not list %s", s.Name)
		}
	}
}
