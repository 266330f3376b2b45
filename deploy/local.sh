#!/bin/sh
# Runs the K parts of a check on this machine, JOBS at a time (default:
# the number of processors), then merges them (docs/cluster.md):
#
#   deploy/local.sh K OUT SPEC [parameters] [engine flags]
#   deploy/local.sh 4 out chang-roberts --n 6 --ids all
#
# Each part writes OUT/shard-k.json (and OUT/shard-k.txt, its report);
# the script's output and exit code are the merge's: the whole check's.
# VACHECK names the vacheck to run (default: vacheck on the PATH).
set -eu
if [ $# -lt 3 ]; then
	echo "usage: $0 K OUT SPEC [parameters] [engine flags]" >&2
	exit 2
fi
K=$1
OUT=$2
shift 2
VACHECK=${VACHECK:-vacheck}
JOBS=${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
mkdir -p "$OUT"
rm -f "$OUT"/shard-*.json "$OUT"/shard-*.fps
export VACHECK K OUT
# A part exits 0 ok, 1 violated, 3 incomplete or 5 bounded: its result,
# in its certificate. 2 (bad usage) or 4 (model error) stops the run.
seq 0 $((K - 1)) | xargs -P "$JOBS" -I{} sh -c '
	k=$1
	shift
	"$VACHECK" check "$@" --quiet --shard "$k/$K" --cert "$OUT/shard-$k.json" >"$OUT/shard-$k.txt" 2>&1
	code=$?
	case $code in
	0 | 1 | 3 | 5) exit 0 ;;
	*) echo "part $k of $K: exit $code, see $OUT/shard-$k.txt" >&2; exit 255 ;;
	esac
' sh {} "$@"
exec "$VACHECK" merge "$OUT"/shard-*.json
