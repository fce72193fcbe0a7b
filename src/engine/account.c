/*
 * The accounting of an experiment (delay.h's rules, doc/design.md's
 * reasons): hits and wake-ups queued as the rings are read and applied in
 * time order, context switches (CPU waits, the supervisor's preemptions,
 * pauses taken back), the weights of hits, and the delays owed: which
 * threads are paused, at each tick and at their exit.  The ptrace core
 * reports threads and stops here through exp_trace_ops.
 */
#include "config.h"
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "app/session.h"
#include "base/clock.h"
#include "base/error_prints.h"
#include "base/procfs.h"
#include "base/xmalloc.h"
#include "calc/delay.h"
#include "engine/exp_engine.h"
#include "engine/experiment.h"
#include "perf/drain.h"
#include "perf/hostcost.h"
#include "perf/wake.h"
#include "ptrace/pause.h"
#include "ptrace/tcb.h"
#include "ptrace/trace.h"

/*
 * Debts below this wait for a later tick.  Each pause costs the thread
 * more than is measured (pause.c), so fewer pauses are closer to the
 * truth: gt-offpath's burner at 50% (a flat line, real 0.00) predicted
 * -0.24 and -0.46 with 100 us (3,600 pauses).  But a debt that never
 * reaches the bar is never paid: it passes from each lock holder to the
 * waiter it wakes (who inherits the waker's local), and is absorbed by
 * the hits of whoever owes it next, while Coz pays it at every unlock.
 * With 1 ms, gt-mutex's line outside the lock at 50% (one hit: 0.5 ms)
 * paid 4 pauses in a whole run and predicted +0.05 for a real 0.00.
 * 500 us: +0.013 (315 pauses); gt-mutex critical, gt-offpath burn and
 * gt-unequal long at 25, 50 and 100% within 0.02 of 1 ms (700 us: +0.05
 * again; one hit's worth with a 250 us floor: -0.05 at 25%).
 */
#define MIN_PAUSE_NS		500000ULL
#define READY_RELOOK_NS		10000000ULL

#define SYS_FUTEX_NR		202	/* x86-64 */
#define SYS_FUTEX_WAITV_NR	449

/* Keep the newest TCB_RUN_HISTORY times, newest first, each once. */
static void
ran_at(struct tcb *t, uint64_t time)
{
	unsigned i;

	for (i = 0; i < TCB_RUN_HISTORY; i++)
		if (t->ran_ns[i] == time)
			return;
	if (time <= t->ran_ns[TCB_RUN_HISTORY - 1])
		return;		/* older than all we keep */
	for (i = TCB_RUN_HISTORY - 1; i > 0 && t->ran_ns[i - 1] < time; i--)
		t->ran_ns[i] = t->ran_ns[i - 1];
	t->ran_ns[i] = time;
}

/*
 * When t last ran before time, as far as we know; 0 if every run we
 * know of is later (the history is short) or none is known.
 */
static uint64_t
ran_before(const struct tcb *t, uint64_t time)
{
	for (unsigned i = 0; i < TCB_RUN_HISTORY; i++)
		if (t->ran_ns[i] && t->ran_ns[i] < time)
			return t->ran_ns[i];
	return 0;
}

void
exp_ran(struct exp_engine *e, struct tcb *t, uint64_t time)
{
	ran_at(t, time);
	if (time > t->sampled_ns)
		t->sampled_ns = time;
	if (exp_on(e) && time >= e->start_ns)
		t->exp_samples++;
}

/*
 * Hits wait for the wake-ups read with them, to be applied in time order:
 * a lock holder's first sample is often read before the wake-up that
 * gave it the lock, and applied first it found the thread behind G and
 * raised nothing (gt-mutex: one hit in five lost).
 */
void
exp_hit(struct exp_engine *e, struct tcb *t, uint64_t time)
{
	if (e->nhit == e->caphit) {
		e->caphit = e->caphit ? 2 * e->caphit : 256;
		e->hit = xrealloc(e->hit, e->caphit * sizeof(*e->hit));
	}
	e->hit[e->nhit++] = (struct hit_event) { t->tid, time };
	e->selected++;
	t->exp_hits++;
	if (time > t->hit_ns)
		t->hit_ns = time;
}

static void futex_catch_up(struct exp_engine *, struct tcb *, uint64_t);

/* The delay one hit of t inserts: a period's share, weighed (calibrate). */
static uint64_t
hit_delay(const struct exp_engine *e, const struct tcb *t)
{
	uint64_t d = e->d_ns * (e->cfg.cpu_switches ? e->cpu_scale :
				t->hit_scale ? t->hit_scale : 1000) / 1000;

	return d * (t->sample_scale ? t->sample_scale : 1000) / 1000;
}

/*
 * What t is to pay now.  A thread whose last sample hit the line runs it
 * still, as far as we know: its next sample raises its own count by a
 * hit, and so clears a debt of up to a hit that the others' hits left it
 * between two of its own.  Threads running the line at once take turns
 * at G, each one a part of a period behind, since their samples do not
 * fall together; paid at the tick, that lag paused each in turn, the
 * pause made it fall behind the others' hits, and every pause then set
 * G up for the others: two threads running the line at once, 50%, read
 * 29% for a real 33% (bench/knee-20261130).  In Coz each thread counts
 * its own hit before it pays, at the same sample.
 */
