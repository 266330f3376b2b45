// Package simulate runs random simulations of a model: many runs, each from
// an initial state drawn uniformly and taking at each step one of the
// enabled transitions chosen uniformly, checking the safety properties,
// assertions and deadlock-freedom in every state visited. It reports how
// the runs ended, an estimate of the distinct states they visited, the
// counterexamples it found (shrunk, as property-based testers shrink
// theirs), and statistics of metrics such as the messages a run sends. It
// reaches sizes that an exhaustive search cannot (Chang-Roberts with 64
// processes and a random arrangement of IDs) and proves nothing: a
// simulation without a violation is incomplete, never ok.
//
// The output is a function of the model, the Config and its seed alone:
// run k draws from a random source seeded by (seed, k), and the figures of
// the runs are added up in a way that does not depend on which worker did
// which run.
//
// # Files
//
//	config.go   Config, its validation, the uniform choice of a transition
//	simulate.go Simulate, and the runs
//	result.go   Result, and adding up the runs' figures
//	shrink.go   shrinking counterexamples, replaying runs by action labels
//	sketch.go   the HyperLogLog sketch of the distinct states
//	stats.go    the statistics of a metric: mean, percentiles, histogram
//	formula.go  formulas over n, for the curves of a simulated sweep
package simulate
