# Sourced by the ground-truth comparisons (causal-*.tap) after init.sh.
#
# Each check compares causaltop's prediction for a line of a ground-truth
# workload (tests/gt-*.c, bench/wl-*.c) with the program speedup really
# obtained by making that line faster (the workload's -k knob).  The
# test speaks TAP: one line per check, read by automake's tap-driver, so
# that each check passes, fails or is an expected failure by itself.
#
# The bar, and nothing wider (gt_verdict):
#
#	|predicted - real| <= GT_BAR (0.05: 5 points of program speedup)
#	and the prediction's 95% interval no wider than +-GT_MAX_HALF (0.10)
#
# real is the median of the speedups 1 - knob / base of every real pair
# measured for the check: GT_PAIRS (6) pairs of native runs, half before
# the profiled run and half after it, pooled; none is dropped and none
# is measured again.  A check that misses is a failure; where a known limit
# makes causaltop miss, the check says so beforehand (gt_check --xfail)
# and is an expected failure (TODO), which prints its figures like any
# other; one that passes then is an unexpected pass, which fails the
# suite until the limit is taken off the list (README, "Known limits").

# CT_SKIP_CAUSAL=1 leaves them out, for a quick run of the rest of the
# suite (CI runs them in both its builds).
# The TUI tests (tui-*.test) source this file too, for its calibration
# and lines: they keep init.sh's exits (77 a skip), where TAP's skip-all
# plan would exit 0, a pass with nothing checked.
case $ME_ in *.tap) _gt_tap=1 ;; *) _gt_tap= ;; esac
if [ "${CT_SKIP_CAUSAL:-0}" = 1 ]; then
	[ -n "$_gt_tap" ] || skip_ "CT_SKIP_CAUSAL=1: ground-truth programs left out"
	echo "1..0 # SKIP CT_SKIP_CAUSAL=1: ground-truth comparisons skipped"
	exit 0
fi

GT_BAR=${GT_BAR:-0.05}
GT_MAX_HALF=${GT_MAX_HALF:-0.10}
GT_PAIRS=${GT_PAIRS:-6}

# TAP from here (a .tap file): init.sh's fail_/framework_failure_ end the test with a
# "Bail out!", which the driver reports as an error.
_gt_n=0
_gt_bail() { printf 'Bail out! %s: %s\n' "$ME_" "$*"; exit 99; }
# Before the plan, a test that cannot run here at all (no ptrace) is
# skipped as a whole; after it, that is an error.
_gt_planned=
if [ -n "$_gt_tap" ]; then
	fail_() { _gt_bail "$*"; }
	framework_failure_() { _gt_bail "$*"; }
	skip_() {
		[ -z "$_gt_planned" ] || _gt_bail "cannot run here: $*"
		echo "1..0 # SKIP $*"
		exit 0
	}
fi

gt_plan() { _gt_planned=1; echo "1..$1"; }

# A test line, with its details as TAP comments (which the driver copies
# into the log): gt_tap STATUS DIRECTIVE DESCRIPTION [DETAIL...].
gt_tap() {
	_st=$1 _dir=$2 _desc=$3
	shift 3
	_gt_n=$((_gt_n + 1))
	for _l in "$@"; do printf '# %s\n' "$_l"; done
	printf '%s %d - %s%s\n' "$_st" "$_gt_n" "$_desc" "${_dir:+ # $_dir}"
}

require_ptrace

# Hosts where a timer sample costs the program 20 us or more (AMD EPYC
# PVM guests: 40-50 us, every interrupt and switch through the
# hypervisor; Intel KVM guests: 4-8 us), as causaltop measures it before
# it samples (hostcost.c; it samples every 2 ms there).  Some known
# limits hold on such hosts only (gt_check --limit-dear): that is known
# before any check is made, from the host, never from a check's result.
gt_sample_us=$("$CT" --no-tui -v --no-experiments -- "$(T spin)" 0 0.01 2>&1 |
	sed -n 's/.* a sample costs \([0-9.]*\) us here.*/\1/p')
