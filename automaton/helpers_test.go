package automaton_test

import "flag"

// long runs the slow parts of the tests in full: TestPartialOrderPreserves
// checks 80 random systems instead of 25. The default run (go test ./...
// must take under 2 minutes on 2 cores) checks the first 25, which cover
// every process count and both channel disciplines. .ci/run passes it:
// go test ./specs ./automaton -args -long.
var long = flag.Bool("long", false, "also check the large instances (80 random systems for partial-order reduction instead of 25)")