static uint64_t
payable(const struct exp_engine *e, const struct tcb *t)
{
	uint64_t owed = delay_owed(&e->g, &t->delay), d;

	if (!t->hit_ns || t->hit_ns != t->sampled_ns)
		return owed;
	d = hit_delay(e, t);
	return owed > d ? owed - d : 0;
}

static void
apply_hit(struct exp_engine *e, const struct hit_event *h)
{
	struct tcb *t = tcb_lookup(h->tid);

	if (!t)
		return;
	/*
	 * A waiter credited only later would take its first hits behind G,
	 * where they raise its local but not G: the hitter absorbed its own
	 * hits (gt-mutex, syscall mode: G grew 0.52 ms an item, not 1.09).
	 */
	futex_catch_up(e, t, 0);
	delay_hit(&e->g, &t->delay, h->time, hit_delay(e, t));
	debug_msg("exp: hit %d at %" PRIu64 ": local %" PRIu64 " us (G %" PRIu64 ")",
		  (int) t->tid, h->time / 1000, t->delay.local / 1000, e->g.global / 1000);
}

/* CPU numbers are small; a silly one is ignored. */
#define EXP_MAX_CPU 4096

static struct exp_cpu *
cpu_slot(struct exp_engine *e, int cpu)
{
	if (cpu < 0 || cpu >= EXP_MAX_CPU)
		return NULL;
	if ((size_t) cpu >= e->ncpu_slots) {
		size_t n = (size_t) cpu + 1;

		e->cpu = xrealloc(e->cpu, n * sizeof(*e->cpu));
		memset(e->cpu + e->ncpu_slots, 0, (n - e->ncpu_slots) * sizeof(*e->cpu));
		e->ncpu_slots = n;
	}
	return &e->cpu[cpu];
}

void
exp_wake(struct exp_engine *e, const struct wake_event *w)
{
	struct tcb *t;

	/*
	 * With switches followed, kept between experiments too, an
	 * interrupt's wake-ups as well: when each thread became ready, and
	 * what each CPU ran, are needed at every switch (apply_switch).
	 * Every switch of the machine comes, for each CPU's account.
	 */
	if (w->sw) {
		/* Followed on some CPUs only, wake_open closed them all. */
		if (!e->cfg.cpu_switches || !cpu_slot(e, w->cpu))
			return;
	} else {
		if (!(t = tcb_lookup(w->wakee)))
			return;
		/* Whatever woke it, it may run again: look at it next tick. */
		t->flags &= ~TCB_BLOCKED;
		if (!e->cfg.cpu_switches && (w->irq || !exp_on(e)))
			return;
	}
	if (e->nwk == e->capwk) {
		e->capwk = e->capwk ? 2 * e->capwk : 256;
		e->wk = xrealloc(e->wk, e->capwk * sizeof(*e->wk));
	}
	e->wk[e->nwk++] = *w;
}


/*
 * Bring every thread's accounting up to the present: samples and
 * wake-ups reach us a tick late, but a thread that copies another's
 * (a new thread its parent's) or pays what it owes (at its exit) needs
 * it now: a parent just woken from a join would otherwise hand its child
 * the debt it no longer has.
 */
static void
catch_up(struct exp_engine *e)
{
	if (!exp_on(e))
		return;
	e->sys->drain(e->s);
	exp_apply_events(e);
}

/* New thread t, created by parent (NULL if unknown). */
static void
exp_thread_new(void *ctx, struct tcb *t, struct tcb *parent)
{
	struct exp_engine *e = ctx;
	uint64_t now = e->sys->now();

	if (parent) {
		catch_up(e);
		delay_thread_inherit_parent(&t->delay, &parent->delay, now);
	}
	else
		delay_thread_init(&t->delay, &e->g, now);
}

/* t is about to be freed: keep its accounting for late wake-ups. */
static void
exp_thread_gone(void *ctx, struct tcb *t)
{
	struct exp_engine *e = ctx;

	pause_forget(e->pz, t);
	if (!exp_on(e))
		return;
	exp_apply_events(e);	/* its own hits first */
	if (e->ndead == e->capdead) {
		e->capdead = e->capdead ? 2 * e->capdead : 16;
		e->dead = xrealloc(e->dead, e->capdead * sizeof(*e->dead));
	}
	e->dead[e->ndead].tid = t->tid;
	e->dead[e->ndead].d = t->delay;
	e->ndead++;
}

