#!/usr/bin/env bash
# Side-by-side benchmark: vacheck vs SPIN on Chang-Roberts (docs/algorithms/chang-roberts.md),
# all N! ID permutations, exhaustive search, no partial-order reduction.
#
#   bench/compare.sh [--repeat K] [--workers "1 2"] [--checks same|all] [--spin-only] [--spin-hc] [--hash-w W] [N ...]
#   --checks same (default): vacheck checks what the Promela model asserts (uniqueness, validity,
#   deadlock-freedom); --checks all: vacheck's claims, adding Lemma 1 in every state.
#
# N defaults to "5 6"; 7 works (~2 min and ~10 GB per SPIN run, ~15 min in all).  Every
# measurement is repeated K times (default 3) and the median is reported.
# Everything is built and run in a temporary directory that is removed on exit.
# --spin-hc adds a SPIN run with -DHC4 (hash compaction), SPIN's nearest analogue of
# vacheck's 64-bit fingerprints; it is lossy here (misses ~0.2% of the states at
# N=6), so it is shown for information and the floor is judged against plain SPIN.
# VACHECK_BIN=/path/to/vacheck uses that binary instead of building ./cmd/vacheck.
# The report ends with issue 14's targets per N (1 worker 1.5x SPIN, 2 workers 3x, at most 40
# bytes of peak RSS per stored state), for information.
# Exit status: 0 all good; 1 floor not met (vacheck slower than SPIN for some N)
# or a cross-check failed; 2 vacheck could not be built (without --spin-only).
set -euo pipefail

usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; }

REPEAT=3
WORKERS="1 2"
SPIN_ONLY=0
SPIN_HC=0             # also run SPIN with hash compaction (-DHC4)
HASH_W=""
CHECKS=same           # same: the properties the Promela model checks; all: vacheck's claims (adds Lemma 1)
DEPTH=100000          # pan -m: DFS stack bound; the model needs < 200 for N <= 7
NS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --repeat)    REPEAT="$2"; shift 2 ;;
    --repeat=*)  REPEAT="${1#*=}"; shift ;;
    --workers)   WORKERS="$2"; shift 2 ;;
    --workers=*) WORKERS="${1#*=}"; shift ;;
    --hash-w)    HASH_W="$2"; shift 2 ;;
    --hash-w=*)  HASH_W="${1#*=}"; shift ;;
    --checks)    CHECKS="$2"; shift 2 ;;
    --checks=*)  CHECKS="${1#*=}"; shift ;;
    --spin-only) SPIN_ONLY=1; shift ;;
    --spin-hc)   SPIN_HC=1; shift ;;
    -h|--help)   usage; exit 0 ;;
    [0-9]*)      NS+=("$1"); shift ;;
    *)           echo "unknown argument: $1" >&2; usage >&2; exit 64 ;;
  esac
done
[ ${#NS[@]} -gt 0 ] || NS=(5 6)
case "$REPEAT" in ''|*[!0-9]*|0) echo "--repeat needs a positive integer" >&2; exit 64 ;; esac
case "$CHECKS" in
  same) PROPS=(--property uniqueness --property validity --property deadlock-freedom) ;;
  all)  PROPS=() ;;
  *)    echo "--checks takes same or all" >&2; exit 64 ;;
esac

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
PML="$HERE/spin/chang_roberts.pml"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/vacheck-bench.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

log() { printf '%s\n' "$*" >&2; }

# ---------------------------------------------------------------- tools
if ! command -v spin >/dev/null 2>&1; then
  log "== installing SPIN (apt-get install spin)"
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq spin >/dev/null
fi
for t in spin gcc python3; do
  command -v "$t" >/dev/null 2>&1 || { log "missing required tool: $t"; exit 1; }
