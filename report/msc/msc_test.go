package msc

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// state builds the variables of a two-process state: p1.x, p2.x and the
// channels queue_{1,2}, queue_{2,1}.
func state(x1, x2 int, q12, q21 []any, extra ...explorer.Var) []explorer.Var {
	if q12 == nil {
		q12 = []any{}
	}
	if q21 == nil {
		q21 = []any{}
	}
	return append([]explorer.Var{{Name: "p1.x", Value: x1}, {Name: "p2.x", Value: x2},
		{Name: "queue_{1,2}", Value: q12}, {Name: "queue_{2,1}", Value: q21}}, extra...)
}

func TestBuildMatchesFIFOAndBroadcasts(t *testing.T) {
	tr := explorer.Trace{
		InitialState: state(0, 0, []any{"a"}, nil),
		Steps: []explorer.Step{
			{Action: "go_{1}", State: state(1, 0, []any{"a", "b", "c"}, nil)},               // two messages in one step
			{Action: "receive(a)_{1,2}", State: state(1, 1, []any{"b", "c"}, []any{"ack"})}, // receive and reply
			{Action: "receive(b)_{1,2}", State: state(1, 2, []any{"c"}, []any{"ack"})},
		},
	}
	c, err := Build(tr, false)
	if err != nil {
		t.Fatal(err)
	}
	if c.N != 2 || len(c.Steps) != 4 || len(c.Messages) != 4 {
		t.Fatalf("N=%d steps=%d messages=%d", c.N, len(c.Steps), len(c.Messages))
	}
	want := []struct {
		from, to, sent, recv int
		value                string
	}{{0, 1, 0, 2, "a"}, {0, 1, 1, 3, "b"}, {0, 1, 1, -1, "c"}, {1, 0, 2, -1, "ack"}}
	for i, w := range want {
		m := c.Messages[i]
		if m.From != w.from || m.To != w.to || m.Sent != w.sent || m.Received != w.recv || m.Value != w.value {
			t.Errorf("message %d: %+v, want %+v", i+1, m, w)
		}
	}
	if s := c.Steps[2]; s.Kind != Receive || s.Actor != 1 || s.Recv != 0 || len(s.Sends) != 1 {
		t.Errorf("step 2: %+v", s)
	}
	text := c.Text()
	for _, w := range []string{"m2,m3>", "→m2 b  →m3 c", "m2▶●", "m3 in transit: c", "m4 in transit: ack", "receive(a)_{1,2} m1"} {
		if !strings.Contains(text, w) {
			t.Errorf("the chart lacks %q:\n%s", w, text)
		}
	}
}

func TestBuildUnorderedOvertakes(t *testing.T) {
	tr := explorer.Trace{
		InitialState: state(0, 0, nil, nil),
		Steps: []explorer.Step{
			{Action: "send(5)_{1,2}", State: state(1, 0, []any{5}, nil)},
			{Action: "send(3)_{1,2}", State: state(2, 0, []any{3, 5}, nil)}, // canonical order, not FIFO
			{Action: "receive(3)_{1,2}", State: state(2, 3, []any{5}, nil)},
		},
	}
	c, err := Build(tr, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Messages) != 2 || c.Messages[0].Value != "5" || c.Messages[1].Value != "3" {
		t.Fatalf("messages %+v", c.Messages)
	}
	if m := c.Messages[1]; m.Received != 3 || len(m.Overtakes) != 1 || m.Overtakes[0] != 0 {
		t.Errorf("m2: %+v, want received in step 3, overtaking m1", m)
	}
	if !c.Messages[0].InTransit() {
		t.Errorf("m1 should be in transit: %+v", c.Messages[0])
	}
	if text := c.Text(); !strings.Contains(text, "m2 overtakes m1") {
		t.Errorf("the chart does not show the overtaking:\n%s", text)
	}
	// Read as FIFO, the same states mean something else: no overtaking.
	if f, _ := Build(tr, false); len(f.Messages[1].Overtakes) != 0 {
		t.Errorf("FIFO: %+v", f.Messages)
	}
}

