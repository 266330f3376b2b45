package cli

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// mailboxPage is what TestExploreMailboxInBrowser reads off the page.
type mailboxPage struct {
	Kind    string   `json:"kind"`
	Chans   []string `json:"chans"` // name: messages
	Mailbox []bool   `json:"mailbox"`
	Globals []string `json:"globals"`
	Over    []string `json:"over"` // messages marked as overtaking if received
}

const readMailboxPage = `(() => {
  const q = (s) => [...document.querySelectorAll(s)];
  return {
    kind: document.getElementById('channel-kind').textContent,
    chans: q('#channels .chan').map((c) => c.querySelector('.cname').textContent + ':' + [...c.querySelectorAll('.m')].map((m) => m.textContent).join(',')),
    mailbox: q('#channels .chan').map((c) => c.classList.contains('bag') && c.dataset.chan.startsWith('mailbox_')),
    globals: q('#globals tr').map((r) => r.cells[0].textContent),
    over: q('#channels .m.over').map((m) => m.textContent),
  };
})()`

// TestExploreMailboxInBrowser: with --channels mailbox the channel panel
// shows each mailbox_{j} as a channel into j, its messages "i:v" as the
// story shows them, each receivable, and not as a plain variable (as it
// did before). After chang-roberts' p1 sends 1, p3 sends 3, p1 receives 3
// and forwards it, the mailbox of 2 holds 1:1 and 1:3, and 1:3 is marked
// as overtaking 1:1, sent before it by the same process; receiving it by
// clicking it empties all but 1:1.
func TestExploreMailboxInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser, ~3 s: skipped with -short (the full suite runs it)")
	}
	ctx := browserContext(t, 60*time.Second)
	url, _ := startExplore(t, "chang-roberts", "--n", "3", "--channels", "mailbox")
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	p := waitRender(ctx, t, 0)
	for _, a := range []string{"send(1)_{1,2}", "send(3)_{3,1}", "receive(3)_{3,1}", "send(3)_{1,2}"} {
		clickAction(ctx, t, a)
		p = waitRender(ctx, t, p.Render)
	}
	read := func() mailboxPage {
		t.Helper()
		mp, err := chromedp.Run(ctx, chromedp.Evaluate[mailboxPage](readMailboxPage))
		if err != nil {
			t.Fatal(err)
		}
		return mp
	}
	mp := read()
	if want := []string{"mailbox of 1:", "mailbox of 2:1:1,1:3", "mailbox of 3:"}; !reflect.DeepEqual(mp.Chans, want) {
		t.Errorf("channels %q, want %q", mp.Chans, want)
	}
	if !reflect.DeepEqual(mp.Mailbox, []bool{true, true, true}) || !strings.Contains(mp.Kind, "mailboxes") {
		t.Errorf("the channels are not shown as mailboxes: %v, %q", mp.Mailbox, mp.Kind)
	}
	for _, g := range mp.Globals {
		if strings.HasPrefix(g, "mailbox_") {
			t.Errorf("%s is shown as a plain variable too: %q", g, mp.Globals)
		}
	}
	if !reflect.DeepEqual(mp.Over, []string{"1:3"}) {
		t.Errorf("messages marked as overtaking: %q, want [1:3]", mp.Over)
	}
	// Receive 1:3 by clicking it.
	js := `(() => { const m = [...document.querySelectorAll('#channels .m.ready')].find((m) => m.textContent === '1:3'); if (m) m.click(); return !!m; })()`
	if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js)); err != nil || !ok {
		t.Fatalf("no receivable message 1:3 to click (%v)", err)
	}
	p = waitRender(ctx, t, p.Render)
	if mp := read(); !reflect.DeepEqual(mp.Chans, []string{"mailbox of 1:", "mailbox of 2:1:1", "mailbox of 3:"}) || p.CurAction == "" || !strings.HasPrefix(p.CurAction, "receive(3)_{1,2}") {
		t.Errorf("after receiving 1:3: channels %q, last step %q", mp.Chans, p.CurAction)
	}
}
