package channel_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/channel"
)

// build sends msgs, in order, on an empty channel of discipline d.
func build(d channel.Discipline, msgs ...string) []byte {
	var seg []byte
	for _, m := range msgs {
		seg = d.Append(nil, seg, []byte(m))
	}
	return seg
}

// contents lists the messages of seg in order.
func contents(seg []byte) []string {
	out := []string{}
	channel.Each(seg, func(m []byte) { out = append(out, string(m)) })
	return out
}

// deliverable lists the messages receive may deliver from seg.
func deliverable(d channel.Discipline, seg []byte) []string {
	out := []string{}
	for _, p := range d.Deliverables(seg, nil) {
		out = append(out, string(seg[p[0]:p[1]]))
	}
	return out
}

func TestFIFO(t *testing.T) {
	seg := build(channel.FIFO, "a", "bb", "c")
	if want := []byte{1, 'a', 2, 'b', 'b', 1, 'c'}; !bytes.Equal(seg, want) {
		t.Errorf("state = % x, want % x", seg, want)
	}
	if got := channel.Len(seg); got != 3 {
		t.Errorf("Len = %d, want 3", got)
	}
	if got := fmt.Sprint(contents(seg)); got != "[a bb c]" {
		t.Errorf("Each = %s, want [a bb c]", got)
	}
	// Only the head is deliverable; receiving it leaves the rest in order.
	d := channel.FIFO.Deliverables(seg, nil)
	if len(d) != 1 || d[0] != [2]int{1, 2} {
		t.Fatalf("Deliverables = %v, want [[1 2]] (the head)", d)
	}
	seg = channel.FIFO.Remove(nil, seg, d[0][0], d[0][1])
	if got := fmt.Sprint(contents(seg)); got != "[bb c]" {
		t.Errorf("after receive: %s, want [bb c]", got)
	}
	if got := fmt.Sprint(deliverable(channel.FIFO, seg)); got != "[bb]" {
		t.Errorf("next deliverable %s, want [bb]", got)
	}
}

// TestAppendDoesNotModifySeg: Append and Remove write into dst only, so the
// explorer's stored state is never changed.
func TestAppendDoesNotModifySeg(t *testing.T) {
	for _, d := range []channel.Discipline{channel.FIFO, channel.Unordered} {
		seg := build(d, "b", "a", "c")
		orig := bytes.Clone(seg)
		_ = d.Append(make([]byte, 0, 64), seg, []byte("z"))
		p := d.Deliverables(seg, nil)[0]
		_ = d.Remove(make([]byte, 0, 64), seg, p[0], p[1])
		if !bytes.Equal(seg, orig) {
			t.Errorf("%v: seg changed from % x to % x", d, orig, seg)
		}
		// dst keeps what it already held.
		if got := d.Append([]byte("pre"), nil, []byte("m")); string(got) != "pre\x01m" {
			t.Errorf("%v: Append to a non-empty dst = %q", d, got)
		}
	}
}

// TestUnorderedCanonical: a bag is kept sorted by (length, bytes), so every
// order of sending the same multiset gives the same state.
func TestUnorderedCanonical(t *testing.T) {
	orders := [][]string{
		{"b", "a", "cc", "a"},
		{"a", "a", "b", "cc"},
		{"cc", "b", "a", "a"},
		{"a", "cc", "a", "b"},
	}
	want := []byte{1, 'a', 1, 'a', 1, 'b', 2, 'c', 'c'}
	for _, o := range orders {
		if got := build(channel.Unordered, o...); !bytes.Equal(got, want) {
			t.Errorf("sending %v gave % x, want % x", o, got, want)
		}
	}
	// FIFO keeps the order, so different orders are different states.
	if bytes.Equal(build(channel.FIFO, orders[0]...), build(channel.FIFO, orders[1]...)) {
		t.Errorf("FIFO states of different send orders are equal")
	}
}

// TestUnorderedDuplicates: equal messages are one choice for receive, and
// receiving removes exactly one copy.
func TestUnorderedDuplicates(t *testing.T) {
	seg := build(channel.Unordered, "x", "y", "x", "x")
	if got := fmt.Sprint(deliverable(channel.Unordered, seg)); got != "[x y]" {
		t.Errorf("Deliverables = %s, want [x y] (each distinct message once)", got)
	}
	tests := []struct {
		pick int // index into Deliverables
		want string
	}{
		{0, "[x x y]"},
		{1, "[x x x]"},
	}
	for _, tt := range tests {
		p := channel.Unordered.Deliverables(seg, nil)[tt.pick]
		after := channel.Unordered.Remove(nil, seg, p[0], p[1])
		if got := fmt.Sprint(contents(after)); got != tt.want {
			t.Errorf("receive %q: %s, want %s", seg[p[0]:p[1]], got, tt.want)
		}
		if got := channel.Len(after); got != 3 {
			t.Errorf("receive %q: Len = %d, want 3", seg[p[0]:p[1]], got)
		}
	}
}

