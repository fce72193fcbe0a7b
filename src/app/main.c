/*
 * causaltop: init, run the event loop until the target is gone or we are
 * told to stop, detach from everything, report.
 */
#include "config.h"
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/epoll.h>
#include <sched.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>
#include "app/cmd.h"
#include "app/session.h"
#include "base/clock.h"
#include "base/error_prints.h"
#include "base/evloop.h"
#include "base/procfs.h"
#include "base/xmalloc.h"
#include "calc/stats.h"
#include "engine/collect.h"
#include "engine/experiment.h"
#include "model/logcap.h"
#include "perf/drain.h"
#include "perf/hostcost.h"
#include "perf/probe.h"
#include "perf/progress.h"
#include "perf/sampler.h"
#include "perf/wake.h"
#include "profile/causal_out.h"
#include "profile/report.h"
#include "profile/save.h"
#include "ptrace/patch.h"
#include "ptrace/tcb.h"
#include "ptrace/trace.h"
#include "ptrace/waitsite.h"
#include "ptrace/tracelog.h"
#include "sym/lines.h"
#include "sym/pchist.h"
#include "sym/scope.h"
#include "tui/tui.h"

/*
 * Rings hold >= 300 ms of samples at 1 kHz: 20 ms drains keep them far
 * from full.  Experiments tick faster (exp_tick_ns): delays are paid in
 * batches, one per tick.
 */
#define TICK_NS 20000000ULL
/* The -v report's fd peak is sampled this often. */
#define FDS_SAMPLE_NS 50000000ULL

static struct session *the_session;
static struct tui *the_tui;

static void probes_sync(struct session *, bool final);

struct loop_fd {
	struct ev_handler h;
	int fd;
	struct session *s;
};

/* Whatever kills us on an error must not leave a thread stopped. */
static void
die_hook(void)
{
	if (the_session)
		trace_detach_all(the_session);
	/* Then the terminal back, and what was said while curses had it. */
	if (the_tui)
		tui_emergency();
	if (the_session)
		logcap_stop(the_session->logcap);
}

static void
on_signal(struct ev_handler *h, uint32_t events)
{
	struct loop_fd *l = (struct loop_fd *) h;
	struct signalfd_siginfo si;

	while (read(l->fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			trace_reap(l->s);
			continue;
		}
		if (si.ssi_signo == SIGPIPE)
			continue;	/* writes fail with EPIPE instead */
		if (!l->s->stop_requested)
			debug_msg("%s: stopping", signame((int) si.ssi_signo));
		l->s->stop_requested = true;
		l->s->stop_signal = (int) si.ssi_signo;
		/*
		 * A signal from the terminal reached the whole process group,
		 * the command included; one sent to causaltop alone is passed on
		 * to a launched command once it is detached.
		 */
		l->s->forward_signal = si.ssi_code != SI_KERNEL;
	}
	/* SIGCHLD may be coalesced away: reap anyway. */
	trace_reap(l->s);
}

/*
 * The next tick: a period from now, give or take a quarter at random.  A
 * periodic 1 ms tick could keep its phase against the 1 ms sampling
 * timers and wake causaltop (at real-time priority) just before each
 * sample on a CPU, stealing that CPU's samples from its thread, as the
 * per-CPU timers did when they were started together (see stagger_cpus
 * in sampler.c).
 */
static void
tick_arm(struct loop_fd *l)
{
	static uint64_t x = 0x9e3779b97f4a7c15ULL;
	uint64_t p = l->s->tick_ns;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	evloop_timer_arm(l->fd, p - p / 4 + x % (p / 2 + 1), 0);
}

/*
 * --until-answer: twice a second, is a point with experiments decided
 * (calc/stats.h)?  Then, or once the limit has passed, stop.
 */
#define ANSWER_LOOK_NS 500000000ULL