func TestBuildCrashLosesMessagesAndLasso(t *testing.T) {
	crashed := func(ps ...any) explorer.Var { return explorer.Var{Name: "crashed", Value: ps} }
	tr := explorer.Trace{
		InitialState: state(0, 0, nil, nil, crashed()),
		Steps: []explorer.Step{
			{Action: "send(7)_{1,2}", State: state(1, 0, []any{7}, nil, crashed())},
			{Action: "crash_{2}", State: state(1, 0, nil, nil, crashed(2))},
		},
		Cycle:      []explorer.Step{{Action: "tick_{1}", State: state(1, 0, nil, nil, crashed(2))}},
		CycleTasks: []string{"p1"},
	}
	c, err := Build(tr, false)
	if err != nil {
		t.Fatal(err)
	}
	if m := c.Messages[0]; m.Lost != 2 || m.Received != -1 {
		t.Errorf("m1: %+v, want lost in step 2", m)
	}
	if c.Steps[2].Kind != Crash || c.Steps[2].Actor != 1 || !c.Crashed[2][1] || c.Crashed[1][1] {
		t.Errorf("crash: %+v, crashed %v", c.Steps[2], c.Crashed)
	}
	if c.CycleStart != 3 || !c.Steps[3].InCycle {
		t.Errorf("cycle start %d", c.CycleStart)
	}
	text := c.Text()
	for _, w := range []string{"✕", "┆", "cycle: steps 3-3, repeated forever", "tasks p1", "back to the state after step 2", "lost m1 7"} {
		if !strings.Contains(text, w) {
			t.Errorf("the chart lacks %q:\n%s", w, text)
		}
	}
	if _, err := Build(explorer.Trace{}, false); err == nil {
		t.Error("a trace without states gave a chart")
	}
}

func TestParseAction(t *testing.T) {
	for _, tt := range []struct {
		label, name, arg string
		a, b             int
	}{
		{"receive(REQUEST(1,1))_{1,2}", "receive", "REQUEST(1,1)", 0, 1},
		{"request_{3}", "request", "", 2, -1},
		{"relinquish(2)_{4}", "relinquish", "2", 3, -1},
		{"tick", "tick", "", -1, -1},
	} {
		name, arg, a, b := ParseAction(tt.label)
		if name != tt.name || arg != tt.arg || a != tt.a || b != tt.b {
			t.Errorf("%s: %q %q %d %d", tt.label, name, arg, a, b)
		}
	}
}