[ -n "$gt_sample_us" ] || _gt_bail "causaltop did not say what a sample costs here"
gt_dear=$(awk -v c="$gt_sample_us" 'BEGIN { print (c >= 20) ? 1 : 0 }')
echo "# a timer sample costs ${gt_sample_us} us here: $([ "$gt_dear" = 1 ] && echo dear || echo cheap) host"
command -v python3 >/dev/null 2>&1 || _gt_bail "python3 is needed to read the JSON profile"

# The comparisons are timing measurements of their own: two of them at
# once would each be the other's load.  Under make -j they take turns.
if command -v flock >/dev/null 2>&1; then
	exec 9>"$builddir/causal.lock"
	flock 9
fi

# Other programs' load.  Both sides of a comparison assume the CPUs are
# the workload's (README, known limits: beside one busy loop on 2 CPUs,
# 6 of 8 tests failed).  So a check is made only on a quiet machine: it
# waits for one (up to GT_QUIET_WAIT s, 180), and a machine that stays
# busy fails the check as not measured; neither the prediction nor the
# truth is ever taken beside a load.
#
# gt_stat: /proc/stat's cpu line without its name (a test may stand in
# its own); gt_ncpus: the number of CPUs.
gt_stat() {
	sed -n 's/^cpu //p' /proc/stat
}
gt_ncpus() {
	grep -c '^cpu[0-9]' /proc/stat
}

# gt_busy: the CPU used by everything on the machine over a second, in
# percent of one CPU, steal included (the hypervisor's other guests),
# while this test runs nothing.
gt_busy() {
	{ gt_stat; sleep 1; gt_stat; gt_ncpus; } | awk '
		NR < 3 { b[NR] = $1 + $2 + $3 + $6 + $7 + $8; t[NR] = b[NR] + $4 + $5 }
		NR == 3 { n = $1; d = t[2] - t[1]; printf "%d\n", (d > 0 ? 100 * n * (b[2] - b[1]) / d : 0) }'
}

# gt_steal_probe: the host's steal time while every CPU spins for a
# second, in percent of their time.  Steal accrues only while a vCPU has
# work: idle, a contended host shows none (1-2 ticks a second on the AMD
# EPYC PVM hosts on 2026-11-28 in the middle of bursts that took 10 to
# 30% of each busy vCPU for minutes).
gt_steal_probe() {
	{ gt_stat; "$(T spin)" "$(gt_ncpus)" 1 > /dev/null 2>&1; gt_stat; } | awk '
		{ s[NR] = $8; t[NR] = $1 + $2 + $3 + $4 + $5 + $6 + $7 + $8 }
		END { d = t[2] - t[1]; printf "%d\n", (d > 0 ? 100 * (s[2] - s[1]) / d : 0) }'
}

# gt_quiet: true once other programs use under GT_QUIET_PCT% (25) of a
# CPU and then the host's other guests take under GT_QUIET_STEAL_PCT%
# (3) of the CPUs' time while they spin (gt_steal_probe: steal slows
# whichever side of a comparison it falls on); false, with _gt_busy_msg
# said, if either keeps on for GT_QUIET_WAIT s.  The sanitizer build
# measures no truth: no wait.
gt_quiet() {
	[ "${CT_SANITIZED:-0}" = 1 ] && return 0
	_waited=0
	while :; do
		_busy=$(gt_busy)
		if [ "$_busy" -ge "${GT_QUIET_PCT:-25}" ]; then
			_why="other programs used ${_busy}% of a CPU"
		else
			_steal=$(gt_steal_probe)
			[ "$_steal" -lt "${GT_QUIET_STEAL_PCT:-3}" ] && return 0
			_why="the host's other guests took ${_steal}% of the CPUs' time (steal)"
		fi
		if [ "$_waited" -ge "${GT_QUIET_WAIT:-180}" ]; then
			_gt_busy_msg="$_why for ${_waited} s"
			return 1
		fi
		[ "$_waited" = 0 ] && echo "# machine busy ($_why): waiting for it to calm down"
		sleep 4
		_waited=$((_waited + 5))
	done
}

