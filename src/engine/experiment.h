/*
 * The experiment engine: picks what to speed up and by how much, runs the
 * experiment (the delay accounting of delay.h, paid through pause.h),
 * measures every progress point over its effective time, and hands the
 * result to the statistics.
 *
 * One experiment at a time, driven by the supervisor's tick:
 *   idle -> running (hits on the target raise the global delay; owing
 *   threads that run are paused) -> draining (no more hits; running
 *   threads finish paying what they owe, so that the end of the window
 *   is where every thread has absorbed the delay subtracted) -> cool-off
 *   (every debt forgiven, every thread running) -> next.
 *
 * schedule.c chooses and runs the experiments, account.c keeps their
 * accounts, steering.c takes the TUI's requests (exp_engine.h).
 */
#ifndef CT_EXPERIMENT_H
# define CT_EXPERIMENT_H

# include <stdbool.h>
# include <stdint.h>

struct ct_func;
struct ct_line;
struct pause_sys_ops;
struct session;
struct stats;
struct tcb;
struct trace_ops;
struct wake_event;

struct exp_config {
	uint64_t period_ns;	/* sampling period P: a hit is worth s * P */
	bool by_function;	/* targets are functions, not lines */
	const char *fixed_line;	/* FILE:LINE (a path suffix) or FUNCTION, or NULL */
	int fixed_speedup;	/* 0..100, or -1: the scheduler chooses */
	uint64_t seed;
	bool wake_tracking;	/* wake-ups are reported (exp_wake) */
	bool cpu_switches;	/* and context switches, with them */
	uint64_t min_len_ns;	/* experiment length bounds */
	uint64_t max_len_ns;
};

/*
 * What the engine asks of the system, as a table so that its rules run
 * on a fake clock and scripted threads too (tests/unit-experiment.c):
 * exp_sys_real is the real one (account.c), installed by app/main.c.
 * Samples, wake-ups, switches and stops come in through the calls below
 * (exp_ran, exp_hit, exp_wake, exp_trace_ops); progress through the
 * session's progress table, which is plain memory.
 */
struct exp_sys_ops {
	/* The clock: base/clock.h's clock_now_ns(). */
	uint64_t (*now)(void);
	/* CPUs online (sysconf), at exp_new. */
	unsigned (*cpus_online)(void);
	/* t's state letter in its /proc stat (R, S, D...), 0 when gone. */
	char (*state)(struct tcb *);
	/* t's schedstat: time run and waiting for a CPU, ns; false when gone. */
	bool (*schedstat)(struct tcb *, uint64_t *run, uint64_t *wait);
	/* t's user time (stat's utime), ns; false when gone. */
	bool (*utime)(struct tcb *, uint64_t *ns);
	/* The system call t is blocked in (procfs_syscall). */
	long (*syscall)(struct tcb *);
	/* The CPUs among 0..ncpus - 1 (< 64) t may run on; 0: unknown. */
	uint64_t (*affinity)(struct tcb *, unsigned ncpus);
	/* Read the rings now (drain_rings, DRAIN_CATCH_UP): hits and wake-ups come back. */
	void (*drain)(struct session *);
	/* The host's steal time so far, all CPUs, ns (perf/hostcost.h); may be NULL. */
	bool (*steal)(uint64_t *ns);
	/* The kernel under the pauses (ptrace/pause.h). */
	const struct pause_sys_ops *pause;
};
extern const struct exp_sys_ops exp_sys_real;

struct exp_engine;

struct exp_engine *exp_new(struct session *, const struct exp_config *,
			   const struct exp_sys_ops *);
void exp_free(struct exp_engine *);
struct stats *exp_stats(struct exp_engine *);

/* Collect: is an experiment taking hits, and on what. */
bool exp_hitting(const struct exp_engine *, uint64_t sample_time);
const struct ct_line *exp_target_line(const struct exp_engine *);
const struct ct_func *exp_target_func(const struct exp_engine *);
/* t was sampled at time: it ran then. */
void exp_ran(struct exp_engine *, struct tcb *t, uint64_t time);
/* A sample of t at time hit the target. */
void exp_hit(struct exp_engine *, struct tcb *t, uint64_t time);
/* Lines not known yet can still be the fixed target: walk whole chains. */
bool exp_wants_full_chains(const struct exp_engine *);

/* A wake-up reported by the tracker; applied in time order at the tick. */
void exp_wake(struct exp_engine *, const struct wake_event *);
/*
 * The ptrace core's news of threads, stops and pauses (ptrace/trace.h),
 * with the engine as context: installed by app/main.c.
 */
extern const struct trace_ops exp_trace_ops;

/* After the tick's drains and progress polls. */
void exp_tick(struct exp_engine *, uint64_t now);
/* End of the session: finish (a running experiment is dropped), let go. */
void exp_finish(struct exp_engine *);