func TestHTMLEscapesAndIsSelfContained(t *testing.T) {
	tr := explorer.Trace{
		InitialState: state(0, 0, nil, nil),
		Steps:        []explorer.Step{{Action: "send(</script><b>)_{1,2}", State: state(1, 0, []any{"</script><b>"}, nil)}},
		Explanation:  []string{"x < y & z"},
	}
	c, err := Build(tr, false)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := HTML(&b, Page{Spec: "s<1>", Params: "--n 2", Sections: []Section{{Title: "VIOLATED p", Chart: c, Explanation: tr.Explanation}}}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, "<b>") || strings.Contains(page, "s<1>") {
		t.Error("a value reached the page unescaped")
	}
	if strings.Count(page, "</script>") != 2 { // the data and the script
		t.Errorf("%d </script>, want 2", strings.Count(page, "</script>"))
	}
	for _, w := range []string{"x &lt; y &amp; z", `<g class="proc">`, "<svg", `data-steps="1"`} {
		if !strings.Contains(page, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
	if strings.Contains(strings.ReplaceAll(page, "http://www.w3.org/2000/svg", ""), "http") {
		t.Error("the page refers to the network")
	}
}

// TestBuildReceiveWhileCrashedLoses: a crashed process's receive takes the
// message out of its channel and does nothing with it; the chart shows the
// message lost in that step, not received.
func TestBuildReceiveWhileCrashedLoses(t *testing.T) {
	crashed := func(ps ...any) explorer.Var { return explorer.Var{Name: "crashed", Value: ps} }
	tr := explorer.Trace{
		InitialState: state(0, 0, nil, nil, crashed()),
		Steps: []explorer.Step{
			{Action: "send(7)_{1,2}", State: state(1, 0, []any{7}, nil, crashed())},
			{Action: "crash_{2}", State: state(1, 0, []any{7}, nil, crashed(2))},
			{Action: "receive(7)_{1,2}", State: state(1, 0, nil, nil, crashed(2))},
		},
	}
	c, err := Build(tr, false)
	if err != nil {
		t.Fatal(err)
	}
	if m := c.Messages[0]; m.Lost != 3 || m.Received != -1 {
		t.Errorf("m1: %+v, want lost in step 3", m)
	}
	if s := c.Steps[3]; s.Kind != Receive || s.Recv != -1 || len(s.Lost) != 1 {
		t.Errorf("step 3: %+v, want a receive that loses m1", s)
	}
	if text := c.Text(); !strings.Contains(text, "lost m1 7") || strings.Contains(text, "m1▶") {
		t.Errorf("the chart should show m1 lost, not received:\n%s", text)
	}
}

// TestSVGArrowsAndLabels: an arrow still in transit ends on its receiver's
// lifeline, below the last step; the labels of arrows that start together
// do not overprint each other, nor those of loops to oneself that nest.
func TestSVGArrowsAndLabels(t *testing.T) {
	q := func(vs ...any) []any { return vs }
	three := func(x int, q12, q13, q11 []any) []explorer.Var {
		return []explorer.Var{{Name: "p1.x", Value: x}, {Name: "p2.x", Value: 0}, {Name: "p3.x", Value: 0},
			{Name: "queue_{1,1}", Value: q11}, {Name: "queue_{1,2}", Value: q12}, {Name: "queue_{1,3}", Value: q13}}
	}
	tr := explorer.Trace{
		InitialState: three(0, q(), q(), q()),
		Steps: []explorer.Step{
			// one step sends a long message to each of the others and two to itself
			{Action: "go_{1}", State: three(1, q("REQUEST(1,1)"), q("REQUEST(1,1)"), q("SELF-A", "SELF-B"))},
			{Action: "receive(SELF-A)_{1,1}", State: three(1, q("REQUEST(1,1)"), q("REQUEST(1,1)"), q("SELF-B"))},
			{Action: "receive(SELF-B)_{1,1}", State: three(1, q("REQUEST(1,1)"), q("REQUEST(1,1)"), q())},
		},
	}
	c, err := Build(tr, false)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	writeSVG(&b, c)
	svg := b.String()
	// m3, to p3, in transit: its line ends at p3's lifeline.
	line := regexp.MustCompile(`data-msg="(\d+)"[^>]*><title>[^<]*to p3[^<]*in transit[^<]*</title>\s*<line x1="\d+" y1="\d+" x2="(\d+)"`).FindStringSubmatch(svg)
	if line == nil || line[2] != strconv.Itoa(svgX(2)) {
		t.Errorf("the arrow in transit to p3 ends at %v, want x2=%d (p3's lifeline)", line, svgX(2))
	}
	var boxes []box
	for _, m := range regexp.MustCompile(`<text class="mlabel" x="(\d+)" y="(\d+)" text-anchor="(\w+)">([^<]*)</text>`).FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[2])
		w := textW(m[4])
		if m[3] == "middle" {
			x -= w / 2
		}
		bb := box{x, y - 10, x + w, y + 3}
		for _, o := range boxes {
			if bb.overlaps(o) {
				t.Errorf("the label %q at (%d,%d) overlaps another", m[4], x, y)
			}
		}
		boxes = append(boxes, bb)
	}
	if len(boxes) != 4 {
		t.Errorf("%d labels, want 4", len(boxes))
	}
}

// TestSVGNestedLoopsNest: a loop to oneself received inside the span of an
// earlier one (unordered: A sent, B sent, B received, A received) is drawn
// narrower than the loop around it, so that the two do not cross.
func TestSVGNestedLoopsNest(t *testing.T) {
	q := func(vs ...any) []any { return vs }
	st := func(q11 []any) []explorer.Var {
		return []explorer.Var{{Name: "p1.x", Value: 0}, {Name: "p2.x", Value: 0}, {Name: "queue_{1,1}", Value: q11}}
	}
	tr := explorer.Trace{
		InitialState: st(q()),
		Steps: []explorer.Step{
			{Action: "a_{1}", State: st(q("A"))},
			{Action: "b_{1}", State: st(q("A", "B"))},
			{Action: "receive(B)_{1,1}", State: st(q("A"))},
			{Action: "receive(A)_{1,1}", State: st(q())},
		},
	}
	c, err := Build(tr, true)
	if err != nil {
		t.Fatal(err)
	}
	bends := loopBends(c, len(c.Steps)-1)
	if a, b := bends[0], bends[1]; a <= b {
		t.Errorf("the outer loop (A, steps 1-4) is %d wide, the inner (B, steps 2-3) %d: want the outer wider", a, b)
	}
}

