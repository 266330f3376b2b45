package report

import (
	"strings"
	"testing"

	"github.com/vacheck/vacheck/explorer"
)

// TestFailureWithoutTraceSaysWhy: a run that failed with no state to show
// (the state graph for liveness could not be built, for instance) says the
// reason in its result line; it used to print "ERROR in the model" alone.
func TestFailureWithoutTraceSaysWhy(t *testing.T) {
	r := &explorer.Result{Status: explorer.Failed, Reason: "replaying the lasso reached another state"}
	var b strings.Builder
	if err := Text(&b, Run{Spec: "s", Result: r}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "result: ERROR in the model: replaying the lasso reached another state\n") {
		t.Errorf("the result does not say why:\n%s", b.String())
	}
}
