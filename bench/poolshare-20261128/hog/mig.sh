#!/bin/bash
# gt-crowd for 10 s, with or without the hog on CPU 1; each thread's
# migrations and CPU time by CPU share (from /proc sched).
mode=$1
/tmp/v/work/pool -c 923 -n 1000000000 > /dev/null 2>&1 &
G=$!; sleep 1
declare -A m0
for t in /proc/$G/task/*; do m0[$t]=$(awk '/nr_migrations/ {print $3}' $t/sched); done
[ "$mode" = hog ] && "$(dirname "$0")"/hog 1 1000 10000 8 &
sleep 8.2
tot=0
for t in /proc/$G/task/*; do m=$(awk '/nr_migrations/ {print $3}' $t/sched); tot=$((tot + m - ${m0[$t]})); done
echo "$mode: migrations of pool's threads in 8 s: $tot"
kill $G; wait 2>/dev/null