done
log "== $(spin -V)"
# busy CPU seconds of the whole machine and wall clock, to detect other load
cpu_mark() { python3 -c "
import os, time
f = open('/proc/stat').readline().split()[1:]
busy = sum(map(int, f)) - int(f[3]) - int(f[4])   # all but idle and iowait
print(busy / os.sysconf('SC_CLK_TCK'), time.time())" 2>/dev/null || echo "0 0"; }

# run.py OUT -- CMD...: runs CMD, stdout -> OUT.stdout, stderr -> OUT.stderr, and writes OUT.json with
# wall seconds and the peak resident set size of CMD (getrusage of the child).
cat > "$tmp/run.py" <<'PY'
import json, resource, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[3:]
with open(out + ".stdout", "wb") as f, open(out + ".stderr", "wb") as e:
    t0 = time.perf_counter()
    rc = subprocess.call(cmd, stdout=f, stderr=e)
    wall = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
json.dump({"wall": wall, "maxrss_bytes": ru.ru_maxrss * 1024, "rc": rc,
           "user": ru.ru_utime, "sys": ru.ru_stime}, open(out + ".json", "w"))
sys.exit(rc)
PY

# parse.py KIND OUT N TOOL WORKERS REP: turns one run into a JSON line (results.jsonl).
cat > "$tmp/parse.py" <<'PY'
import json, re, sys
kind, out, n, tool, workers, rep = sys.argv[1:7]
run = json.load(open(out + ".json"))
text = open(out + ".stdout", errors="replace").read()
errtext = open(out + ".stderr", errors="replace").read()[-3000:]
r = {"tool": tool, "n": int(n), "workers": workers, "rep": int(rep),
     "wall": run["wall"], "rss": run["maxrss_bytes"], "cpu": run["user"] + run["sys"]}
def grab(pat, conv=float):
    m = re.search(pat, text)
    if not m:
        sys.exit(f"{tool} N={n}: cannot find /{pat}/ in output:\n{text}")
    return conv(m.group(1))
if kind == "spin":
    if "max search depth too small" in text:
        sys.exit(f"SPIN N={n}: max search depth too small; raise DEPTH")
    if grab(r"errors: (\d+)", int) != 0 or run["rc"] != 0:
        sys.exit(f"SPIN N={n}: errors reported:\n{text}")
    if ("Hash-Compact" if tool == "SPIN-HC4" else "Full statespace search") not in text:
        sys.exit(f"SPIN N={n}: not a full state-space search:\n{text}")
    # pan prints large counts as %g with 8 significant digits (2.1304906e+08)
    num = r"([0-9][0-9.]*(?:e\+\d+)?)"
    r["states"] = int(float(grab(num + r" states, stored", str)))
    r["matched"] = int(float(grab(num + r" states, matched", str)))
    t = grab(num + r" transitions \(= stored\+matched\)", str)
    r["transitions"] = int(float(t)); r["transitions_exact"] = "e" not in t
    r["depth"] = grab(r"depth reached (\d+)", int)
    r["self_seconds"] = grab(r"pan: elapsed time ([0-9.e+-]+) seconds")
    r["self_memory"] = grab(r"([0-9.]+)\s+total actual memory usage") * 1048576
    r["state_vector"] = grab(r"State-vector (\d+) byte", int)
else:
    if run["rc"] != 0:
        sys.exit(f"vacheck N={n} workers={workers}: exit status {run['rc']}:\n{text}\n{errtext}")
    i = text.find("{")
    try:
        j = json.loads(text[i:])
    except Exception as e:
        sys.exit(f"vacheck N={n}: cannot parse JSON ({e}):\n{text}")
    if j.get("status") != "ok":
        sys.exit(f"vacheck N={n}: status {j.get('status')!r}:\n{text}")
    r["states"] = int(j["states"]); r["transitions"] = int(j["transitions"])
    r["depth"] = j.get("depth"); r["self_seconds"] = float(j["elapsed_seconds"])
    st = j.get("stats") or {}
    r["self_memory"] = st.get("peak_memory_bytes")
print(json.dumps(r))
PY

# ---------------------------------------------------------------- vacheck
VACHECK=""
if [ "$SPIN_ONLY" -eq 0 ] && [ -n "${VACHECK_BIN:-}" ]; then
  VACHECK="$VACHECK_BIN"; log "== using VACHECK_BIN=$VACHECK_BIN (not building)"
elif [ "$SPIN_ONLY" -eq 0 ]; then
  log "== building vacheck (go build ./cmd/vacheck)"
  t0=$(date +%s.%N)
  if (cd "$ROOT" && go build -o "$tmp/vacheck" ./cmd/vacheck) >"$tmp/gobuild.log" 2>&1; then
    VACHECK="$tmp/vacheck"
    log "   built in $(python3 -c "print(f'{$(date +%s.%N)-$t0:.1f}')") s"
  else
    log "!! vacheck does not build; SPIN figures only:"; sed 's/^/   /' "$tmp/gobuild.log" >&2
  fi
fi

# pan -w (log2 of hash slots): about 2-4 slots per stored state.
hash_w() {
  if [ -n "$HASH_W" ]; then echo "$HASH_W"; return; fi
  case "$1" in
    1|2|3|4) echo 18 ;; 5) echo 20 ;; 6) echo 23 ;; 7) echo 27 ;; *) echo 30 ;;
  esac
}

