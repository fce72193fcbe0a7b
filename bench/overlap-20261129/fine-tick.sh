#!/bin/sh
# fine-tick.sh [COMMIT]: pool's monitor at 50% with the pauses placed at a
# finer grain.  Builds a probe engine (COMMIT, default HEAD, with the
# experiments' tick 0.25 ms instead of 1 ms: TICK_EXPERIMENT_NS in
# src/engine/schedule.c) in /tmp/ov/wt, then runs, each a 30 s prediction
# with --period=0.25: the probe at -u 100 and -u 2000 without and with
# sched_switch recorded (run.sh), and the engine as is (1 ms tick) at
# -u 2000 with sched_switch and at -u 100 without; ov2.py and ov4.py on
# the recorded ones.  A probe, not a change: nothing of it is in the code.
C=${1:-HEAD}
cd /work/main || exit 1
rm -rf /tmp/ov/wt; git worktree prune
git worktree add -q --detach /tmp/ov/wt "$C" || exit 1
cd /tmp/ov/wt || exit 1
sed -i 's/#define TICK_EXPERIMENT_NS\t1000000ULL/#define TICK_EXPERIMENT_NS\t250000ULL/' src/engine/schedule.c
grep -q 'TICK_EXPERIMENT_NS	250000ULL' src/engine/schedule.c || exit 1
./bootstrap >/dev/null 2>&1 && ./configure -q >/dev/null && make -j2 >/dev/null || exit 1
cd /tmp/ov
fixed() { CT=$1 WORK=/tmp/ov PARGS="-u $2" OUT=/tmp/ov/tk \
	python3 /work/main/bench/owing-20261127/fixed.py pool-ov pool-ov.c:227 50 30 $3 --period=0.25 | grep -E 'lvl|monitor'; }
fixed /tmp/ov/wt/causaltop 100 tkA
fixed /work/main/causaltop 100 tkB
fixed /tmp/ov/wt/causaltop 2000 tkC
for r in "wt 2000 t2000" "wt 100 t100" "main 2000 p2000"; do
	set -- $r
	ct=/tmp/ov/wt/causaltop; [ $1 = main ] && ct=/work/main/causaltop
	CT=$ct EXTRA=--period=0.25 ./run.sh $2 $3 | grep -E 'lvl|monitor'
	python3 /work/main/bench/overlap-20261129/ov2.py $3
	python3 /work/main/bench/overlap-20261129/ov4.py $3
	rm -f $3.data
done
