#!/bin/bash
# Native pairs of pool without and with the monitor line at 50%:
# truth.sh N [POOL ARGS...]; prints base/knob per-item us and the speedup.
n=$1; shift
cd "${WORK:-/tmp/v/work}" || exit 1
for i in $(seq "$n"); do
	a=$(./pool -c 740.7 "$@" 2>&1 | grep -o 'per_item_us [0-9.]*' | cut -d' ' -f2)
	b=$(./pool -c 740.7 -k monitor=50 "$@" 2>&1 | grep -o 'per_item_us [0-9.]*' | cut -d' ' -f2)
	echo "$a $b $(echo "scale=4; $a / $b - 1" | bc)"
done