struct exp_summary {
	unsigned done;		/* experiments recorded */
	unsigned baselines;	/* of which at 0% */
	uint64_t delay_ns;	/* global delay inserted, all experiments */
	uint64_t exp_wall_ns;	/* wall time inside experiments */
	const char *state;	/* "idle", "running", ... */
	const struct ct_line *line;	/* current target */
	const struct ct_func *func;
	unsigned pct;
	uint64_t left_ns;	/* of the current experiment */
	uint64_t len_ns;	/* current experiment length */
	uint64_t wakes, wakes_credited, pauses, pauses_blocked;
	/* Pauses asked that owed nothing by their stop: let go unheld. */
	uint64_t pauses_cleared;
	/* Threads that took a CPU from one of ours, and of them credited. */
	uint64_t cpu_waits, cpu_waits_credited;
	/* Pause time taken back: others of ours used the CPU meanwhile. */
	uint64_t revoked_ns;
	/* CPU time the supervisor took from ours ready to run; the part
	   counted as paying what they owed. */
	uint64_t steals, stolen_ns, stolen_paid_ns;
	/* The tick during experiments, at the end (longer where preemptions
	   are dear). */
	uint64_t tick_ns;
	/* What the first first_steals of them cost each, from which the
	   tick was chosen; 0: there were fewer. */
	uint64_t first_steal_ns, first_steals;
	/* Times a thread that owed, ready to run, was left waiting for a CPU. */
	uint64_t pauses_deferred;
	/* Pauses' cost beyond their holds, credited (pause.h). */
	uint64_t stop_lag_ns, restart_lag_ns;
	/*
	 * Wake-ups from a sleep that was all inserted delay: their lag to the
	 * switch in, credited as the experiment's (account.c); of them, taken
	 * as the mean lag of the wake-ups onto an idle CPU seen to their
	 * switch in (idle_wakes, idle_wake_ns), where it went unreported.
	 */
	uint64_t wake_lags, wake_lag_ns, wake_lags_guessed;
	uint64_t idle_wakes, idle_wake_ns;
	/*
	 * The hypervisor's steal time over the experiments where it was
	 * read (steal_wall_ns of their wall time, on ncpus CPUs), and the
	 * experiments that lost more than EXP_STEAL_DISTURBED_PCT of their
	 * CPUs' time to it.
	 */
	bool steal_known;
	uint64_t steal_ns, steal_wall_ns;
	unsigned steal_disturbed, ncpus;
};
/*
 * An experiment that lost more than this share of its CPUs' time to
 * steal, and at least EXP_STEAL_DISTURBED_MIN_NS: /proc/stat counts in
 * ticks of 10 ms, of which one alone says little.
 */
#define EXP_STEAL_DISTURBED_PCT		10
#define EXP_STEAL_DISTURBED_MIN_NS	20000000ULL
void exp_summary(const struct exp_engine *, uint64_t now, struct exp_summary *);
/*
 * The steal time in percent of the experiments' CPU time (0 unknown),
 * and whether it is worth a warning: 5% or more, or an experiment
 * disturbed.  A neighbour on the host that takes the CPUs during some
 * experiments and not others moves the program's speed between them,
 * which the profile reads as effects of lines.
 */
#define EXP_STEAL_WARN_PCT	5
double exp_steal_pct(const struct exp_summary *);
bool exp_steal_worrying(const struct exp_summary *);
/* TICK period wanted now: short while experiments run. */
uint64_t exp_tick_ns(const struct exp_engine *);

/*
 * Steering, for the TUI (steer.h).  Targets are line ids, or function
 * ids at function granularity.  Whatever makes the experiment under way
 * pointless (a pin elsewhere, excluding its target, pausing) drops it,
 * as the end of a session does: a partial window is not a sample.
 */
/* Experiment on target only, until exp_unpin (overrides --fixed-line). */
void exp_pin(struct exp_engine *, unsigned target, bool is_func);
void exp_unpin(struct exp_engine *);
/* Leave a target (or every line of a file) out of the experiments, or back in. */
void exp_exclude(struct exp_engine *, unsigned target, bool is_func, bool excluded);
bool exp_excluded(const struct exp_engine *, unsigned target, bool is_func);
void exp_exclude_file(struct exp_engine *, const char *file, bool excluded);
bool exp_file_excluded(const struct exp_engine *, const char *file);
/* Draw speedup levels from [lo, hi] percent only (0, 100: all). */
void exp_levels_focus(struct exp_engine *, unsigned lo, unsigned hi);
/* No experiment while paused; sampling goes on. */
void exp_set_paused(struct exp_engine *, bool paused);
/* Forget the target's experiments (the 0% baselines serve every target: kept). */
void exp_reset_target(struct exp_engine *, unsigned target, bool is_func);
/* Experiment on whole functions, or on lines. */
void exp_set_granularity(struct exp_engine *, bool by_function);

struct exp_steering {
	bool paused;
	bool pinned;
	unsigned pin;
	bool pin_is_func;
	bool by_function;
	unsigned focus_lo, focus_hi;
	size_t nexcl;		/* targets excluded, lines and functions */
	size_t nexcl_files;
};
void exp_steering(const struct exp_engine *, struct exp_steering *);

#endif
