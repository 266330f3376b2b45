package specs

// objective is the election objective of docs/properties.md:
// elect the process with the maximum ID (the default) or, with
// --objective min, the minimum. The MIN variant reverses every ID
// comparison, so a spec writes its comparisons with beats and best and gets
// both.
type objective uint8

const (
	objMax objective = 1 + iota
	objMin
)

// objectiveParam is the --objective parameter every election spec takes.
var objectiveParam = Param{
	Flag:    "objective",
	Default: "max",
	Usage:   "which ID wins the election: max or min",
}

// parseObjective reads --objective.
func parseObjective(p *Params) (objective, error) {
	switch v := p.String("objective"); v {
	case "max":
		p.Set("objective", v)
		return objMax, nil
	case "min":
		p.Set("objective", v)
		return objMin, nil
	default:
		return 0, Usagef("objective", v, "allowed: max or min")
	}
}

// objective is parseObjective with a sticky error (Params.Err).
func (p *Params) objective() objective {
	return sticky(p, func() (objective, error) { return parseObjective(p) })
}

// beats reports whether ID a wins against ID b: a > b for max, a < b for
// min.
func (o objective) beats(a, b int) bool {
	if o == objMin {
		return a < b
	}
	return a > b
}

// best returns the winning ID among ids (which must not be empty).
func (o objective) best(ids ...int) int {
	w := ids[0]
	for _, id := range ids[1:] {
		if o.beats(id, w) {
			w = id
		}
	}
	return w
}

// winner returns the index of the winning ID among ids, or -1 if there is
// none.
func (o objective) winner(ids []int) int {
	w := -1
	for i, id := range ids {
		if w < 0 || o.beats(id, ids[w]) {
			w = i
		}
	}
	return w
}

// String returns "max" or "min".
func (o objective) String() string {
	if o == objMin {
		return "min"
	}
	return "max"
}
