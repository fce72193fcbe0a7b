#include "config.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <unistd.h>
#include "app/session.h"
#include "base/clock.h"
#include "base/error_prints.h"
#include "base/evloop.h"
#include "base/procfs.h"
#include "base/xmalloc.h"
#include "perf/perf_sys.h"
#include "ptrace/pause.h"
#include "ptrace/tcb.h"
#include "ptrace/tracelog.h"

/* Restart everything due within this much: one wake-up, not several. */
#define PAUSE_SLACK_NS 20000ULL

struct pauser {
	struct ev_handler h;
	struct session *s;
	struct delay_global *g;
	int timer;
	struct tcb **held;		/* held or pending, unordered */
	size_t n, cap;
	uint64_t armed;			/* the timer fires by then; 0: not armed */
	struct settle *settling;	/* restarted, restart wait not yet known */
	size_t nsettle, settle_cap;
	bool switches;			/* threads' switches out are followed */
	const struct pause_sys_ops *sys;	/* the kernel */
	struct pause_stats st;
};

/* A restarted thread: its schedstat and CPU time at the restart. */
struct settle {
	struct tcb *t;
	uint64_t cont_ns, run, wait, slices, ran;
	uint64_t seen_slices;		/* slices at the last look */
	uint64_t out_ns;		/* its first switch out since, or 0 */
	uint64_t end_ns, end_run;	/* stopped again on its first run; 0: not */
	bool until_stop;		/* paused again on its first run */
	int clock;			/* t's pause_clock, handed over, or -1 */
};

/*
 * A pause costs the thread more than the hold: it stops before the
 * supervisor sees the stop, and after PTRACE_CONT it waits to run.
 * Left uncredited, that cost makes a paused thread owe too much, which
 * lowers every prediction where it is on the critical path.  Both parts
 * are measured from the thread's CPU time, counted by a task-clock
 * counter opened at the request (pause_clock), and its schedstat (wait
 * for a CPU, times it got one):
 *  - the stop: the time since the request that it did not wait for a
 *    CPU, beyond the hold.  Its run since the request counts as lost:
 *    it is mostly the kernel's stop path, not the thread's work.  A
 *    watcher thread paused from the other vCPU here (pausetarget) ran
 *    ~90 us of its CPU time inside each pause's gap, and went on with
 *    its own work for only ~25 us after the PTRACE_INTERRUPT;
 *  - the restart: what passed from PTRACE_CONT to a look during its
 *    first run, minus that run.  Waiting on a run queue shows in
 *    schedstat, but not the wake-up of an idle vCPU: the kernel queues
 *    the thread on the idle CPU only once that CPU has woken to take
 *    the IPI.  A thread that got a CPU more than once by the look, or
 *    is not running at the look (it was preempted or has blocked: the
 *    rest is not restart cost), is credited the mean restart cost of
 *    the pauses measured so far.
 * The counter, not schedstat's run time: that of a running thread is
 * brought up to date only at scheduler ticks (4 ms at HZ=250), so the
 * time since its last tick counted as restart (gt-sleep: 325 us a
 * pause, where the counter sees 40-90).
 * With context switches followed (engine/account.c), no counter: schedstat
 * is exact for a thread off its CPU, so the restart is told once its
 * first run after the PTRACE_CONT has ended, from that run's switch out
 * (pause_switched_out) less the run.  A thread that runs on until the
 * next pause (a spinning one on a CPU of its own) ends that run with the
 * stop: its run then is read before the next restart, and its switch
 * out when its record comes.  The counter cost three cross-CPU calls a
 * pause (opened, read and closed on a running thread): with 1,100
 * pauses a second (gt-crowd at 50%) a third of the supervisor's CPU, and
 * 2% of the program's progress in the experiments.  Switches out of the
 * idle task are not always reported (engine/account.c), switches in from it
 * never on CPU 1 of these guests: the first run's end, not its start.
 * Not credited: the kernel's part of the first run after the restart,
 * and the supervisor's own run on the thread's CPU before the request
 * (~110 us a pause when they share one: doc/design.md).
 * Anything larger than PAUSE_LAG_MAX_NS is a measurement gone wrong.
 */
