#!/bin/bash
# The supervisor's CPU by turn (rotate) against left where it runs (as
# is, CT_NOROTATE=1 in the probe build): one 20 s fixed-line run a cell,
# the modes interleaved; the as-is runs also log which CPU causaltop sat on.
#   CT=<probe build> OUT=<dir> bash run.sh REPS PROG FILE:LINE PCT [PROG FILE:LINE PCT]...
# (WORK=/work/main/tests RATE=<gt -C> for the tests' workloads.)
set -u
reps=$1; shift
: "${OUT:=/tmp/rot}"; mkdir -p "$OUT"
fixed=$(dirname "$0")/../owing-20261127/fixed.py
pred=$(dirname "$0")/../owing-20261127/pred.py
for r in $(seq "$reps"); do
	set -- "$@"
	args=("$@")
	for ((i = 0; i < ${#args[@]}; i += 3)); do
		prog=${args[i]} line=${args[i+1]} pct=${args[i+2]}
		for mode in rotate asis; do
			tag=$prog-${line##*:}-$pct-$mode-$r
			if [ $mode = asis ]; then export CT_NOROTATE=1; else unset CT_NOROTATE; fi
			OUT=$OUT python3 "$fixed" "$prog" "$line" "$pct" 20 "$tag" > "$OUT/$tag.txt" 2>&1 &
			sleep 1
			pid=$(pgrep -n -x "$(basename "${CT:-causaltop}" | cut -c1-15)")
			cpus=$(for k in $(seq 15); do awk '{print $(NF-13)}' /proc/$pid/stat 2>/dev/null; sleep 1; done | sort | uniq -c | tr '\n' ' ')
			wait
			echo "$tag causaltop's CPU (count of 1 s looks, cpu): $cpus" >> "$OUT/$tag.txt"
			python3 "$pred" "$OUT/$tag.txt" --tail
		done
	done
done
