#!/bin/sh
# The runs of bench/heldup-20261130: one causaltop build with the
# held_up rule switchable (noheld.diff applied to 1b77244; CT_NOHELD=1
# switches it off), one 30 s fixed-line run a line in each mode, the
# modes in turn, two rounds.  CT: that build; WORK: the corpus built by
# bench/validate (kvstore, barrier); wl-compress from tests/.
set -u
CT=${CT:?build of 1b77244 + noheld.diff}
WORK=${WORK:-/tmp/v/work}
F=bench/owing-20261127/fixed.py
wc_rate=$(tests/wl-compress -C 2>&1 | sed -n 's/.*loops_per_us \([0-9.]*\).*/\1/p')
kv_rate=$("$WORK"/kvstore -C 2>&1 | sed -n 's/.*loops_per_us \([0-9.]*\).*/\1/p')
ba_rate=$("$WORK"/barrier -C 2>&1 | sed -n 's/.*loops_per_us \([0-9.]*\).*/\1/p')
for i in 1 2; do
	for m in held noheld; do
		if [ $m = noheld ]; then export CT_NOHELD=1; else unset CT_NOHELD; fi
		CT=$CT OUT=/tmp/wc WORK=$PWD/tests RATE=$wc_rate python3 $F wl-compress wl-compress.c:212 100 30 $m$i
	done
done
for i in 1 2; do
	for spec in "kvstore kvstore.c:130 $kv_rate ins" "barrier barrier.c:97 $ba_rate chunk" \
		    "kvstore kvstore.c:231 $kv_rate jan"; do
		set -- $spec
		for m in held noheld; do
			if [ $m = noheld ]; then export CT_NOHELD=1; else unset CT_NOHELD; fi
			CT=$CT OUT=/tmp/wc WORK=$WORK RATE=$3 python3 $F $1 $2 50 30 $4-$m$i
		done
	done
done
