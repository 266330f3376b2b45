#!/usr/bin/env bash
# Side-by-side benchmark of a distributed check (docs/distributed.md) on one machine:
# one process with W workers against K rank processes of 1 worker each, joined through an
# embedded NATS server, on the same check. Prints states, transitions, depth, wall time, states/s,
# and the bytes the ranks sent per state.
#
#   bench/cluster.sh [--ranks K] [--workers W] -- SPEC [parameters]
#   e.g. bench/cluster.sh --ranks 2 --workers 2 -- chang-roberts --n 6 --ids all
#
# VACHECK_BIN=/path/to/vacheck uses that binary instead of building ./cmd/vacheck.
# Exit status: 0 the counts agree; 1 they differ or a run failed.
set -euo pipefail
K=2
W=2
while [ $# -gt 0 ]; do
	case "$1" in
	--ranks) K=$2; shift 2 ;;
	--workers) W=$2; shift 2 ;;
	--) shift; break ;;
	*) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
done
[ $# -gt 0 ] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${VACHECK_BIN:-}
if [ -z "$bin" ]; then
	bin=$tmp/vacheck
	go build -o "$bin" ./cmd/vacheck
fi
field() { sed -n "s/^  \"$1\": \([0-9.]*\),\{0,1\}$/\1/p" "$2" | head -1; }
now() { date +%s.%N; }

t0=$(now)
"$bin" check "$@" --workers "$W" --format json --quiet >"$tmp/one.json" || true
t1=$(now)
port=$(( 20000 + RANDOM % 20000 ))
pids=()
for k in $(seq 0 $((K - 1))); do
	url=nats://127.0.0.1:$port
	[ "$k" = 0 ] && url=embedded:$port
	"$bin" check "$@" --workers 1 --format json --quiet --cluster "$url" --ranks "$K" --rank "$k" \
		>"$tmp/r$k.json" 2>"$tmp/r$k.err" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || true; done
t2=$(now)

one_s=$(field states "$tmp/one.json"); one_t=$(field transitions "$tmp/one.json"); one_d=$(field depth "$tmp/one.json")
cl_s=$(field states "$tmp/r0.json"); cl_t=$(field transitions "$tmp/r0.json"); cl_d=$(field depth "$tmp/r0.json")
bytes=0
for k in $(seq 0 $((K - 1))); do
	b=$(grep -o '"bytes_sent": *[0-9]*' "$tmp/r$k.json" 2>/dev/null | tr -dc 0-9 || true)
	[ -n "$b" ] || b=$(sed -n 's/.*batches (\([0-9]*\) bytes.*/\1/p' "$tmp/r$k.err" | head -1)
	bytes=$((bytes + ${b:-0}))
done
one_time=$(echo "$t1 - $t0" | bc)
cl_time=$(echo "$t2 - $t1" | bc)
printf '%-28s %14s %14s %6s %9s %12s\n' run states transitions depth seconds states/s
printf '%-28s %14s %14s %6s %9.2f %12.0f\n' "1 process, $W workers" "$one_s" "$one_t" "$one_d" "$one_time" "$(echo "$one_s / $one_time" | bc -l)"
printf '%-28s %14s %14s %6s %9.2f %12.0f\n' "$K ranks, 1 worker each" "$cl_s" "$cl_t" "$cl_d" "$cl_time" "$(echo "$cl_s / $cl_time" | bc -l)"
printf 'bytes sent between ranks: %d, %.1f per state, %.1f per transition\n' "$bytes" "$(echo "$bytes / $cl_s" | bc -l)" "$(echo "$bytes / $cl_t" | bc -l)"
if [ "$one_s" != "$cl_s" ] || [ "$one_t" != "$cl_t" ] || [ "$one_d" != "$cl_d" ]; then
	echo "the counts differ" >&2
	exit 1
fi
