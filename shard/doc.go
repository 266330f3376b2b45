// Package shard splits a check by initial state into parts that run
// apart (on the nodes of a Kubernetes Indexed Job, the tasks of a Slurm
// array, or one after another), and merges what the parts found into the
// figures of the whole check.
//
// A part is an explorer.Shard: the initial states whose index in the
// model's enumeration is k modulo K. Each part runs an ordinary
// breadth-first check from its initial states (explorer.Config.Shard),
// with a Recorder attached (explorer.Config.OnExpand) that establishes how
// the parts' counts combine:
//
//   - Disjoint: the model declares a constant part of its states
//     (explorer.ConstantWorker, automaton.Config.Constant: the ID
//     arrangement), the initial states' constant parts are pairwise
//     distinct, and the Recorder checks in every state the part expands
//     that its constant part is that of one of the part's initial states.
//     No state is then explored by two parts: states, transitions and
//     terminal states add up, and the depth is the largest.
//   - Otherwise the Recorder keeps, for every state the part expands, its
//     fingerprint, BFS depth and transition count, and writes them to a
//     file sorted by fingerprint (WriteSet). MergeSets merges the parts' files
//     in one streaming pass (a K-way merge, in memory bounded by K read
//     buffers): a state met by several parts counts once, with its
//     smallest depth, which is its depth in the whole search.
//
// Either way the merged counts are those of the unsharded check.
package shard
