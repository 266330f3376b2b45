package automaton

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"
)

// Chan declares a channel with what a Link cannot say: a port name, so that
// an ordered pair of processes may have several channels, and the messages
// the channel holds at the start (messages in transit in every initial
// state).
//
// A channel with a port is sent to with Effects.SendPort, and a process
// learns the port of a message it receives from Effects.Port. Traces show
// the port after the pair, as in send(3)_{1,2:cw} and queue_{1,2:cw}, only
// where the pair has more than one channel.
type Chan[M Message] struct {
	From, To int
	// Port names the channel among those of the same pair; "" is the
	// pair's unnamed channel, the one Effects.Send and View.Chan use
	// (as a Link's channel is).
	Port string
	// Initial lists the messages the channel holds in every initial
	// state, head first for a FIFO channel (an unordered channel keeps
	// them in its canonical order).
	Initial []M
}

// portKey is a channel by its pair and its port.
type portKey struct {
	from, to int
	port     string
}

// chanAmbiguous in the table of channels by pair (System.chanIdx) marks a
// pair that has several channels, none of them unnamed: Send and Chan
// cannot tell which one is meant.
const chanAmbiguous = -2

// compileChans makes the System's channels: Config.Links, then
// Config.Chans, in that order. It fills chanIdx (from*n+to -> the pair's
// unnamed channel, its only channel, or -1 or chanAmbiguous), ports,
// showPort and portIdx, and sets sys.cfg.Links to every channel as a Link,
// keeping the Config's own in userLinks.
func (sys *System[S, M, P]) compileChans() error {
	cfg, n := &sys.cfg, sys.n
	sys.userLinks = cfg.Links
	links := slices.Clone(cfg.Links)
	ports := make([]string, len(cfg.Links))
	for _, c := range cfg.Chans {
		links = append(links, Link{c.From, c.To})
		ports = append(ports, c.Port)
	}
	sys.chanIdx = make([]int32, n*n)
	for i := range sys.chanIdx {
		sys.chanIdx[i] = -1
	}
	perPair := make([]int, n*n)
	seen := map[portKey]int32{}
	for c, l := range links {
		what := fmt.Sprintf("link %d->%d", l.From, l.To)
		if ports[c] != "" {
			what = fmt.Sprintf("channel %d->%d port %q", l.From, l.To, ports[c])
		}
		if l.From < 0 || l.From >= n || l.To < 0 || l.To >= n {
			return fmt.Errorf("%w: %s outside processes 0..%d", ErrConfig, what, n-1)
		}
		k := portKey{l.From, l.To, ports[c]}
		if _, dup := seen[k]; dup {
			return fmt.Errorf("%w: %s listed twice", ErrConfig, what)
		}
		if strings.ContainsAny(ports[c], "{},: ") {
			return fmt.Errorf("%w: %s: a port name has none of the characters {},: and space, which traces print around it", ErrConfig, what)
		}
		seen[k] = int32(c)
		perPair[l.From*n+l.To]++
	}
	sys.showPort = make([]bool, len(links))
	for c, l := range links {
		p := l.From*n + l.To
		sys.showPort[c] = perPair[p] > 1
		switch {
		case ports[c] == "" || perPair[p] == 1:
			sys.chanIdx[p] = int32(c)
		case sys.chanIdx[p] == -1:
			sys.chanIdx[p] = chanAmbiguous
		}
	}
	if len(cfg.Chans) > 0 {
		sys.ports, sys.portIdx = ports, seen
	}
	if cfg.PartialOrder != nil && slices.Contains(sys.showPort, true) {
		// Its independence reasons about pairs of processes.
		return fmt.Errorf("%w: PartialOrder with several channels between a pair of processes (ports) is not supported", ErrConfig)
	}
	cfg.Links = links
	return sys.checkMailbox()
}

