package automaton

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/explorer"
)

// keyProc is a process whose encoding grows past 7 bytes (keyed by XXH3)
// and past 127 (a length header of two bytes), with a constant field, an
// assertion, an Acceptor and a recovery.
type keyProc struct {
	Sender bool `vacheck:"-"`
	Sent   int
	Log    string
	Tail   []int32
}

func (p *keyProc) Steps(_ *View[keyProc, string], out []Step) []Step {
	if p.Sent < 3 {
		out = append(out, Out("send", 1))
	}
	if len(p.Tail) < 2 {
		out = append(out, Step{Kind: Internal, Name: "tick"})
	}
	return out
}

func (p *keyProc) Do(s Step, fx *Effects[string]) {
	if s.Name == "tick" {
		p.Tail = append(p.Tail, int32(len(p.Log)))
		return
	}
	p.Sent++
	to := (fx.Self() + 1) % 2
	// lengths 3, 60, 130: short, xxh3, and over the 1-byte varint
	fx.Send(to, strings.Repeat(string(rune('a'+p.Sent)), []int{0, 3, 60, 130}[p.Sent]))
	if p.Sent == 1 {
		fx.Send(to, "z") // a second message to the same channel
	}
	fx.Assert("small", p.Sent < 3 || fx.Self() == 0)
}

// Receive depends on whether the sender is up (the environment's segment).
func (p *keyProc) Receive(from int, m string, fx *Effects[string]) {
	if !fx.Up(from) {
		m = strings.ToUpper(m)
	}
	p.Log += m
	p.Tail = append(p.Tail, int32(len(m)))
}

func (p *keyProc) Accepts(_ int, m string) bool { return len(m) != 60 || len(p.Log) > 0 }

func (p *keyProc) Recover(fx *Effects[string]) { p.Log = ""; p.Tail = nil }

// TestKeyedOffersTheKeyOfTheSuccessor: on every reachable state of a
// system with FIFO and unordered channels, with and without crashes and
// recoveries, the key CheckExpandKeyed offers for each transition is the
// key of the successor it builds, computed from that encoding alone
// (stateKey), and the successor and transition are the ones Successors
// builds.
func TestKeyedOffersTheKeyOfTheSuccessor(t *testing.T) {
	for _, disc := range []channel.Discipline{channel.FIFO, channel.Unordered} {
		for _, faults := range []int{0, 1} {
			t.Run(fmt.Sprintf("%v/faults=%d", disc, faults), func(t *testing.T) {
				sys, err := New[keyProc, string, *keyProc](Config[keyProc, string]{
					Initial:    [][]keyProc{{{Sender: true}, {}}},
					Links:      Complete(2, true),
					Channels:   disc,
					Crashes:    faults,
					Recoveries: faults,
					Assertions: []Assertion{{Name: "small"}},
				})
				if err != nil {
					t.Fatal(err)
				}
				a, b, c := sys.newWorker(), sys.newWorker(), sys.newWorker()
				if !a.keyed {
					t.Fatal("not keyed")
				}
				init, _ := sys.Initial()
				long, big := 0, 0
				states := walk(init, 20000, func(st []byte) [][]byte {
					var keys []uint64
					var nexts [][]byte
					var ts, plainTs []explorer.Transition
					_, err := a.Expand(st, &explorer.Expansion{Offer: func(_ explorer.Transition, k uint64) bool {
						keys = append(keys, k)
						return true
					}, Emit: func(t explorer.Transition, next []byte) {
						nexts = append(nexts, bytes.Clone(next))
						ts = append(ts, t)
					}})
					if err != nil {
						t.Fatal(err)
					}
					var plain [][]byte
					if _, err := explorer.Successors(c, st, func(t explorer.Transition, next []byte) {
						plain = append(plain, bytes.Clone(next))
						plainTs = append(plainTs, t)
					}); err != nil {
						t.Fatal(err)
					}
					if len(plain) != len(nexts) {
						t.Fatalf("%d vs %d successors", len(plain), len(nexts))
					}
					for i, next := range nexts {
						if !bytes.Equal(next, plain[i]) || ts[i] != plainTs[i] {
							t.Fatalf("state %x: successor %d differs:\n%x %+v\n%x %+v", st, i, next, ts[i], plain[i], plainTs[i])
						}
						b.load(&b.v, next)
						ks := make([]uint64, len(b.v.bounds))
						if want := stateKey(&b.v, ks, b.emptyKeys); want != keys[i] {
							t.Fatalf("state %x: successor %d %x: offered key %x, stateKey %x", st, i, next, keys[i], want)
						}
						for k := 0; k < len(ks); k++ {
							if l := b.v.bounds[k][1] - b.v.bounds[k][0]; l > 7 {
								long++
								if l >= 128 {
									big++
								}
							}
						}
					}
					return nexts
				})
				t.Logf("%d states, %d long segments, %d >=128", states, long, big)
				if big == 0 {
					t.Fatal("no segment of 128 bytes")
				}
			})
		}
	}
}

