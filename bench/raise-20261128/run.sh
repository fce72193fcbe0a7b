#!/bin/bash
# The runs of README.md, as made: one 20 s fixed-line run of causaltop
# (bench/owing-20261127/fixed.py) per cell, with causaltop pinned to one
# CPU by taskset (the ground-truth programs pin their own threads: main
# and "long" on CPU 0, the burner and "short" on CPU 1).  AS_IS is the
# causaltop of the tree, RAISED one built with raise.diff applied
# (CT_RAISE=1 turns it on).  Outputs: $OUT/TAG.{json,err}.
set -eu
: "${AS_IS:=/work/main/causaltop}" "${RAISED:?a causaltop built with raise.diff}"
: "${OUT:=/tmp/raise}"
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$OUT/bin
mkdir -p "$bin"
# pinned NAME CPU COMMAND...: a wrapper running COMMAND on CPU only.
pinned() {
	local name=$1 cpu=$2
	shift 2
	printf '#!/bin/sh\nexec taskset -c %s %s "$@"\n' "$cpu" "$*" > "$bin/$name"
	chmod +x "$bin/$name"
}
pinned asis-cpu0 0 "$AS_IS"; pinned asis-cpu1 1 "$AS_IS"
pinned raise-cpu0 0 env CT_RAISE=1 "$RAISED"; pinned raise-cpu1 1 env CT_RAISE=1 "$RAISED"
rate=$("$top/tests/gt-offpath" -C 2>&1 | sed -n 's/^gt: loops_per_us //p')
cell() {	# cell WRAPPER PROG FILE:LINE PCT TAG
	OUT=$OUT CT=$bin/$1 WORK=$top/tests RATE=$rate python3 "$top/bench/owing-20261127/fixed.py" "$2" "$3" "$4" 20 "$5"
}
for w in asis-cpu0 asis-cpu1 raise-cpu0 raise-cpu1; do
	cell $w gt-offpath gt-offpath.c:51 50 $w-work
	cell $w gt-offpath gt-offpath.c:29 50 $w-burn
done
cell raise-cpu0 gt-unequal gt-unequal.c:37 100 raise-cpu0-long
cell raise-cpu1 gt-unequal gt-unequal.c:37 100 raise-cpu1-long
