#!/bin/sh
# What a --progress hit costs the program in each --probe-mode: patch
# (a counter patched into its code), breakpoint, uprobe; against the same
# program under causaltop without the point (sampling costs the same in
# all).  Also checks that each counted every call.  From the top of a
# built tree; REPS runs of each, interleaved, medians printed.  THREADS
# threads call it at once (a patched-in counter is a shared cache line).
#
#   sh bench/patch-cost.sh [REPS [THREADS]]
set -eu
reps=${1:-5}
threads=${2:-1}
cc -O2 -g -pthread -o /tmp/patch-cost bench/patch-cost.c
ct=./causaltop
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() {	# mode n rounds: prints ns/call, checks the count
	mode=$1 n=$2 r=$3
	if [ "$mode" = none ]; then
		$ct --no-tui --no-experiments -- /tmp/patch-cost "$n" "$r" "$threads" > "$out/o" 2> "$out/e"
	else
		rc=0
		$ct --no-tui --no-experiments --probe-mode="$mode" --progress=hit \
			-- /tmp/patch-cost "$n" "$r" "$threads" > "$out/o" 2> "$out/e" || rc=$?
		# 69: breakpoints never fire on this machine (some VMs).
		[ $rc = 69 ] && return 0
		got=$(awk '$1 == "hit" && $2 == "throughput" { print $5 }' "$out/e")
		[ "$got" = $((n * r * threads)) ] ||
			{ echo "$mode: counted '$got' of $((n * r * threads))" >&2; cat "$out/e" >&2; exit 1; }
	fi
	awk '{ print $2 }' "$out/o"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

: > "$out/none"; : > "$out/patch"; : > "$out/breakpoint"; : > "$out/uprobe"
for i in $(seq "$reps"); do
	run none 2000000 5 >> "$out/none"
	run patch 2000000 5 >> "$out/patch"
	run breakpoint 20000 3 >> "$out/breakpoint"
	run uprobe 20000 3 >> "$out/uprobe"
done
base=$(median < "$out/none")
echo "host: $(uname -r), $(nproc) CPUs, $threads threads calling, load $(cut -d' ' -f1 /proc/loadavg) at the end"
for m in none patch breakpoint uprobe; do
	[ -s "$out/$m" ] || { echo "$m: refused here"; continue; }
	v=$(median < "$out/$m")
	printf '%-11s %10s ns/call (median of %s; runs: %s)  cost per hit %s ns\n' "$m" "$v" "$reps" \
		"$(tr '\n' ' ' < "$out/$m")" "$(awk -v v="$v" -v b="$base" 'BEGIN { printf "%.1f", v - b }')"
done