// loopProc sends to itself and to the other process, and on a delivery
// may send to itself again: a delivery that appends to the channel it
// takes from, in one remembered effect.
type loopProc struct {
	Sent, Got int
}

func (p *loopProc) Steps(v *View[loopProc, int], out []Step) []Step {
	if p.Sent < 2 {
		out = append(out, Broadcast("send"))
	}
	return out
}

func (p *loopProc) Do(_ Step, fx *Effects[int]) {
	p.Sent++
	fx.Send(fx.Self(), 2)
	fx.Send(1-fx.Self(), 1)
}

func (p *loopProc) Receive(from int, m int, fx *Effects[int]) {
	p.Got += m
	if m > 1 && from == fx.Self() {
		fx.Send(fx.Self(), m-1)
	}
}

// TestKeyedLazyKeys: the keys a keyed worker computes for remembered
// effects without the channels' new segments (lazyKey) are those of the
// successors built, on a FIFO system where a delivery appends to the
// channel it takes from, and the successors are Successors's.
func TestKeyedLazyKeys(t *testing.T) {
	sys, err := New[loopProc, int, *loopProc](Config[loopProc, int]{
		Initial: [][]loopProc{{{}, {}}},
		Links:   Complete(2, true),
	})
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := sys.newWorker(), sys.newWorker(), sys.newWorker()
	init, _ := sys.Initial()
	lazy := 0
	states := walk(init, 0, func(st []byte) (succ [][]byte) {
		var keys []uint64
		var nexts []string
		if _, err := a.Expand(st, &explorer.Expansion{Offer: func(_ explorer.Transition, k uint64) bool {
			keys = append(keys, k)
			return true
		}, Emit: func(tr explorer.Transition, next []byte) {
			nexts = append(nexts, fmt.Sprintf("%+v %x", tr, next))
			b.load(&b.v, next)
			ks := make([]uint64, len(b.v.bounds))
			if want := stateKey(&b.v, ks, b.emptyKeys); want != keys[len(keys)-1] {
				t.Fatalf("state %x: successor %x: offered key %x, stateKey %x", st, next, keys[len(keys)-1], want)
			}
			succ = append(succ, bytes.Clone(next))
		}}); err != nil {
			t.Fatal(err)
		}
		if want := successorsOf(t, c, st); fmt.Sprint(nexts) != fmt.Sprint(want) {
			t.Fatalf("state %x: keyed %v, plain %v", st, nexts, want)
		}
		for _, m := range a.v.ents[0].memos {
			if m.used && m.packed && m.input && slices.ContainsFunc(m.pieces, func(p memoPiece) bool { return int(p.c) == m.ch }) {
				lazy++
			}
		}
		return succ
	})
	t.Logf("%d states; %d remembered deliveries that append to their own channel (summed over states)", states, lazy)
	if lazy == 0 {
		t.Fatal("no remembered delivery appends to its own channel")
	}
}

// walk visits the states reachable from init breadth first, each once,
// until it has visited limit of them (0: no limit); visit returns a
// state's successors. It returns how many states it visited.
func walk(init [][]byte, limit int, visit func(st []byte) [][]byte) int {
	queue, seen := init, map[string]bool{}
	for len(queue) > 0 && (limit == 0 || len(seen) < limit) {
		st := queue[0]
		queue = queue[1:]
		if seen[string(st)] {
			continue
		}
		seen[string(st)] = true
		queue = append(queue, visit(st)...)
	}
	return len(seen)
}
