#!/bin/bash
# The probes of README.md, one 20 s run each, interleaved by line.
# CT: a scratch build of unpaid.diff (first loop) or taker.diff (the others) on 222aec7.
cd "$(dirname "$0")/../.." || exit 1
F=bench/owing-20261127/fixed.py
# unpaid debts at the experiments' ends (printed only: CT_UNPAID=1)
for spec in "pool pool.c:202 50 pool-monitor" "pool pool.c:137 50 pool-process" "barrier barrier.c:97 50 barrier-chunk" "kvstore kvstore.c:130 50 kvstore-insert" "oversub oversub.c:116 50 oversub-score"; do
  set -- $spec; OUT=/tmp/cr/up CT_UNPAID=1 python3 $F $1 $2 $3 20 $4-1
done
WORK=$PWD/tests OUT=/tmp/cr/up CT_UNPAID=1 python3 $F gt-crowd gt-crowd.c:32 25 20 crowd-hot-1
# as is (0) against each taker rule, exactly the runs made:
# 1: every taker charged; 2: only takers owing less than the pause floor
t() { for m in 0 $1; do OUT=/tmp/cr/tk CT_TAKER=$m python3 $F $2 $3 $4 20 $2-$5-t$m-$6; done; }
for spec in "oversub oversub.c:116 50 score" "oversub oversub.c:170 50 compact" "kvstore kvstore.c:130 50 insert" "kvstore kvstore.c:231 50 janitor" "barrier barrier.c:97 50 chunk" "barrier barrier.c:141 50 spin"; do
  t 1 $spec 1
done
for spec in "kvstore kvstore.c:231 50 janitor" "oversub oversub.c:116 50 score" "kvstore kvstore.c:130 50 insert" "barrier barrier.c:97 50 chunk" "pool pool.c:202 50 monitor" "pool pool.c:137 50 process"; do
  t 2 $spec 2
done
# where oversub's time goes (the build at 222aec7, no probe): CPU samples of
# the whole machine around one run, put in its experiments by attrib.py
perf record -a -k CLOCK_MONOTONIC -e cpu-clock -c 1000000 -o /tmp/cr/pa/oversub.data -- sleep 24 &
sleep 1
OUT=/tmp/cr/pa CT=./causaltop python3 $F oversub oversub.c:116 50 20 oversub-perf
wait
perf script -i /tmp/cr/pa/oversub.data -F comm,tid,time,ip,sym > /tmp/cr/pa/oversub.txt
python3 bench/crowdcap-20261128/attrib.py ${WORK:-/tmp/v/work}/oversub /tmp/cr/pa/oversub-perf.json /tmp/cr/pa/oversub.txt oversub
