package specs

import (
	"testing"
)

// TestEveryParameterIsReported: every parameter of every spec that applies
// with the defaults of the others appears in the parameters a model reports
// it was built with (the header of a report, its JSON params, a sweep's
// certificates), so that the command a report prints rebuilds the same
// model. lamport's --clocks was once left out.
func TestEveryParameterIsReported(t *testing.T) {
	t.Parallel()
	for _, s := range Catalog() {
		p, err := NewParams(s, map[string]string{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Build(p); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		for _, q := range s.Params {
			if _, ok := p.Canonical()[q.Flag]; ok {
				continue
			}
			// Left out only where it does not apply: given, it is refused.
			pq, err := NewParams(s, map[string]string{q.Flag: q.Default})
			if err == nil {
				_, err = s.Build(pq)
			}
			if err == nil {
				t.Errorf("%s: --%s is not among the parameters it reports, though it applies: %v", s.Name, q.Flag, p.Canonical())
			}
		}
	}
}