static void
look_for_answer(struct session *s, uint64_t now)
{
	size_t np = 0;
	int kind;

	if (!s->opts.until_answer_ns || !s->exp || s->stop_requested || now < s->answer.next_ns)
		return;
	s->answer.next_ns = now + ANSWER_LOOK_NS;
	progress_points(s->progress, &np);
	/* The first point with an answer gives it (the report says which). */
	kind = stats_answer_any(exp_stats(s->exp), np);
	if (kind > STATS_UNDECIDED || now - s->start_ns >= s->opts.until_answer_ns) {
		s->answer.kind = kind > STATS_UNDECIDED ? kind : STATS_UNDECIDED;
		s->answer.at_ns = now;
		s->stop_requested = true;
		debug_msg("--until-answer: %s: stopping",
			  kind > STATS_UNDECIDED ? "decided" : "the limit passed");
	}
}

static void
on_tick(struct ev_handler *h, uint32_t events)
{
	struct loop_fd *l = (struct loop_fd *) h;
	uint64_t now = clock_now_ns();

	evloop_timer_ack(l->fd);
	drain_rings(l->s->smp, l->s->wake, NULL, DRAIN_TICK);
	for (struct ctproc *p = proc_first(); p; p = p->next)
		trace_progress_poll(l->s, p, now);
	trace_probe_more(l->s);
	probes_sync(l->s, false);
	if (l->s->exp) {
		exp_tick(l->s->exp, now);
		l->s->tick_ns = exp_tick_ns(l->s->exp);
	}
	tick_arm(l);
	look_for_answer(l->s, now);
	/*
	 * Only the -v report shows it, and only sampled: a walk of
	 * /proc/self/fd (two /proc fds per thread, and more) on every
	 * 1 ms tick was ~30% of the supervisor's samples in a perf
	 * profile with 256 threads (bench/OPTIMIZATIONS.md).
	 */
	if (l->s->opts.verbose && now >= l->s->fds_next_ns) {
		unsigned fds = procfs_self_fds();

		l->s->fds_next_ns = now + FDS_SAMPLE_NS;
		if (fds > l->s->fds_peak)
			l->s->fds_peak = fds;
	}
}

static void
on_duration(struct ev_handler *h, uint32_t events)
{
	struct loop_fd *l = (struct loop_fd *) h;

	evloop_timer_ack(l->fd);
	debug_msg("--duration reached: stopping");
	l->s->stop_requested = true;
}

/*
 * --end-to-end: each run of the command is one unit of progress.  Start
 * the next one if the last ended well and more are wanted.
 */
static bool
next_run(struct session *s)
{
	uint64_t t = clock_now_ns() - s->run_start_ns;

	if (!s->launched || s->stop_requested || !s->launched_done)
		return false;
	if (s->opts.end_to_end)
		progress_point(s->progress, "end-to-end", PROGRESS_THROUGHPUT, "end-to-end")->count++;
	if (!s->runs.done || t < s->runs.min_ns)
		s->runs.min_ns = t;
	if (t > s->runs.max_ns)
		s->runs.max_ns = t;
	s->runs.total_ns += t;
	s->runs.done++;
	if (s->runs.done >= s->opts.runs || !WIFEXITED(s->launched_status) ||
	    WEXITSTATUS(s->launched_status))
		return false;
	/*
	 * The experiment under way when the run ended is dropped; the next
	 * run's are compared with that run's baselines (their run number).
	 */
	if (s->exp)
		exp_finish(s->exp);
	/* The next command counts the --progress points as the first did. */
	s->probes_pid = 0;
	s->launched = 0;
	s->launched_done = false;
	s->run_start_ns = clock_now_ns();
	trace_launch(s);
	return true;
}

