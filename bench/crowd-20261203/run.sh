#!/bin/sh
# The predictions and truths of README.md: a line run by every thread,
# sped up by 50%, with more and more threads on the 2 CPUs.  From a
# configured build directory (causaltop, tests/gt-crowd, bench/spinners
# built); RUNS/ gets each run's -v output, JSON profile and truth.
#   sh bench/crowd-20261203/run.sh [OUT]
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-/tmp/crowd-20261203}
mkdir -p "$out/base" "$out/half"
cd "$top/tests"
c=$(./gt-crowd -C 2>&1 | sed -n 's/^gt: loops_per_us //p')
hot=$(grep -n 'GT:hot' gt-crowd.c | head -n 1 | cut -d: -f1)
# bench/spinners' truth: the same program with its cold line's loop
# halved (its progress point and item count are a negligible part).
sed 's|i < CHUNK; i++) gt_sink = x = BENCH_MIX(x, i);	/\* SPIN:cold|i < CHUNK / 2; i++) gt_sink = x = BENCH_MIX(x, i);	/* SPIN:cold|' \
	"$top/bench/spinners.c" > "$out/half/spinners.c"
cmp -s "$top/bench/spinners.c" "$out/half/spinners.c" && { echo "no SPIN:cold loop to halve" >&2; exit 1; }
cp "$top/bench/spinners.c" "$out/base/spinners.c"
for v in base half; do
	cc -O2 -g -gdwarf-3 -fno-omit-frame-pointer -pthread -I "$top/bench" -I "$top/tests" -I "$top/include" \
		-o "$out/sp-$v" "$out/$v/spinners.c"
done
cold=$(grep -n 'SPIN:cold \*/' "$top/bench/spinners.c" | head -n 1 | cut -d: -f1)
for n in ${SPIN_N-4 8 16 64 256}; do
	b=$("$out/sp-base" "$n" 4 2>&1 | sed -n 's/.* per_sec \([0-9.]*\).*/\1/p')
	h=$("$out/sp-half" "$n" 4 2>&1 | sed -n 's/.* per_sec \([0-9.]*\).*/\1/p')
	../causaltop --no-tui -v --fixed-line "spinners.c:$cold" --fixed-speedup 50 \
		--json "$out/spinners-$n.json" -o "$out/spinners-$n.coz" -- "$out/sp-base" "$n" 12 \
		> "$out/spinners-$n.err" 2>&1
	set -- $(python3 ct-json.py level "$out/spinners-$n.json" "spinners.c:$cold" 50)
	echo "spinners $n threads cold 50%: real $(awk -v b="$b" -v h="$h" 'BEGIN { printf "%+.4f", 1 - b / h }') (items/s $b, halved $h) predicted $1 [$2, $3] ($4 exps) $(grep -o 'a sample costs [0-9.]* us' "$out/spinners-$n.err")"
done | tee "$out/spinners.txt"
for x in ${CROWD_X-8 16 64 256}; do
	r=$(sh gt-real.sh -r 3 -c "$c" ./gt-crowd hot 50 -x "$x")
	../causaltop --no-tui -v --fixed-line "gt-crowd.c:$hot" --fixed-speedup 50 \
		--json "$out/crowd-$x.json" -o "$out/crowd-$x.coz" -- ./gt-crowd -x "$x" -n 8000 -c "$c" \
		> "$out/crowd-$x.err" 2>&1
	set -- $(python3 ct-json.py level "$out/crowd-$x.json" "gt-crowd.c:$hot" 50)
	echo "gt-crowd -x $x hot 50%: $r; predicted $1 [$2, $3] ($4 exps) $(grep -o 'a sample costs [0-9.]* us' "$out/crowd-$x.err")"
done | tee "$out/crowd.txt"