// TestFIFORemoveOneCopy: a FIFO channel with equal messages loses only its
// head.
func TestFIFORemoveOneCopy(t *testing.T) {
	seg := build(channel.FIFO, "x", "x", "y", "x")
	p := channel.FIFO.Deliverables(seg, nil)[0]
	if got := fmt.Sprint(contents(channel.FIFO.Remove(nil, seg, p[0], p[1]))); got != "[x y x]" {
		t.Errorf("after receive: %s, want [x y x]", got)
	}
}

func TestDeliverablesAppends(t *testing.T) {
	buf := [][2]int{{-1, -1}}
	for _, d := range []channel.Discipline{channel.FIFO, channel.Unordered} {
		if got := d.Deliverables(nil, buf); len(got) != 1 {
			t.Errorf("%v: an empty channel delivers %v", d, got[1:])
		}
		if got := d.Deliverables(build(d, "m"), buf); len(got) != 2 || got[0] != [2]int{-1, -1} || got[1] != [2]int{1, 2} {
			t.Errorf("%v: Deliverables = %v, want [[-1 -1] [1 2]]", d, got)
		}
	}
	if got := channel.Len(nil); got != 0 {
		t.Errorf("Len(empty) = %d", got)
	}
}

// TestLongMessages: a message of 128 bytes or more has a two-byte length
// prefix; every operation must walk over it correctly.
func TestLongMessages(t *testing.T) {
	m127 := strings.Repeat("a", 127)
	m128 := strings.Repeat("b", 128)
	m300 := strings.Repeat("c", 300)
	for _, d := range []channel.Discipline{channel.FIFO, channel.Unordered} {
		t.Run(d.String(), func(t *testing.T) {
			seg := build(d, m300, "s", m128, m127)
			// 300 -> ac 02, 128 -> 80 01, 127 -> 7f, 1 -> 01.
			if got, want := len(seg), (2+300)+(1+1)+(2+128)+(1+127); got != want {
				t.Errorf("state is %d bytes, want %d", got, want)
			}
			if got := channel.Len(seg); got != 4 {
				t.Errorf("Len = %d, want 4", got)
			}
			var lens []int
			channel.Each(seg, func(m []byte) { lens = append(lens, len(m)) })
			want := "[300 1 128 127]"
			if d == channel.Unordered {
				want = "[1 127 128 300]"
			}
			if got := fmt.Sprint(lens); got != want {
				t.Errorf("message lengths %s, want %s", got, want)
			}
			// Receive every message in turn, always the last deliverable
			// (FIFO: the head), until the channel is empty.
			for n := 4; n > 0; n-- {
				ps := d.Deliverables(seg, nil)
				p := ps[len(ps)-1]
				msg := string(seg[p[0]:p[1]])
				if msg != m127 && msg != m128 && msg != m300 && msg != "s" {
					t.Fatalf("deliverable [%d,%d) is not a message", p[0], p[1])
				}
				seg = d.Remove(nil, seg, p[0], p[1])
				if got := channel.Len(seg); got != n-1 {
					t.Fatalf("after receiving a %d-byte message, Len = %d, want %d", len(msg), got, n-1)
				}
			}
			if len(seg) != 0 {
				t.Errorf("left over % x", seg)
			}
		})
	}
	seg := build(channel.FIFO, m128)
	if seg[0] != 0x80 || seg[1] != 0x01 {
		t.Errorf("128-byte message prefix % x, want 80 01", seg[:2])
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    channel.Discipline
		wantErr string
	}{
		{in: "fifo", want: channel.FIFO},
		{in: "unordered", want: channel.Unordered},
		{in: "mailbox", want: channel.Mailbox},
		{in: "FIFO", wantErr: `--channels "FIFO": allowed values are fifo, unordered and mailbox`},
		{in: "", wantErr: `--channels "": allowed values are fifo, unordered and mailbox`},
		{in: "lossy", wantErr: `--channels "lossy": allowed values are fifo, unordered and mailbox`},
	}
	for _, tt := range tests {
		got, err := channel.Parse(tt.in)
		switch {
		case tt.wantErr != "":
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("Parse(%q) = %v, %v; want error %q", tt.in, got, err, tt.wantErr)
			}
		case err != nil || got != tt.want:
			t.Errorf("Parse(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		default:
			if got.String() != tt.in {
				t.Errorf("Parse(%q).String() = %q", tt.in, got.String())
			}
		}
	}
	if got := channel.Discipline(0).String(); got != "Discipline(0)" {
		t.Errorf("zero Discipline prints %q, want Discipline(0)", got)
	}
}
