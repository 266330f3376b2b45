package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTraceRolesAndBottom: a trace shows only the fields a process's role
// uses (central's clients have no busy, holder or queue, its coordinator no
// user part), and ⊥ prints as ⊥ in the story, the chart and the HTML page,
// while the JSON keeps the value the state holds (lelann's leader 0).
func TestTraceRolesAndBottom(t *testing.T) {
	t.Parallel()
	_, out, _ := vacheck("check", "central-broken", "--workers", "1")
	if !strings.Contains(out, "p1.ust=idle  p1.done=0  p1.granted=false\n") || !strings.Contains(out, "p4.busy=false  p4.holder=⊥  p4.queue=[]\n") {
		t.Errorf("central-broken: want the clients' and the coordinator's own fields only:\n%s", out)
	}
	if strings.Contains(out, "p1.busy") || strings.Contains(out, "p4.ust") {
		t.Errorf("central-broken: a field of the other role is shown:\n%s", out)
	}
	html := filepath.Join(t.TempDir(), "t.html")
	_, out, _ = vacheck("check", "lelann-broken", "--workers", "1", "--show", "msc", "--html", html)
	if !strings.Contains(out, "p1.leader=⊥") || strings.Contains(out, "leader=0") {
		t.Errorf("lelann-broken: want leader=⊥, never leader=0:\n%s", out)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `["p1.leader","⊥"`) || strings.Contains(string(page), `["p1.leader","0"`) {
		t.Errorf("lelann-broken HTML: want p1.leader ⊥ in the state table")
	}
	_, out, _ = vacheck("check", "lelann-broken", "--workers", "1", "--format", "json")
	if !strings.Contains(out, `"p1.leader": 0`) {
		t.Errorf("lelann-broken JSON: want the value 0 for p1.leader:\n%.2000s", out)
	}
}

// TestMetricWitnessCounted: a metric witness says which messages it
// counted (in the text, by the steps that sent them or by their numbers in
// the chart; in the HTML page, drawn bold), and when min = max the run
// shows one witness, not the same figure twice.
func TestMetricWitnessCounted(t *testing.T) {
	t.Parallel()
	args := []string{"check", "chang-roberts", "--n", "3", "--ids", "decreasing", "--property", "uniqueness", "--metric", "messages", "--workers", "1"}
	_, out, _ := vacheck(args...)
	if !strings.Contains(out, "  witness (min = max = 6): 12 steps") || strings.Contains(out, "max witness") {
		t.Errorf("min = max: want one witness:\n%s", out)
	}
	if !strings.Contains(out, "the 6 messages counted are sent in steps 1, 3, 5, 7, 9, 11\n") {
		t.Errorf("want the counted messages by step:\n%s", out)
	}
	html := filepath.Join(t.TempDir(), "w.html")
	_, out, _ = vacheck("check", "ricart-agrawala", "--n", "3", "--metric", "messages:REPLY", "--workers", "1", "--show", "msc", "--html", html)
	if !strings.Contains(out, "the 6 messages counted: m7 m8 m9 m10 m11 m12\n") {
		t.Errorf("messages:REPLY: want the six REPLY messages by number:\n%s", out)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), " counted\""); n != 6 {
		t.Errorf("HTML: %d arrows drawn as counted; want the 6 REPLY messages", n)
	}
	if strings.Count(string(page), "<h2 class=\"witness\">") != 1 {
		t.Errorf("HTML: want one witness section for min = max")
	}
}
