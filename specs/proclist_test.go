package specs

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// TestParseProcList: the grammar shared by --initiators, --requesters and
// --detectors. Distinct numbers 1..n, commas with spaces around each
// element, give the membership vector and its canonical form in ascending
// order. A bad element is a usage error on the flag, and the caller's
// wording says why: not a number, outside 1..n (or not a number when the
// caller has no wording for it), listed twice.
func TestParseProcList(t *testing.T) {
	t.Parallel()
	why := procListWhy{
		notNumber: func(elem string) string { return fmt.Sprintf("nan %q", elem) },
		outside:   func(i int) string { return fmt.Sprintf("outside %d", i) },
		twice:     func(i int) string { return fmt.Sprintf("twice %d", i) },
	}
	for _, c := range []struct {
		list  string
		set   []bool
		canon string
		err   string
	}{
		{"3, 1", []bool{true, false, true, false}, "1,3", ""},
		{" 4 ", []bool{false, false, false, true}, "4", ""},
		{"1,x", nil, "", `bad usage: --f 1,x: nan "x"`},
		{"2,5", nil, "", "bad usage: --f 2,5: outside 5"},
		{"2,0", nil, "", "bad usage: --f 2,0: outside 0"},
		{"2, 2", nil, "", "bad usage: --f 2, 2: twice 2"},
		{"", nil, "", `bad usage: --f : nan ""`},
	} {
		set, err := parseProcList("f", c.list, 4, why)
		if c.err != "" {
			if !errors.Is(err, ErrUsage) || err.Error() != c.err {
				t.Errorf("%q: %v, want %q", c.list, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(set, c.set) || procListCanon(set) != c.canon {
			t.Errorf("%q: %v %q %v, want %v %q", c.list, set, procListCanon(set), err, c.set, c.canon)
		}
	}
	// Without wording for outside, a number outside 1..n is not a number.
	if _, err := parseProcList("f", "9", 4, procListWhy{notNumber: why.notNumber, twice: why.twice}); err == nil || err.Error() != `bad usage: --f 9: nan "9"` {
		t.Errorf("outside without its wording: %v", err)
	}
}
