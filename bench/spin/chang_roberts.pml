/*
 * Chang-Roberts leader election on a unidirectional ring, the formal model of
 * docs/algorithms/chang-roberts.md (reliable FIFO channels), for the
 * side-by-side benchmark against vacheck (`vacheck check chang-roberts
 * --n N --ids all`).  See ../README.md and ../compare.sh.
 *
 *   spin -DN=6 -a chang_roberts.pml
 *   gcc -O2 -DNOREDUCE -DSAFETY -DMEMLIM=16000 -o pan pan.c
 *   ./pan -m1000000 -w23
 *
 * Model.  Process i (0..N-1) has ID u_i (constant), a FIFO send buffer sb[i]
 * initially [u_i] and status in {unknown, chosen}.  c[i] is the reliable FIFO
 * channel from i to i+1 mod N.  Two transitions per process, each exactly ONE
 * SPIN step (one d_step):
 *   send(v)_{i,i+1}     pre: sb[i] non-empty, v = head;  eff: pop sb[i], append v to c[i]
 *   receive(v)_{i-1,i}  pre: v = head of c[i-1];  eff: pop it; v > u: append v to sb[i];
 *                       v = u: status := chosen; v < u: discard
 * The process's control point never leaves the `do` head between steps, so the
 * program counters add no states.  The scratch variable v is `hidden` (not in the
 * state vector) and reset to 0 anyway, so no leftover value distinguishes states.
 * Channels have capacity N: every ID occurs at most once in all buffers and
 * channels together, so a send never blocks (a blocked d_step would be an error).
 *
 * Safety work (same as vacheck's UNIQ/VALID): when a process becomes chosen we
 * assert that nobody was chosen before (UNIQ, "never two chosen") and that its
 * ID is the maximum N (VALID).  nleaders is a function of the statuses, so it
 * adds no states.  Terminal states are legal end states (label `end`): with all
 * processes starting, every run ends with empty channels and buffers and one
 * leader; define ENDCHECK to also assert that in every terminal state (this
 * costs one extra state and transition per terminal state, i.e. N! of each).
 *
 * Initial IDs: every permutation of 1..N, as vacheck's `--ids all` (N! separate
 * initial states).  SPIN has a single initial state, so `init` picks the
 * permutation nondeterministically (Fisher-Yates: position k takes a value from
 * positions k..N-1; each permutation is produced by exactly one path), fills
 * the send buffers and starts the N processes, all inside ONE atomic sequence.
 * pan does not store the intermediate states of an atomic sequence (they are
 * the "atomic steps" of its report), and the locals of init are reset to 0 at
 * the end so they do not split states.  Consequences, checked for N = 1..7
 * against an independent enumeration of the formal model
 * (bench/spin/enumerate.py; bench/compare.sh re-checks them against vacheck):
 *   SPIN "states, stored" = vacheck states + 1   (SPIN's pre-choice initial state)
 *   SPIN "transitions"    = vacheck transitions + N! + 1
 *                           (N! choice transitions out of that initial state, and
 *                           pan counts the initial state itself as stored)
 * With -DENDCHECK add N! to both.
 */

#ifndef N
#define N 5
#endif

chan c[N]  = [N] of { byte };   /* c[i]: channel (i, i+1 mod N)   */
chan sb[N] = [N] of { byte };   /* sb[i]: send buffer of process i */
hidden byte v;                  /* scratch, never carries information between steps */
byte nleaders;                  /* number of chosen processes (for the assertions) */

proctype P(byte i; byte u)
{
  bit status;                   /* 0 = unknown, 1 = chosen */
end:
  do
  :: d_step {                   /* send(v)_{i,i+1} */
       sb[i]?v; c[i]!v; v = 0
     }
  :: d_step {                   /* receive(v)_{i-1,i} */
       c[(i + N - 1) % N]?v;
       if
       :: v > u  -> sb[i]!v
       :: v == u -> status = 1;
                    assert(nleaders == 0);   /* UNIQ: never two chosen */
                    assert(u == N);          /* VALID: the leader has the maximum ID */
                    nleaders++
       :: else   -> skip                     /* v < u: discard */
       fi;
       v = 0
     }
  od
}

init {
  byte u[N];
  byte k, j, t;
  atomic {
    for (k : 0 .. N-1) { u[k] = k + 1 };
    for (k : 0 .. N-2) {        /* nondeterministic permutation, one path each */
      j = k;
      do
      :: j < N-1 -> j++
      :: break
      od;
      t = u[k]; u[k] = u[j]; u[j] = t
    };
    for (k : 0 .. N-1) { sb[k]!u[k] };
    for (k : 0 .. N-1) { run P(k, u[k]) };
    for (k : 0 .. N-1) { u[k] = 0 };
    k = 0; j = 0; t = 0
  }
#ifdef ENDCHECK
  /* reached only in terminal states (timeout = no other process can move) */
  d_step {
    timeout;
    assert(nleaders == 1);
    for (k : 0 .. N-1) { assert(len(c[k]) == 0 && len(sb[k]) == 0) };
    k = 0
  }
#endif
}
