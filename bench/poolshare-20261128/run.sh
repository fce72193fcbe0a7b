#!/bin/bash
# pool at process 50%, 20 s, perf record -a around it; then the CPU shares
# by function in the 0% and the 50% experiments (cpuwait-20261128's share.py).
# The machine otherwise idle: nothing else measured at the same time.
mkdir -p /tmp/cr/share2 && cd /tmp/cr/share2 || exit 1
perf record -q -a -k CLOCK_MONOTONIC -e cpu-clock -c 1000000 -o perf.data -- \
  /work/main/causaltop --no-tui -v --period=1 --duration=20 --fixed-line=pool.c:137 --fixed-speedup=50 \
  --json=pool-process.json -- /tmp/v/work/pool -c 923 -n 1000000000 > /dev/null 2> pool-process.err &
PR=$!
sleep 21.5; pkill -TERM -x pool; wait $PR
perf script -i perf.data -F comm,tid,time,ip,sym > perf.txt 2>/dev/null
python3 /work/main/bench/cpuwait-20261128/share/share.py pool-process.json perf.txt pool