#define PAUSE_LAG_MAX_NS 2000000ULL
/* A restart wait not measured within this is given up on. */
#define PAUSE_SETTLE_MAX_NS 5000000ULL
/*
 * Looks come with the pauser's timer and the engine's ticks (no wake-up
 * of our own: each costs the thread it preempts); one later than this
 * is not trusted to see the first run alone.
 */
#define PAUSE_SETTLE_TRUST_NS 1000000ULL

/*
 * The timer is armed for the earliest hold's end, or earlier: a new hold
 * re-arms it only if it ends sooner, and a hold that is extended or
 * dropped leaves it to fire early, which costs one look.  With hundreds
 * of threads held, a scan and a timerfd_settime on every stop did.
 */
static void
arm_for(struct pauser *pz, uint64_t deadline)
{
	uint64_t now;

	if (pz->armed && pz->armed <= deadline)
		return;
	pz->armed = deadline;
	now = pz->sys->now();
	/* A one-shot relative timer; 0 would disarm it, so at least 1 ns. */
	evloop_timer_arm(pz->timer, deadline > now ? deadline - now : 1, 0);
}

static void list_add(struct pauser *, struct tcb *);

static void
unlist(struct pauser *pz, size_t i)
{
	pz->held[i] = pz->held[--pz->n];
}

static bool
schedstat(struct pauser *pz, struct tcb *t, uint64_t *run, uint64_t *wait, uint64_t *slices)
{
	return pz->sys->schedstat(t, run, wait, slices);
}

static void
clock_close(struct pauser *pz, int *fd)
{
	if (*fd >= 0)
		pz->sys->clock_close(*fd);
	*fd = -1;
}

/*
 * What t lost before the hold: its stop lag, 0 if unknown.  Sets its
 * schedstat (*run, *wait, *slices; *slices 0 if not read), exact while it
 * is stopped.
 */
static uint64_t
stop_lag(struct pauser *pz, struct tcb *t, uint64_t now, uint64_t held, uint64_t *run,
	 uint64_t *wait, uint64_t *slices)
{
	uint64_t waited, stopped;

	if (!t->pause_ask_ns || !schedstat(pz, t, run, wait, slices))
		return 0;
	if (*wait < t->pause_wait0)
		return 0;
	waited = *wait - t->pause_wait0;
	if (now < t->pause_ask_ns + waited)
		return 0;
	stopped = now - t->pause_ask_ns - waited;
	if (stopped <= held || stopped - held > PAUSE_LAG_MAX_NS)
		return 0;
	return stopped - held;
}

/* Takes t's clock over; stopped, it counts no more. */
static void
settle_add(struct pauser *pz, struct tcb *t, uint64_t now, uint64_t run, uint64_t wait,
	   uint64_t slices)
{
	if (pz->nsettle == pz->settle_cap) {
		pz->settle_cap = pz->settle_cap ? 2 * pz->settle_cap : 16;
		pz->settling = xrealloc(pz->settling, pz->settle_cap * sizeof(*pz->settling));
	}
	pz->settling[pz->nsettle++] = (struct settle) {
		.t = t, .cont_ns = now, .run = run, .wait = wait, .slices = slices,
		.ran = t->pause_clock >= 0 ? pz->sys->clock_count(t->pause_clock) : 0,
		.clock = t->pause_clock,
	};
	t->pause_clock = -1;
}

/*
 * Its first run since the restart: still to come; none to credit (not
 * run in time, or readings that disagree); measured; or run, but not
 * measurable (credited the mean of those measured).
 */
enum restart { RESTART_NOT_YET, RESTART_DROP, RESTART_MEASURED, RESTART_UNKNOWN };

/*
 * The restart from the counter: looked at during its first run, within
 * PAUSE_SETTLE_TRUST_NS, all but that run was the restart.
 */
static enum restart
restart_by_clock(struct pauser *pz, struct settle *e, uint64_t since, uint64_t wait,
		 uint64_t slices, uint64_t *lag)
{
	uint64_t ran = pz->sys->clock_count(e->clock);

	if (ran < e->ran)
		return RESTART_DROP;
	ran -= e->ran;
	if (!ran && slices == e->slices)
		return since > PAUSE_SETTLE_MAX_NS ? RESTART_DROP : RESTART_NOT_YET;
	if (ran && slices == e->slices + 1 && since <= PAUSE_SETTLE_TRUST_NS &&
	    since >= ran + (wait - e->wait) &&
	    pz->sys->state(e->t) == 'R') {
		*lag = since - ran;
		return RESTART_MEASURED;
	}
	return RESTART_UNKNOWN;
}

