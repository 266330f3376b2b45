package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The kinds of message, the first byte of each.
const (
	kindBatch     = 1 + iota // successors for their owner
	kindDone                 // a rank expanded its part of a level
	kindJoin                 // a rank announces itself
	kindStart                // rank 0: every rank joined, start level 0
	kindAbort                // a rank stops the run
	kindHeartbeat            // a rank is alive
	kindFinish               // rank 0 has what it needs: the others may leave
)

// headerLen is the length of a message's header: kind, level, sender.
const headerLen = 1 + 4 + 2

var errShort = errors.New("cluster: a message ended early")

// header starts a message of kind from rank from about level.
func header(buf []byte, kind byte, level uint32, from int) []byte {
	buf = append(buf, kind)
	buf = binary.LittleEndian.AppendUint32(buf, level)
	return binary.LittleEndian.AppendUint16(buf, uint16(from))
}

// parseHeader splits a message into its header and body.
func parseHeader(msg []byte) (kind byte, level uint32, from int, body []byte, err error) {
	if len(msg) < headerLen {
		return 0, 0, 0, nil, errShort
	}
	return msg[0], binary.LittleEndian.Uint32(msg[1:]), int(binary.LittleEndian.Uint16(msg[5:])), msg[headerLen:], nil
}

// appendEntry adds a successor to a batch: its encoding, length-prefixed,
// its predecessor's fingerprint and its action index. The receiver
// computes the successor's fingerprint from its encoding.
func appendEntry(buf, st []byte, pred uint64, act uint32) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(st)))
	buf = append(buf, st...)
	buf = binary.LittleEndian.AppendUint64(buf, pred)
	return binary.AppendUvarint(buf, uint64(act))
}

// eachEntry calls fn with each entry of a batch's body.
func eachEntry(body []byte, fn func(st []byte, pred uint64, act uint32)) error {
	for len(body) > 0 {
		n, k := binary.Uvarint(body)
		if k <= 0 || uint64(len(body)-k) < n+8 {
			return errShort
		}
		body = body[k:]
		st := body[:n:n]
		body = body[n:]
		pred := binary.LittleEndian.Uint64(body)
		body = body[8:]
		a, k := binary.Uvarint(body)
		if k <= 0 || a > 1<<32-1 {
			return errShort
		}
		body = body[k:]
		fn(st, pred, uint32(a))
	}
	return nil
}

// found is the state of smallest fingerprint found with something (a
// violation of a property, a deadlock, a failure).
type found struct {
	ok bool
	fp uint64
}

func (f *found) offer(fp uint64) {
	if !f.ok || fp < f.fp {
		*f = found{ok: true, fp: fp}
	}
}

// part is one rank's share of a level: what its done message carries.
type part struct {
	batches  int64 // batches sent to the receiver of the message
	states   int64 // states of the level the rank owns
	trans    int64 // transitions of the states it expanded
	terminal int64
	asserted int64   // states that broke an assertion, not expanded
	viol     []found // per property, and deadlock last
	fail     found   // a state whose check or expansion failed
	failMsg  string
}

func (p *part) encode(buf []byte) []byte {
	for _, v := range []int64{p.batches, p.states, p.trans, p.terminal, p.asserted} {
		buf = binary.AppendVarint(buf, v)
	}
	buf = binary.AppendUvarint(buf, uint64(len(p.viol)))
	for _, f := range append(p.viol, p.fail) {
		if f.ok {
			buf = append(buf, 1)
			buf = binary.LittleEndian.AppendUint64(buf, f.fp)
		} else {
			buf = append(buf, 0)
		}
	}
	buf = binary.AppendUvarint(buf, uint64(len(p.failMsg)))
	return append(buf, p.failMsg...)
}

func decodePart(body []byte) (part, error) {
	var p part
	for _, v := range []*int64{&p.batches, &p.states, &p.trans, &p.terminal, &p.asserted} {
		x, k := binary.Varint(body)
		if k <= 0 {
			return p, errShort
		}
		*v, body = x, body[k:]
	}
	n, k := binary.Uvarint(body)
	if k <= 0 || n > 64+1 {
		return p, errShort
	}
	body = body[k:]
	fs := make([]found, n+1)
	for i := range fs {
		if len(body) < 1 {
			return p, errShort
		}
		if body[0] == 1 {
			if len(body) < 9 {
				return p, errShort
			}
			fs[i] = found{ok: true, fp: binary.LittleEndian.Uint64(body[1:])}
			body = body[9:]
		} else {
			body = body[1:]
		}
	}
	p.viol, p.fail = fs[:n], fs[n]
	m, k := binary.Uvarint(body)
	if k <= 0 || uint64(len(body)-k) < m {
		return p, errShort
	}
	p.failMsg = string(body[k : k+int(m)])
	return p, nil
}

// join is what a rank announces: a nonce that tells two processes that
// claim one rank apart, and the digest of its model.
type join struct {
	nonce  uint64
	digest string
}

func (j join) encode(buf []byte) []byte {
	buf = binary.LittleEndian.AppendUint64(buf, j.nonce)
	return append(buf, j.digest...)
}

func decodeJoin(body []byte) (join, error) {
	if len(body) < 8 {
		return join{}, errShort
	}
	return join{nonce: binary.LittleEndian.Uint64(body), digest: string(body[8:])}, nil
}

// abort is why a rank stopped the run, and how it ends.
type abort struct {
	usage  bool // a usage error (exit 2), not an incomplete run
	reason string
}

func (a abort) encode(buf []byte) []byte {
	b := byte(0)
	if a.usage {
		b = 1
	}
	return append(append(buf, b), a.reason...)
}

func decodeAbort(body []byte) (abort, error) {
	if len(body) < 1 {
		return abort{}, errShort
	}
	return abort{usage: body[0] == 1, reason: string(body[1:])}, nil
}

// predReply is a rank's answer to "what is the predecessor of this state":
// the predecessor's fingerprint and the action, or, for an initial state,
// its index among the initial states.
type predReply struct {
	known bool
	init  bool
	pred  uint64
	act   uint32
}

func (r predReply) encode() []byte {
	var flags byte
	if r.known {
		flags |= 1
	}
	if r.init {
		flags |= 2
	}
	buf := []byte{flags}
	buf = binary.LittleEndian.AppendUint64(buf, r.pred)
	return binary.LittleEndian.AppendUint32(buf, r.act)
}

func decodePredReply(b []byte) (predReply, error) {
	if len(b) != 13 {
		return predReply{}, fmt.Errorf("cluster: a predecessor reply of %d bytes, not 13", len(b))
	}
	return predReply{known: b[0]&1 != 0, init: b[0]&2 != 0, pred: binary.LittleEndian.Uint64(b[1:]), act: binary.LittleEndian.Uint32(b[9:])}, nil
}
