package cluster

// rec is what a rank keeps of each state it owns: its predecessor's
// fingerprint and the action from it, or for an initial state its index
// among the initial states.
type rec struct {
	pred uint64
	act  uint32
	init bool
}

// states is a list of states in one arena.
type states struct {
	arena []byte
	ends  []int
	fps   []uint64
}

func (s *states) add(st []byte, fp uint64) {
	s.arena = append(s.arena, st...)
	s.ends = append(s.ends, len(s.arena))
	s.fps = append(s.fps, fp)
}

func (s *states) len() int { return len(s.fps) }

func (s *states) state(i int) []byte {
	lo := 0
	if i > 0 {
		lo = s.ends[i-1]
	}
	return s.arena[lo:s.ends[i]:s.ends[i]]
}

// candidates are the successors a rank received for one level: each state
// once, with the smallest (predecessor fingerprint, action) it was
// reached by, so that the choice depends neither on the order the
// batches came in nor on the number of ranks; and the done messages of
// the level, with the batches received from each rank.
type candidates struct {
	index map[uint64]int
	sts   states
	preds []uint64
	acts  []uint32
	got   []int64 // per rank: batches received
	done  []*part // per rank: its done message, or nil
	ndone int
}

func newCandidates(ranks int) *candidates {
	return &candidates{index: map[uint64]int{}, got: make([]int64, ranks), done: make([]*part, ranks)}
}

// offer adds the successor st with fingerprint fp, reached from pred by
// act, or keeps the smaller predecessor if st is there already.
func (c *candidates) offer(st []byte, fp, pred uint64, act uint32) {
	if i, ok := c.index[fp]; ok {
		if pred < c.preds[i] || pred == c.preds[i] && act < c.acts[i] {
			c.preds[i], c.acts[i] = pred, act
		}
		return
	}
	c.index[fp] = c.sts.len()
	c.sts.add(st, fp)
	c.preds = append(c.preds, pred)
	c.acts = append(c.acts, act)
}

// closed reports whether every rank's done message has come, and every
// batch it counts (or, early, the done messages alone).
func (c *candidates) closed(early bool) bool {
	if c.ndone < len(c.done) {
		return false
	}
	if early {
		return true
	}
	for r, p := range c.done {
		if c.got[r] < p.batches {
			return false
		}
	}
	return true
}
