#!/bin/bash
# probe CT_CPUWAIT modes; one 20 s run each, interleaved.
# /work/main/ct-probe: a scratch build of probe.diff on a6853f1 (removed since).
cd /work/main
export OUT=/tmp/cr/cw CT=/work/main/ct-probe
for rep in 1; do
for m in def 0 vol; do
  if [ $m = def ]; then unset CT_CPUWAIT; else export CT_CPUWAIT=$m; fi
  python3 bench/owing-20261127/fixed.py pool pool.c:202 50 20 pool-monitor-$m-$rep
  python3 bench/owing-20261127/fixed.py pool pool.c:137 50 20 pool-process-$m-$rep
  WORK=/work/main/tests python3 bench/owing-20261127/fixed.py gt-crowd gt-crowd.c:32 25 20 crowd-hot-$m-$rep
  python3 bench/owing-20261127/fixed.py oversub oversub.c:116 50 20 oversub-score-$m-$rep
done; done
