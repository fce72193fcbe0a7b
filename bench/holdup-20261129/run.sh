#!/bin/bash
# CT_HOLDWAIT A/B: one 20 s run each line, modes interleaved.
cd /work/main
export OUT=/tmp/hw/runs CT=${CT:-/tmp/hw/ct}
F=bench/owing-20261127/fixed.py
for rep in ${REPS:-1}; do
for m in 0 1; do
  export CT_HOLDWAIT=$m
  python3 $F kvstore kvstore.c:130 50 20 kv-insert-$m-$rep
  python3 $F kvstore kvstore.c:231 50 20 kv-janitor-$m-$rep
  python3 $F kvstore kvstore.c:107 50 20 kv-build-$m-$rep
  python3 $F barrier barrier.c:97 50 20 bar-chunk-$m-$rep
  WORK=/work/main/tests python3 $F gt-mutex gt-mutex.c:50 50 20 mutex-local-$m-$rep
  WORK=/work/main/tests python3 $F gt-mutex gt-mutex.c:53 50 20 mutex-crit-$m-$rep
  PARGS=-p WORK=/work/main/tests python3 $F gt-pipeline gt-pipeline.c:193 50 20 pipe-produce-$m-$rep
done; done
