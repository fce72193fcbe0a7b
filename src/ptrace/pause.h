/*
 * The delay engine's hands: a thread that owes delay is stopped with
 * PTRACE_INTERRUPT and held in that ptrace-stop until its debt is paid,
 * then restarted with PTRACE_CONT.  One timerfd wakes the supervisor at
 * the earliest deadline; each held thread is credited the time it was
 * really held, from its stop to its restart, which the engine's
 * accounting (delay.h) needs rather than the time asked for.
 *
 * Only a thread that was running is worth holding: one stopped inside a
 * blocking system call would have been blocked anyway, so it is let go at
 * once (its debt stays owed).  On x86-64, an epoll_wait that our
 * interrupt made fail with EINTR (epoll is never restarted by the kernel)
 * is rewound so that the program never sees it.
 */
#ifndef CT_PAUSE_H
# define CT_PAUSE_H

# include <stdbool.h>
# include <stdint.h>

struct delay_global;
struct session;
struct tcb;

struct pause_stats {
	uint64_t requests;	/* PTRACE_INTERRUPTs sent */
	uint64_t held;		/* of which held in their stop */
	uint64_t in_syscall;	/* stopped inside a blocking call: let go */
	uint64_t cleared;	/* owed nothing by their stop: let go */
	uint64_t rewound;	/* epoll_wait EINTRs undone */
	uint64_t requested_ns;	/* sum asked for, of those held */
	uint64_t held_ns;	/* sum really held */
	uint64_t max_late_ns;	/* worst (held - requested) */
	/* Beyond the hold: stopped before we saw it, and not yet running
	   after the restart (both paid by the thread, both credited). */
	uint64_t stop_lag_ns, restart_lag_ns;
	uint64_t settled;	/* pauses whose restart cost was measured */
	uint64_t restart_measured_ns;	/* the sum of those */
};

/*
 * What the pauser asks of the kernel, as a table so that its rules run
 * on a scripted kernel too (tests/unit-pause.c, tests/unit-experiment.c).
 * pause_sys_real is the kernel's: app/main.c installs it, through the
 * engine's table (engine/experiment.h, exp_sys_real).
 */
struct pause_sys_ops {
	/* The clock: base/clock.h's clock_now_ns(). */
	uint64_t (*now)(void);
	/* PTRACE_INTERRUPT t; false with errno set if it failed. */
	bool (*interrupt)(struct tcb *);
	/* PTRACE_CONT t, no signal (a thread gone is not an error). */
	void (*cont)(struct tcb *);
	/*
	 * Where t's interrupt stop found it: true if inside a blocking
	 * system call (a restart code), or in an epoll_wait that the
	 * interrupt made fail, set back to its syscall instruction
	 * (*rewound then).
	 */
	bool (*in_syscall)(struct tcb *, bool *rewound);
	/* procfs_task_schedstat() of t (run and slices may be NULL). */
	bool (*schedstat)(struct tcb *, uint64_t *run, uint64_t *wait, uint64_t *slices);
	/* procfs_task_state() of t. */
	char (*state)(struct tcb *);
	/* A task-clock counter on t (perf_sys_task_clock), or -1; its count; close it. */
	int (*clock_open)(struct tcb *);
	uint64_t (*clock_count)(int fd);
	void (*clock_close)(int fd);
};
extern const struct pause_sys_ops pause_sys_real;

struct pauser;

/*
 * Credits paid delays against g.  switches: the engine follows context
 * switches, and keeps each thread's last switch out (tcb's out_ns).
 * sys: the kernel (pause_sys_real).
 */
struct pauser *pause_new(struct session *, struct delay_global *g, bool switches,
			 const struct pause_sys_ops *sys);
void pause_free(struct pauser *);

/* t left its CPU at time (a switch record): ends a restart's first run. */
void pause_switched_out(struct pauser *, struct tcb *, uint64_t time);

/* Stop t and hold it ns from now.  False if t cannot be paused now. */
bool pause_request(struct pauser *, struct tcb *, uint64_t ns, uint64_t now);
/* t is already in a ptrace-stop (its exit event): hold it there ns. */
void pause_hold(struct pauser *, struct tcb *, uint64_t ns, uint64_t now);
/*
 * trace.c: t, with a pause pending, reached an interrupt stop.  True if
 * it is now held (do not restart it); false: restart it as usual.  It is
 * held for what was asked, or owed if that is less (nothing: not held).
 */
bool pause_on_stop(struct pauser *, struct tcb *, uint64_t now, uint64_t owed);
/*
 * t, held or about to be, now owes owed in all (from its request on):
 * hold it longer if that is more than asked.  Debt can grow faster than
 * ticks come (a line sped up by 100% in a thread that always runs): the
 * hold must cover it, or the thread runs between pauses.
 */
void pause_extend(struct pauser *, struct tcb *, uint64_t owed, uint64_t now);
/* t dies or is being detached: forget its pause (it is not restarted). */
void pause_forget(struct pauser *, struct tcb *);
/*
 * Credit the restarted threads that have run since with what their
 * restart cost them beyond the hold (pause.c): on every tick.
 */
void pause_settle(struct pauser *, uint64_t now);
/*
 * The pauser's timer went off at now: settle, and restart every held
 * thread whose hold ends by then (give or take PAUSE_SLACK_NS).
 */
void pause_expire(struct pauser *, uint64_t now);
/* Restart every held thread now (end of an experiment, detach); the
   restart waits still to be measured are forgotten. */
void pause_release_all(struct pauser *);
/* Threads held or with an interrupt in flight. */
unsigned pause_busy(const struct pauser *);
const struct pause_stats *pause_stats(const struct pauser *);

#endif
