// Package explorer searches the state space of a Model exhaustively, breadth
// first (the default, which gives shortest counterexamples) or depth first,
// with parallel workers, and checks its invariants and deadlock-freedom.
//
// States are deduplicated by 64-bit fingerprints (XXH3 with its fixed seed
// 0 over the canonical encoding), stored in open-addressing tables of
// fingerprints (fpSet, visitedSet) sharded one per worker, each state with
// an 8-byte record of its predecessor and action. Breadth-first search runs
// level by level: the workers expand chunks of the current level, contiguous
// ranges each claims in turn, then each inserts the successors that fall
// into its own shard, in canonical order, so no lock is taken and the result (counts, verdicts and
// counterexample) is the same for every worker count. The counterexample
// reported is the shortest, and among the shortest the one whose sequence of
// (initial state, action indices) comes first.
//
// # The contract with a model
//
// A Model gives its initial states, its properties and Workers. A Worker has
// three methods, all required: Expand, Check and ValidEnd. Expand is the one
// successor pipeline: it checks a state for the invariants the search wants
// (Expansion.Want), stops at a broken model assumption (Expansion.Stop), and
// lists the successors, offering each by a key before it is built
// (Expansion.Offer) or only a stubborn subset of them (Expansion.Reduce).
// Breadth-first and depth-first search, the liveness graph, the depth limit,
// checkpoints and trace replay all ask Expand, so a wrapper that forwards it
// keeps every path of the model it wraps. A hand-written worker that only
// lists successors implements Expand with ExpandBySuccessors; Successors
// lists the successors of any Worker.
//
// Depth first, the visited set may instead be a bitstate table
// (Config.Bitstate, Holzmann's supertrace): a Bloom filter in fixed memory
// that may omit states, so such a search never reports that a property
// holds; Swarm runs many of them, each with its own order of successors
// and hash functions.
//
// The optional interfaces say what a model or worker can do beyond that:
//
//	Model:  InitialStreamer  initial states one at a time, under the limits
//	Model:  InitialSampler   one initial state drawn uniformly, for simulation
//	        Describer        variables and action labels, for traces
//	        Explainer        why a state is as it is (who waits for whom)
//	        LiveModel        liveness properties and fairness tasks
//	        Symmetric        a group of process permutations (Config.Symmetry)
//	        Reducible        partial-order reduction (Config.Reduction)
//	        Instrumenter     metrics the model tracks (causal depth, ...)
//	        Coverable        its step names and message types, for coverage
//	Worker: Bounder          a state constraint (states outside it are checked, not expanded)
//	        CoverWorker      what each transition did, for coverage
//	        LiveWorker       the predicates of the liveness properties
//	        TypedWorker      messages of one type, for messages:TYPE
//	        TrackWorker      the worker of an instrumented model: each metric's kind and values
//
// # Files
//
//	doc.go               this map
//	model.go             the contract: Model, Worker, Expansion, the optional interfaces
//	config.go            Config, its strategies, reductions and fairness; Limit
//	errors.go            ErrConfig and ConfigError, worded in Config fields or flags
//	result.go            Result, verdicts, traces, and the Result of a search
//	search.go            Check: the search's setup, initial states
//	limits.go            the memory and time limits: the monitor, memory samples, reasons
//	counterexample.go    counterexamples and failures found, and their traces replayed
//	inorder.go           preferring a shortest counterexample without overtaking (InOrderer)
//	labels.go            FollowLabels: a path given by its transitions' labels
//	bottom.go            Bottom, the value ⊥ of an undefined variable
//	observe.go           Observable models: the layout properties read states through
//	bfs.go               breadth-first search: the level loop as named steps
//	bfs_limits.go        the state limit's cut of a level, the depth limit's look beyond
//	bucket.go            a BFS level: buckets of states in segments from a pool, verdicts,
//	                     giving expanded segments back (releaser)
//	chunks.go            a BFS level cut into chunks the workers claim in turn, and why
//	                     the result does not depend on who takes which
//	expand.go            BFS phase 1: expanding the chunks a worker claims (expander)
//	store.go             BFS phase 2: storing a shard's new states (inserter)
//	merge.go             the canonical merge into the next level, chunk by chunk as
//	                     phase 2 stores them (levelMerge), two stretches without branches
//	checks.go            BFS checks made at expansion (deferChecks), and per level
//	dfs.go               depth-first search and its cycle proviso
//	bitstate.go          the bitstate table of a bitstate search, its omission estimate
//	swarm.go             Swarm: many diversified bitstate searches
//	shard.go             Shard: one part of the initial states (check --shard)
//	coverage.go          coverage: transitions by step, message type, receive case
//	visited.go           the sharded visited set with predecessor records
//	fpset.go             open-addressing fingerprint tables
//	graph.go             the state graph for liveness and metrics: paths, SCCs
//	graph_record.go      recording the state graph during the BFS
//	graph_build.go       assembling the recorded graph, or exploring again
//	fpindex.go           the index from fingerprints to the graph's state numbers
//	spill.go             temporary files that keep fingerprints out of memory
//	fairness.go          fairness, and fair cycles in the state graph
//	liveness.go          the liveness check, and the phase on the state graph
//	stable.go            eventually always (Stable) on the state graph
//	track.go             tracked metrics: their kinds (path sum, sample, per key), TrackWorker
//	metrics.go           metrics on the state graph, their witnesses, instrumentation
//	symmetry.go          the quotient by a symmetry group (symModel, symWorker)
//	symmetry_trace.go    the quotient's runs mapped back to real traces and lassos
//	checkpoint.go        Checkpoint, and saving a search
//	checkpoint_load.go   loading and validating a checkpoint, and resuming from it
//	checkpoint_codec.go  the checkpoint file: atomic writes, checksum, encoding
package explorer
