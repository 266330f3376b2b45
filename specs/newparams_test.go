package specs

import "testing"

// TestNewParamsNamesFirstUnknownFlag: of several flags a spec does not
// take, NewParams names the first in alphabetical order, every time, not
// whichever a map walk met first (vacheck check central --objective x
// --initiators 9 said either flag from one run to the next).
func TestNewParamsNamesFirstUnknownFlag(t *testing.T) {
	t.Parallel()
	s, err := Lookup("central")
	if err != nil {
		t.Fatal(err)
	}
	flags := map[string]string{"objective": "x", "initiators": "9", "wakeup": "x", "ids": "x"}
	for range 50 {
		_, err := NewParams(s, flags)
		wantUsage(t, err, flags, "--ids does not apply to central; its parameters are --n, --requests, --requesters, --crashes")
	}
}
