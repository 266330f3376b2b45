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
