package specs

import (
	"errors"
	"strings"
	"testing"
)

// TestOneOf: Params.oneOf returns an allowed word and records it as the
// flag's canonical value; a word outside the values fails with the flag,
// the value and what is allowed, records nothing and returns ""; and after
// an earlier error it reads nothing, keeping that error (sticky).
func TestOneOf(t *testing.T) {
	t.Parallel()
	s, err := Lookup("maekawa")
	if err != nil {
		t.Fatal(err)
	}
	const why = "allowed values are a and b"
	read := func(given map[string]string, before error) (string, *Params) {
		t.Helper()
		p, err := NewParams(s, given)
		if err != nil {
			t.Fatal(err)
		}
		p.Fail(before)
		return p.oneOf("yield", why, "a", "b"), p
	}

	if v, p := read(map[string]string{"yield": "b"}, nil); v != "b" || p.Err() != nil || p.Canonical()["yield"] != "b" {
		t.Errorf("--yield b: got %q, err %v, canonical %v; want b, no error, b recorded", v, p.Err(), p.Canonical()["yield"])
	}
	v, p := read(map[string]string{"yield": "x"}, nil)
	if v != "" || p.Err() == nil || !strings.Contains(p.Err().Error(), "--yield x: "+why) {
		t.Errorf("--yield x: got %q, err %v; want \"\" and an error naming --yield x and %q", v, p.Err(), why)
	}
	if _, ok := p.Canonical()["yield"]; ok {
		t.Errorf("--yield x: a refused value was recorded as canonical: %v", p.Canonical()["yield"])
	}
	first := errors.New("an earlier flag was wrong")
	if v, p := read(map[string]string{"yield": "b"}, first); v != "" || p.Err() != first {
		t.Errorf("after an earlier error: got %q, err %v; want \"\" and the earlier error kept", v, p.Err())
	}
}