# gt_steal_at: "SECONDS STEAL_MS" now: the time since boot and the host's
# steal time so far, all CPUs (gt_stat's 8th figure, in ticks): what
# other guests of the hypervisor took from this one.
gt_steal_at() {
	{ gt_stat; cat /proc/uptime; } | awk -v hz="$(getconf CLK_TCK)" '
		NR == 1 { s = $8 * 1000 / hz } NR == 2 { print $1, s + 0 }'
}

# gt_steal_pct FROM TO [FROM TO...]: the steal between pairs of
# gt_steal_at readings, summed, in percent of every CPU's time then.
gt_steal_pct() {
	echo "$@" | awk -v n="$(gt_ncpus)" '{
		for (i = 1; i + 3 <= NF; i += 4) { d += $(i + 2) - $i; s += $(i + 3) - $(i + 1) }
		printf "%.1f\n", (d > 0 && n > 0) ? s / 10 / d / n : 0 }'
}

# gt_steal_over BAR STEAL_PRED STEAL_REAL: true when either side's steal
# (gt_steal_pct) reached BAR percent.
gt_steal_over() {
	awk -v lim="$1" -v p="$2" -v r="$3" 'BEGIN { exit !(p >= lim || r >= lim) }'
}

# A shared host: the host's other guests took GT_SHARED_STEAL_PCT (0.5)
# or more of the CPUs' time during a check's prediction or its real runs
# (steal, measured around each side; gt_quiet waits out 3% before).
# There causaltop's errors spread and lean low as the other guests'
# share grows (README, "Known limits": in the recorded runs of
# 2026-11-28 to 30, to run 59, 10 of 227 such checks missed the bar
# outside their own known limits, by -8.6 to +5.1 points; none of the 992
# measured under 0.5% did).  A check measured there is judged with the
# limit's reach, GT_SHARED_LOW (0.10) low and GT_SHARED_HIGH (0.06)
# high: a miss within it is an expected failure that prints its figures,
# one beyond it fails.  The condition is the check's own measurement,
# printed with its verdict, never its result.
# gt_shared STEAL_PRED STEAL_REAL: true on a shared host.
GT_SHARED_STEAL_PCT=${GT_SHARED_STEAL_PCT:-0.5}
GT_SHARED_LOW=${GT_SHARED_LOW:-0.10}
GT_SHARED_HIGH=${GT_SHARED_HIGH:-0.06}
gt_shared() {
	gt_steal_over "$GT_SHARED_STEAL_PCT" "$1" "$2"
}

# A disturbed host: the host's other guests took GT_DISTURBED_STEAL_PCT
# (5) or more of the CPUs' time during a check's prediction or its real
# runs, the share from which causaltop itself warns its user that their
# load moved the program's speed and its predictions may be off
# (EXP_STEAL_WARN_PCT: app/main.c, warn_steal; steal-warning.test), and
# the guide's loaded machine for the truth.  There the errors outgrow
# the shared host's reach: wl-wordfreq hash 100% -13.8 at 8.2% (run
# 62), -17.0 at 7.1% and 9.2% (the project's CI of ebce796), gt-unequal
# long 100% -14.9 at 8.5% (the CI of 92f7419).  A miss there is an
# expected failure with no reach, that prints its figures, its steal and
# the profiler's warning if it gave one (README, "Known limits"); a pass
# passes; an imprecise interval or no estimate still fails.  The
# condition is the check's own measurement, never its result.
# gt_disturbed STEAL_PRED STEAL_REAL ERR: the reason on stdout, or false.
GT_DISTURBED_STEAL_PCT=${GT_DISTURBED_STEAL_PCT:-5}
GT_STEAL_WARNING='^causaltop: warning: the hypervisor took'
gt_disturbed() {
	gt_steal_over "$GT_DISTURBED_STEAL_PCT" "$1" "$2" || return 1
	_dw=$(sed -n 's/'"$GT_STEAL_WARNING"' \([^(]*\) (steal time), \([0-9]* of [0-9]* experiments over [0-9]*%\).*/warned: the hypervisor took \1, \2/p' \
		"$3" 2> /dev/null | head -n 1)
	echo "steal ${GT_DISTURBED_STEAL_PCT}% or more; causaltop ${_dw:-did not warn}"
}