// chanName returns the name traces give channel c: "1,2", or "1,2:cw"
// where the pair has more than one channel.
func (sys *System[S, M, P]) chanName(c int) string {
	l := sys.cfg.Links[c]
	if sys.showPort != nil && sys.showPort[c] {
		return fmt.Sprintf("%d,%d:%s", l.From+1, l.To+1, sys.ports[c])
	}
	return fmt.Sprintf("%d,%d", l.From+1, l.To+1)
}

// portOf returns the port of channel c, or "".
func (sys *System[S, M, P]) portOf(c int) string {
	if sys.ports == nil {
		return ""
	}
	return sys.ports[c]
}

// portIndex returns the index of the channel from process from to process
// to on port port, or -1.
func (sys *System[S, M, P]) portIndex(from, to int, port string) int {
	if sys.portIdx == nil {
		if port != "" {
			return -1
		}
		c := sys.chanIndex(from, to)
		if c < 0 {
			return -1
		}
		return c
	}
	if c, ok := sys.portIdx[portKey{from, to, port}]; ok {
		return int(c)
	}
	return -1
}

// encodeInitialChan appends to out channel c's segment in every initial
// state: its Config.Chans messages, encoded as sends encode them (with
// the instrumentation's trailer of a message sent before the run).
func (sys *System[S, M, P]) encodeInitialChan(out []byte, c int) []byte {
	k := c - len(sys.userLinks)
	if k < 0 || len(sys.cfg.Chans[k].Initial) == 0 {
		return appendSeg(out, nil)
	}
	var seg, buf []byte
	for _, m := range sys.cfg.Chans[k].Initial {
		buf = sys.mc.enc(unsafe.Pointer(&m), buf[:0])
		buf = append(buf, make([]byte, sys.trkMsg)...) // what the trackers keep starts at 0
		seg = sys.disc.Append(nil, seg, buf)
	}
	return appendSeg(out, seg)
}

// SendPort appends m to the channel from this process to process to on
// port port (Chan.Port). Sending on a channel that does not exist is a
// modelling error and stops the check.
func (fx *Effects[M]) SendPort(to int, port string, m M) { fx.sendPort(to, port, m) }

// TakePort is Take on the channel from process from to this one on port
// port (Chan.Port): it removes the message that channel would deliver
// next and returns it, in the same transition as the rest of the effect.
// Taking from an empty channel, or one that does not exist, is a
// modelling error and stops the check.
func (fx *Effects[M]) TakePort(from int, port string) M { return fx.take(from, &port, nil, false) }

// ConsumePort is Consume on the channel from process from to this one on
// port port: it removes one copy of m, where that channel can deliver it
// now.
func (fx *Effects[M]) ConsumePort(from int, port string, m M) { fx.take(from, &port, &m, true) }

// Port returns the port of the channel the message being received came
// over (Chan.Port), inside Receive; "" for a channel without a port, and
// outside Receive.
func (fx *Effects[M]) Port() string { return fx.port }

// sendPort performs send(m) on the channel from the effect's process to
// to on port.
func (w *worker[S, M, P]) sendPort(to int, port string, m M) {
	sys, self := w.sys, w.fx.self
	c := sys.portIndex(self, to, port)
	if c < 0 {
		panic(modelError{fmt.Sprintf("process %d sent %v to process %d on port %q, but there is no such channel %d→%d", self+1, m, to+1, port, self+1, to+1)})
	}
	w.sendOn(c, to, m)
}

// ChanPort returns the messages in the channel from process from to
// process to on port port (Chan.Port), head first (for an unordered
// channel, in canonical order), or nil if there is no such channel.
func (v *View[S, M]) ChanPort(from, to int, port string) []M {
	c := v.sys.portChan(from, to, port)
	if c < 0 {
		return nil
	}
	return v.chanAt(c)
}

// portChan is portIndex for a View.
func (sys *System[S, M, P]) portChan(from, to int, port string) int {
	if uint(from) >= uint(sys.n) || uint(to) >= uint(sys.n) {
		return -1
	}
	return sys.portIndex(from, to, port)
}
