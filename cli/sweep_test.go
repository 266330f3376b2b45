package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// TestSweepCertificateCountsUncheckedStates: a run stopped inside a level
// keeps, in its sweep certificate (--format json) and in its table row,
// how many of its states were stored and not checked, as check's report
// does; a run that left none says nothing of it.
func TestSweepCertificateCountsUncheckedStates(t *testing.T) {
	r := &explorer.Result{Status: explorer.Incomplete, Reason: "time limit reached (--timeout 10s)", States: 810226, Unchecked: 715289}
	c := newCertificate("chang-roberts", map[string]any{"n": 9}, r)
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		States    int64 `json:"states"`
		Unchecked int64 `json:"unchecked_states"`
	}
	if err := json.Unmarshal(data, &back); err != nil || back.States != 810226 || back.Unchecked != 715289 {
		t.Errorf("certificate %s: states %d, unchecked_states %d; want 810226 and 715289", data, back.States, back.Unchecked)
	}
	var row bytes.Buffer
	writeSweepRow(&row, 9, c)
	if want := "incomplete: time limit reached (--timeout 10s); the sweep ends here (715,289 of its states stored, not checked)"; !strings.Contains(row.String(), want) {
		t.Errorf("sweep row:\n%s\nwant %q", row.String(), want)
	}
	r.Unchecked = 0
	if data, _ := json.Marshal(newCertificate("chang-roberts", map[string]any{"n": 9}, r)); bytes.Contains(data, []byte("unchecked")) {
		t.Errorf("a run that left nothing unchecked says so: %s", data)
	}
}
