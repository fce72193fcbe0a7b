#!/bin/sh
# nat.sh PROG N TAG [KNOB]: a native run of a corpus program with sched_switch recorded (KNOB: -k KNOB).
P=$1 N=$2 TAG=$3 K=$4
mkdir -p /tmp/jn && cd /tmp/jn  # scratch: the sched files are large and not kept
KA=""; [ -n "$K" ] && KA="-k $K"
perf record -q -a -e sched:sched_switch -k CLOCK_MONOTONIC -o $TAG.data -- sh -c "/tmp/v/work/$P -c 923 -n $N $KA 2>&1 >/dev/null | grep -E '^gt:|^$P:'"
perf script -i $TAG.data --ns -F tid,time,trace > $TAG.sched 2>/dev/null
rm -f $TAG.data