static void
make_probes(struct session *s)
{
	const struct options *o = &s->opts;
	bool bad = false;

	if (!o->n_progress && !o->n_latency)
		return;
	s->probes = probe_set_new((enum probe_mode) o->probe_mode);
	probe_set_patcher(s->probes, &patch_probe_ops, s);
	for (size_t i = 0; i < o->n_progress; i++)
		bad |= probe_add(s->probes, o->progress[i], PROBE_THROUGHPUT, NULL) < 0;
	for (size_t i = 0; i < o->n_latency; i++) {
		char *begin = xstrdup(o->latency[i]);
		char *end = strchr(begin, ',');

		*end++ = 0;
		bad |= probe_add(s->probes, begin, PROBE_BEGIN, o->latency[i]) < 0;
		bad |= probe_add(s->probes, end, PROBE_END, o->latency[i]) < 0;
		free(begin);
	}
	if (bad)
		exit(CT_EXIT_USAGE);
	s->probe_sets = xmalloc(sizeof(*s->probe_sets));
	s->probe_sets[s->nprobe_sets++] = s->probes;
	if (o->probe_mode == PROBE_BREAKPOINT && probe_breakpoints_dead())
		error_msg_and_die(CT_EXIT_PERF, "--probe-mode=breakpoint: %s; "
				  "--probe-mode=auto or uprobe counts with uprobes",
				  probe_bp_dead_msg);
}

/*
 * The probes' counts into their progress points: on every tick (the
 * experiments read them), and a last time, final, once every thread's
 * counters are closed.
 */
static void
probes_sync(struct session *s, bool final)
{
	unsigned n = s->probes ? probe_nprobes(s->probes) : 0;

	if (n && !s->probe_points)
		s->probe_points = xcalloc(n, sizeof(*s->probe_points));
	for (unsigned i = 0; i < n; i++) {
		enum probe_kind k = probe_kind_of(s->probes, i);
		struct progress_point *p = s->probe_points[i];
		const char *mech = NULL;
		uint64_t count = 0;

		/* Every process counted has a set: one point, their sum. */
		for (unsigned j = 0; j < s->nprobe_sets; j++) {
			struct probe_set *ps = s->probe_sets[j];

			if (!mech && probe_resolved(ps, i))
				mech = probe_mechanism(ps, i);
			count += probe_count(ps, i);
		}
		if (!mech && !count) {
			if (final)
				error_msg("warning: progress point '%s' was never found in the program",
					  probe_name(s->probes, i));
			continue;
		}
		if (!mech)
			mech = probe_mechanism(s->probes, i);
		if (!p)
			p = s->probe_points[i] = progress_point(s->progress, probe_name(s->probes, i),
				k == PROBE_THROUGHPUT ? PROGRESS_THROUGHPUT : PROGRESS_LATENCY, mech);
		/* Breakpoints on some threads, uprobes on others: known at the end. */
		if (final)
			p->source = mech;
		if (k == PROBE_BEGIN)
			p->arrivals = count;
		else
			p->count = count;
	}
}

static void
on_wake(void *ctx, const struct wake_event *w)
{
	struct session *s = ctx;

	exp_wake(s->exp, w);
}

/*
 * The experiment engine, and who-woke-whom for it: the sched_waking
 * tracepoint when it can be had, else blocked threads are classified by
 * their system call (doc/design.md).
 */
static void
make_experiments(struct session *s)
{
	const struct options *o = &s->opts;
	struct exp_config cfg = {
		.period_ns = o->period_ns,
		.by_function = o->by_function,
		.fixed_line = o->fixed_line,
		.fixed_speedup = o->fixed_speedup,
		.seed = o->seed ? o->seed : clock_now_ns() ^ ((uint64_t) getpid() << 32),
	};
	const char *why = NULL;

	if (o->no_experiments)
		return;
	if (o->end_to_end) {
		if (o->fixed_line || o->fixed_speedup >= 0)
			error_msg_and_die(CT_EXIT_USAGE, "--end-to-end runs no experiments: "
					  "--fixed-line and --fixed-speedup do not apply");
		return;
	}
	if (o->wake_tracking != WAKE_TRACKING_SYSCALL &&
	    wake_open(&s->wake, on_wake, s, o->wake_tracking != WAKE_TRACKING_WAKING, &why) < 0) {
		if (o->wake_tracking == WAKE_TRACKING_SCHED || o->wake_tracking == WAKE_TRACKING_WAKING)
			error_msg_and_die(CT_EXIT_PERF, "--wake-tracking=%s: %s",
					  o->wake_tracking == WAKE_TRACKING_SCHED ? "sched" : "waking",
					  why);
		s->wake = NULL;
		if (o->verbose)
			error_msg("wake-ups are not tracked (%s): blocked threads are "
				  "classified by their system call", why);
	}
	s->wake_mode = s->wake ? "sched_waking" : "syscall";
	cfg.wake_tracking = s->wake != NULL;
	cfg.cpu_switches = s->wake && wake_stats(s->wake)->switch_watched;
	s->exp = exp_new(s, &cfg, &exp_sys_real);
	trace_set_ops(s, &exp_trace_ops, s->exp);
	s->waits = wait_sites_new();
}

