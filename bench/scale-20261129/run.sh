#!/bin/bash
# pool's monitor at 50%: the unit scaled (walk 1u under the lock, fold 4u).
# Truth: native pairs at each -u; prediction: fixed.py 30 s.  Interleaved.
cd /work/main
export OUT=/tmp/v/scale
mkdir -p $OUT
P=/tmp/v/work/pool
for rep in 1 2 3; do
  for u in 2000 100; do
    if [ $u = 2000 ]; then n=1500; else n=15000; fi
    for k in base knob; do
      if [ $(( (rep) % 2 )) = 0 ]; then kk=$([ $k = base ] && echo knob || echo base); else kk=$k; fi
      if [ $kk = knob ]; then ka="-k monitor=50"; else ka=""; fi
      echo "native u=$u rep=$rep $kk: $($P -c 923 -u $u -n $n $ka 2>&1 >/dev/null | grep -E '^gt:|per_item' | head -2 | tr '\n' ' ')"
    done
    PARGS="-u $u" python3 bench/owing-20261127/fixed.py pool pool.c:202 50 30 mon-u$u-$rep
  done
done
