package specs

import (
	"fmt"
	"testing"
)

// TestPerEntryFigures pins the messages per critical-section entry and the
// synchronisation delay of the mutual-exclusion specs against
// docs/algorithms/README.md (and section 3), exact minimum and maximum over
// every complete execution, with witnesses. Each case names the figure it
// instantiates.
func TestPerEntryFigures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		spec               string
		flags              map[string]string
		entryMin, entryMax int64
		syncMin, syncMax   int64 // -1: no sample (nobody waits at an exit)
		why                string
	}{
		// 2.1: exactly 3 per entry (REQUEST, REPLY, RELEASE), sync delay 2
		// (RELEASE to K, REPLY from K); also with two entries per client,
		// whose RELEASE and next REQUEST may reach K in either order.
		{"central", map[string]string{"n": "3"}, 3, 3, 2, 2, "3 per entry, sync 2"},
		{"central", map[string]string{"n": "2", "requests": "2"}, 3, 3, 2, 2, "3 per entry, sync 2"},
		// 2.3: exactly 2(N−1) per entry, sync delay 1 (the deferred REPLY).
		{"ricart-agrawala", map[string]string{"n": "3"}, 4, 4, 1, 1, "2(N−1) = 4"},
		{"ricart-agrawala", map[string]string{"n": "2", "requests": "2"}, 2, 2, 1, 1, "2(N−1) = 2"},
		// 2.4: 0 … 2(N−1): the first entry asks everybody, a repeated one
		// with every permission kept asks nobody.
		{"carvalho-roucairol", map[string]string{"n": "3", "requesters": "1", "requests": "2"}, 0, 4, -1, -1, "0 … 2(N−1) = 4"},
		{"carvalho-roucairol", map[string]string{"n": "3", "requests": "2"}, 0, 4, 1, 1, "0 … 2(N−1) = 4"},
		// 2.10: N per entry (N−1 REQUESTs and the TOKEN), 0 when the token
		// is held (process 1 starts with it); sync delay 1 (the TOKEN).
		{"suzuki-kasami", map[string]string{"n": "3"}, 0, 3, 1, 1, "0 … N = 3"},
		{"suzuki-kasami", map[string]string{"n": "4", "requesters": "2"}, 4, 4, -1, -1, "N = 4 for a process without the token"},
		// 2.12: 0 … N per entry; process k alone asks the k−1 processes
		// below it and gets the TOKEN: k messages.
		{"singhal", map[string]string{"n": "3"}, 0, 3, 1, 1, "0 … N = 3"},
		{"singhal", map[string]string{"n": "4", "requesters": "4"}, 4, 4, -1, -1, "process N alone: N"},
		// 2.11: ≤ 2d per entry and a sync delay ≤ d hops (d the tree's
		// diameter): a lone requester at distance dist from the token costs
		// exactly 2·dist (line of N: d = N−1), and 0 once it holds the
		// token; with everybody requesting the worst entry reaches 2d
		// exactly (line 4: 6, line 5: 8, star 5: d = 2, 4).
		{"raymond", map[string]string{"n": "4", "requesters": "4"}, 6, 6, -1, -1, "2d = 6"},
		{"raymond", map[string]string{"n": "3", "requesters": "3", "requests": "2"}, 0, 4, -1, -1, "2d = 4, then 0"},
		{"raymond", map[string]string{"n": "4"}, 0, 6, 1, 3, "≤ 2d = 6, sync ≤ d = 3"},
		{"raymond", map[string]string{"n": "5", "topology": "star"}, 0, 4, 1, 2, "≤ 2d = 4, sync ≤ d = 2"},
		// 2.8 against 2.7 on the same grid quorums (K = 3): 3(K−1) = 6 per
		// entry without conflict; sync delay 1 hop against Maekawa's 2.
		{"cao-singhal", map[string]string{"n": "4", "quorums": "grid", "requesters": "1"}, 6, 6, -1, -1, "3(K−1) = 6"},
		{"cao-singhal", map[string]string{"n": "4", "quorums": "grid", "requesters": "1,4"}, 6, 12, 1, 1, "sync 1"},
		{"maekawa", map[string]string{"n": "4", "quorums": "grid", "requesters": "1,4"}, 6, 10, 2, 2, "sync 2"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.spec, c.flags), func(t *testing.T) {
			r := metricRun(t, c.spec, c.flags, []string{}, "messages-per-entry", "sync-delay")
			wantRange(t, c.why, r.Metrics[0], c.entryMin, c.entryMax)
			if c.syncMin < 0 {
				if r.Metrics[1].Executions {
					t.Errorf("%s: sync-delay %+v, want no sample", c.why, r.Metrics[1])
				}
				return
			}
			wantRange(t, c.why, r.Metrics[1], c.syncMin, c.syncMax)
		})
	}
}