# gt_line PROG NAME: the line of the GT:NAME marker in PROG's source
# (tests/, or bench/ for the realistic workloads).
gt_line() {
	_src=$srcdir/$1.c
	[ -f "$_src" ] || _src=$srcdir/../bench/$1.c
	grep -n "GT:$2\\([^a-z]\\|\$\\)" "$_src" | head -n 1 | cut -d: -f1
}

# gt_calibrate PROG: loops per us, measured once so that every run of the
# test (profiled or not) does the very same work.
gt_calibrate() {
	"$(T "$1")" -C 2>&1 | sed -n 's/^gt: loops_per_us //p'
}

# gt_predict PROG NAME PCT ARGS...: causaltop's prediction for speeding
# line NAME of PROG by PCT%, with GT_CT_ARGS as more causaltop options.
# Sets pred, pred_lo, pred_hi, pred_n, pred_slo, pred_shi (the statistical
# interval alone; pred "nan" without an estimate)
# and _gt_err (why, if it failed); returns 1 if causaltop failed.
gt_predict() {
	_p=$1 _n=$2 _pct=$3
	shift 3
	_line=$(gt_line "$_p" "$_n")
	[ -n "$_line" ] || framework_failure_ "no GT:$_n in $_p.c"
	_base=$_p-$_n-$_pct${GT_CT_ARGS:+-$(echo "$GT_CT_ARGS" | tr -c 'a-z0-9\n' _)}
	# shellcheck disable=SC2086
	run_ct --no-tui ${GT_CT_ARGS-} --fixed-line "$_p.c:$_line" --fixed-speedup "$_pct" \
		--json "$_base.json" -o "$_base.coz" -v -- "$(T "$_p")" "$@"
	cp out "$_base.out"
	cp err "$_base.err"
	pred=nan pred_lo=nan pred_hi=nan pred_n=0 pred_slo=nan pred_shi=nan
	if [ "$rc" != 0 ]; then
		_gt_err="causaltop exit status $rc: $(tail -n 3 err | tr '\n' ' ')"
		return 1
	fi
	set -- $(python3 "$srcdir/ct-json.py" level "$_base.json" "$_p.c:$_line" "$_pct")
	pred=$1 pred_lo=$2 pred_hi=$3 pred_n=$4 pred_slo=$5 pred_shi=$6
	return 0
}

# gt_real_pairs PROG NAME PCT PAIRS ARGS...: PAIRS more real pairs of
# the check into $_base.pairs (gt-real.sh -R, at the test's loop rate).
gt_real_pairs() {
	_p=$1 _n=$2 _pct=$3 _k=$4
	shift 4
	_r=$(sh "$srcdir/gt-real.sh" -r "$_k" -R "$_base.pairs" "$(T "$_p")" "$_n" "$_pct" "$@") ||
		framework_failure_ "gt-real.sh $_p $_n $_pct failed"
	case $_r in real*) ;; *) framework_failure_ "gt-real.sh $_p $_n $_pct: $_r" ;; esac
}

