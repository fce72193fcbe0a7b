#!/bin/bash
# per-second per-CPU steal and busy deltas (ticks of 10 ms)
prev=$(grep '^cpu[0-9]' /proc/stat)
while sleep 1; do
  cur=$(grep '^cpu[0-9]' /proc/stat)
  paste <(echo "$prev") <(echo "$cur") | awk -v t="$(date +%T)" '{n=NF/2; st=$(n+9)-$9; bu=($(n+2)+$(n+4)+$(n+7)+$(n+8))-($2+$4+$7+$8); idle=$(n+5)-$5; printf "%s %s st=%d busy=%d idle=%d  ", t, $1, st, bu, idle} END{print ""}'
  prev=$cur
done
