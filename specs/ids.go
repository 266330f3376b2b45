package specs

import (
	"iter"
	"strconv"
	"strings"

	"github.com/vacheck/vacheck/channel"
	"github.com/vacheck/vacheck/internal/input"
)

// maxAllN bounds --n for --ids all: N! initial states.
const maxAllN = 9

// maxN bounds --n for every spec (crash bookkeeping uses a 64-bit mask).
const maxN = 64

var idsParam = Param{
	Flag:    "ids",
	Default: "all",
	Usage:   "ID arrangement: increasing or decreasing (along the direction messages travel), a list such as 3,1,2, or all (every permutation of 1..N)",
}

// parseIDs reads --ids for n processes and returns one ID vector per
// initial state.
func parseIDs(p *Params, n int) ([][]int, error) {
	v := p.String("ids")
	switch v {
	case "increasing", "decreasing":
		ids := make([]int, n)
		for i := range ids {
			ids[i] = i + 1
			if v == "decreasing" {
				ids[i] = n - i
			}
		}
		p.Set("ids", v)
		return [][]int{ids}, nil
	case "all":
		if n > maxAllN {
			return nil, Usagef("n", strconv.Itoa(n), "too large for --ids all (N! initial states); allowed: 1 to %d", maxAllN)
		}
		p.Set("ids", v)
		return permutations(n), nil
	}
	const allowed = "give N distinct positive integers separated by commas, or increasing, decreasing, all"
	if strings.TrimSpace(v) == "" {
		return nil, Usagef("ids", `""`, "empty; %s", allowed)
	}
	parts := strings.Split(v, ",")
	ids := make([]int, len(parts))
	seen := map[int]bool{}
	for i, s := range parts {
		id, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || id <= 0 {
			return nil, Usagef("ids", input.Clip(v), "%q is not a positive integer; %s", input.Clip(s), allowed)
		}
		if seen[id] {
			return nil, Usagef("ids", input.Clip(v), "ID %d appears twice; IDs must be distinct", id)
		}
		seen[id] = true
		ids[i] = id
	}
	if len(ids) != n {
		return nil, Usagef("ids", input.Clip(v), "%d IDs given for --n %d; %s", len(ids), n, allowed)
	}
	p.Set("ids", v)
	return [][]int{ids}, nil
}

// ids is parseIDs with a sticky error (Params.Err).
func (p *Params) ids(n int) [][]int {
	return sticky(p, func() ([][]int, error) { return parseIDs(p, n) })
}

// initialStates yields one initial state for every ID vector of idsets
// and, when inits is not nil, every initiator set of inits (IDs outer, sets
// inner), each built as it is asked for: process i is proc(i, ids[i],
// set[i]), with set[i] false when inits is nil.
func initialStates[S any](idsets [][]int, inits [][]bool, proc func(i, id int, init bool) S) iter.Seq[[]S] {
	return func(yield func([]S) bool) {
		for _, ids := range idsets {
			for k := 0; k < max(len(inits), 1); k++ {
				procs := make([]S, len(ids))
				for i, id := range ids {
					procs[i] = proc(i, id, inits != nil && inits[k][i])
				}
				if !yield(procs) {
					return
				}
			}
		}
	}
}

// permutations returns every permutation of 1..n in lexicographic order.
func permutations(n int) [][]int {
	var out [][]int
	perm := make([]int, n)
	used := make([]bool, n+1)
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			out = append(out, append([]int(nil), perm...))
			return
		}
		for v := 1; v <= n; v++ {
			if !used[v] {
				used[v], perm[k] = true, v
				rec(k + 1)
				used[v] = false
			}
		}
	}
	rec(0)
	return out
}

// ChannelFlags is Channels with a sticky error: it records Channels' error
// (see Err) and returns zero values instead. Once p has an error it returns
// zero values without reading the flags.
func (p *Params) ChannelFlags(def channel.Discipline, defCap int) (channel.Discipline, int) {
	if p.err != nil {
		return 0, 0
	}
	disc, capacity, err := p.Channels(def, defCap)
	p.Fail(err)
	return disc, capacity
}

// Channels reads the common parameters --channels and --capacity that
// every spec takes, with the spec's defaults: the discipline the algorithm
// assumes and a capacity that bounds every channel. A bad value is an
// ErrUsage error naming the flag and what is allowed. The values chosen are
// recorded (Set) for the report's header and its JSON.
func (p *Params) Channels(def channel.Discipline, defCap int) (channel.Discipline, int, error) {
	disc := def
	if p.Given("channels") {
		d, err := channel.Parse(p.String("channels"))
		if err != nil {
			return 0, 0, Usagef("channels", p.String("channels"), "allowed values are fifo and unordered")
		}
		disc = d
	}
	p.Set("channels", disc.String())
	capacity := defCap
	if p.Given("capacity") {
		c, err := p.Int("capacity", 1, 1<<20)
		if err != nil {
			return 0, 0, err
		}
		capacity = c
	}
	p.Set("capacity", capacity)
	return disc, capacity, nil
}
