# Sourced by every *.test.  strace's conventions: exit 0 pass, 77 skip,
# 99 framework failure, anything else fail.  Each test works in its own
# NAME.dir/, kept after a failure for inspection.
set -u

ME_=${0##*/}
NAME=${ME_%.test}
: "${CT:?CT (the causaltop binary) is not set}"
: "${builddir:=.}"
: "${srcdir:=.}"
case "$srcdir" in /*) ;; *) srcdir=$(cd "$srcdir" && pwd) ;; esac
TESTDIR="$builddir/$NAME.dir"
rm -rf "$TESTDIR"
mkdir -p "$TESTDIR"
cd "$TESTDIR" || exit 99
LOG=$TESTDIR/log

fail_() { printf '%s: FAIL: %s\n' "$ME_" "$*" >&2; exit 1; }
skip_() { printf '%s: SKIP: %s\n' "$ME_" "$*" >&2; exit 77; }
framework_failure_() { printf '%s: FRAMEWORK FAILURE: %s\n' "$ME_" "$*" >&2; exit 99; }

# Background processes a test started are killed at exit, whatever happens.
BG_PIDS=
bg_track() { BG_PIDS="$BG_PIDS $*"; }
cleanup_() {
	for p in $BG_PIDS; do kill -9 "$p" 2>/dev/null; done
	# Never leave a stopped, traced process behind.
	for p in $BG_PIDS; do kill -CONT "$p" 2>/dev/null; done
	:
}
trap cleanup_ EXIT

# run_ct ARGS...: run causaltop; stdout in out, stderr in err, status in $rc.
run_ct() {
	rc=0
	"$CT" "$@" > out 2> err || rc=$?
	return 0
}

# Targets are the programs built beside this script.
T() { printf '%s/%s' "$builddir" "$1"; }

# wait_for SECONDS CMD...: poll until CMD succeeds; fail after SECONDS.
wait_for() {
	local limit=$1 i=0
	shift
	while ! "$@"; do
		i=$((i + 1))
		[ "$i" -le $((limit * 20)) ] || return 1
		sleep 0.05
	done
}

# Number of threads of PID.
nthreads() { ls "/proc/$1/task" 2>/dev/null | wc -l; }
nthreads_is() { [ "$(nthreads "$1")" = "$2" ]; }
# count_is FILE REGEX N: FILE has N lines matching REGEX (for wait_for).
count_is() { [ "$(grep -c -E -e "$2" "$1" 2>/dev/null)" = "$3" ]; }
tracer_of() { sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null; }
# Thread state letters of every thread of PID, e.g. "RRS".
thread_states() {
	local t s
	for t in /proc/"$1"/task/*; do
		s=$(sed 's/.*) //' "$t/stat" 2>/dev/null | cut -c1)
		printf '%s' "$s"
	done
}
# Total CPU ticks (utime+stime) of PID.
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

# The process runs and is traced by nobody, in none of its threads.
assert_untraced_running() {
	local pid=$1 t tp
	[ -d "/proc/$pid" ] || fail_ "process $pid is gone"
	for t in /proc/"$pid"/task/*; do
		tp=$(sed -n 's/^TracerPid:[[:space:]]*//p' "$t/status")
		[ "$tp" = 0 ] || fail_ "thread ${t##*/} still traced by $tp"
	done
	case "$(thread_states "$pid")" in
	*[tT]*) fail_ "process $pid has a stopped thread: $(thread_states "$pid")" ;;
	esac
	# Its CPU time still grows (targets used with this spin).
	local before after
	before=$(cpu_ticks "$pid")
	wait_for 10 cpu_grew_ "$pid" "$before" || fail_ "process $pid does not run"
}
cpu_grew_() { [ "$(cpu_ticks "$1")" -gt "$2" ]; }

# A skip only where the machine refuses (ptrace 67, already traced 68,
# perf 69): causaltop failing otherwise, or a sanitizer's report, fails.
require_ptrace() {
	local rc=0
	"$CT" -- "$(T spin)" 0 0.01 > /dev/null 2> ptrace-probe.err || rc=$?
	if grep -q -E 'runtime error|Sanitizer' ptrace-probe.err; then
		fail_ "causaltop under the sanitizers: $(cat ptrace-probe.err)"
	fi
	case $rc in
	0) ;;
	67|68|69) skip_ "cannot profile here: $(cat ptrace-probe.err)" ;;
	*) fail_ "causaltop failed (status $rc): $(cat ptrace-probe.err)" ;;
	esac
}

# match_grep FILE REGEX...: each extended regex must match a whole line.
match_grep() {
	local f=$1 re
	shift
	for re in "$@"; do
		grep -E -x -q -e "$re" "$f" || {
			cat "$f" >&2
			fail_ "no line of $f matches: $re"
		}
	done
}

# Field helpers for the report.
report_threads_traced() { sed -n 's/^Threads: \([0-9]*\) traced.*/\1/p' "$1"; }
report_threads_without() { sed -n 's/^Threads: .* \([0-9]*\) without$/\1/p' "$1"; }
