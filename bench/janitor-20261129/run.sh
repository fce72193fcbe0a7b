#!/bin/sh
# run.sh PROG FILE:LINE TAG ($CT: causaltop binary, $EXTRA: more options): a 30 s --fixed-line prediction at 50% with sched_switch recorded.
P=$1 L=$2 TAG=$3
mkdir -p /tmp/jn && cd /tmp/jn  # scratch: the sched files are large and not kept
perf record -q -a -e sched:sched_switch -k CLOCK_MONOTONIC -o $TAG.data -- sleep 34 2>/dev/null &
sleep 1
CT=${CT:-/work/main/causaltop} OUT=/tmp/jn python3 /work/main/bench/owing-20261127/fixed.py $P $L 50 30 $TAG $EXTRA
wait
perf script -i $TAG.data --ns -F tid,time,trace > $TAG.sched 2>/dev/null
rm -f $TAG.data
