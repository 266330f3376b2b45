package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/vacheck/vacheck/specs"
)

// TestSpecMistakesExit4: a spec that claims a property its model does not
// offer is the spec's mistake, reported as such with exit code 4 (the
// model failed), not as a usage error of the command line (exit 2).
func TestSpecMistakesExit4(t *testing.T) {
	t.Parallel()
	cr, err := specs.Lookup("chang-roberts")
	if err != nil {
		t.Fatal(err)
	}
	cr.Name, cr.Broken = "claims-too-much", nil
	cr.Claims = append(append([]string(nil), cr.Claims...), "lemma2")
	var out, errb bytes.Buffer
	code := runContext(noProgress(context.Background()), []string{"vacheck", "check", "claims-too-much", "--n", "3"}, &out, &errb, []specs.Spec{cr})
	if code != exitModel || !strings.Contains(errb.String(), "the spec is wrong: claims-too-much claims the property lemma2, which its model does not offer") {
		t.Errorf("exit %d, %q; want 4 and the spec named as wrong", code, errb.String())
	}
}