PAN_CFLAGS="-O2 -DNOREDUCE -DSAFETY -DMEMLIM=16000"
: > "$tmp/results.jsonl"
: > "$tmp/compile.txt"
MARK_START="$(cpu_mark)"
for n in "${NS[@]}"; do
  d="$tmp/n$n"; mkdir -p "$d"; cp "$PML" "$d/model.pml"
  w=$(hash_w "$n")
  log "== N=$n: spin -a, gcc $PAN_CFLAGS"
  t0=$(date +%s.%N)
  (cd "$d" && spin -DN="$n" -a model.pml >/dev/null)
  t1=$(date +%s.%N)
  (cd "$d" && gcc $PAN_CFLAGS -o pan pan.c)
  [ "$SPIN_HC" -eq 0 ] || (cd "$d" && gcc $PAN_CFLAGS -DHC4 -o pan_hc pan.c)
  t2=$(date +%s.%N)
  python3 -c "print('$n', f'{$t1-$t0:.2f}', f'{$t2-$t1:.2f}', '$w')" >> "$tmp/compile.txt"
  for rep in $(seq 1 "$REPEAT"); do
    log "   run $rep/$REPEAT: ./pan -m$DEPTH -w$w"
    o="$d/spin.$rep"
    (cd "$d" && python3 "$tmp/run.py" "$o" -- ./pan -m"$DEPTH" -w"$w") || true
    python3 "$tmp/parse.py" spin "$o" "$n" SPIN - "$rep" >> "$tmp/results.jsonl"
    if [ "$SPIN_HC" -eq 1 ]; then
      log "   run $rep/$REPEAT: ./pan_hc -m$DEPTH -w$w  (-DHC4)"
      o="$d/spinhc.$rep"
      (cd "$d" && python3 "$tmp/run.py" "$o" -- ./pan_hc -m"$DEPTH" -w"$w") || true
      python3 "$tmp/parse.py" spin "$o" "$n" SPIN-HC4 - "$rep" >> "$tmp/results.jsonl"
    fi
    if [ -n "$VACHECK" ]; then
      for k in $WORKERS; do
        log "   run $rep/$REPEAT: vacheck --workers $k"
        o="$d/vacheck.$k.$rep"
        python3 "$tmp/run.py" "$o" -- "$VACHECK" check chang-roberts --n "$n" --ids all \
          --workers "$k" --format json "${PROPS[@]}" || true
        python3 "$tmp/parse.py" vacheck "$o" "$n" vacheck "$k" "$rep" >> "$tmp/results.jsonl"
      done
    fi
  done
done

# ---------------------------------------------------------------- report
set +e
MARK_END="$(cpu_mark)"
python3 - "$tmp/results.jsonl" "$tmp/compile.txt" "$PAN_CFLAGS" "$DEPTH" "$REPEAT" \
          "$([ -n "$VACHECK" ] && echo 1 || echo 0)" "$SPIN_ONLY" "$MARK_START" "$MARK_END" <<'PY'
import json, math, os, statistics, sys
res_f, comp_f, cflags, depth, repeat, have_v, spin_only, m0, m1 = sys.argv[1:10]
rows = [json.loads(l) for l in open(res_f)]
comp = {l.split()[0]: l.split()[1:] for l in open(comp_f)}
groups = {}
for r in rows:
    groups.setdefault((r["n"], r["tool"], r["workers"]), []).append(r)
med = statistics.median
def fmt_mb(b): return "-" if b is None else f"{b/1048576:,.0f}"
print()
print(f"Chang-Roberts, all N! ID permutations, exhaustive; median of {repeat} run(s).")
print(f"SPIN: spin -DN=N -a chang_roberts.pml; gcc {cflags} -o pan pan.c; ./pan -m{depth} -wW"
      + ("  (SPIN-HC4: same plus -DHC4)" if any(r["tool"] == "SPIN-HC4" for r in rows) else ""))