static void
print_causal(struct session *s, FILE *out)
{
	struct causal_meta m;

	if (!s->exp)
		return;
	save_fill_meta(s, &m);
	causal_print_table(out, &m, exp_stats(s->exp), s->lines, s->progress, s->opts.top);
	fflush(out);
}

static void
on_report_interval(struct ev_handler *h, uint32_t events)
{
	struct loop_fd *l = (struct loop_fd *) h;

	evloop_timer_ack(l->fd);
	if (l->s->report)
		print_causal(l->s, l->s->report);
}

static void
raise_fd_limit(void)
{
	struct rlimit rl;

	/* Thread mode needs an fd per thread. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * Every ptrace stop of the target (a clone, an exit, the end of a pause)
 * lasts until causaltop runs.  On a busy machine a normal-priority
 * supervisor may wait for a CPU (measured: up to 5 ms on 2 CPUs running
 * the target's threads), which stretches the target's thread creation;
 * at a real-time priority it preempts at once.  But SCHED_FIFO wakes it
 * on the CPU it last ran on, whatever thread runs there, even with
 * another CPU idle: where that thread is the critical path of the
 * sped-up run, the supervisor's work for the pauses comes out of it in
 * experiments and not in baselines, and the prediction reads low
 * (gt-unequal long: 25% read +20.2 to +21.0 for +24.5 in each run on the
 * hitter's CPU, 100% +26.0 and +27.3 for +40.3 on the payer's).  At
 * normal priority the scheduler wakes it on an idle CPU where there is
 * one (a paused thread's, a waiting one's): 25% read +23.8 and +24.2
 * (bench/realtime-20261202).  So real-time priority is asked for only.
 * SCHED_RESET_ON_FORK keeps the launched command at its normal policy.
 */
static void
set_realtime(struct session *s)
{
	struct sched_param sp = { .sched_priority = s->opts.realtime };

	if (!s->opts.realtime)
		return;
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) == 0) {
		s->realtime = sp.sched_priority;
		return;
	}
	perror_msg("--realtime=%d: cannot use SCHED_FIFO, staying at normal priority",
		   s->opts.realtime);
}

static bool
is_realtime_policy(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR || policy == SCHED_DEADLINE;
}

/*
 * Without --period, the period follows from what a sample costs here
 * (hostcost.h), measured before anything is traced or sampled, at a
 * real-time priority when we may have one, so that nothing preempts the
 * loop (with -p the target may keep every CPU busy): for the probe only,
 * where --realtime did not ask for it all along.  Then the policy we
 * were started with comes back, whatever it was (chrt --idle, --batch,
 * a nice level): the launched command inherits it.  Started at a
 * real-time policy already, we keep it: FIFO 1 could only lower it.
 */
static void
choose_period(struct session *s)
{
	struct sched_param rt = { .sched_priority = 1 }, orig;
	int policy;
	bool raised = false, ok;

	if (!s->opts.period_auto)
		return;
	policy = sched_getscheduler(0);
	if (!s->realtime && policy >= 0 && sched_getparam(0, &orig) == 0 &&
	    !is_realtime_policy(policy & ~SCHED_RESET_ON_FORK))
		raised = sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &rt) == 0;
	ok = hostcost_sample_ns(&s->sample_cost_ns);
	/* SCHED_RESET_ON_FORK in policy, if it was set, is set again. */
	if (raised && sched_setscheduler(0, policy, &orig))
		perror_msg("cannot return to the scheduling policy we were started with");
	if (!ok)
		return;
	s->sample_cost_measured = true;
	s->opts.period_ns = hostcost_period_ns(s->sample_cost_ns);
	debug_msg("a sample costs %" PRIu64 " ns here: period %" PRIu64 " ns",
		  s->sample_cost_ns, s->opts.period_ns);
}