static int
wake_cmp(const void *a, const void *b)
{
	const struct wake_event *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

static const struct delay_thread *
waker_of(struct exp_engine *e, pid_t tid)
{
	struct tcb *t = tcb_lookup(tid);

	if (t)
		return &t->delay;
	for (size_t i = e->ndead; i > 0; i--)
		if (e->dead[i - 1].tid == tid)
			return &e->dead[i - 1].d;
	return NULL;
}

static int
hit_cmp(const void *a, const void *b)
{
	const struct hit_event *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

static void apply_wake(struct exp_engine *, const struct wake_event *);

/* Hits and wake-ups in time order: the waker's local as it was at each wake-up. */
void
exp_apply_events(struct exp_engine *e)
{
	size_t i = 0, j = 0;

	/* qsort's array may not be NULL, even empty (UBSan). */
	if (e->nwk)
		qsort(e->wk, e->nwk, sizeof(*e->wk), wake_cmp);
	if (e->nhit)
		qsort(e->hit, e->nhit, sizeof(*e->hit), hit_cmp);
	while (i < e->nwk || j < e->nhit) {
		if (j == e->nhit || (i < e->nwk && e->wk[i].time <= e->hit[j].time))
			apply_wake(e, &e->wk[i++]);
		else
			apply_hit(e, &e->hit[j++]);
	}
	e->nwk = 0;
	e->nhit = 0;
	e->ndead = 0;
}

/*
 * The supervisor preempts the thread running where it wakes up.  In an
 * experiment that is often the thread paying delays, whose CPU idles
 * through its pauses: taken as the program's own time, the preemptions
 * made every paying line's prediction low (gt-unequal long at 100%:
 * 0.31-0.36 for 0.39).  To the program a preemption of a thread that
 * owes is a pause, so it counts toward the debt (delay_lost).  Beyond
 * the debt it stays the program's time, as any other load on the
 * machine: raising G by it instead made every other thread pay it, and
 * a critical thread paying an off-path one's preemptions read
 * gt-offpath's flat line at -0.08.
 */
#define STEAL_MAX_NS 5000000ULL

static void
give_back(struct exp_engine *e, struct exp_cpu *c, uint64_t now)
{
	struct tcb *t = tcb_lookup(c->last_tid);
	uint64_t ns = now - c->last_out;

	if (!t || !exp_on(e) || c->last_out < e->start_ns || now <= c->last_out ||
	    ns > STEAL_MAX_NS)
		return;
	e->stolen_ns += ns;
	e->steals++;
	e->stolen_paid_ns += delay_lost(&e->g, &t->delay, now, ns);
	/* The tick is decided once, from preemptions at the 1 ms tick. */
	if (e->steals == DEAR_STEALS)
		e->stolen_first = e->stolen_ns;
}

/*
 * A thread woken from a sleep that was all inserted delay (its credit
 * covered the whole sleep: a waiter for a lock held through the sped-up
 * line) would not have slept at all had the delays been inserted as
 * meant, each thread frozen while the line ran elsewhere: it would have
 * run on at the moment of its wake-up.  Here it runs on only once its
 * idle CPU has woken for it (the IPI, the vCPU's exit from halt, the
 * switch in: 20-45 us on the AMD EPYC PVM hosts), time the program with
 * the line really faster does not lose, as it does not sleep there.  So
 * that lag counts as the experiment's own (delay_lost_to_exp): G rises
 * by it and the other threads pay it.  Left to the program, every
 * hand-off of a lock held through the line lengthened the experiment:
 * wl-wordfreq's hash at 100% (a hand-off an item) predicted 0.63-0.74
 * for a real 0.76-0.78, the lower the dearer a wake-up; with the lag,
 * 0.751 for 0.759 (bench/wakelag-20261127, doc/design.md).
 *
 * Where the kernel does not report a switch out of the idle task (CPU 1
 * of these guests: apply_switch), the switch in is never seen: the mean
 * lag of the wake-ups onto an idle CPU that were seen stands for it,
 * counted at the thread's next switch out, once there are enough.
 */
#define WAKE_LAG_MAX_NS		1000000ULL
#define WAKE_LAG_MIN_SEEN	16

static void
wake_lag(struct exp_engine *e, struct tcb *t, uint64_t now, uint64_t lag, bool guessed)
{
	if (!lag || !exp_on(e))
		return;
	delay_lost_to_exp(&e->g, &t->delay, now, lag);
	e->wake_lags++;
	e->wake_lag_ns += lag;
	e->wake_lags_guessed += guessed;
}

/*
 * How much of t's wait for a CPU behind h, the last of ours to hold it,
 * a faster line would have saved, in 1/1000.  The scheduler shares a CPU
 * among the threads ready on it whatever their lines' speed: the time a
 * faster line frees in a holder that never sleeps goes to its own next
 * work, so the CPU's work is sped up only as far as its threads run the
 * line: t's share of samples in the line over h's, at most 1.  Threads
 * that all run it alike (gt-crowd) are credited in full, as before; a
 * monitor thread that never sleeps and runs the line, sharing a CPU with
 * workers that do not (bench/corpus/pool.c), gives them nothing, where
 * the credit made its speedup read +6 to +11 for a real -9.7
 * (bench/waitshare-20261201).  A holder that sleeps (WAIT_SHARE_SLEEPER_PCT
 * of the experiment or more) does not take its share whatever: a faster
 * line gets it to its sleep sooner and hands the CPU over, credited in
 * full (gt-parallel's workers, which sleep at a barrier: their work line
 * read 5 to 8 points low at 50% without).  Neither running the line:
 * nothing, the wait was for work the line does not touch.  Too few
 * samples to tell: in full.
 */
#define WAIT_SHARE_MIN_SAMPLES	8
#define WAIT_SHARE_SLEEPER_PCT	10

static unsigned
wait_share(const struct tcb *t, const struct tcb *h, uint64_t elapsed)
{
	uint64_t th, hh;

	if (!h || h->exp_samples < WAIT_SHARE_MIN_SAMPLES ||
	    t->exp_samples < WAIT_SHARE_MIN_SAMPLES)
		return 1000;
	if (!h->exp_hits && !t->exp_hits)
		return 0;
	if (h->exp_blocked_ns * 100 >= elapsed * WAIT_SHARE_SLEEPER_PCT)
		return 1000;
	/* (t's hits / t's samples) / (h's hits / h's samples); h without hits: 1 */
	th = (uint64_t) t->exp_hits * h->exp_samples;
	hh = (uint64_t) h->exp_hits * t->exp_samples;
	return th >= hh ? 1000 : (unsigned) (1000 * th / hh);
}

/*
 * A thread that waited for a CPU waited for the thread that held it, as
 * one woken by another waits for that one: with more threads ready than
 * CPUs, a faster line in the holder would have given it the CPU sooner.
 * So the thread taking a CPU is credited as if woken, at the switch, by
 * the last of ours to hold that CPU, for the delay inserted since it
 * became ready.  Without this, threads taking turns on a CPU each
 * absorbed only their own hits, G grew by one thread's share of the CPU
 * instead of the CPU's, and the wait was weighed in every thread's hits
 * instead (hit_scale): gt-crowd's hot line (8 threads on 2 CPUs) at 25%
 * predicted 0.35 for a real 0.15, at 50% 0.52-0.59 for 0.30.
 */
static void
apply_switch(struct exp_engine *e, const struct wake_event *w)
{
	const struct delay_thread *hd;
	struct tcb *prev = tcb_lookup(w->waker_tid), *next;
	struct exp_cpu *c = cpu_slot(e, w->cpu);
	uint64_t ready, pending, holder_local;

	/*
	 * What ran there until now, only when the one leaving is the one
	 * we saw come: a switch out of the idle task is not always
	 * reported (never on CPU 1 of this machine's guests, even to perf
	 * record), and what ran between is unknown.
	 */
	if (c->since && w->time > c->since && w->waker_tid == c->cur) {
		if (prev)
			c->ours += w->time - c->since;
		else if (w->waker_tid > 0)
			c->others += w->time - c->since;
	}
	/* Leaving the CPU it took: no record lost between (cur). */
	if (c->robbed && w->waker_tid == e->self && w->waker_tid == c->cur)
		give_back(e, c, w->time);
	c->robbed = prev && w->prev_ready && w->wakee == e->self;
	c->since = w->time;
	c->cur = w->wakee;
	if (prev) {
		c->last_tid = prev->tid;
		c->last_out = w->time;
		/* Blocked: ready again at its wake-up, which says so. */
		prev->ready_ns = w->prev_ready ? w->time : 0;
		prev->out_ns = w->time;
		prev->out_cpu = w->cpu;
		prev->out_ours = c->ours;
		pause_switched_out(e->pz, prev, w->time);
		/* Still waiting for its switch in: it came unseen, from idle. */
		if (prev->vsleep_woken_ns && e->idle_wakes >= WAKE_LAG_MIN_SEEN) {
			uint64_t lag = e->idle_wake_ns / e->idle_wakes;

			if (lag > w->time - prev->vsleep_woken_ns)
				lag = w->time - prev->vsleep_woken_ns;
			wake_lag(e, prev, w->time, lag, true);
		}
		prev->vsleep_woken_ns = 0;
	}
	if (!w->wakee || !(next = tcb_lookup(w->wakee)))
		return;
	ready = next->ready_ns;
	next->ready_ns = 0;
	/* Onto an idle CPU: how long that took, the host's wake-up lag. */
	if (!w->waker_tid && ready && w->time >= ready && w->time - ready < WAKE_LAG_MAX_NS) {
		e->idle_wakes++;
		e->idle_wake_ns += w->time - ready;
		if (next->vsleep_woken_ns == ready)
			wake_lag(e, next, w->time, w->time - ready, false);
	}
	next->vsleep_woken_ns = 0;
	pending = next->delay.paid_pending;
	next->delay.paid_pending = 0;
	/*
	 * The last of ours to hold the CPU before it: another task
	 * (causaltop, often) may have run between them.
	 */
	if (!c->last_tid || c->last_tid == next->tid || !(hd = waker_of(e, c->last_tid)) ||
	    !exp_on(e) || w->time < e->start_ns)
		return;
	holder_local = delay_local_at(hd, c->last_out);
	/*
	 * Paused since it last ran while others of ours used the CPU: the
	 * pause delayed it, not the program, which lost no CPU time.  Kept,
	 * that credit put it ahead of the threads that took its turn, and
	 * their successors inherited it: gt-crowd's G grew with every
	 * thread's hits instead of one CPU's (0.43 predicted for 0.30).
	 * Taken back as far as ours ran there meanwhile (on another CPU
	 * than it left, all the time away), and not below the holder.
	 */
	if (pending && next->out_ns && c->last_out > next->out_ns &&
	    next->delay.local > holder_local) {
		uint64_t busy = next->out_cpu == w->cpu ? c->ours - next->out_ours :
			        w->time - next->out_ns;
		uint64_t r = pending < busy ? pending : busy;

		if (r > next->delay.local - holder_local)
			r = next->delay.local - holder_local;
		if (r) {
			delay_revoke(&next->delay, w->time, r);
			e->revoked_ns += r;
		}
	}
	/* Waited for it since it became ready (not known: a wake-up lost). */
	if (!ready || ready > w->time || c->last_out < ready)
		return;
	if (ready < e->start_ns)
		ready = e->start_ns;
	e->cpu_waits++;
	if (delay_wake_part(&e->g, &next->delay, w->time, holder_local, ready, 0,
			    wait_share(next, tcb_lookup(c->last_tid), w->time - e->start_ns)))
		e->cpu_waits_credited++;
}

/*
 * With CPU waits credited at the switch, the hits still have to weigh the
 * CPU time other programs take (hit_scale's reason): the time our
 * threads' CPUs ran other tasks, over the time they ran ours, across the
 * CPUs ours ran on since the last update.  Per CPU rather than per
 * thread, since a thread's own wait is now mostly for our other threads.
 */
#define CPU_SCALE_MIN_NS 20000000ULL

void
exp_update_cpu_scale(struct exp_engine *e)
{
	uint64_t ours = 0, others = 0, sc;

	for (size_t i = 0; i < e->ncpu_slots; i++) {
		const struct exp_cpu *c = &e->cpu[i];

		if (c->ours == c->ours0)
			continue;
		ours += c->ours - c->ours0;
		others += c->others - c->others0;
	}
	if (ours < CPU_SCALE_MIN_NS)
		return;
	for (size_t i = 0; i < e->ncpu_slots; i++) {
		e->cpu[i].ours0 = e->cpu[i].ours;
		e->cpu[i].others0 = e->cpu[i].others;
	}
	sc = 1000 * (ours + others) / ours;
	e->cpu_scale = sc > 4000 ? 4000 : (unsigned) sc;
	debug_msg("exp: cpu scale %u: ours %" PRIu64 " us, others %" PRIu64 " us",
		  e->cpu_scale, ours / 1000, others / 1000);
}

static void
apply_wake(struct exp_engine *e, const struct wake_event *w)
{
	const struct delay_thread *wd;
	struct tcb *t, *waker;
	uint64_t before, wl, blocked, gw, credit;
	uint64_t circular = 0;

	if (w->sw) {
		apply_switch(e, w);
		return;
	}
	if (!(t = tcb_lookup(w->wakee)))
		return;
	/* Asleep since its switch out (a restart from our pause is no sleep). */
	if (!t->ready_ns && t->out_ns && exp_on(e) && w->time > t->out_ns &&
	    w->waker_tid != e->self)
		t->exp_blocked_ns += w->time - (t->out_ns > e->start_ns ? t->out_ns : e->start_ns);
	t->ready_ns = w->time;
	t->vsleep_woken_ns = 0;
	if (w->irq || !exp_on(e) || w->time < e->start_ns)
		return;
	if (!(wd = waker_of(e, w->waker_tid)))
		return;		/* not ours: an outside wake-up */
	e->wakes++;
	before = t->delay.local;
	wl = delay_local_at(wd, w->time);
	/*
	 * When it blocked: with context switches followed, its last switch
	 * out before the wake-up.  Otherwise the last sign of it running
	 * before the wake-up (a sample, the previous wake-up) bounds it from
	 * below; not the last sign of all: the sample that follows a wake-up
	 * is often read before it.  Taken for the time the thread blocked,
	 * that left the wakee owing all it slept through (gt-mutex: each new
	 * lock holder was paused while it held the lock).  But as a bound it
	 * is often a millisecond early, and the holder's hits while a waiter
	 * still ran counted as slept through: wl-wordfreq's hash (a lock
	 * handed back and forth) at 100% predicted 0.75-0.87 for a real 0.76,
	 * varying with where the sampling timers fell (now 0.73-0.76).
	 */
	blocked = ran_before(t, w->time);
	if (t->out_ns < w->time && t->out_ns > blocked)
		blocked = t->out_ns;
	if (blocked < e->start_ns)
		blocked = e->start_ns;
	/*
	 * A waker that runs because t woke it (a barrier's last arrival, a
	 * ping-pong) came when it did because t woke it early, owing: the
	 * wait cannot hide the debt it inherited from t, unless it has paid
	 * it since.  gt-unequal's long line at 50%, 0.39 real: always
	 * credited, 0.44-0.46 predicted when debts were paid 2 ms at a time
	 * (the waker, owing less, paid nothing); never credited, 0.19-0.34
	 * (paid twice, by the waker and by t).  Only what it inherited: a
	 * lock handed back and forth by threads that owed nothing when they
	 * handed it had no debt credited at all, and waiters paid what their
	 * wait hid from the lock (wl-wordfreq's hash at 100%: 0.61 for 0.76).
	 */
	waker = tcb_lookup(w->waker_tid);
	if (waker && waker->woken_by == t->tid) {
		uint64_t paid = waker->delay.paid_ns - waker->paid_at_wake;

		circular = waker->lag_at_wake > paid ? waker->lag_at_wake - paid : 0;
	}
	/*
	 * A sleep on the waker's pause that the sleeper did not owe is not
	 * made the experiment's.  It was, from 0d25535 to 2026-11-30 (G rose
	 * by it, every other thread paid it): where the waker shares its CPU
	 * with others of ours, the CPU stays busy through its pause, and the
	 * sleeper waited on that work, not on the pause.  wl-compress's seal
	 * at 100% (the writer waiting on three threads sharing CPU 0) read
	 * +49 and +55 with it, G 3.4 times the line's time, and +36 and +39
	 * without, for a real +29 to +36 (bench/heldup-20261130).
	 */
	credit = delay_wake(&e->g, &t->delay, w->time, wl, blocked, circular);
	if (credit)
		e->wakes_credited++;
	/* Its whole sleep credited: the lag to its switch in is ours (wake_lag). */
	t->vsleep_woken_ns = credit && credit >= w->time - blocked ? w->time : 0;
	t->woken_by = w->waker_tid;
	t->paid_at_wake = t->delay.paid_ns;
	/* The waker's debt it took on, if it did not stay ahead of it. */
	gw = delay_global_at(&e->g, w->time);
	t->lag_at_wake = t->delay.local <= wl && gw > wl ? gw - wl : 0;
	ran_at(t, w->time);
	debug_msg("exp: wake %d by %d at %" PRIu64 ": waker local %" PRIu64
		  " us, wakee %" PRIu64 " -> %" PRIu64 " us (G %" PRIu64 ")",
		  (int) w->wakee, (int) w->waker_tid, w->time / 1000, wl / 1000,
		  before / 1000, t->delay.local / 1000, e->g.global / 1000);
}

/*
 * A sample stands for P of the thread's CPU time; the line also held the
 * thread while it waited for a CPU, and a faster line would shorten that
 * wait as much when the thread gets a steady share of a busy machine.
 * Coz counts CPU time only, which underestimates every line of a program
 * that competes with other processes by their share.  So a thread's hits
 * weigh (run + wait) / run, measured over the last tick from
 * /proc/TID/schedstat (1 on an idle machine; capped at 4).  That counts
 * waits behind our own threads as well: with context switches followed,
 * those are credited at the switch and the hits weigh per CPU instead
 * (exp_update_cpu_scale).
 */
/*
 * A sample should stand for one period of user CPU time, but samples go
 * missing.  Measured: with two busy loops competing, gt-amdahl's thread
 * got 7,319 samples for 8.41 s of user time (13% short); on gt-mutex one
 * run in five got 45% fewer samples than the others for the same work,
 * and its prediction fell with them.  So a thread's hits also weigh its
 * user time (stat's utime) over its samples times the period, since we
 * first looked at it.  utime comes in clock ticks (10 ms): the ratio
 * waits for CAL_MIN_NS of it.
 */
#define CAL_MIN_NS		500000000ULL
#define CAL_MIN_SAMPLES		100
#define CAL_EVERY_NS		50000000ULL

static void
calibrate(struct exp_engine *e, struct tcb *t, uint64_t now)
{
	uint64_t ut, n = t->stats->samples, dn, du, sc;

	if (now < t->cal_next_ns || !e->sys->utime(t, &ut))
		return;
	if (!t->cal_next_ns) {
		t->cal_utime = ut;
		t->cal_samples = n;
	}
	t->cal_next_ns = now + CAL_EVERY_NS;
	if (n < t->cal_samples + CAL_MIN_SAMPLES || ut < t->cal_utime + CAL_MIN_NS)
		return;
	dn = n - t->cal_samples;
	du = ut - t->cal_utime;
	sc = 1000 * du / (dn * e->cfg.period_ns);
	t->sample_scale = sc < 500 ? 500 : sc > 4000 ? 4000 : (unsigned) sc;
	debug_msg("exp: calibrate %d: %" PRIu64 " samples for %" PRIu64 " ms of user time: %u",
		  (int) t->tid, dn, du / 1000000, t->sample_scale);
}

void
exp_update_scales(struct exp_engine *e, uint64_t now)
{
	for (struct tcb *t = tcb_first(); t; t = t->next) {
		uint64_t run, wait;

		if (t->delay.hits == t->ss_hits && t->hit_scale)
			continue;
		t->ss_hits = t->delay.hits;
		calibrate(e, t, now);
		/* Weighed per CPU instead (exp_update_cpu_scale): no /proc read. */
		if (e->cfg.cpu_switches) {
			t->hit_scale = 1000;
			continue;
		}
		if (!e->sys->schedstat(t, &run, &wait))
			continue;
		if (t->hit_scale && run > t->ss_run + 1000000 && wait >= t->ss_wait) {
			uint64_t dr = run - t->ss_run, dw = wait - t->ss_wait;
			uint64_t sc = 1000 * (dr + dw) / dr;

			t->hit_scale = sc > 4000 ? 4000 : (unsigned) sc;
		} else if (!t->hit_scale) {
			t->hit_scale = 1000;
		} else if (run <= t->ss_run + 1000000) {
			continue;	/* too little run time to tell: keep both */
		}
		t->ss_run = run;
		t->ss_wait = wait;
	}
}

/* When t was first seen running after time, as far as we know; 0 if not since. */
static uint64_t
ran_after(const struct tcb *t, uint64_t time)
{
	uint64_t first = 0;

	for (unsigned i = 0; i < TCB_RUN_HISTORY && t->ran_ns[i] > time; i++)
		first = t->ran_ns[i];
	return first;
}

/*
 * No wake-up tracking: a thread found waiting in a futex is taken to wait
 * for another thread, which pays for it (delay_forgive at that look).  The
 * wake-up itself is not seen, so the delay inserted between that look and
 * the thread's first run after it is credited once it is known to have
 * run: at its first sample since, or else at resumed (a look that finds
 * it running unsampled: now; 0, not known to have run).  Without this, a
 * waiter woken to take a lock between two looks owed the holder's hits
 * since the first and was paused holding the lock (gt-mutex critical at
 * 50%: +0.35 predicted, +0.49 real).
 */
static void
futex_catch_up(struct exp_engine *e, struct tcb *t, uint64_t resumed)
{
	uint64_t seen = t->futex_seen_ns, ran;

	if (!seen)
		return;
	if ((ran = ran_after(t, seen)))
		resumed = ran;
	if (!resumed)
		return;
	t->futex_seen_ns = 0;
	if (resumed > seen)
		delay_wake(&e->g, &t->delay, resumed, delay_global_at(&e->g, resumed), seen,
			   UINT64_MAX);
}

static bool
pausable(const struct tcb *t)
{
	return t->proc->started &&
	       !(t->flags & (TCB_STARTUP | TCB_STOPPED | TCB_GROUP_STOP | TCB_DETACH_NEXT |
			     TCB_EXITING | TCB_PAUSE_PENDING | TCB_PAUSED));
}

static void
add_ready(struct exp_engine *e, size_t i, struct tcb *t)
{
	e->ready_cpus |= t->cpus ? t->cpus : e->online_mask;
	if (i == e->cap_ready) {
		e->cap_ready = e->cap_ready ? 2 * e->cap_ready : 64;
		e->ready = xrealloc(e->ready, e->cap_ready * sizeof(*e->ready));
	}
	e->ready[i] = t;
}

static bool
ran_later(const struct tcb *a, const struct tcb *b)
{
	return a->ran_ns[0] > b->ran_ns[0];
}

/*
 * More threads ready to run than CPUs: only ncpus of them can be on one,
 * likely those sampled last (samples are taken on the CPUs, every
 * period of CPU time).  The others wait for a CPU; pausing them costs an
 * interrupt that schedules each just to stop, and pausing them all at
 * once, as each owes, left CPUs idle (bench/spinners 256: 11% of the
 * machine, 5,000 pauses a second).  They pay once on a CPU, as in Coz,
 * where a thread pays by sleeping from its own context.  With no more
 * ready than CPUs, all pay at once, as before.
 */
static void
pay_ready(struct exp_engine *e, size_t n, unsigned ncpus, uint64_t now)
{
	size_t go = n <= ncpus ? n : ncpus;

	/* Partial selection: the go most recently sampled first. */
	for (size_t i = 0; i < go; i++) {
		size_t best = i;

		for (size_t j = i + 1; j < n; j++)
			if (ran_later(e->ready[j], e->ready[best]))
				best = j;
		struct tcb *t = e->ready[best];
		e->ready[best] = e->ready[i];
		e->ready[i] = t;
		t->ready_seen_ns = 0;

		uint64_t owed = payable(e, t);
		debug_msg("exp: pause %d at %" PRIu64 ": owed %" PRIu64 " us (G %" PRIu64 ")",
			  (int) t->tid, now / 1000, owed / 1000, e->g.global / 1000);
		pause_request(e->pz, t, owed, now);
	}
	e->deferred += n - go;
}

/*
 * Send every running thread that owes enough to pay.  Returns how many
 * threads are paying or about to.
 */
unsigned
exp_pay(struct exp_engine *e, uint64_t now)
{
	size_t nready = 0;
	unsigned ncpus;

	e->ready_cpus = 0;
	for (struct tcb *t = tcb_first(); t; t = t->next) {
		uint64_t owed;
		char st;

		if ((t->flags & (TCB_PAUSED | TCB_PAUSE_PENDING)) && !(t->flags & TCB_EXITING)) {
			/*
			 * What it owed when the hold began (or will) plus what
			 * came since.  Not while crowded: released, it queues
			 * for a CPU, and pays again once it runs.
			 */
			if (!e->crowded)
				pause_extend(e->pz, t, delay_owed(&e->g, &t->delay), now);
			continue;
		}
		futex_catch_up(e, t, 0);
		if (!pausable(t))
			continue;
		owed = payable(e, t);
		/*
		 * Without wake-up tracking a wait is known only from a look
		 * (below), and a thread owing less than a pause was not looked
		 * at: payable() lets one running the line owe up to a hit,
		 * and a waiter that blocked owing that much, woken to take
		 * the lock before a look found it waiting, owed all it had
		 * slept through and paid it holding the lock (gt-mutex
		 * critical at 50% with a 2 ms period, where a hit is 1 ms:
		 * +0.34 to +0.39 for a real +0.48).  So there, what it owes
		 * whatever its last sample decides the look.
		 */
		if (owed < MIN_PAUSE_NS &&
		    (e->cfg.wake_tracking || delay_owed(&e->g, &t->delay) < MIN_PAUSE_NS))
			continue;
		/* Wake-ups are reported: a blocked thread stays so until one. */
		if ((t->flags & TCB_BLOCKED) && e->cfg.wake_tracking)
			continue;
		/*
		 * Left waiting for a CPU at a recent look and not sampled
		 * since: still waiting.  At 256 threads, reading every
		 * state on every pass cost more than the pauses saved.
		 */
		if (t->ready_seen_ns && now - t->ready_seen_ns < READY_RELOOK_NS &&
		    t->ran_ns[0] < t->ready_seen_ns) {
			if (owed >= MIN_PAUSE_NS)
				add_ready(e, nready++, t);
			continue;
		}
		st = e->sys->state(t);
		if (st == 'R' && t->futex_seen_ns) {
			/* Woken since the look, not sampled yet: it resumed just now. */
			futex_catch_up(e, t, now);
			owed = payable(e, t);
		}
		if (st == 'R') {
			if (owed < MIN_PAUSE_NS)
				continue;
			t->ready_seen_ns = now;
			add_ready(e, nready++, t);
			continue;
		}
		t->ready_seen_ns = 0;
		if (st != 'S' && st != 'D')
			continue;
		if (e->cfg.wake_tracking) {
			t->flags |= TCB_BLOCKED;
		} else {
			/*
			 * No wake-up tracking: a thread waiting on a futex is
			 * taken to wait for another thread (a lock, a
			 * condition, a join), which pays for it: credited.
			 * Anything else (a sleep, I/O) still owes.
			 */
			long nr = e->sys->syscall(t);

			if (nr == SYS_FUTEX_NR || nr == SYS_FUTEX_WAITV_NR) {
				delay_forgive(&e->g, &t->delay, now);
				t->futex_seen_ns = now;
			}
		}
	}
	/*
	 * The CPUs they may use, not all those online: a program under
	 * taskset, or threads pinned to one CPU, are crowded sooner.
	 */
	ncpus = (unsigned) __builtin_popcountll(e->ready_cpus & e->online_mask);
	if (!ncpus)
		ncpus = e->ncpus;	/* none ready, or over 64 CPUs */
	e->crowded = nready > ncpus;
	pay_ready(e, nready, ncpus, now);
	return pause_busy(e->pz);
}

/*
 * t stopped with a pause pending; true if it is held.  Asked while it
 * waited for a CPU, it may owe less by its stop than when asked: the
 * switch that gave it the CPU credits its wait for the thread that held
 * it (apply_switch), and that record is read with the stop, not before.
 * Held for the debt asked, it paid that wait twice, and the threads
 * waiting for it lost the hold: two threads running the sped-up line
 * while a third waited for one's CPU, that third held 2.5 ms at each
 * item's barrier, read 29% for a real 33% (bench/knee-20261130).  So the
 * records come first, and the hold is at most what it owes now.
 */
static bool
exp_on_pause_stop(void *ctx, struct tcb *t, uint64_t now)
{
	struct exp_engine *e = ctx;

	catch_up(e);
	return pause_on_stop(e->pz, t, now, exp_on(e) ? payable(e, t) : UINT64_MAX);
}

/*
 * t stopped at its exit event: what it owes is paid there, before its
 * exit wakes a joiner (Coz pays at thread exit too).  True if held.
 */
static bool
exp_exit_pay(void *ctx, struct tcb *t, uint64_t now)
{
	struct exp_engine *e = ctx;
	uint64_t owed;

	if (!exp_on(e))
		return false;
	catch_up(e);
	futex_catch_up(e, t, now);
	if ((owed = delay_owed(&e->g, &t->delay)) < MIN_PAUSE_NS)
		return false;
	pause_hold(e->pz, t, owed, now);
	return true;
}

/* t will not take the pause asked of it (it entered a group-stop). */
static void
exp_pause_cancel(void *ctx, struct tcb *t)
{
	struct exp_engine *e = ctx;

	pause_forget(e->pz, t);
}

const struct trace_ops exp_trace_ops = {
	.thread_new = exp_thread_new,
	.thread_gone = exp_thread_gone,
	.exit_stop = exp_exit_pay,
	.pause_stop = exp_on_pause_stop,
	.pause_cancel = exp_pause_cancel,
};

void
exp_forgive_all(struct exp_engine *e, uint64_t now)
{
	pause_release_all(e->pz);
	for (struct tcb *t = tcb_first(); t; t = t->next) {
		delay_forgive(&e->g, &t->delay, now);
		t->delay.paid_pending = 0;
		t->flags &= ~TCB_BLOCKED;
		t->futex_seen_ns = 0;
		t->vsleep_woken_ns = 0;
		t->exp_samples = t->exp_hits = 0;
		t->exp_blocked_ns = 0;
	}
}

/* The real system under the engine (experiment.h), installed by app/main.c. */
static unsigned
real_cpus_online(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned) n : 1;
}

static char
real_state(struct tcb *t)
{
	return procfs_task_state(&t->pf, t->proc->tgid, t->tid);
}

static bool
real_schedstat(struct tcb *t, uint64_t *run, uint64_t *wait)
{
	return procfs_task_schedstat(&t->pf, t->proc->tgid, t->tid, run, wait, NULL);
}

static bool
real_utime(struct tcb *t, uint64_t *ns)
{
	return procfs_task_utime(&t->pf, t->proc->tgid, t->tid, ns);
}

static long
real_syscall(struct tcb *t)
{
	return procfs_syscall(t->tid);
}

static uint64_t
real_affinity(struct tcb *t, unsigned ncpus)
{
	cpu_set_t set;
	uint64_t cpus = 0;

	if (sched_getaffinity(t->tid, sizeof(set), &set))
		return 0;
	for (unsigned c = 0; c < ncpus; c++)
		if (CPU_ISSET(c, &set))
			cpus |= 1ULL << c;
	return cpus;
}

static void
real_drain(struct session *s)
{
	drain_rings(s->smp, s->wake, NULL, DRAIN_CATCH_UP);
}

const struct exp_sys_ops exp_sys_real = {
	.now = clock_now_ns,
	.cpus_online = real_cpus_online,
	.state = real_state,
	.schedstat = real_schedstat,
	.utime = real_utime,
	.syscall = real_syscall,
	.affinity = real_affinity,
	.drain = real_drain,
	.steal = hostcost_steal_ns,
	.pause = &pause_sys_real,
};