print("wall = whole process run (SPIN: pan only, compilation excluded); self = time the tool reports;")
print("~ = pan printed the count with 8 significant digits; ")
print("states/s = states / wall; RSS = peak resident set; speed = SPIN wall / tool wall (>1: faster than SPIN)")
print()
hdr = f"{'tool':<12}{'N':>3}{'states':>13}{'transitions':>14}{'wall s':>9}{'self s':>9}{'states/s':>12}{'RSS MB':>9}{'B/state':>9}{'speed':>8}"
print(hdr); print("-" * len(hdr))
ok = True; floor = {}
for n in sorted({r["n"] for r in rows}):
    keys = [k for k in groups if k[0] == n]
    keys.sort(key=lambda k: (not k[1].startswith("SPIN"), k[1], k[2]))
    spin = groups.get((n, "SPIN", "-"))
    spin_wall = med([r["wall"] for r in spin]) if spin else None
    for k in keys:
        g = groups[k]
        wall = med([r["wall"] for r in g]); selfs = med([r["self_seconds"] for r in g])
        rss = med([r["rss"] for r in g]); st = g[0]["states"]; tr = g[0]["transitions"]
        name = k[1] if k[1].startswith("SPIN") else f"vacheck w={k[2]}"
        speed = spin_wall / wall if spin_wall and wall > 0 else float("nan")
        trs = f"{tr:,}" if g[0].get("transitions_exact", True) else f"~{tr:,}"
        print(f"{name:<12}{n:>3}{st:>13,}{trs:>14}{wall:>9.2f}{selfs:>9.2f}{st/wall:>12,.0f}"
              f"{fmt_mb(rss):>9}{rss/st:>9.0f}{speed:>8.2f}")
        if k[1] == "vacheck":
            floor.setdefault(n, []).append((k[2], speed, wall))
            nf = math.factorial(n)
            s0 = spin[0] if spin else None
            tr_ok = s0 and (tr == s0["transitions"] - nf - 1 if s0["transitions_exact"]
                            else abs(tr + nf + 1 - s0["transitions"]) <= 1e-7 * s0["transitions"] + 1)
            if s0 and (st != s0["states"] - 1 or not tr_ok):
                print(f"   !! counts do not match SPIN: expected states = {spin[0]['states']-1:,}, "
                      f"transitions = {spin[0]['transitions']-nf-1:,} (SPIN - 1, SPIN - N! - 1)")
                ok = False
print()
for n, (sc, cc, w) in sorted(comp.items(), key=lambda x: int(x[0])):
    s = groups[(int(n), "SPIN", "-")][0]
    print(f"SPIN N={n}: spin -a {sc} s, gcc {cc} s, -w{w}, state vector {s['state_vector']} B, "
          f"depth reached {s['depth']}, pan's own memory total {s['self_memory']/1048576:,.0f} MB")
b0, t0 = map(float, m0.split()); b1, t1 = map(float, m1.split())
if t1 > t0:
    ours = sum(r["cpu"] for r in rows) + sum(float(v[0]) + float(v[1]) for v in comp.values())
    other = max(0.0, (b1 - b0) - ours) / ((t1 - t0) * os.cpu_count())
    print(f"\nhost: {os.cpu_count()} CPUs; other processes used about {100*other:.0f}% of the CPU "
          f"during the benchmark ({t1-t0:.0f} s)")
    if other > 0.15:
        print("!! the machine was busy with other work: timings are not reliable")
print()
if have_v == "1":
    for n, sp in sorted(floor.items()):
        best = max(sp, key=lambda x: x[1])
        verdict = "MET" if best[1] >= 1.0 else "NOT MET"
        print(f"floor N={n}: vacheck/SPIN speed " + ", ".join(f"workers={w}: {s:.2f}x" for w, s, _ in sp)
              + f"  -> {verdict} (best: workers={best[0]})")
        hc = groups.get((n, "SPIN-HC4", "-"))
        if hc:
            hw = med([r["wall"] for r in hc])
            print(f"        vacheck/SPIN-HC4 speed " + ", ".join(f"workers={w}: {hw/vw:.2f}x" for w, _, vw in sp))
        ok &= best[1] >= 1.0
    # issue 14's targets, for information (they do not change the exit status)
    tw = {"1": 1.5, "2": 3.0}
    for n, sp in sorted(floor.items()):
        parts = []
        for w, s, _ in sp:
            if w in tw:
                parts.append(f"workers={w}: {s:.2f}x (target {tw[w]}x: {'met' if s >= tw[w] else 'NOT met'})")
        bps = [med([r["rss"] for r in groups[(n, "vacheck", w)]]) / groups[(n, "vacheck", w)][0]["states"] for w, _, _ in sp]
        parts.append(f"B/state {max(bps):.0f} (target 40: {'met' if max(bps) <= 40 else 'NOT met'})")
        print(f"targets N={n}: " + ", ".join(parts))
    sys.exit(0 if ok else 1)
elif spin_only == "1":
    sys.exit(0)
else:
    print("vacheck was not available: SPIN figures only.")
    sys.exit(2)
PY