/*
 * The restart from the switch records: once on a CPU and off it again
 * (a switch out seen since the restart), all but that run was the
 * restart; schedstat's run is exact then.
 */
static enum restart
restart_by_switch(struct settle *e, uint64_t now, uint64_t run, uint64_t slices,
		  uint64_t *lag)
{
	uint64_t since = now - e->cont_ns;

	if (e->end_ns) {
		/* Its first run ended with a stop: waiting for its record. */
		if (!e->out_ns)
			return now - e->end_ns > PAUSE_SETTLE_MAX_NS ? RESTART_UNKNOWN :
								      RESTART_NOT_YET;
		run = e->end_run;
	} else {
		if (slices == e->slices)
			return since > PAUSE_SETTLE_MAX_NS ? RESTART_DROP : RESTART_NOT_YET;
		if (slices != e->slices + 1)
			return RESTART_UNKNOWN;
		/* Still on its first run (or its end not read yet). */
		if (!e->out_ns)
			return since > PAUSE_SETTLE_MAX_NS ? RESTART_UNKNOWN : RESTART_NOT_YET;
	}
	if (run < e->run || e->out_ns - e->cont_ns < run - e->run)
		return RESTART_DROP;
	*lag = e->out_ns - e->cont_ns - (run - e->run);
	return RESTART_MEASURED;
}

/* Entry i: credit its restart cost if it has run since; true when done. */
static bool
settle_one(struct pauser *pz, size_t i, uint64_t now)
{
	struct settle *e = &pz->settling[i];
	uint64_t run, wait, slices, lag = 0, since = now - e->cont_ns;
	enum restart r;

	if (e->end_ns) {
		/* Not read again: schedstat has moved on since the stop. */
		run = e->end_run;
		wait = e->wait;
		slices = e->slices + 1;
	} else if (!schedstat(pz, e->t, &run, &wait, &slices) || wait < e->wait ||
		   slices < e->slices) {
		return true;
	}
	e->seen_slices = slices;
	r = pz->switches ? restart_by_switch(e, now, run, slices, &lag) :
			   restart_by_clock(pz, e, since, wait, slices, &lag);
	if (r == RESTART_NOT_YET)
		return false;
	if (r == RESTART_DROP)
		return true;
	if (r == RESTART_MEASURED) {
		if (lag > PAUSE_LAG_MAX_NS)
			return true;
		pz->st.restart_measured_ns += lag;
		pz->st.settled++;
	} else if (pz->st.settled) {
		lag = pz->st.restart_measured_ns / pz->st.settled;
	} else {
		/* Nothing measured yet: at least what schedstat saw. */
		lag = wait - e->wait < since ? wait - e->wait : since;
		if (lag > PAUSE_LAG_MAX_NS)
			return true;
	}
	if (lag) {
		delay_paid(pz->g, &e->t->delay, e->cont_ns, lag);
		pz->st.restart_lag_ns += lag;
	}
	return true;
}

static void
settle_remove(struct pauser *pz, size_t i)
{
	clock_close(pz, &pz->settling[i].clock);
	pz->settling[i] = pz->settling[--pz->nsettle];
}

static void
settle_clear(struct pauser *pz)
{
	while (pz->nsettle)
		settle_remove(pz, pz->nsettle - 1);
}

/*
 * t is asked to stop again: an entry not measured yet is now or never
 * (the stop would stand its schedstat still), unless switches are
 * followed and t is on its first run since (the stop ends it) or that
 * run has ended already.  One that never ran is dropped: its wait goes
 * on into the new pause's hold.
 */
static void
settle_at_request(struct pauser *pz, struct tcb *t, uint64_t now)
{
	for (size_t i = 0; i < pz->nsettle;) {
		struct settle *e = &pz->settling[i];

		if (e->t != t) {
			i++;
			continue;
		}
		if (!settle_one(pz, i, now) && pz->switches &&
		    (e->end_ns || e->seen_slices == e->slices + 1)) {
			e->until_stop = !e->end_ns;
			i++;
			continue;
		}
		settle_remove(pz, i);
	}
}

