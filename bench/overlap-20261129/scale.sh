#!/bin/bash
# scale.sh U N ROUNDS: pool's monitor at 50% with the unit U (walk 1u under
# the lock, fold 4u): per round a native pair (N items, order alternating)
# and a 30 s --fixed-line prediction with the walks and the threads'
# stops recorded (run.sh), then ov.py.  The probe binary, pool-ov (mk.py),
# is the corpus's pool with the walks logged when POOL_OVLOG is set.
U=$1 N=$2 R=${3:-3}
cd /tmp/ov
for rep in $(seq 1 $R); do
  for k in base knob; do
    if [ $((rep % 2)) = 0 ]; then kk=$([ $k = base ] && echo knob || echo base); else kk=$k; fi
    if [ $kk = knob ]; then ka="-k monitor=50"; else ka=""; fi
    echo "native u=$U rep=$rep $kk: $(./pool-ov -c 923 -u $U -n $N $ka 2>&1 >/dev/null | grep -E '^gt:' | head -1)"
  done
  ./run.sh $U u$U-$rep 2>&1 | grep -v '^-rw'
  python3 ov.py u$U-$rep
  rm -f u$U-$rep.data
done
