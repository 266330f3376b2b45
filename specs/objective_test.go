package specs

import (
	"errors"
	"testing"
)

// TestObjective checks the comparisons every election spec makes through
// --objective: max prefers larger IDs, min smaller ones, and a bad value is
// a usage error naming the flag.
func TestObjective(t *testing.T) {
	t.Parallel()
	ids := []int{3, 1, 4, 2}
	for _, c := range []struct {
		o          objective
		best, wins int // the best ID, and its index in ids
		beats      bool
	}{
		{objMax, 4, 2, true},  // 3 beats 1
		{objMin, 1, 1, false}, // 1 beats 3
	} {
		if got := c.o.best(ids...); got != c.best {
			t.Errorf("%v: best = %d, want %d", c.o, got, c.best)
		}
		if got := c.o.winner(ids); got != c.wins {
			t.Errorf("%v: winner = %d, want %d", c.o, got, c.wins)
		}
		if got := c.o.beats(3, 1); got != c.beats {
			t.Errorf("%v: beats(3, 1) = %v, want %v", c.o, got, c.beats)
		}
		if c.o.beats(2, 2) {
			t.Errorf("%v: an ID beats itself", c.o)
		}
	}
	if objMax.winner(nil) != -1 {
		t.Error("winner of no IDs is not -1")
	}
	s, err := Lookup("chang-roberts")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := NewParams(s, map[string]string{"objective": "median"})
	if _, err := parseObjective(p); !errors.Is(err, ErrUsage) {
		t.Errorf("--objective median: err %v, want ErrUsage", err)
	}
}