static struct scope *
make_scope(const struct options *o)
{
	struct scope *sc = scope_new();

	for (size_t i = 0; i < o->n_binary_scope; i++)
		scope_add_binary(sc, o->binary_scope[i]);
	for (size_t i = 0; i < o->n_source_scope; i++)
		scope_add_source(sc, o->source_scope[i]);
	return sc;
}

static void
write_summary(struct session *s, FILE *f)
{
	if (s->exp && s->opts.verbose) {
		struct exp_summary sm;

		exp_summary(s->exp, clock_now_ns(), &sm);
		fprintf(f, "Experiments: %u (%u baselines), delay inserted %.3f s; wake-ups %s: "
		       "%" PRIu64 " between traced threads, %" PRIu64 " credited",
		       sm.done, sm.baselines, sm.delay_ns / 1e9, s->wake_mode, sm.wakes,
		       sm.wakes_credited);
		if (s->wake) {
			const struct wake_stats *ws = wake_stats(s->wake);

			if (ws->xmit_watched)
				fprintf(f, ", %" PRIu64 " by a loopback sender", ws->loopback);
			else
				fprintf(f, ", loopback not watched (no net:netif_rx)");
			if (ws->switch_watched) {
				fprintf(f, "; waits for a CPU held by a traced thread %" PRIu64
				       ", %" PRIu64 " credited; pause time taken back %.1f ms"
				       "; CPU taken by causaltop from ready threads %.1f ms"
				       " (%" PRIu64 " times), %.1f ms of it paid delay owed",
				       sm.cpu_waits, sm.cpu_waits_credited, sm.revoked_ns / 1e6,
				       sm.stolen_ns / 1e6, sm.steals, sm.stolen_paid_ns / 1e6);
				fprintf(f, "; wake-ups from a sleep all of delay %" PRIu64
				       ", their lag credited %.1f ms (%" PRIu64 " of them the mean"
				       " lag of %" PRIu64 " wake-ups seen onto an idle CPU, %.1f us)",
				       sm.wake_lags, sm.wake_lag_ns / 1e6, sm.wake_lags_guessed,
				       sm.idle_wakes,
				       sm.idle_wakes ? sm.idle_wake_ns / 1e3 / sm.idle_wakes : 0.0);
			} else
				fprintf(f, "; waits for a CPU not followed");
		}
		fprintf(f, "; pauses %" PRIu64 " held (beyond the holds: %.1f ms stopping, "
		       "%.1f ms restarting), %" PRIu64 " found blocked, %" PRIu64
		       " owing nothing by their stop, %" PRIu64
		       " left waiting for a CPU; tick %.0f ms",
		       sm.pauses, sm.stop_lag_ns / 1e6, sm.restart_lag_ns / 1e6, sm.pauses_blocked,
		       sm.pauses_cleared, sm.pauses_deferred, sm.tick_ns / 1e6);
		/* Truncated, not rounded: 20.0 means the bar was reached. */
		if (sm.first_steal_ns)
			fprintf(f, " (the first %" PRIu64 " preemptions: %" PRIu64 ".%" PRIu64
			       " us each)", sm.first_steals, sm.first_steal_ns / 1000,
			       sm.first_steal_ns % 1000 / 100);
		if (sm.steal_known)
			fprintf(f, "; steal time %.1f ms (%.1f%% of the CPUs' time in experiments,"
			       " %u experiments over %u%%)", sm.steal_ns / 1e6,
			       exp_steal_pct(&sm), sm.steal_disturbed, EXP_STEAL_DISTURBED_PCT);
		fprintf(f, "\n");
	}
}

