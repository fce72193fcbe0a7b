#!/bin/bash
# The runs of README.md: gt-unequal's long line (tests/), one 20 s run
# each of bench/owing-20261127/fixed.py, in the order made.  CT builds:
# 222aec7 as is (./causaltop), or a scratch build of one of the diffs here
# on 78f076e (CT_HOLDON / CT_LAGLESS / CT_STEALAT switch the probe on).
cd "$(dirname "$0")/../.." || exit 1
F=bench/owing-20261127/fixed.py
export WORK=$PWD/tests OUT=/tmp/cr/un
export RATE=$(tests/gt-unequal -C 2>&1 | sed -n 's/^gt: loops_per_us //p')
L=gt-unequal.c:37
# pinned CPU BIN: prints a wrapper that runs BIN (the supervisor, and so
# the target's main thread) on CPU only
pinned() {
	printf '#!/bin/sh\nexec taskset -c %s %s "$@"\n' "$1" "$2" > /tmp/ct-cpu$1
	chmod +x /tmp/ct-cpu$1
	echo /tmp/ct-cpu$1
}
# supervisor pinned to one CPU (A runs "long" pinned to CPU 0, B "short" to CPU 1)
for r in 1 2; do for c in 0 1; do
  CT=$(pinned $c "${CT:-$PWD/causaltop}") python3 $F gt-unequal $L 100 20 pin$c-$r
done; done
# lagless.diff build as CT: as is (g0) and asking less (g1), not pinned
for r in 1 2; do for p in 100 50; do for m in 0 1; do
  if [ $m = 1 ]; then export CT_LAGLESS=1; else unset CT_LAGLESS; fi
  python3 $F gt-unequal $L $p 20 l$p-g$m-$r
done; done; done; unset CT_LAGLESS
# stealat.diff build as CT, pinned: st<cpu><probe>
for r in 1 2; do for m in "1 0" "1 1" "0 1"; do set -- $m
  if [ $2 = 1 ]; then export CT_STEALAT=1; else unset CT_STEALAT; fi
  CT=$(pinned $1 "$CT") python3 $F gt-unequal $L 100 20 st$1$2-$r
done; done; unset CT_STEALAT
# holdon.diff build in its own tree: the whole of check-causal with the probe on
#   CT_HOLDON=1 make -C tests check-causal
