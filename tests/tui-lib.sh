# Sourced by the TUI tests (tui-*.test) after init.sh: causaltop's TUI in
# a detached tmux session of its own (its own server socket and no
# configuration), driven with send-keys and read with capture-pane.
# Every wait polls with a time limit; none assumes a speed.

command -v tmux >/dev/null 2>&1 || skip_ "tmux is not installed"
require_ptrace

TMUX_SOCK=ct-$$-${NAME}
# tm ARGS...: tmux on the test's own server.
tm() { tmux -L "$TMUX_SOCK" -f /dev/null "$@"; }
tui_cleanup_() { tm kill-server 2>/dev/null; cleanup_; }
trap tui_cleanup_ EXIT

# tui_start W H CMD: run the shell command CMD in a W x H pane; when it
# ends, its exit status goes to the file ct-exit.  The locale is
# C.UTF-8, or TUI_LANG.  Sanitizer reports go
# to files (stderr is the TUI's log, a pipe, while curses runs).
tui_start() {
	_w=$1 _h=$2
	shift 2
	cat > tui-cmd.sh <<EOS
cd '$PWD' || exit 99
TUI_LANG='${TUI_LANG-}'
export LANG=\${TUI_LANG:-C.UTF-8} LC_ALL= TERM=screen
export ASAN_OPTIONS="\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}log_path=$PWD/asan"
export UBSAN_OPTIONS="\${UBSAN_OPTIONS:+\$UBSAN_OPTIONS:}log_path=$PWD/ubsan"
$*
echo \$? > ct-exit.tmp && mv ct-exit.tmp ct-exit
exec sleep 3600
EOS
	rm -f ct-exit
	tm new-session -d -x "$_w" -y "$_h" -s ct "sh '$PWD/tui-cmd.sh'" ||
		framework_failure_ "tmux new-session failed"
}

# tui_screen: what the pane shows now (also kept in the file screen).
tui_screen() { tm capture-pane -p -t ct > screen 2>/dev/null; cat screen; }

# tui_wait SECONDS SHELL-CONDITION: poll the screen (in the file screen)
# every half second until the condition holds; false after SECONDS.
tui_wait() {
	_limit=$(($1 * 2))
	shift
	_i=0
	while :; do
		tui_screen > /dev/null
		eval "$1" && return 0
		_i=$((_i + 1))
		[ "$_i" -le "$_limit" ] || return 1
		sleep 0.5
	done
}

# tui_keys KEY...: tmux key names (Enter, Escape, F1, C-l...) or text.
tui_keys() { tm send-keys -t ct "$@"; }

# tui_row N: the Nth row of the list under the column header (1 first).
tui_row() { awk -v n="$1" 'f && ++i == n { print; exit } /LOCATION|FUNCTION +MODULE/ { f = 1 }' screen; }

# tui_rows: every row of the list under the column header.
tui_rows() { awk 'f { print } /LOCATION|FUNCTION +MODULE/ { f = 1 }' screen; }

# tui_exit_status SECONDS: wait for the command line to end; its status.
tui_exit_status() {
	_i=0
	while [ ! -f ct-exit ]; do
		_i=$((_i + 1))
		[ "$_i" -le $(($1 * 10)) ] || return 1
		sleep 0.1
	done
	cat ct-exit
}

# No sanitizer report was written.
tui_no_sanitizer_report() {
	for f in asan.* ubsan.*; do
		[ -f "$f" ] || continue
		cat "$f" >&2
		fail_ "sanitizer report $f"
	done
}

# PID runs on: traced by nobody, no thread of it stopped.  Threads that
# end while they are looked at are skipped (the workloads start threads
# for every item).
tui_target_free() {
	_pid=$1
	[ -d "/proc/$_pid" ] || fail_ "process $_pid is gone"
	[ "$(tracer_of "$_pid")" = 0 ] || fail_ "process $_pid still traced by $(tracer_of "$_pid")"
	for _t in /proc/"$_pid"/task/*; do
		_st=$(cat "$_t/status" 2>/dev/null) || continue
		_tp=$(echo "$_st" | sed -n 's/^TracerPid:[[:space:]]*//p')
		[ -z "$_tp" ] || [ "$_tp" = 0 ] || fail_ "thread ${_t##*/} still traced by $_tp"
		case $(echo "$_st" | sed -n 's/^State:[[:space:]]*//p') in
		[tT]*) fail_ "thread ${_t##*/} is stopped: $(echo "$_st" | grep State)" ;;
		esac
	done
	_before=$(cpu_ticks "$_pid")
	wait_for 10 cpu_grew_ "$_pid" "$_before" || fail_ "process $_pid does not run"
}