/*
 * Steal time that moved the program's speed (exp_steal_worrying): said
 * even without -v, as perf says it lost samples, so that the user can
 * profile again on a quieter host.
 */
static void
warn_steal(struct session *s)
{
	struct exp_summary sm;

	if (!s->exp)
		return;
	exp_summary(s->exp, clock_now_ns(), &sm);
	if (!exp_steal_worrying(&sm))
		return;
	error_msg("warning: the hypervisor took %.1f%% of the CPUs' time during the experiments"
		  " (steal time), %u of %u experiments over %u%%: other guests' load moved the"
		  " program's speed; predictions may be off", exp_steal_pct(&sm), sm.steal_disturbed,
		  sm.done, EXP_STEAL_DISTURBED_PCT);
}

/* Batch mode's end: the report (-q: none), then the profiles. */
static void
write_report(struct session *s)
{
	if (s->report) {
		report_flat(s, s->report);
		write_summary(s, s->report);
		print_causal(s, s->report);
		report_answer(s, s->report);
		report_waits(s, s->report);
		fflush(s->report);
	}
	warn_steal(s);
	if (save_profiles(s))
		s->save_failed = true;
}

/*
 * Every output path is checked, and the report's file made, before any
 * work: a missing folder is not found after the whole run.
 */
static void
open_outputs(struct session *s)
{
	const struct options *o = &s->opts;

	if (save_target_init(&s->save_coz, o->output, false) ||
	    save_target_init(&s->save_json, o->json, true))
		exit(CT_EXIT_IO);
	if (o->quiet)
		s->report = NULL;
	else if (!o->report)
		s->report = stderr;
	else if (!strcmp(o->report, "-"))
		s->report = stdout;
	else if (!(s->report = fopen(o->report, "we")))
		perror_msg_and_die(CT_EXIT_IO, "cannot write %s", o->report);
}

static void
close_outputs(struct session *s)
{
	if (s->report && s->report != stderr && s->report != stdout && fclose(s->report)) {
		perror_msg("cannot write %s", s->opts.report);
		s->save_failed = true;
	}
	s->report = NULL;
	save_target_release(&s->save_coz);
	save_target_release(&s->save_json);
}

/*
 * The TUI when stdout and stdin are a terminal (and not --no-tui).  From
 * here on the terminal is curses': stderr goes to the TUI's log, and a
 * launched command's output too.  NULL: batch mode.
 */
