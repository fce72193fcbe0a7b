#!/bin/sh
# Supervisor CPU cost per traced thread per second of sampling, on a
# CPU-bound target (tests/spin: THREADS threads spinning for SECONDS),
# in each sampler mode.  Run from a build directory after `make check`
# (which builds tests/spin):
#     sh ../bench/supervisor-cost.sh [THREADS] [SECONDS] [PERIOD_MS] [REPEATS]
# Prints one line per run and the median per mode.
threads=${1:-2}
secs=${2:-5}
period=${3:-1}
reps=${4:-5}
ct=${CT:-./causaltop}
spin=${SPIN:-tests/spin}

tmp=$(mktemp)
for mode in thread cpu; do
	for i in $(seq "$reps"); do
		"$ct" -v --report=- --sampler=$mode --period="$period" -- "$spin" "$threads" "$secs" 2>/dev/null |
		awk -v m=$mode -v t="$threads" '
			/^causaltop: launched/ { secs = $(NF - 6) }
			/^Samples:/ { samples = $2 + 0 }
			/^Supervisor:/ { cpu = $2 }
			END {
				printf "%s: %.4f s CPU for %d samples in %.2f s: %.1f us/sample, %.2f ms CPU per thread-second\n",
					m, cpu, samples, secs, 1e6 * cpu / samples, 1e3 * cpu / (t * secs)
			}'
	done | tee "$tmp"
	awk '{ print $(NF - 4) }' "$tmp" | sort -n |
		awk -v m=$mode '{ v[NR] = $1 } END { printf "%s median: %.2f ms CPU per thread-second\n", m, v[int((NR + 1) / 2)] }'
done
rm -f "$tmp"
