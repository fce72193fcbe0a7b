#!/bin/sh
# An event-loop server of the validation corpus (bench/corpus/evloop.c,
# built by `make validate` into validate-work/) profiled (sampling only)
# without a progress point, and with --progress on its request-completion
# function serve_line patched in (--probe-mode=patch) and counted by traps
# (uprobe; breakpoint where they fire): the server's time per request, and
# the probed function's share of the in-scope samples, which a probe that
# costs the program must not change.  REPS runs of each, interleaved,
# medians printed (the server reports its time per request on standard
# error, which it shares with causaltop).  From the top of a built tree:
#
#   sh bench/patch-evloop.sh [REPS [ITEMS]]
set -eu
reps=${1:-5}
items=${2:-20000}
ev=${EVLOOP:-validate-work/evloop}
[ -x "$ev" ] || { echo "no $ev: run make validate (or set EVLOOP)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() {	# mode: appends "per_item_us share_pct count" to $out/$mode
	mode=$1 rc=0
	case $mode in
	none) ./causaltop --no-tui --no-experiments -- "$ev" -n "$items" > "$out/o" 2> "$out/e" || rc=$? ;;
	*) ./causaltop --no-tui --no-experiments --probe-mode="$mode" --progress=serve_line \
		-- "$ev" -n "$items" > "$out/o" 2> "$out/e" || rc=$? ;;
	esac
	[ $rc = 69 ] && return 0	# breakpoints never fire here
	[ $rc = 0 ] || { cat "$out/e" >&2; exit 1; }
	us=$(sed -n 's/^gt: .*per_item_us \([0-9.]*\).*/\1/p' "$out/e")
	share=$(awk '/^Top functions \(in scope\)/ { on = 1; next } on && /^$/ { on = 0 }
		on && $3 == "serve_line" { s = $2 } END { sub("%", "", s); print s + 0 }' "$out/e")
	count=$(awk '$1 == "serve_line" && $2 == "throughput" { print $5 }' "$out/e")
	echo "$us $share ${count:--}" >> "$out/$mode"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for i in $(seq "$reps"); do
	for m in none patch breakpoint uprobe; do run $m; done
done
echo "host: $(uname -r), $(nproc) CPUs, evloop -n $items, load $(cut -d' ' -f1 /proc/loadavg) at the end"
printf '%-11s %14s %22s  %s\n' mode "us/request" "serve_line's share" "runs (us share count)"
for m in none patch breakpoint uprobe; do
	[ -s "$out/$m" ] || { echo "$m: refused here"; continue; }
	printf '%-11s %14s %21s%%  %s\n' $m "$(cut -d' ' -f1 "$out/$m" | median)" \
		"$(cut -d' ' -f2 "$out/$m" | median)" "$(tr '\n' ';' < "$out/$m")"
done
