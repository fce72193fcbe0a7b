#!/bin/bash
# pool at monitor 50%, 20 s, perf record -a around it; then shares
cd /tmp/cr/share
perf record -a -k CLOCK_MONOTONIC -e cpu-clock -c 1000000 -o perf.data -- \
  /work/main/causaltop --no-tui -v --period=1 --duration=20 --fixed-line=pool.c:202 --fixed-speedup=50 \
  --json=pool-monitor.json -- /tmp/v/work/pool -c 923 -n 1000000000 > /dev/null 2> pool-monitor.err &
PR=$!
sleep 21.5; pkill -TERM -x pool; wait $PR
perf script -i perf.data -F comm,tid,time,ip,sym > perf.txt 2>/dev/null
python3 share.py pool-monitor.json perf.txt pool
