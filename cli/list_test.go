package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestListFilters: `vacheck list FILTER` keeps the specs whose name,
// summary, section or family holds FILTER, and nothing else (issue 34
// item 7; on the old main `list mutex` was "list takes no arguments").
func TestListFilters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		filter   string
		want     []string
		dontWant []string
	}{
		{"mutex", []string{"ricart-agrawala ", "raymond-broken ", "central "}, []string{"chang-roberts", "lelann"}},
		{"lelann", []string{"lelann ", "lelann-broken "}, []string{"chang-roberts", "raymond"}},
		{"ELECTION", []string{"chang-roberts ", "bully "}, []string{"raymond", "ricart-agrawala"}},
	}
	for _, tt := range tests {
		code, out, stderr := vacheck("list", tt.filter)
		if code != exitOK {
			t.Fatalf("list %s: exit %d, %s", tt.filter, code, stderr)
		}
		names := listedNames(out)
		for _, w := range tt.want {
			if !strings.Contains(names, "\n"+w) {
				t.Errorf("list %s does not list %q:\n%s", tt.filter, w, names)
			}
		}
		for _, d := range tt.dontWant {
			if strings.Contains(names, "\n"+d) {
				t.Errorf("list %s lists %q:\n%s", tt.filter, d, names)
			}
		}
	}
}

// listedNames returns the spec lines of list's text (those not indented),
// each after a newline.
func listedNames(out string) string {
	var b strings.Builder
	for _, line := range strings.Split(out, "\n") {
		if line != "" && line[0] != ' ' {
			b.WriteString("\n" + line)
		}
	}
	return b.String()
}

// TestListSaysTheDefaultChannels: every spec with channels says its default
// discipline in the list, in text and JSON: central's are unordered,
// chang-roberts's FIFO.
func TestListSaysTheDefaultChannels(t *testing.T) {
	t.Parallel()
	_, out, _ := vacheck("list", "central")
	if !strings.Contains(out, "channels: unordered by default") {
		t.Errorf("list central does not say its unordered channels:\n%s", out)
	}
	code, out, stderr := vacheck("list", "--format", "json")
	if code != exitOK {
		t.Fatalf("list --format json: exit %d, %s", code, stderr)
	}
	var got []struct {
		Name     string   `json:"name"`
		Channels string   `json:"channels"`
		Claims   []string `json:"claims"`
		Params   []struct {
			Flag    string `json:"flag"`
			Default string `json:"default"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("list --format json is not JSON: %v\n%s", err, out)
	}
	_, text, _ := vacheck("list")
	if n := strings.Count(listedNames(text), "\n"); n != len(got) {
		t.Errorf("JSON lists %d specs, text %d", len(got), n)
	}
	want := map[string]string{"chang-roberts": "fifo", "central": "unordered", "ricart-agrawala": "unordered", "raymond": "fifo"}
	for _, s := range got {
		if w, ok := want[s.Name]; ok && s.Channels != w {
			t.Errorf("%s: channels %q, want %q", s.Name, s.Channels, w)
		}
		if s.Channels == "" || len(s.Claims) == 0 || len(s.Params) == 0 {
			t.Errorf("%s: incomplete entry %+v", s.Name, s)
		}
		delete(want, s.Name)
	}
	if len(want) > 0 {
		t.Errorf("JSON leaves out %v", want)
	}
}

// TestCheckHelpShowsEngineFlagsOnly: `check --help` without a spec lists
// the engine flags and points to a spec's own parameters, rather than the
// 60 parameters of the whole catalog (issue 34 item 7), and `simulate
// SPEC --help` says simulate, not check.
func TestCheckHelpShowsEngineFlagsOnly(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"check", "simulate", "swarm", "graph", "explore"} {
		_, out, _ := vacheck(cmd, "--help")
		for _, param := range []string{"--topology value", "--ids value", "--quorums value", "differ by spec;"} {
			if strings.Contains(out, param) {
				t.Errorf("%s --help shows %s:\n%s", cmd, param, out)
			}
		}
	}
	_, out, _ := vacheck("simulate", "lelann", "--help")
	if strings.Contains(out, "vacheck check") || strings.Contains(out, "engine flags") {
		t.Errorf("simulate lelann --help speaks of check:\n%s", out)
	}
}