/* t stopped on its first run since a restart: that run ends here. */
static void
settle_at_stop(struct pauser *pz, struct tcb *t, uint64_t now, uint64_t run, uint64_t slices)
{
	for (size_t i = 0; i < pz->nsettle; i++) {
		struct settle *e = &pz->settling[i];

		if (e->t != t || !e->until_stop)
			continue;
		e->until_stop = false;
		if (slices != e->slices + 1)
			continue;
		e->end_ns = now;
		e->end_run = run;
	}
}

void
pause_switched_out(struct pauser *pz, struct tcb *t, uint64_t time)
{
	for (size_t i = 0; i < pz->nsettle; i++) {
		struct settle *e = &pz->settling[i];

		/* Only the first since the restart (and an ended run's own). */
		if (e->t == t && !e->out_ns && time > e->cont_ns &&
		    (!e->end_ns || time <= e->end_ns))
			e->out_ns = time;
	}
}

void
pause_settle(struct pauser *pz, uint64_t now)
{
	for (size_t i = 0; i < pz->nsettle;) {
		if (settle_one(pz, i, now)) {
			settle_remove(pz, i);
			continue;
		}
		i++;
	}
}

static void
resume(struct pauser *pz, struct tcb *t, uint64_t now)
{
	uint64_t got = now - t->pause_req_ns;
	uint64_t want = t->pause_until_ns - t->pause_req_ns;
	uint64_t run = 0, wait = 0, slices = 0, lag;

	/* Stopped, its counts stand still: read them before the restart. */
	lag = stop_lag(pz, t, now, got, &run, &wait, &slices);
	if (pz->nsettle)
		settle_at_stop(pz, t, now, run, slices);
	if (t->pause_ask_ns && slices && (pz->switches || t->pause_clock >= 0))
		settle_add(pz, t, now, run, wait, slices);
	clock_close(pz, &t->pause_clock);
	t->flags &= ~(TCB_PAUSED | TCB_STOPPED);
	pz->sys->cont(t);
	delay_paid(pz->g, &t->delay, now, got + lag);
	pz->st.stop_lag_ns += lag;
	pz->st.held_ns += got;
	pz->st.requested_ns += want;
	if (got > want && got - want > pz->st.max_late_ns)
		pz->st.max_late_ns = got - want;
	tracelog(t->tid, "--- paused %lu us (asked %lu us) ---",
		 (unsigned long) (got / 1000), (unsigned long) (want / 1000));
}

void
pause_expire(struct pauser *pz, uint64_t now)
{
	uint64_t next = 0;

	pz->armed = 0;
	pause_settle(pz, now);
	for (size_t i = 0; i < pz->n;) {
		struct tcb *t = pz->held[i];

		if (!(t->flags & TCB_PAUSED)) {
			i++;
			continue;
		}
		if (t->pause_until_ns <= now + PAUSE_SLACK_NS) {
			unlist(pz, i);
			resume(pz, t, now);
			continue;
		}
		if (!next || t->pause_until_ns < next)
			next = t->pause_until_ns;
		i++;
	}
	if (next)
		arm_for(pz, next);
}

static void
on_timer(struct ev_handler *h, uint32_t events)
{
	struct pauser *pz = (struct pauser *) h;

	evloop_timer_ack(pz->timer);
	pause_expire(pz, pz->sys->now());
}

struct pauser *
pause_new(struct session *s, struct delay_global *g, bool switches,
	  const struct pause_sys_ops *sys)
{
	struct pauser *pz = xcalloc(1, sizeof(*pz));

	pz->s = s;
	pz->g = g;
	pz->switches = switches;
	pz->sys = sys;
	pz->h.fn = on_timer;
	pz->timer = evloop_timer_new();
	evloop_add(s->ev, pz->timer, EPOLLIN, &pz->h);
	return pz;
}

void
pause_free(struct pauser *pz)
{
	if (!pz)
		return;
	evloop_del(pz->s->ev, pz->timer);
	close(pz->timer);
	settle_clear(pz);
	free(pz->settling);
	free(pz->held);
	free(pz);
}