static struct tui *
open_tui(struct session *s)
{
	struct tui_config cfg = { .no_color = s->opts.no_color };
	const char *why = NULL;
	struct tui *t;

	if (s->opts.no_tui || !isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		return NULL;
	/* Wide characters and the locale's charset; numbers stay in C (causal_out.c). */
	setlocale(LC_CTYPE, "");
	if (!(t = tui_open(s, s->ev, &cfg, &why))) {
		error_msg("no TUI (%s): batch output", why);
		return NULL;
	}
	s->logcap = logcap_start(s->ev, s->opts.cmd != NULL);
	if (s->opts.cmd)
		s->child_output = logcap_target_fd(s->logcap);
	s->pcs = pchist_new();
	/* "Save now" needs files: the defaults where -o or --json name none. */
	if (!s->save_coz.path && !s->opts.output)
		save_target_init(&s->save_coz, SAVE_DEFAULT_COZ, false);
	if (!s->save_json.path && !s->opts.json)
		save_target_init(&s->save_json, SAVE_DEFAULT_JSON, true);
	return t;
}

/*
 * The session is over with the TUI up: save the profile, then leave the
 * results on screen until the user quits, unless that is why it ended.
 */
static void
finish_tui(struct session *s, struct tui *t, int *timer_fds, size_t ntimers)
{
	const char *coz = s->save_coz.path, *json = s->save_json.path;
	char msg[512];
	bool saved = false;

	if (s->exp) {
		saved = save_profiles(s) == 0;
		s->save_failed = !saved || !coz || !json;
	}
	if (saved && (coz || json))
		snprintf(msg, sizeof(msg), "profiling ended; profile saved to %s%s%s; q quits",
			 coz ? coz : "", coz && json ? " and " : "", json ? json : "");
	else
		snprintf(msg, sizeof(msg), "profiling ended; %sq quits",
			 s->exp ? "profile NOT saved (see the log); " : "");
	if (!tui_quit_requested(t) && !s->stop_signal) {
		/* Nothing else to measure: only keys, frames and signals now. */
		for (size_t i = 0; i < ntimers; i++)
			if (timer_fds[i] >= 0)
				evloop_timer_arm(timer_fds[i], 0, 0);
		tui_session_over(t, msg);
		while (!tui_quit_requested(t) && !s->stop_signal)
			evloop_run_once(s->ev, -1);
	}
	tui_close(t);
	the_tui = NULL;
	logcap_stop(s->logcap);
	warn_steal(s);
	/* What batch mode would print, without the profile it wrote already. */
	if (s->report) {
		if (s->exp)
			print_causal(s, s->report);
		else
			report_flat(s, s->report);
	}
	if (saved && (coz || json) && !s->opts.quiet)
		fprintf(stderr, "causaltop: profile saved to %s%s%s\n", coz ? coz : "",
			coz && json ? " and " : "", json ? json : "");
}

/* The launched command's status becomes ours: its code, or its signal. */
static int __attribute__((noreturn))
exit_like(int status)
{
	if (WIFEXITED(status))
		exit(WEXITSTATUS(status));
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		struct rlimit nocore = { 0, 0 };
		sigset_t set;

		/* Its core was dumped already if it was going to be. */
		setrlimit(RLIMIT_CORE, &nocore);
		signal(sig, SIG_DFL);
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		raise(sig);
	}
	exit(CT_EXIT_INTERNAL);
}

