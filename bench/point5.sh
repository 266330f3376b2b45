#!/usr/bin/env bash
# The speed targets of the catalog in one run (issue 33, point 5), as one table.
#
#   bench/point5.sh [--repeat K] [--quick] [--no-spin]
#
# 1. --symmetry never slower: every spec that declares a symmetry, all ID arrangements, its default
#    claims, 1 worker, with and without --symmetry (median of K runs, default 3).
# 2. chang-roberts-bidirectional --n 6 --ids all --symmetry, 2 workers (target: under 2 minutes).
# 3. peterson --n 7 --ids all with its claims (liveness too), 2 workers (target: under 60 s).
# 4. lamport --n 4 --requests 1 --clocks minimal --reduction por: a run bounded at 5,000,000 states,
#    its CPU per state, and the projection to the 804,447,141 states of the exact run (target: 30
#    minutes on 2 cores).
# 5. bench/compare.sh --repeat K 6: vacheck against SPIN at N=6 (target: 3x with 2 workers).
#
# --quick leaves out 2 and 3 (about a minute each); --no-spin leaves out 5.
# VACHECK_BIN=/path/to/vacheck uses that binary instead of building ./cmd/vacheck.
# Needs python3 (and, for 5, what bench/compare.sh needs). Writes nothing to the repository.
# Exit status: 0 the table was printed (whether or not a target was met); 2 a run failed.
set -euo pipefail

REPEAT=3
QUICK=0
SPIN=1
while [ $# -gt 0 ]; do
  case "$1" in
    --repeat)   REPEAT="$2"; shift 2 ;;
    --repeat=*) REPEAT="${1#*=}"; shift ;;
    --quick)    QUICK=1; shift ;;
    --no-spin)  SPIN=0; shift ;;
    -h|--help)  sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *)          echo "unknown argument: $1" >&2; exit 64 ;;
  esac
done
case "$REPEAT" in ''|*[!0-9]*|0) echo "--repeat needs a positive integer" >&2; exit 64 ;; esac

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/vacheck-point5.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

BIN="${VACHECK_BIN:-}"
if [ -z "$BIN" ]; then
  (cd "$ROOT" && go build -o "$tmp/vacheck" ./cmd/vacheck) || exit 2
  BIN="$tmp/vacheck"
fi

# run NAME ARGS...: runs vacheck check ARGS --format json; appends one JSON line to results.jsonl
# with the wall and CPU seconds, the peak RSS and the figures of the report.
cat > "$tmp/run.py" <<'PY'
import json, resource, subprocess, sys, time
name, bin_, args = sys.argv[1], sys.argv[2], sys.argv[3:]
t0 = time.perf_counter()
p = subprocess.run([bin_, "check", *args, "--format", "json"], capture_output=True, text=True)
wall = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
if p.returncode not in (0, 3):
    sys.exit(f"{name}: exit {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
j = json.loads(p.stdout[p.stdout.find("{"):])
print(json.dumps({"name": name, "wall": wall, "cpu": ru.ru_utime + ru.ru_stime,
                  "rss": ru.ru_maxrss * 1024, "status": j.get("status"),
                  "states": j.get("states"), "raw": (j.get("stats") or {}).get("raw_states")}))
PY
run() { local name="$1"; shift; python3 "$tmp/run.py" "$name" "$BIN" "$@" >> "$tmp/results.jsonl" || exit 2; }

SYM=("chang-roberts --n 6" "chang-roberts-announce --n 6" "chang-roberts-wakeup --n 5"
     "lelann --n 5" "peterson --n 6" "chang-roberts-bidirectional --n 5")
echo "== 1. symmetry, ${#SYM[@]} specs x 2, $REPEAT runs each" >&2
for rep in $(seq "$REPEAT"); do
  for s in "${SYM[@]}"; do
    # shellcheck disable=SC2086
    run "sym0 $s" $s --ids all --workers 1
    # shellcheck disable=SC2086
    run "sym1 $s" $s --ids all --workers 1 --symmetry
  done
done
if [ "$QUICK" = 0 ]; then
  echo "== 2. chang-roberts-bidirectional --n 6 --symmetry" >&2
  run "bidi6" chang-roberts-bidirectional --n 6 --ids all --symmetry --workers 2
  echo "== 3. peterson --n 7" >&2
  run "peterson7" peterson --n 7 --ids all --workers 2
fi
echo "== 4. lamport --n 4 --requests 1, 5,000,000 states" >&2
run "lamport" lamport --n 4 --requests 1 --clocks minimal --reduction por --max-states 5000000

python3 - "$tmp/results.jsonl" "$REPEAT" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
by = {}
for r in rows:
    by.setdefault(r["name"], []).append(r)
med = lambda name, k: statistics.median(r[k] for r in by[name])
print("\n| target | figure | met |\n|---|---|---|")
for name in sorted({r["name"][5:] for r in rows if r["name"].startswith("sym0 ")}):
    a, b = med("sym0 " + name, "wall"), med("sym1 " + name, "wall")
    print(f"| `{name} --ids all`: --symmetry never slower (1 worker, median) | "
          f"{b:.2f} s with, {a:.2f} s without ({a/b:.2f}x) | {'yes' if b <= a else 'NO'} |")
if "bidi6" in by:
    r = by["bidi6"][0]
    print(f"| `chang-roberts-bidirectional --n 6 --ids all --symmetry` under 2 min (2 workers) | "
          f"{r['wall']:.1f} s, {r['states']:,} orbits holding {r['raw'] or 0:,} states, {r['rss']/2**30:.2f} GiB, {r['status']} | "
          f"{'yes' if r['wall'] < 120 and r['status'] == 'ok' else 'NO'} |")
if "peterson7" in by:
    r = by["peterson7"][0]
    print(f"| `peterson --n 7 --ids all`, liveness claims too, under 60 s (2 workers) | "
          f"{r['wall']:.1f} s, {r['states']:,} states, {r['rss']/2**20:.0f} MiB, {r['status']} | "
          f"{'yes' if r['wall'] < 60 and r['status'] == 'ok' else 'NO'} |")
r = by["lamport"][0]
us = r["cpu"] / r["states"] * 1e6
total = 804447141 * us / 1e6
print(f"| `lamport --n 4 --requests 1 --clocks minimal --reduction por` under 30 min | "
      f"{us:.2f} us CPU a state over {r['states']:,} states: {total/3600:.2f} h of CPU projected "
      f"for 804,447,141 | {'yes' if total < 1800 else 'NO (one core: ' + format(total/60, '.0f') + ' min)'} |")
PY

if [ "$SPIN" = 1 ]; then
  echo "== 5. bench/compare.sh --repeat $REPEAT 6" >&2
  VACHECK_BIN="$BIN" "$HERE/compare.sh" --repeat "$REPEAT" 6 2>/dev/null | sed -n '/^tool /,$p' || true
fi
