package explorer

// WithChunks returns cfg set to cut every level of a breadth-first search
// on several workers into chunks of n states (Config.chunkLen), dealt
// round-robin to the workers when deal is set (Config.chunkDeal), for the
// tests of package explorer_test: knobs of the tests, not of the API.
func WithChunks(cfg Config, n int, deal bool) Config {
	cfg.chunkLen, cfg.chunkDeal = n, deal
	return cfg
}