bool
pause_request(struct pauser *pz, struct tcb *t, uint64_t ns, uint64_t now)
{
	if (t->flags & (TCB_STARTUP | TCB_STOPPED | TCB_GROUP_STOP | TCB_DETACH_NEXT |
			TCB_EXITING | TCB_PAUSE_PENDING | TCB_PAUSED))
		return false;
	if (pz->nsettle)
		settle_at_request(pz, t, now);
	/* The clock first: it must count all the run after the ask. */
	clock_close(pz, &t->pause_clock);
	if (!pz->switches)
		t->pause_clock = pz->sys->clock_open(t);
	t->pause_ask_ns = pz->sys->now();
	if (!schedstat(pz, t, NULL, &t->pause_wait0, NULL))
		t->pause_ask_ns = 0;
	if (!pz->sys->interrupt(t)) {
		if (errno != ESRCH)
			perror_msg("ptrace(INTERRUPT, %d)", (int) t->tid);
		clock_close(pz, &t->pause_clock);
		return false;
	}
	t->flags |= TCB_PAUSE_PENDING;
	t->pause_req_ns = now;
	t->pause_until_ns = now + ns;
	list_add(pz, t);
	pz->st.requests++;
	return true;
}

void
pause_hold(struct pauser *pz, struct tcb *t, uint64_t ns, uint64_t now)
{
	t->flags |= TCB_PAUSED;
	t->pause_req_ns = now;
	t->pause_until_ns = now + ns;
	t->pause_ask_ns = 0;	/* stopped already: no lag to measure */
	clock_close(pz, &t->pause_clock);
	list_add(pz, t);
	pz->st.held++;
	arm_for(pz, t->pause_until_ns);
}

static void
list_add(struct pauser *pz, struct tcb *t)
{
	if (pz->n == pz->cap) {
		pz->cap = pz->cap ? 2 * pz->cap : 16;
		pz->held = xrealloc(pz->held, pz->cap * sizeof(*pz->held));
	}
	pz->held[pz->n++] = t;
}

#ifdef __x86_64__
/* The kernel's restart codes: the call is restarted, so it was blocked. */
# define ERESTARTSYS		512
# define ERESTARTNOINTR		513
# define ERESTARTNOHAND		514
# define ERESTART_RESTARTBLOCK	516

static bool
is_epoll_wait(long nr)
{
	return nr == 232 || nr == 281 || nr == 441;	/* epoll_wait, _pwait, _pwait2 */
}

/* Signals pending and not blocked for tid (thread or process wide). */
static bool
signal_pending(pid_t tid)
{
	char path[64], line[128];
	unsigned long long pnd = 0, shd = 0, blk = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int) tid);
	if (!(f = fopen(path, "re")))
		return true;	/* cannot tell: do not touch it */
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "SigPnd: %llx", &pnd);
		sscanf(line, "ShdPnd: %llx", &shd);
		sscanf(line, "SigBlk: %llx", &blk);
	}
	fclose(f);
	return ((pnd | shd) & ~blk) != 0;
}

/*
 * Where the interrupt found t: true if inside a blocking system call (it
 * was not running, so holding it would pay nothing).  An epoll_wait that
 * our interrupt made fail is set back to the syscall instruction, as the
 * kernel does itself for the calls it restarts (*rewound).
 */
static bool
stopped_in_syscall(struct tcb *t, bool *rewound)
{
	struct user_regs_struct r;
	long rax;

	*rewound = false;
	if (ptrace(PTRACE_GETREGS, t->tid, 0L, &r) < 0)
		return false;
	if ((long) r.orig_rax < 0)
		return false;
	rax = (long) r.rax;
	if (rax == -ERESTARTSYS || rax == -ERESTARTNOINTR || rax == -ERESTARTNOHAND ||
	    rax == -ERESTART_RESTARTBLOCK)
		return true;
	if (rax == -EINTR && is_epoll_wait((long) r.orig_rax) && !signal_pending(t->tid)) {
		r.rax = r.orig_rax;
		r.rip -= 2;
		if (ptrace(PTRACE_SETREGS, t->tid, 0L, &r) == 0) {
			*rewound = true;
			return true;
		}
	}
	return false;
}
#else
static bool
stopped_in_syscall(struct tcb *t, bool *rewound)
{
	*rewound = false;
	return false;
}
#endif

