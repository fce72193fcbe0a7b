#!/bin/sh
#
# gt-real.sh [-r RUNS] [-a MS] [-c RATE] [-R FILE] [-v] PROG NAME PCT [PROG ARGS...]
#
# The real program speedup of making line NAME of a ground-truth workload
# (tests/gt-*.c) PCT percent faster: PROG ARGS runs RUNS times (default 5)
# as it is and RUNS times with -k NAME=PCT, interleaved in pairs whose
# order alternates (base knob, knob base, ...) so that a slow drift of the
# machine's speed hits both sides alike.  All runs get the loop rate that
# calibrating runs (-C, the fastest of 3: the least disturbed) found, as
# -c, so that they do the very same work but for the knob.  Each run
# prints its time per item ("gt: ... per_item_us X").  Prints
#
#	real NAME PCT speedup S base_us B knob_us K spread D
#
# S is the median of the pairs' speedups 1 - knob / base (Coz's program
# speedup: the fraction of the time per unit of progress saved), each
# pair's two runs back to back; B and K the medians of the runs' times
# per item.
# D measures the noise: the half-range of the pairs' own speedups
# (1 - knob/base, pair by pair) once the lowest and highest quarter are
# dropped (for 5 runs, of the middle 3), in the same units as S.  -v shows
# every run on stderr.
#
# -c RATE: the loop rate to give every run (-c RATE), instead of
# calibrating: runs measured in several calls, to be pooled, then do the
# very same work.  -R FILE: also append each pair ("base_us knob_us")
# to FILE, the raw data a pooled median is taken from (tests/gt-lib.sh).
#
# -a MS: RUNS runs only, each with -a MS -k NAME=PCT: the program itself
# alternates phases of MS milliseconds without and with the knob, and
# times each kind apart ("gt: alt base_us B knob_us K"); each run gives a
# pair.  Base and knob are then measured within a second of each other,
# which a machine whose speed drifts (a shared host) disturbs less.  But
# where the kernel balances threads between CPUs (gt-mutex, gt-pipeline),
# a phase must be long enough for the placement to settle after the
# switch: with -a 100, gt-pipeline's speedups come out up to 4 points
# high; use -a 300 or more (see gt.h).
#
# POSIX sh and awk only.

usage() {
	echo "usage: $0 [-r RUNS] [-a MS] [-c RATE] [-R FILE] [-v] PROG NAME PCT [PROG ARGS...]" >&2
	exit 2
}

runs=5
alt=
verbose=
rate=
raw=
while getopts r:a:c:R:v opt; do
	case $opt in
	r) runs=$OPTARG ;;
	a) alt=$OPTARG ;;
	c) rate=$OPTARG ;;
	R) raw=$OPTARG ;;
	v) verbose=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] || usage
case $runs in
'' | *[!0-9]* | 0) usage ;;
esac
prog=$1
name=$2
pct=$3
shift 3

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gt-real.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# one_run KIND [ARGS...]: run PROG once, print its time per item (for
# KIND alt, the times per item of its base and knob phases).
one_run() {
	kind=$1
	shift
	if ! "$prog" "$@" >/dev/null 2>"$tmp/err"; then
		echo "$0: $prog $* failed:" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
	if [ "$kind" = alt ]; then
		us=$(awk '$1 == "gt:" && $2 == "alt" && $3 == "base_us" &&
			  $5 == "knob_us" { v = $4 " " $6 } END { print v }' "$tmp/err")
	else
		us=$(awk '$1 == "gt:" && $6 == "per_item_us" { v = $7 }
			  END { print v }' "$tmp/err")
	fi
	if [ -z "$us" ]; then
		echo "$0: no 'gt: ...' times from $prog $*" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
	[ -z "$verbose" ] || echo "gt-real: $kind $us" >&2
	echo "$us"
}

if [ -z "$rate" ]; then
	for i in 1 2 3; do
		if ! "$prog" -C "$@" >/dev/null 2>>"$tmp/err"; then
			echo "$0: $prog -C $* failed:" >&2
			cat "$tmp/err" >&2
			exit 1
		fi
	done
	rate=$(awk '$1 == "gt:" && $2 == "loops_per_us" && $3 > r { r = $3 }
		    END { if (r > 0) print r }' "$tmp/err")
fi
if [ -z "$rate" ]; then
	echo "$0: no loop rate from $prog -C $*" >&2
	exit 1
fi
[ -z "$verbose" ] || echo "gt-real: loops_per_us $rate" >&2

: >"$tmp/pairs"
i=0
while [ "$i" -lt "$runs" ]; do
	if [ -n "$alt" ]; then
		one_run alt -c "$rate" -a "$alt" -k "$name=$pct" "$@" \
			>>"$tmp/pairs" || exit 1
		i=$((i + 1))
		continue
	fi
	if [ $((i % 2)) -eq 0 ]; then
		b=$(one_run base -c "$rate" "$@") || exit 1
		k=$(one_run knob -c "$rate" -k "$name=$pct" "$@") || exit 1
	else
		k=$(one_run knob -c "$rate" -k "$name=$pct" "$@") || exit 1
		b=$(one_run base -c "$rate" "$@") || exit 1
	fi
	echo "$b $k" >>"$tmp/pairs"
	i=$((i + 1))
done
[ -z "$raw" ] || cat "$tmp/pairs" >>"$raw" || exit 1

awk -v name="$name" -v pct="$pct" "$(cat "$(dirname "$0")/gt-median.awk")"'
{ n++; base[n] = $1; knob[n] = $2; pair[n] = 1 - $2 / $1 }
END {
	mb = median(base, n)
	mk = median(knob, n)
	sort(pair, n)
	drop = int(n / 4)
	spread = (pair[n - drop] - pair[1 + drop]) / 2
	printf "real %s %s speedup %.4f base_us %.3f knob_us %.3f spread %.4f\n",
		name, pct, median(pair, n), mb, mk, spread
}' "$tmp/pairs"
