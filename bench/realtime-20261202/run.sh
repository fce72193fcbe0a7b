#!/bin/bash
# The runs of README.md, in the order made: gt-unequal's long line
# (tests/), one 20 s run each of bench/owing-20261127/fixed.py at a fixed
# speedup, causaltop at a59b02b (the engine of 936f524): pinned to CPU 0 (A,
# the hitter's), to CPU 1 (B, the payer's) or not ("u"); then unpinned at
# normal priority (--realtime=0).  Made when SCHED_FIFO 1 was the default:
# --realtime=1 now asks for it.  Outputs in runs/.
cd "$(dirname "$0")/../.." || exit 1
F=bench/owing-20261127/fixed.py
export WORK=$PWD/tests OUT=${OUT:-/tmp/cr25}
L=gt-unequal.c:37
pinned() {	# CPU BIN: a wrapper that runs BIN (and the target's main thread) on CPU only
	printf '#!/bin/sh\nexec taskset -c %s %s "$@"\n' "$1" "$2" > /tmp/ct-cpu$1
	chmod +x /tmp/ct-cpu$1
	echo /tmp/ct-cpu$1
}
for p in 25 100; do
	export RATE=$(tests/gt-unequal -C 2>&1 | sed -n 's/^gt: loops_per_us //p')
	for r in 1 2; do for c in 0 1 u; do
		if [ $c = u ]; then CTB=$PWD/causaltop; else CTB=$(pinned $c $PWD/causaltop); fi
		CT=$CTB python3 $F gt-unequal $L $p 20 p$p-$c-$r --realtime=1 > $OUT/p$p-$c-$r.txt 2>&1
	done; done
done
export RATE=$(tests/gt-unequal -C 2>&1 | sed -n 's/^gt: loops_per_us //p')
for r in 1 2; do for p in 25 100; do
	python3 $F gt-unequal $L $p 20 rt0-$p-$r --realtime=0 > $OUT/rt0-$p-$r.txt 2>&1
done; done
# The whole of the strict checks at normal priority (runs/rt0-check-causal.txt):
#   GT_CT_ARGS=--realtime=0 make -C tests check-causal
# gt-offpath's flat burn line at 50%, SCHED_FIFO and normal priority interleaved
export RATE=$(tests/gt-offpath -C 2>&1 | sed -n 's/^gt: loops_per_us //p')
for r in 1 2 3; do
	python3 $F gt-offpath gt-offpath.c:29 50 20 off-fifo-$r --realtime=1 > $OUT/off-fifo-$r.txt 2>&1
	python3 $F gt-offpath gt-offpath.c:29 50 20 off-rt0-$r --realtime=0 > $OUT/off-rt0-$r.txt 2>&1
done