bool
pause_on_stop(struct pauser *pz, struct tcb *t, uint64_t now, uint64_t owed)
{
	bool rewound;

	t->flags &= ~TCB_PAUSE_PENDING;
	if (pz->s->detaching || !t->pause_until_ns) {
		pause_forget(pz, t);
		return false;
	}
	if (pz->sys->in_syscall(t, &rewound)) {
		pz->st.rewound += rewound;
		pz->st.in_syscall++;
		t->flags |= TCB_BLOCKED;
		pause_forget(pz, t);
		return false;
	}
	if (owed < t->pause_until_ns - t->pause_req_ns)
		t->pause_until_ns = t->pause_req_ns + owed;
	if (t->pause_until_ns <= t->pause_req_ns) {
		pz->st.cleared++;
		pause_forget(pz, t);
		return false;
	}
	pz->st.held++;
	/*
	 * The pause starts now, not at the request: until its stop the
	 * thread ran, or waited for a CPU, which it would have done anyway.
	 */
	t->pause_until_ns = now + (t->pause_until_ns - t->pause_req_ns);
	t->pause_req_ns = now;
	t->flags |= TCB_PAUSED;
	arm_for(pz, t->pause_until_ns);
	return true;
}

void
pause_extend(struct pauser *pz, struct tcb *t, uint64_t owed, uint64_t now)
{
	uint64_t until = t->pause_req_ns + owed;

	/* Later only: the timer, armed for the old end, looks again then. */
	if (until > t->pause_until_ns)
		t->pause_until_ns = until;
}

void
pause_forget(struct pauser *pz, struct tcb *t)
{
	t->flags &= ~(TCB_PAUSE_PENDING | TCB_PAUSED);
	clock_close(pz, &t->pause_clock);
	for (size_t i = 0; i < pz->nsettle;)
		if (pz->settling[i].t == t)
			settle_remove(pz, i);
		else
			i++;
	for (size_t i = 0; i < pz->n; i++)
		if (pz->held[i] == t) {
			unlist(pz, i);
			break;
		}
}

void
pause_release_all(struct pauser *pz)
{
	uint64_t now = pz->sys->now();

	for (size_t i = 0; i < pz->n;) {
		struct tcb *t = pz->held[i];

		if (t->flags & TCB_PAUSED) {
			unlist(pz, i);
			resume(pz, t, now);
			continue;
		}
		/* Its stop is on the way: let it go when it comes. */
		t->pause_until_ns = 0;
		i++;
	}
	/* The experiment is over: a credit now would count in the next. */
	settle_clear(pz);
}

unsigned
pause_busy(const struct pauser *pz)
{
	return (unsigned) pz->n;
}

const struct pause_stats *
pause_stats(const struct pauser *pz)
{
	return &pz->st;
}

/* The kernel's side of the pauses. */
static bool
real_interrupt(struct tcb *t)
{
	return ptrace(PTRACE_INTERRUPT, t->tid, 0L, 0L) == 0;
}

static void
real_cont(struct tcb *t)
{
	if (ptrace(PTRACE_CONT, t->tid, 0L, 0L) < 0 && errno != ESRCH)
		perror_msg("ptrace(CONT, %d)", (int) t->tid);
}

static bool
real_schedstat(struct tcb *t, uint64_t *run, uint64_t *wait, uint64_t *slices)
{
	return procfs_task_schedstat(&t->pf, t->proc->tgid, t->tid, run, wait, slices);
}

static char
real_state(struct tcb *t)
{
	return procfs_task_state(&t->pf, t->proc->tgid, t->tid);
}

static int
real_clock_open(struct tcb *t)
{
	return perf_sys_task_clock(t->tid);
}

static void
real_clock_close(int fd)
{
	close(fd);
}

const struct pause_sys_ops pause_sys_real = {
	.now = clock_now_ns,
	.interrupt = real_interrupt,
	.cont = real_cont,
	.in_syscall = stopped_in_syscall,
	.schedstat = real_schedstat,
	.state = real_state,
	.clock_open = real_clock_open,
	.clock_count = perf_sys_count,
	.clock_close = real_clock_close,
};
