package report

import "testing"

func TestRerunCommand(t *testing.T) {
	base := []string{"vacheck", "check", "lelann", "--n", "3", "--ids", "all"}
	tests := []struct {
		init map[string]string
		want string
	}{
		{nil, ""},
		{map[string]string{}, "vacheck check lelann --n 3 --ids all"},
		{map[string]string{"ids": "2,1,3"}, "vacheck check lelann --n 3 --ids 2,1,3"},
		{map[string]string{"ids": "2,1,3", "initiators": "1,3"}, "vacheck check lelann --n 3 --ids 2,1,3 --initiators 1,3"},
		{map[string]string{"topology": "a b", "initiators": "it's"}, `vacheck check lelann --n 3 --ids all --initiators 'it'\''s' --topology 'a b'`},
	}
	for _, tt := range tests {
		if got := RerunCommand(base, tt.init); got != tt.want {
			t.Errorf("RerunCommand(%v) = %q, want %q", tt.init, got, tt.want)
		}
	}
	if base[6] != "all" {
		t.Errorf("RerunCommand changed its base: %v", base)
	}
}
