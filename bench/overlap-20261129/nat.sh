#!/bin/sh
# nat.sh U N TAG KNOB: a native pool-ov run (-k monitor=KNOB if given) with sched_switch recorded.
U=$1 N=$2 TAG=$3 K=$4
cd /tmp/ov
KA=""; [ -n "$K" ] && KA="-k monitor=$K"
perf record -q -a -e sched:sched_switch -k CLOCK_MONOTONIC -o $TAG.data -- sh -c "POOL_OVLOG=/tmp/ov/$TAG.walks ./pool-ov -c 923 -u $U -n $N $KA 2>&1 >/dev/null | grep -E '^gt:|^pool:'" 
perf script -i $TAG.data --ns -F tid,time,trace > $TAG.sched 2>/dev/null
rm -f $TAG.data
