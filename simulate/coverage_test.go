package simulate

import (
	"errors"
	"strings"
	"testing"
)

// TestCoverageNeedsCoverWorker: a model whose workers do not describe
// their transitions is refused.
func TestCoverageNeedsCoverWorker(t *testing.T) {
	g := &graph{init: []int{0}, next: func(s int) []edge {
		if s == 0 {
			return to(1)
		}
		return nil
	}}
	_, err := Simulate(g, Config{Runs: 1, Coverage: true})
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "do not describe their transitions") {
		t.Fatalf("err = %v, want ErrConfig: the workers do not describe their transitions", err)
	}
}
