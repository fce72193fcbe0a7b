#!/bin/bash
# raise.diff (CT_RAISE=1) against as is, the supervisor left where the
# scheduler puts it, on the tuning side: one 20 s fixed-line run a cell,
# the modes interleaved.   CT=<probe build> OUT=<dir> bash tune.sh REPS
set -u
reps=$1
: "${OUT:=/tmp/raise}"; mkdir -p "$OUT"
fixed=$(cd "$(dirname "$0")/../owing-20261127" && pwd)/fixed.py
pred=${fixed%/*}/pred.py
cells=(
	"/work/main/tests gt-offpath gt-offpath.c:51 50"
	"/work/main/tests gt-offpath gt-offpath.c:29 50"
	"/work/main/tests gt-unequal gt-unequal.c:37 50"
	"/work/main/tests gt-crowd gt-crowd.c:32 25"
	"/tmp/v/work oversub oversub.c:116 50"
	"/tmp/v/work kvstore kvstore.c:130 50"
	"/tmp/v/work barrier barrier.c:97 50"
)
for r in $(seq "$reps"); do
	for c in "${cells[@]}"; do
		set -- $c
		for mode in asis raise; do
			tag=$2-${3##*:}-$4-$mode-$r
			if [ $mode = raise ]; then export CT_RAISE=1; else unset CT_RAISE; fi
			WORK=$1 OUT=$OUT RATE=923 python3 "$fixed" "$2" "$3" "$4" 20 "$tag" > "$OUT/$tag.txt" 2>&1
			python3 "$pred" "$OUT/$tag.txt"
		done
	done
done
