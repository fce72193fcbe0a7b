#!/bin/sh
# usage: run.sh NICE PROG LINE PCT ITEMS [causaltop args]: one prediction, causaltop at nice NICE, the target at 0
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
T=$ROOT/tests
nc=$1 p=$2 ln=$3 pct=$4 items=$5; shift 5
c=$($T/$p -C 2>&1 | sed -n 's/^gt: loops_per_us //p')
line=$(grep -n "GT:$ln\b" $T/$p.c | head -1 | cut -d: -f1)
if [ "$nc" = 0 ]; then pre=""; post=""; else pre="nice -n $nc"; post="nice -n $((-nc))"; fi
$pre $ROOT/causaltop --no-tui "$@" --fixed-line $p.c:$line --fixed-speedup $pct --json n.json -o n.coz -v -- $post $T/$p -n $items -c "$c" > n.out 2> n.err
echo "$(python3 $T/ct-json.py level n.json $p.c:$line $pct | cut -d' ' -f1-4) $(grep -o 'tick [0-9] ms' n.err) $(grep -o 'a sample costs [0-9.]* us' n.err)"