// TestSVGIsThePagesChart: SVG writes the chart the HTML page embeds, byte
// for byte, so a page of one's own styled by Stylesheet looks the same.
func TestSVGIsThePagesChart(t *testing.T) {
	tr := explorer.Trace{
		InitialState: state(0, 0, nil, nil),
		Steps:        []explorer.Step{{Action: "send(a)_{1,2}", State: state(1, 0, []any{"a"}, nil)}, {Action: "receive(a)_{1,2}", State: state(1, 1, nil, nil)}},
	}
	c, err := Build(tr, false)
	if err != nil {
		t.Fatal(err)
	}
	var svg, page bytes.Buffer
	if err := SVG(&svg, c); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&page, Page{Spec: "s", Sections: []Section{{Title: "t", Chart: c}}}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(svg.String(), "<svg") || !strings.Contains(page.String(), svg.String()) {
		t.Errorf("SVG is not the chart of the page:\n%s", svg.String())
	}
	if !strings.Contains(page.String(), Stylesheet()) || !strings.Contains(Stylesheet(), "svg .msg") {
		t.Error("Stylesheet is not the page's CSS")
	}
}

// TestBuildSharedActions: a step that changes two processes (a shared
// action, pass_{1,2}) is drawn at its actor joined by a double line to its
// partner, and a message a local step takes out of its channel (Take) is
// received by that step, not lost.
func TestBuildSharedActions(t *testing.T) {
	tr := explorer.Trace{
		InitialState: state(1, 0, []any{"v"}, nil),
		Steps: []explorer.Step{
			{Action: "pass_{1,2}", State: state(0, 1, []any{"v"}, nil)},
			{Action: "sum_{2}", State: state(0, 2, nil, nil)},
		},
	}
	c, err := Build(tr, false)
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Steps[1]; s.Kind != Local || s.Actor != 0 || len(s.With) != 1 || s.With[0] != 1 {
		t.Errorf("step 1: %+v, want actor 0 with partner 1", s)
	}
	if s := c.Steps[2]; len(s.Taken) != 1 || len(s.Lost) != 0 || c.Messages[0].Received != 2 {
		t.Errorf("step 2: %+v, message %+v; want m1 taken (received) in step 2", s, c.Messages[0])
	}
	if name, _, a, b := ParseAction("tick(2)_{1,2,3}"); name != "tick" || a != 0 || b != 1 {
		t.Errorf("ParseAction(tick(2)_{1,2,3}) = %s, %d, %d; want tick, 0, 1", name, a, b)
	}
	text := c.Text()
	for _, w := range []string{"●═", "═●", "m1▶●"} {
		if !strings.Contains(text, w) {
			t.Errorf("the chart lacks %q:\n%s", w, text)
		}
	}
	var b bytes.Buffer
	if err := SVG(&b, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `class="sync"`) {
		t.Errorf("the SVG draws no sync line for the shared action")
	}
}

// TestMailbox: a mailbox_{j} variable, each message "i:v", gives the
// chart the channels i→j, and a receive takes its message by sender and
// value: a chart that ignored the sender would match the receive of 5
// from 3 with the 5 from 1.
func TestMailbox(t *testing.T) {
	box := func(msgs ...any) []explorer.Var {
		if msgs == nil {
			msgs = []any{}
		}
		return []explorer.Var{{Name: "p1.x", Value: 0}, {Name: "mailbox_{2}", Value: msgs}}
	}
	tr := explorer.Trace{
		InitialState: box(),
		Steps: []explorer.Step{
			{Action: "send(5)_{1,2}", State: box("1:5")},
			{Action: "send(5)_{3,2}", State: box("1:5", "3:5")},
			{Action: "receive(5)_{3,2}", State: box("1:5")},
		},
	}
	c, err := Build(tr, false)
	if err != nil {
		t.Fatal(err)
	}
	if c.N != 3 || len(c.Messages) != 2 {
		t.Fatalf("%d processes, messages %+v; want 3 and 2", c.N, c.Messages)
	}
	m1, m2 := c.Messages[0], c.Messages[1]
	if m1.From != 0 || m1.To != 1 || m1.Value != "5" || m1.Sent != 1 || !m1.InTransit() {
		t.Errorf("m1 = %+v; want 5 from p1 to p2, sent in step 1, in transit", m1)
	}
	if m2.From != 2 || m2.To != 1 || m2.Sent != 2 || m2.Received != 3 {
		t.Errorf("m2 = %+v; want 5 from p3 to p2, sent in step 2, received in step 3", m2)
	}
}
