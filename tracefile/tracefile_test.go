package tracefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

func TestWriteParseRoundTrip(t *testing.T) {
	f := &File{Spec: "lelann", Params: map[string]any{"n": 3, "ids": "all"}, Given: map[string]string{"n": "3"}, Build: "vacheck test",
		Violations: []Trace{{Property: "validity", Kind: "invariant", InitialParams: map[string]string{"ids": "2,1,3"},
			Initial: map[string]any{"p1.u": 2}, Steps: []Step{{"start_{1}"}, {"receive(CAND(2))_{1,2}"}}, Cycle: []Step{{"x"}}}},
		Witnesses: []Trace{{Of: "messages: min 4", Initial: map[string]any{}, Steps: []Step{}}}}
	var b bytes.Buffer
	if err := Write(&b, f); err != nil {
		t.Fatal(err)
	}
	g, err := Parse(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if g.Format != Format || g.Spec != "lelann" || !SameParams(g.Params, f.Params) || len(g.All()) != 2 {
		t.Fatalf("read back %+v", g)
	}
	labels, cycle := g.Violations[0].Labels()
	if len(labels) != 3 || labels[1] != "receive(CAND(2))_{1,2}" || cycle != 2 {
		t.Errorf("labels %v, cycle at %d", labels, cycle)
	}
	if g.Violations[0].InitialParams["ids"] != "2,1,3" || g.Violations[0].Initial["p1.u"] != json.Number("2") {
		t.Errorf("initial state read back as %v %v", g.Violations[0].InitialParams, g.Violations[0].Initial)
	}
}

func TestParseReadsCheckJSONAndLoneTraces(t *testing.T) {
	check := `{"spec":"chang-roberts","params":{"n":3},"status":"violated","violations":[{"property":"uniqueness","kind":"invariant","initial":{"p1.u":1},"trace":[{"action":"send(1)_{1,2}","state":{"p1.u":1}}]}]}`
	f, err := Parse([]byte(check))
	if err != nil || f.Spec != "chang-roberts" || len(f.Violations) != 1 || f.Violations[0].Steps[0].Action != "send(1)_{1,2}" {
		t.Fatalf("check JSON: %+v, %v", f, err)
	}
	lone := `{"property":"uniqueness","initial":{"p1.u":1},"trace":[{"action":"send(1)_{1,2}"}]}`
	if f, err := Parse([]byte(lone)); err != nil || f.Spec != "" || len(f.Violations) != 1 {
		t.Fatalf("a lone trace: %+v, %v", f, err)
	}
	for _, bad := range []string{"{not json", `{"format":"vacheck-trace 9","spec":"x","violations":[]}`, `{"spec":"x","violations":[{"trace":[]}]}`, `{} {}`} {
		if _, err := Parse([]byte(bad)); !errors.Is(err, ErrFormat) {
			t.Errorf("Parse(%s) = %v, want ErrFormat", bad, err)
		}
	}
}
