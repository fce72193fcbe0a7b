#!/bin/sh
# run.sh U TAG: one 30 s --fixed-line prediction of pool-ov's monitor at 50%, -u U,
# with sched_switch recorded system-wide on CLOCK_MONOTONIC and the walks logged.
# $CT: the causaltop binary (default /work/main/causaltop); $EXTRA: more options.
U=$1 TAG=$2
cd /tmp/ov
perf record -q -a -e sched:sched_switch -k CLOCK_MONOTONIC -o $TAG.data -- sleep 34 2>/dev/null &
sleep 1
POOL_OVLOG=/tmp/ov/$TAG.walks CT=${CT:-/work/main/causaltop} WORK=/tmp/ov PARGS="-u $U" OUT=/tmp/ov python3 /work/main/bench/owing-20261127/fixed.py pool-ov pool-ov.c:227 50 30 $TAG $EXTRA
wait
perf script -i $TAG.data --ns -F tid,time,trace > $TAG.sched 2>/dev/null
ls -la $TAG.*
