// Package cluster runs one breadth-first search over several processes
// (ranks) that exchange states through a NATS server.
//
// Each of K ranks owns the states whose fingerprint (the explorer's: XXH3
// with seed 0 over the canonical encoding) is k modulo K. A rank expands
// the states of the current level that it owns with its local workers
// (explorer.Worker.Expand, the explorer's one successor pipeline), and
// sends every successor, in batches, to the rank that owns it, on the
// subject vacheck.<run>.data.r<owner>.l<level>. When a rank has expanded
// its part of a level it sends every rank a "done" message that counts the
// batches it sent to that rank and carries its part of the level's
// figures; a rank closes the level only when it holds every rank's done
// message and every batch those count. So the search stays breadth first:
// each rank stores the new states of its part of the next level, keeping
// for each the predecessor with the smallest (fingerprint, action), and
// every rank takes the same decision (go on, stop at a violation, the end)
// from the same figures.
//
// The distinct states, transitions, depth and verdicts equal those of
// explorer.Check with Config.Strategy BFS. The counterexample is a
// shortest one: rank 0 rebuilds it by asking the owners of the states
// along the chain of predecessors (NATS request and reply), then replays it
// (explorer.Replay). Among the shortest, the explorer reports the first in
// its canonical order and a cluster the one reached through the smallest
// fingerprints, so the two may differ in their steps, never in their
// length.
//
// Failures end the run as incomplete: a rank not heard from (heartbeats on
// vacheck.<run>.ctl) or a connection to the server lost for longer than
// Config.Timeout, or a rank that never joined. Ranks that disagree on the
// model (Config.Digest) end it as a usage error that names the rank.
package cluster