# gt_pooled FILE: "real N q1 q3" from the pairs in FILE: the program
# speedup, the median of the pairs' own speedups 1 - knob / base; the
# number of pairs; their quartiles (the truth's noise, for the log).
# Each pair's two runs are measured back to back, under the same host:
# 1 - median(knob) / median(base), as it was until run 77 of the
# record, mixed runs of different pairs, and where a host's run times
# fell in two modes it read a flat line at -4.8 when its pairs said +0.4
# (gt-offpath burn, run 76).  Over the 68 runs since 2026-11-28 the
# pairs' median spread less from run to run in 22 of 27 checks
# (bench/validate-data/HISTORY.md, "From run 77").
gt_pooled() {
	awk "$(cat "$srcdir/gt-median.awk")"'
	{ n++; s[n] = 1 - $2 / $1 }
	END {
		if (!n) { print "nan 0 nan nan"; exit }
		sort(s, n)
		printf "%.4f %d %.4f %.4f\n", median(s, n), n,
			s[int(0.25 * (n - 1) + 1.5)], s[int(0.75 * (n - 1) + 1.5)]
	}' "$1"
}

# gt_verdict PRED LO HI REAL: the bar, as it is stated: ok, MISS (the
# error is over GT_BAR), IMPRECISE (the interval is wider than
# +-GT_MAX_HALF: a prediction that vague proves nothing either way) or
# NO-ESTIMATE.
gt_verdict() {
	awk -v p="$1" -v lo="$2" -v hi="$3" -v r="$4" -v bar="$GT_BAR" -v half="$GT_MAX_HALF" 'BEGIN {
		if (p == "nan" || lo == "nan" || hi == "nan") { print "NO-ESTIMATE"; exit }
		if ((hi - lo) / 2 > half + 1e-9) { print "IMPRECISE"; exit }
		d = p - r
		print (d <= bar + 1e-9 && d >= -bar - 1e-9) ? "ok" : "MISS"
	}'
}

# gt_record VERDICT: the check's raw data on one line, for
# bench/validate --collect-gt (README's tables come from these): fields
# are tab-separated KEY=VALUE, pairs as base_us:knob_us,...  With the
# host's costs the prediction's own run measured (-v): its first
# preemptions and its wake-ups onto an idle CPU, us each ("" if not
# reached), to find which of them goes with a dear host's misses, and
# whether it warned of steal (steal_warned, 1 or 0).
gt_record() {
	# One KEY=VALUE argument a field: a key cannot lose its value.
	printf 'gt-record'
	printf '\t%s' "prog=$_p" "line=$_n" "pct=$_pct" "wargs=$_wargs" "args=${GT_CT_ARGS-}" \
		"pred=$pred" "lo=$pred_lo" "hi=$pred_hi" "slo=$pred_slo" "shi=$pred_shi" \
		"n_exp=$pred_n" "real=$real" "verdict=${1%% *}" "xfail=$_xfail" "limit=$_limit" \
		"sample_us=$gt_sample_us" "steal_pred_pct=$_steal_pred" "steal_real_pct=$_steal_real" \
		"steal_warned=${_warned-}" \
		"preempt_us=$(sed -n 's/.*the first [0-9]* preemptions: \([0-9.]*\) us each.*/\1/p' \
			"$_base.err" | head -n 1)" \
		"wake_lag_us=$(sed -n 's/.* wake-ups seen onto an idle CPU, \([0-9.]*\) us).*/\1/p' \
			"$_base.err" | head -n 1)" \
		"pairs=$(awk '{ printf "%s%s:%s", (NR > 1 ? "," : ""), $1, $2 }' "$_base.pairs")"
}

