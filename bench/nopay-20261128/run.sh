#!/bin/bash
# pool's process line at 50%, causaltop attached (-p) for 20 s to a pool
# started unprofiled: as is, and with the producer's debts forgiven at
# every pass (nopay.diff, CT_NOPAY_TIDS).  An oracle, not a rule: does
# the producer's paying explain the low reading?
#   CT=<nopay.diff build> OUT=<dir> bash run.sh REPS
set -u
: "${OUT:=/tmp/nopay}"; mkdir -p "$OUT"
for r in $(seq "${FIRST:-1}" "$1"); do
	for mode in asis producer producer+monitor; do
		# the Coz shim preloaded, as causaltop launches a command: its counters are found on attach
		CAUSALTOP_PROFILED=1 LD_PRELOAD=/work/main/libcausaltop-coz.so /tmp/v/work/pool -c 923 -n 1000000000 > /dev/null 2>&1 &
		P=$!; sleep 0.5
		tids=($(ls /proc/$P/task | sort -n))	# main, producer, 3 workers, monitor
		case $mode in
		asis) nopay= ;;
		producer) nopay=${tids[1]} ;;
		producer+monitor) nopay=${tids[1]},${tids[5]} ;;
		esac
		CT_NOPAY_TIDS=$nopay "$CT" --no-tui -v --period=1 --duration=20 --fixed-line=pool.c:137 \
			--fixed-speedup=50 --json="$OUT/$mode-$r.json" -p $P > /dev/null 2> "$OUT/$mode-$r.err"
		kill $P; wait $P 2> /dev/null
		python3 - "$OUT/$mode-$r.json" "$mode-$r" <<'PYEOF'
import json, sys
e = json.load(open(sys.argv[1]))['experiments']
r = {}
for lv in (0, 50):
    xs = [x for x in e if x['speedup_pct'] == lv]
    n = sum(x['points'][0]['delta'] for x in xs)
    r[lv] = (sum(x['wall_ns'] for x in xs) / n / 1e3, sum(x['delay_ns'] for x in xs) / n / 1e3)
print('%-20s pred %+.3f  per item: 0%% wall %.1f us; 50%% wall %.1f delay %.1f eff %.1f' % (sys.argv[2],
      1 - (r[50][0] - r[50][1]) / r[0][0], r[0][0], r[50][0], r[50][1], r[50][0] - r[50][1]), flush=True)
PYEOF
	done
done
