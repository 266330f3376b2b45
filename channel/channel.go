// Package channel implements the channel automata of vacheck: reliable FIFO
// channels, reliable unordered channels (docs/properties.md) and mailboxes
// (docs/channels.md).
//
// A channel's state is kept in the canonical encoded form the explorer
// hashes: a sequence of messages, each its length (one uvarint) followed by
// its encoding. The automaton package performs a process's send(m)_{i,j}
// jointly with the channel's input (Append) and the channel's output
// receive(m)_{i,j} (Deliverable, Remove) jointly with the receiving
// process's input, so the channel automaton works on bytes and never decodes
// a message.
package channel

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Discipline is the ordering a channel guarantees. The zero value is
// invalid.
type Discipline uint8

const (
	// FIFO delivers messages in the order they were sent: receive(v) is
	// enabled when v is at the head of the queue.
	FIFO Discipline = 1 + iota
	// Unordered delivers any pending message: receive(v) is enabled for every
	// v in the bag. The bag is kept sorted by encoding, so equal bags have
	// equal encodings.
	Unordered
	// Mailbox gives each receiver j one unordered bag, fed by every process
	// that has a channel to j: receive(v) is enabled for every message of
	// the bag, and each message keeps its sender, so that the receiver
	// knows it and the step is still named receive(v)_{i,j}. A bag of
	// (sender, message) pairs is stored as one sorted sub-bag per sender,
	// the segment of the channel i→j, which is a canonical encoding of the
	// bag (sorted by sender, then by message encoding): on one segment
	// Mailbox acts as Unordered. What tells a mailbox from unordered
	// channels is that the capacity bounds the whole bag of a receiver and
	// that traces show mailbox_{j}.
	Mailbox
)

// Parse reads the --channels flag value.
func Parse(s string) (Discipline, error) {
	switch s {
	case "fifo":
		return FIFO, nil
	case "unordered":
		return Unordered, nil
	case "mailbox":
		return Mailbox, nil
	}
	return 0, fmt.Errorf("--channels %q: allowed values are fifo, unordered and mailbox", s)
}

func (d Discipline) String() string {
	switch d {
	case FIFO:
		return "fifo"
	case Unordered:
		return "unordered"
	case Mailbox:
		return "mailbox"
	}
	return fmt.Sprintf("Discipline(%d)", uint8(d))
}

// Next returns the bounds of the payload of the message whose length prefix
// starts at off in seg; the next message starts at end.
func Next(seg []byte, off int) (start, end int) { return next(seg, off) }

func next(seg []byte, off int) (start, end int) {
	if seg[off] < 0x80 {
		start = off + 1
		return start, start + int(seg[off])
	}
	l, k := binary.Uvarint(seg[off:])
	start = off + k
	return start, start + int(l)
}

// Len returns the number of messages in the channel state seg.
func Len(seg []byte) int {
	n := 0
	for off := 0; off < len(seg); n++ {
		_, off = next(seg, off)
	}
	return n
}

// Each calls fn with the payload of every message in seg, in order (for a
// FIFO channel, from the head).
func Each(seg []byte, fn func(msg []byte)) {
	for off := 0; off < len(seg); {
		s, e := next(seg, off)
		fn(seg[s:e])
		off = e
	}
}

// Append appends to dst the channel state seg with msg added (sent), and
// returns the extended dst.
func (d Discipline) Append(dst, seg, msg []byte) []byte {
	if d == FIFO {
		dst = append(dst, seg...)
		dst = binary.AppendUvarint(dst, uint64(len(msg)))
		return append(dst, msg...)
	}
	// Keep the bag sorted by (length, bytes) so that it is canonical.
	off := 0
	for off < len(seg) {
		s, e := next(seg, off)
		if less(msg, seg[s:e]) {
			break
		}
		off = e
	}
	dst = append(dst, seg[:off]...)
	dst = binary.AppendUvarint(dst, uint64(len(msg)))
	dst = append(dst, msg...)
	return append(dst, seg[off:]...)
}

func less(a, b []byte) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return bytes.Compare(a, b) < 0
}

// Remove appends to dst the channel state seg without the message whose
// payload Deliverable reported at [start, end), and returns the extended dst.
func (d Discipline) Remove(dst, seg []byte, start, end int) []byte {
	// The length prefix is a uvarint just before start.
	head := start - uvarintLen(uint64(end-start))
	if head > 0 { // not the head of a FIFO channel
		dst = append(dst, seg[:head]...)
	}
	return append(dst, seg[end:]...)
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// Deliverables appends to buf the payload bounds of each message that
// receive may deliver from the channel state seg, in a fixed order: for FIFO
// the head only, for an unordered channel (and a sender's part of a
// mailbox) each distinct message once, in encoding order. Pass a pair to Remove to deliver that message.
func (d Discipline) Deliverables(seg []byte, buf [][2]int) [][2]int {
	if len(seg) == 0 {
		return buf
	}
	if d == FIFO {
		s, e := next(seg, 0)
		return append(buf, [2]int{s, e})
	}
	ps, pe := -1, -1
	for off := 0; off < len(seg); {
		s, e := next(seg, off)
		if ps < 0 || !bytes.Equal(seg[ps:pe], seg[s:e]) {
			buf = append(buf, [2]int{s, e})
		}
		ps, pe, off = s, e, e
	}
	return buf
}
