#!/usr/bin/env python3
"""Independent enumeration of the formal Chang-Roberts model (docs/algorithms/chang-roberts.md).

Counts reachable states and transitions summed over all N! ID permutations
(vacheck's `--ids all`), to cross-check both SPIN and vacheck on small N:
    python3 bench/spin/enumerate.py 1 2 3 4 5
prints one JSON object per N: states, transitions, terminal states.
Expected relation to SPIN (see chang_roberts.pml):
    SPIN states stored = states + 1,  SPIN transitions = transitions + N! + 1.
Pure Python: N = 6 takes about 6 s, N = 7 about 4 min.
"""
import itertools, json, sys


def explore(n):
    states = transitions = terminal = 0
    for ids in itertools.permutations(range(1, n + 1)):
        # state: (send buffers, channels c[i] = (i, i+1), statuses)
        init = (tuple((u,) for u in ids), tuple(() for _ in range(n)), (0,) * n)
        seen = {init}
        stack = [init]
        while stack:
            sb, ch, st = stack.pop()
            succ = []
            for i in range(n):
                if sb[i]:  # send(v)_{i,i+1}
                    v = sb[i][0]
                    nsb = list(sb); nsb[i] = sb[i][1:]
                    nch = list(ch); nch[i] = ch[i] + (v,)
                    succ.append((tuple(nsb), tuple(nch), st))
                p = (i - 1) % n
                if ch[p]:  # receive(v)_{i-1,i}
                    v = ch[p][0]
                    nch = list(ch); nch[p] = ch[p][1:]
                    nsb = list(sb); nst = list(st)
                    if v > ids[i]:
                        nsb[i] = sb[i] + (v,)
                    elif v == ids[i]:
                        assert sum(nst) == 0 and v == n  # UNIQ, VALID
                        nst[i] = 1
                    succ.append((tuple(nsb), tuple(nch), tuple(nst)))
            if not succ:
                terminal += 1
            transitions += len(succ)
            for s in succ:
                if s not in seen:
                    seen.add(s)
                    stack.append(s)
        states += len(seen)
    return {"n": n, "states": states, "transitions": transitions, "terminal": terminal}


if __name__ == "__main__":
    for arg in sys.argv[1:] or ["5"]:
        print(json.dumps(explore(int(arg))), flush=True)
