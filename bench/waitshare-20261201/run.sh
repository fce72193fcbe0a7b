#!/bin/bash
# One fixed-line prediction of pool's monitor line at 50% (30 s), as in
# README.md: run.sh CAUSALTOP TAG [POOL ARGS...] (-p pins the threads).
# The pool binary is bench/validate's (--workdir, default /tmp/v/work).
ct=$1 tag=$2; shift 2
work=${WORK:-/tmp/v/work}
out=${OUT:-runs}
mkdir -p "$out"
cd "$work" || exit 1
timeout -s INT 35 "$ct" --no-tui -v --duration=30 --fixed-line=pool.c:202 \
	--fixed-speedup=50 -- ./pool -c 740.7 -n 1e9 "$@" > /dev/null 2> "$OLDPWD/$out/$tag.err"
pkill -x pool	# --duration detaches; the pool runs on
sleep 1
echo "$tag $(grep -E 'pool.c:202 .*%' "$OLDPWD/$out/$tag.err" | awk '{print $(NF-3)}')"
