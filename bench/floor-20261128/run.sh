#!/bin/bash
# The pause floor (MIN_PAUSE_NS, engine/account.c) at 500 us (as is) and
# at 200 us: floor.diff reads CT_FLOOR_US.  One 20 s fixed-line run a
# cell, the floors interleaved.
#   CT=<floor.diff build, beside libcausaltop-coz.so> OUT=<dir> bash run.sh REPS
set -u
reps=$1
: "${OUT:=/tmp/floor}"; mkdir -p "$OUT"
fixed=$(cd "$(dirname "$0")/../owing-20261127" && pwd)/fixed.py
pred=${fixed%/*}/pred.py
cells=(
	"/tmp/v/work pool pool.c:137 50"
	"/tmp/v/work kvstore kvstore.c:130 50"
	"/tmp/v/work barrier barrier.c:97 50"
	"/work/main/tests gt-offpath gt-offpath.c:29 50"
	"/work/main/tests gt-unequal gt-unequal.c:37 50"
	"/work/main/tests gt-crowd gt-crowd.c:32 25"
)
for r in $(seq "$reps"); do
	for c in "${cells[@]}"; do
		set -- $c
		for fl in 500 200; do
			tag=$2-${3##*:}-$4-floor$fl-$r
			CT_FLOOR_US=$fl WORK=$1 OUT=$OUT RATE=923 python3 "$fixed" "$2" "$3" "$4" 20 "$tag" > "$OUT/$tag.txt" 2>&1
			python3 "$pred" "$OUT/$tag.txt" --pauses
		done
	done
done
