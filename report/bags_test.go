package report

import (
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
	"github.com/vacheck/vacheck/properties"
)

// bagTrace is a trace of two processes where process 1 sends a, then b,
// to process 2 over an unordered channel, whose state keeps the bag in
// canonical (sorted) order, and process 2 receives b first: b overtakes a.
// name is the channel variable's name: bag_{1,2}, or queue_{1,2} for the
// same states read as a FIFO channel.
func bagTrace(name string, first, second []any) explorer.Trace {
	state := func(st string, ch []any) []explorer.Var {
		return []explorer.Var{{Name: "p1.st", Value: st}, {Name: "p2.got", Value: ch == nil}, {Name: name, Value: ch}}
	}
	return explorer.Trace{
		InitialState: state("idle", []any{}),
		Steps: []explorer.Step{
			{Action: "send(b)_{1,2}", State: state("sent1", []any{"b"})},
			{Action: "send(a)_{1,2}", State: state("sent2", first)},
			{Action: "receive(a)_{1,2}", State: state("sent2", second)},
		},
	}
}

// TestBagsReadInSendOrder: the story lists a bag's messages in the order
// they were sent, not in the state's sorted order, and says which message
// overtakes which; a FIFO queue is shown as it is, with no overtaking.
func TestBagsReadInSendOrder(t *testing.T) {
	story := func(tr explorer.Trace) string {
		r := &explorer.Result{
			Status:     explorer.Violated,
			Properties: []explorer.PropertyResult{{Info: properties.Info{Name: "p"}, Verdict: explorer.ViolatedVerdict}},
			Violations: []explorer.Violation{{Property: "p", Process: -1, Trace: tr}},
		}
		var b strings.Builder
		if err := Text(&b, Run{Spec: "s", Result: r}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	// Sorted: [a b] after b was sent first.
	out := story(bagTrace("bag_{1,2}", []any{"a", "b"}, []any{"b"}))
	for _, want := range []string{
		"bag_{1,2}: [b] → [b a]",
		"bag_{1,2}: [b a] → [b]",
		"a (sent in step 2) overtakes b (sent in step 1) in bag_{1,2}",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the story lacks %q:\n%s", want, out)
		}
	}
	out = story(bagTrace("queue_{1,2}", []any{"b", "a"}, []any{"a"}))
	if strings.Contains(out, "overtakes") || !strings.Contains(out, "queue_{1,2}: [b] → [b a]") {
		t.Errorf("a FIFO queue reads differently:\n%s", out)
	}
}

// TestMailboxReadInSendOrder: a mailbox_{j} lists its letters ("i:v")
// in the order they were sent, across senders, not in the state's order
// (sender by sender); and a receive that overtakes an earlier message of
// the same sender is told in terms of the mailbox.
func TestMailboxReadInSendOrder(t *testing.T) {
	state := func(box ...any) []explorer.Var {
		if box == nil {
			box = []any{}
		}
		return []explorer.Var{{Name: "p1.st", Value: len(box)}, {Name: "mailbox_{2}", Value: box}}
	}
	tr := explorer.Trace{
		InitialState: state(),
		Steps: []explorer.Step{
			{Action: "send(b)_{3,2}", State: state("3:b")},
			{Action: "send(b)_{1,2}", State: state("1:b", "3:b")},
			{Action: "send(a)_{1,2}", State: state("1:a", "1:b", "3:b")},
			{Action: "receive(a)_{1,2}", State: state("1:b", "3:b")},
		},
	}
	r := &explorer.Result{
		Status:     explorer.Violated,
		Properties: []explorer.PropertyResult{{Info: properties.Info{Name: "p"}, Verdict: explorer.ViolatedVerdict}},
		Violations: []explorer.Violation{{Property: "p", Process: -1, Trace: tr}},
	}
	var b strings.Builder
	if err := Text(&b, Run{Spec: "s", Result: r}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"mailbox_{2}: [3:b] → [3:b 1:b]",
		"mailbox_{2}: [3:b 1:b] → [3:b 1:b 1:a]",
		"mailbox_{2}: [3:b 1:b 1:a] → [3:b 1:b]",
		"a (sent in step 3) overtakes b (sent in step 2) in the messages from 1 in mailbox_{2}",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the story lacks %q:\n%s", want, out)
		}
	}
}