# gt_check [--xfail REASON | --limit[-dear] LOW[,HIGH] REASON] PROG NAME PCT ITEMS [ARGS...]:
# one TAP line.
# The profiled run does ITEMS items (long enough for enough
# experiments); the real runs keep the workload's default (short), with
# ARGS.  REASON names the known limit (README, "Known limits") behind a
# miss:
#  --xfail: the check misses everywhere: an expected failure (TODO),
#    and a pass is an unexpected one, which fails the suite;
#  --limit-dear: where a sample is dear (gt_dear), or on a shared host
#    (gt_shared: the same checks read low there, wl-wordfreq -13.8 in
#    run 62), the prediction reads
#    low by up to LOW (high by up to HIGH, 0 if not given), as measured
#    (README), by a margin that varies from run to run, so that the
#    check meets the bar in some runs and misses it in others.  A miss
#    within that reach is an expected failure; a miss beyond it or an
#    imprecise interval fails; a pass passes and says that the limit did
#    not show.  Elsewhere the check is judged as any other.
#  --limit: the same on every host.
#
# In the sanitizer build (CT_SANITIZED=1) the profiled run is made and
# must end well with an estimate, but no truth is measured and the
# accuracy is not judged: that build is there to find memory and
# undefined-behaviour errors in the experiment engine's every path, and
# its supervisor, two to three times slower, is not what users profile
# with (its pauses come late by as much).
gt_check() {
	_xfail= _limit= _opt= _reach= _why=
	case $1 in
	--xfail) _xfail=$2; shift 2 ;;
	--limit | --limit-dear) _opt=$1 _reach=$2 _why=$3; shift 3 ;;
	esac
	_p=$1 _n=$2 _pct=$3 _items=$4
	shift 4
	# The workload's own arguments but its loop rate, to tell checks apart.
	_wargs=$(echo "$*" | sed 's/-c [0-9.]*//; s/^ *//; s/ *$//')
	_desc="$_p $_n $_pct%${_wargs:+ $_wargs}${GT_CT_ARGS:+ ($GT_CT_ARGS)}"
	if [ "${CT_SANITIZED:-0}" = 1 ]; then
		if ! gt_predict "$_p" "$_n" "$_pct" -n "$_items" "$@"; then
			gt_tap "not ok" "" "$_desc: $_gt_err"
		elif [ "$pred" = nan ]; then
			gt_tap "not ok" "" "$_desc: no estimate" "$(grep -E '^Experiments' err)"
		else
			gt_tap ok "" "$(printf '%s: predicted %+.3f [%+.3f, %+.3f] (%s exps); accuracy is judged in the normal build' \
				"$_desc" "$pred" "$pred_lo" "$pred_hi" "$pred_n")"
		fi
		return 0
	fi
	_dir=${_xfail:+TODO known limit: $_xfail}
	if ! gt_quiet; then
		gt_tap "not ok" "$_dir" "$_desc: not measured: $_gt_busy_msg"
		return 0
	fi
	_base=$_p-$_n-$_pct${GT_CT_ARGS:+-$(echo "$GT_CT_ARGS" | tr -c 'a-z0-9\n' _)}
	: > "$_base.pairs"
	_half=$((GT_PAIRS / 2))
	# The host's steal time on each side, for the log: a neighbour's
	# load during one side and not the other moves the comparison.
	_s0=$(gt_steal_at)
	gt_real_pairs "$_p" "$_n" "$_pct" "$_half" "$@"
	_s1=$(gt_steal_at)
	_ok=1
	gt_predict "$_p" "$_n" "$_pct" -n "$_items" "$@" || _ok=0
	_s2=$(gt_steal_at)
	gt_real_pairs "$_p" "$_n" "$_pct" $((GT_PAIRS - _half)) "$@"
	_s3=$(gt_steal_at)
	_steal_pred=$(gt_steal_pct "$_s1" "$_s2")
	_steal_real=$(gt_steal_pct "$_s0" "$_s1" "$_s2" "$_s3")
	# Past what gt_quiet waits out, the verdict line says so.
	_steal_note=
	gt_steal_over "${GT_QUIET_STEAL_PCT:-3}" "$_steal_pred" "$_steal_real" &&
		_steal_note="; measured while the host's other guests took ${_steal_pred}% of the CPUs during the prediction, ${_steal_real}% during the real runs (steal)"
	set -- $(gt_pooled "$_base.pairs")
	real=$1 real_n=$2 real_q1=$3 real_q3=$4
	if [ "$_ok" = 0 ]; then
		gt_tap "not ok" "$_dir" "$_desc: $_gt_err"
		return 0
	fi
	_v=$(gt_verdict "$pred" "$pred_lo" "$pred_hi" "$real")
	_fig=$(awk -v p="$pred" -v lo="$pred_lo" -v hi="$pred_hi" -v n="$pred_n" -v r="$real" \
		-v rn="$real_n" -v q1="$real_q1" -v q3="$real_q3" 'BEGIN {
		if (p == "nan") printf "no estimate (%d exps)", n
		else printf "predicted %+.3f [%+.3f, %+.3f] (%d exps), ", p, lo, hi, n
		printf "real %+.3f (%d pairs, IQR %+.3f..%+.3f)", r, rn, q1, q3
		if (p != "nan") printf ", error %+.3f", p - r
	}')
	_st="not ok"
	[ "$_v" = ok ] && _st=ok
	# The check's limit, where it holds: --limit everywhere, --limit-dear
	# on a dear host (known before the check) or a shared one (gt_shared,
	# known once measured).  A shared host's own limit joins it there:
	# where the check's limit holds without it (_own), the reaches add,
	# for steal makes that limit's cost dearer (the supervisor's runs on
	# the paying thread's CPU last longer: gt-unequal long 100% read
	# -14.9 at 8.5% steal, beyond 12 and 10 alone); where it holds only
	# there, both measure the one cause: the wider reach of the two.
	_shared= _own=
	[ -z "$_xfail" ] && gt_shared "$_steal_pred" "$_steal_real" && _shared=1
	if [ "$_opt" = --limit ] || { [ "$_opt" = --limit-dear ] && [ "$gt_dear" = 1 ]; }; then
		_limit="$_why (a sample costs ${gt_sample_us} us here)" _own=1
	elif [ "$_opt" = --limit-dear ] && [ -n "$_shared" ]; then
		_limit=$_why
	fi
	_low=0 _high=0
	if [ -n "$_limit" ]; then
		_low=${_reach%,*}
		case $_reach in *,*) _high=${_reach#*,} ;; esac
	fi
	if [ -n "$_shared" ]; then
		_limit="${_limit:+$_limit; }a shared host (steal ${_steal_pred}% of the CPUs during the prediction, ${_steal_real}% during the real runs)"
		set -- $(awk -v l="$_low" -v h="$_high" -v sl="$GT_SHARED_LOW" -v sh="$GT_SHARED_HIGH" \
			-v add="$_own" 'BEGIN {
			if (add) print l + sl, h + sh
			else print (l > sl) ? l : sl, (h > sh) ? h : sh }')
		_low=$1 _high=$2
	fi
	if [ -n "$_limit" ]; then
		_dir=
		if [ "$_v" = ok ]; then
			_v="ok (known limit not shown: $_limit)"
		elif [ "$_v" = MISS ] && awk -v p="$pred" -v r="$real" -v low="$_low" -v high="$_high" \
			'BEGIN { d = p - r; exit !(d < 0 ? d >= -low - 1e-9 : d <= high + 1e-9) }'; then
			_v=LIMIT _xfail=$_limit
			_dir="TODO known limit: $_limit, reads low by up to $_low, high by up to $_high"
		fi
	fi
	# Beyond every reach, on a disturbed host (gt_disturbed): no reach.
	_warned=0
	grep -q "$GT_STEAL_WARNING" "$_base.err" 2> /dev/null && _warned=1
	if [ -z "$_xfail" ] && [ "$_v" = MISS ] &&
		_dis=$(gt_disturbed "$_steal_pred" "$_steal_real" "$_base.err"); then
		_limit="${_limit:+$_limit; }a disturbed host ($_dis)"
		_v=LIMIT _xfail=$_limit
		_dir="TODO known limit: $_limit, no reach"
	fi
	gt_tap "$_st" "$_dir" "$_desc: $_fig: $_v$_steal_note" \
		"pairs (base_us knob_us): $(tr '\n' ';' < "$_base.pairs")" \
		"host steal time: ${_steal_pred}% of the CPUs during the prediction, ${_steal_real}% during the real runs" \
		"$(grep -E '^(Experiments|Supervisor)' "$_base.err" | tr '\n' ' ')" \
		"$(gt_record "$_v")"
	return 0
}