int
main(int argc, char **argv)
{
	static struct session s;
	struct loop_fd sig_l, tick_l, dur_l, rep_l;
	struct sampler_config scfg;
	sigset_t mask;
	int err, status;

	if ((err = cmd_dispatch(&argc, &argv)) >= 0)
		return err;
	options_parse(&s.opts, argc, argv);
	s.answer.kind = -1;
	open_outputs(&s);
	raise_fd_limit();
	set_realtime(&s);
	choose_period(&s);
	if (s.opts.trace_log && tracelog_open(s.opts.trace_log) < 0)
		perror_msg_and_die(CT_EXIT_IO, "cannot write %s", s.opts.trace_log);

	/* Signals become events; the command gets the original mask back. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigaddset(&mask, SIGPIPE);
	sigprocmask(SIG_BLOCK, &mask, &s.orig_sigmask);
	sig_l.fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sig_l.fd < 0)
		perror_msg_and_die(CT_EXIT_INTERNAL, "signalfd");

	s.lines = lines_new();
	s.progress = progress_table_new();
	make_probes(&s);
	if (s.opts.cmd && !s.opts.no_coz_shim)
		s.coz_shim = progress_coz_shim_path();
	s.scope = make_scope(&s.opts);
	scfg = (struct sampler_config) {
		.mode = s.opts.sampler,
		.event = s.opts.event,
		.period_ns = s.opts.period_ns,
		.stack_dump = s.opts.unwind_stack,
	};
	err = sampler_new(&s.smp, &scfg, &collect_ops, &s);
	if (err < 0)
		exit(CT_EXIT_PERF);

	s.ev = evloop_new();
	trace_set_sys(&s, &trace_sys_real);
	make_experiments(&s);
	the_tui = open_tui(&s);
	the_session = &s;
	set_die_hook(die_hook);
	sig_l.h.fn = on_signal;
	sig_l.s = &s;
	evloop_add(s.ev, sig_l.fd, EPOLLIN, &sig_l.h);
	tick_l = (struct loop_fd) { .h.fn = on_tick, .fd = evloop_timer_new(), .s = &s };
	evloop_add(s.ev, tick_l.fd, EPOLLIN, &tick_l.h);
	dur_l = (struct loop_fd) { .h.fn = on_duration, .fd = -1, .s = &s };
	if (s.opts.duration_ns) {
		dur_l.fd = evloop_timer_new();
		evloop_add(s.ev, dur_l.fd, EPOLLIN, &dur_l.h);
	}
	rep_l = (struct loop_fd) { .h.fn = on_report_interval, .fd = -1, .s = &s };
	if (s.opts.report_interval_ns && s.exp && !the_tui) {
		rep_l.fd = evloop_timer_new();
		evloop_add(s.ev, rep_l.fd, EPOLLIN, &rep_l.h);
	}
	s.fds_at_start = s.fds_peak = procfs_self_fds();
	s.startup_realtime_ns = clock_realtime_ns();

	s.start_ns = s.run_start_ns = clock_now_ns();
	if (s.opts.pid)
		trace_attach(&s);
	else
		trace_launch(&s);
	s.tick_ns = TICK_NS;
	tick_arm(&tick_l);
	if (dur_l.fd >= 0)
		evloop_timer_arm(dur_l.fd, s.opts.duration_ns, 0);
	if (rep_l.fd >= 0)
		evloop_timer_arm(rep_l.fd, s.opts.report_interval_ns, s.opts.report_interval_ns);

	do {
		while (!s.stop_requested && tcb_count())
			evloop_run_once(s.ev, -1);
	} while (next_run(&s));

	/* Every paused thread runs again before anything else. */
	if (s.exp)
		exp_finish(s.exp);
	trace_detach_all(&s);
	drain_rings(s.smp, s.wake, NULL, DRAIN_END);
	s.end_ns = clock_now_ns();
	s.fds_at_exit = procfs_self_fds();
	probes_sync(&s, true);
	if (the_tui) {
		int timers[] = { tick_l.fd, dur_l.fd, rep_l.fd };

		finish_tui(&s, the_tui, timers, sizeof(timers) / sizeof(timers[0]));
	} else if (!s.launched || s.launch_execed) {
		/* No report of a command that never ran: its exec failed. */
		write_report(&s);
	}

	/* A launched command, now untraced, is still our child. */
	status = s.launched_status;
	if (s.launched && !s.launched_done) {
		if (s.stop_signal && s.forward_signal)
			kill(s.launched, s.stop_signal);
		if (s.logcap) {
			fprintf(stderr, "causaltop: detached; waiting for the command (pid %d) to exit\n",
				(int) s.launched);
			logcap_wait_child(s.logcap, s.launched, &status, trace_wait_launched);
		} else {
			while (trace_wait_launched(s.launched, &status, 0) < 0 && errno == EINTR)
				;
		}
	}

	/* sampler_free() drains its rings: samples must find no engine. */
	trace_set_ops(&s, NULL, NULL);
	exp_free(s.exp);
	s.exp = NULL;
	wake_close(s.wake);
	s.wake = NULL;
	wait_sites_free(s.waits);
	s.waits = NULL;
	sampler_free(s.smp);
	if (rep_l.fd >= 0)
		close(rep_l.fd);
	evloop_free(s.ev);
	close(sig_l.fd);
	close(tick_l.fd);
	if (dur_l.fd >= 0)
		close(dur_l.fd);
	tracelog_close();
	scope_free(s.scope);
	lines_free(s.lines);
	progress_table_free(s.progress);
	for (unsigned j = 0; j < s.nprobe_sets; j++)
		probe_set_free(s.probe_sets[j]);
	free(s.probe_sets);
	free(s.probe_points);
	free(s.coz_shim);
	free(s.exe);
	logcap_free(s.logcap);
	pchist_free(s.pcs);
	thread_stats_free_all();
	close_outputs(&s);
	options_free(&s.opts);

	/* A profile that could not be written: the files' status, not the command's. */
	if (s.save_failed)
		exit(CT_EXIT_IO);
	if (s.launched)
		exit_like(status);
	/* With -p, a signal is the normal way to end a session. */
	return 0;
}
