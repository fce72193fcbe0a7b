#!/bin/bash
# One fixed-line prediction of pzip's check line at 50% (30 s):
# run.sh CAUSALTOP TAG [PZIP ARGS...].  The pzip binary is
# bench/validate's (WORK, default /tmp/v/work), at its calibrated rate
# (RATE, default that of the validation run of 2026-12-01 05:56).
ct=$1 tag=$2; shift 2
work=${WORK:-/tmp/v/work}
out=${OUT:-runs}
rate=${RATE:-984.640}
mkdir -p "$out"
cd "$work" || exit 1
timeout -s INT 35 "$ct" --no-tui -v --duration=30 --fixed-line=pzip.c:211 \
	--fixed-speedup=50 -- ./pzip -c "$rate" -n 1e9 "$@" > /dev/null 2> "$OLDPWD/$out/$tag.err"
pkill -x pzip	# --duration detaches; pzip runs on
sleep 1
echo "$tag $(grep -E 'pzip.c:211 .*%' "$OLDPWD/$out/$tag.err" | awk '{print $(NF-3)}')"
