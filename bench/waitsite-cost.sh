#!/bin/sh
# What reading a stopped thread's stack costs (ptrace/waitsite.c), and
# how often it is done: each program of the validation corpus that
# blocks, and tests/waiter, profiled REPEATS times for SECONDS in each
# --wake-tracking mode; per run, the stacks taken (and per second of
# profiling), their mean and largest cost, and the distinct sites.  Run
# from a build directory after `make check` (which builds the programs):
#     sh ../bench/waitsite-cost.sh [SECONDS] [REPEATS]
# Never on a loaded machine: it waits for a load average under 0.5.
secs=${1:-6}
reps=${2:-3}
ct=${CT:-./causaltop}
t=${TESTS_DIR:-tests}

while [ "$(cut -d' ' -f1 /proc/loadavg | tr -d .)" -gt 50 ]; do sleep 10; done
echo "# host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) CPUs; load $(cut -d' ' -f1 /proc/loadavg)"
echo "# program wake_tracking run: stacks per_s mean_us max_us sites skipped"
for prog in vc-pool vc-barrier vc-phases vc-evloop vc-kvstore gt-mutex waiter; do
	case $prog in
	waiter) args=$secs ;;
	*) args= ;;
	esac
	for mode in sched syscall; do
		for i in $(seq "$reps"); do
			rm -f ws.json
			# shellcheck disable=SC2086
			"$ct" --no-tui -q --wake-tracking=$mode --duration="$secs" --json ws.json \
				-- "$t/$prog" $args > /dev/null 2>&1
			python3 - "$prog" "$mode" "$i" "$secs" <<'PY'
import json, sys
prog, mode, i, secs = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
try:
    doc = json.load(open("ws.json"))
except (OSError, ValueError):
    print(prog, mode, i, "no profile")
    sys.exit(0)
w = doc.get("wait_sites")
dur = doc["run"]["duration_ns"] / 1e9 or secs
if not w:
    print(prog, mode, i, 0, "0.00", "-", "-", 0, 0)
else:
    print(prog, mode, i, w["stacks"], "%.2f" % (w["stacks"] / dur),
          "%.0f" % (w["unwind_ns_mean"] / 1e3), "%.0f" % (w["unwind_ns_max"] / 1e3),
          len(w["sites"]), w["skipped"])
PY
		done
	done
done
rm -f ws.json ws.json.old
