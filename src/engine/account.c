/*
 * The experiment engine (see experiment.h for the life of an experiment,
 * delay.h for the accounting, doc/design.md for the rules on blocking).
 *
 * Scheduling.  Targets are the in-scope lines (or functions) with the
 * most samples.  Each turn picks one target and runs, on it, a 0%
 * baseline followed by two speedup levels (one in fixed-speedup mode):
 * baselines are interleaved with the measurements they are compared to,
 * and every target has baselines of its own, as Coz's viewer wants.  A
 * target with fewer than EXPLORE_MIN experiments is served first, by
 * sample count; after that, mostly the target whose impact could still be
 * the largest (the upper end of its confidence interval), sometimes one
 * drawn in proportion to samples, so that no line is starved.  Levels
 * cycle through a fixed sequence weighted towards 10/25/50/100%.
 *
 * Length.  An experiment lasts until its progress points have seen about
 * TARGET_EVENTS events: the length doubles when the least frequent point
 * saw fewer than that, halves when it saw four times more.
 */
#include "config.h"
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/clock.h"
#include "base/error_prints.h"
#include "base/procfs.h"
#include "base/xmalloc.h"
#include "calc/delay.h"
#include "calc/stats.h"
#include "engine/experiment.h"
#include "perf/drain.h"
#include "perf/progress.h"
#include "perf/wake.h"
#include "ptrace/pause.h"
#include "ptrace/tcb.h"
#include "ptrace/trace.h"
#include "session.h"
#include "sym/lines.h"

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
#define COOLOFF_NS		10000000ULL
#define DRAIN_MAX_NS		20000000ULL
#define TARGET_EVENTS		40
#define MIN_EVENTS		5
#define EXPLORE_MIN		4
#define CANDIDATES_MAX		16
#define TICK_EXPERIMENT_NS	1000000ULL
#define TICK_IDLE_NS		20000000ULL
/*
 * Each tick preempts the thread on the CPU the supervisor wakes on, and
 * what a preemption costs it depends on the host: ~13 us on the VMs the
 * 1 ms tick was tuned on, 25-80 us on PVM guests, where every switch goes
 * through the hypervisor.  There the 1 ms tick cost the target ~4% of
 * its work at 0% (bench/spinners 16: 9.3% against 5.5% without
 * experiments), and the preemptions the accounting cannot credit made
 * every paying line read low; 2 ms halves both, and read closer to the
 * truth (gt-unequal long at 50% and 100%: 0.29-0.33 and 0.27-0.28 at 1
 * ms, 0.30-0.36 and 0.31-0.36 at 2 ms, real 0.39).  So once the first
 * DEAR_STEALS preemptions in experiments (give_back) cost DEAR_STEAL_NS
 * or more on average, the tick is TICK_DEAR_NS for the rest of the run.
 */
#define TICK_DEAR_NS		2000000ULL
#define DEAR_STEAL_NS		20000ULL
#define DEAR_STEALS		200
#define READY_RELOOK_NS		10000000ULL

#define SYS_FUTEX_NR		202	/* x86-64 */
#define SYS_FUTEX_WAITV_NR	449

static const unsigned char levels[] = {
	25, 50, 10, 100, 75, 5, 50, 25, 15, 100, 30, 10, 40, 60, 20, 50, 25,
	35, 45, 100, 55, 65, 70, 10, 80, 85, 90, 95,
};

enum exp_state { ST_IDLE, ST_RUNNING, ST_DRAINING, ST_COOLOFF };
static const char *const state_names[] = { "idle", "running", "draining", "cool-off" };

struct dead_thread {
	pid_t tid;
	struct delay_thread d;
};

/* What the TUI asked for (exp_pin and the others, at the end of this file). */
struct exp_steer {
	bool paused;
	bool pinned;
	unsigned pin;			/* target id, of the current granularity */
	unsigned focus_lo, focus_hi;	/* speedup levels drawn, in percent */
	unsigned char *excl[2];		/* excluded ids: [0] lines, [1] functions */
	size_t nexcl[2];
	char **excl_files;		/* every line of these files is excluded */
	size_t nexcl_files;
};

struct exp_engine {
	struct session *s;
	struct exp_config cfg;
	struct stats *stats;
	struct pauser *pz;
	enum exp_state state;
	struct delay_global g;

	/* the current experiment */
	struct ct_line *line;
	struct ct_func *func;
	unsigned target, pct;
	uint64_t d_ns;			/* delay per hit */
	uint64_t start_ns, hits_end_ns, end_ns, drain_start, g_start, cool_until;
	uint64_t len_ns;
	uint64_t selected;
	size_t npts;
	uint64_t *c0, *a0;
	double *area;
	uint64_t last_ns;

	/* turn: baseline, then levels on one target */
	unsigned phase;
	bool have_turn_target;
	unsigned turn_target;
	unsigned *level_idx;
	size_t n_level_idx;

	/* fixed target, once found */
	bool fixed_found;
	unsigned fixed_target;

	struct wake_event *wk;
	size_t nwk, capwk;
	struct hit_event { pid_t tid; uint64_t time; } *hit;	/* not applied yet */
	size_t nhit, caphit;
	struct dead_thread *dead;
	size_t ndead, capdead;
	uint64_t rng;

	/* pay(): the threads found ready to run that owe enough */
	struct tcb **ready;
	size_t cap_ready;
	unsigned ncpus;		/* online */
	uint64_t online_mask;	/* taken as CPUs 0 to ncpus - 1; 0: over 64 */
	uint64_t ready_cpus;	/* where the ready ones may run */
	uint64_t deferred;	/* ready, but left to pay once on a CPU */
	bool crowded;		/* more ready than CPUs, at the last pay() */

	/* Context switches (cfg.cpu_switches): each CPU, by its number. */
	struct exp_cpu *cpu;
	size_t ncpu_slots;
	unsigned cpu_scale;	/* weight of hits, in 1/1000 (update_cpu_scale) */

	unsigned done, baselines;
	uint64_t delay_total, wall_total, wakes, wakes_credited;
	uint64_t cpu_waits, cpu_waits_credited, revoked_ns;
	pid_t self;		/* the supervisor's tid */
	uint64_t stolen_ns, steals, stolen_paid_ns;
	uint64_t stolen_first;	/* stolen_ns at the DEAR_STEALS-th, 0: not yet */

	struct exp_steer steer;
};

/* A CPU as its context switches show it. */
struct exp_cpu {
	uint64_t since;		/* its last switch, 0: none seen */
	uint64_t ours, others;	/* ns it ran our threads, other tasks (not idle) */
	uint64_t ours0, others0;	/* at the last update_cpu_scale */
	pid_t last_tid;		/* the last of our threads to leave it, 0: none */
	uint64_t last_out;	/* when */
	pid_t cur;		/* taking it at since */
	bool robbed;		/* the supervisor took it from last_tid, ready */
};

static bool steer_skips(const struct exp_engine *, unsigned target);
static bool steer_level_ok(const struct exp_engine *, unsigned pct);

/* Delays are being inserted: hits and wake-ups count. */
static bool
exp_on(const struct exp_engine *e)
{
	return e->state == ST_RUNNING || e->state == ST_DRAINING;
}

static uint64_t
rnd(struct exp_engine *e)
{
	/* xorshift64* */
	e->rng ^= e->rng >> 12;
	e->rng ^= e->rng << 25;
	e->rng ^= e->rng >> 27;
	return e->rng * 2685821657736338717ULL;
}

struct exp_engine *
exp_new(struct session *s, const struct exp_config *cfg)
{
	struct exp_engine *e = xcalloc(1, sizeof(*e));

	e->s = s;
	e->cfg = *cfg;
	if (!e->cfg.min_len_ns)
		e->cfg.min_len_ns = 200000000ULL;
	if (!e->cfg.max_len_ns)
		e->cfg.max_len_ns = 8000000000ULL;
	e->len_ns = e->cfg.min_len_ns;
	e->rng = cfg->seed ? cfg->seed : 0x9e3779b97f4a7c15ULL;
	e->stats = stats_new();
	e->pz = pause_new(s, &e->g, cfg->cpu_switches);
	e->steer.focus_hi = 100;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	e->ncpus = n > 0 ? (unsigned) n : 1;
	e->cpu_scale = 1000;
	e->self = getpid();
	e->online_mask = e->ncpus < 64 ? (1ULL << e->ncpus) - 1 : 0;
	return e;
}

void
exp_free(struct exp_engine *e)
{
	if (!e)
		return;
	pause_free(e->pz);
	stats_free(e->stats);
	free(e->c0);
	free(e->a0);
	free(e->area);
	free(e->wk);
	free(e->hit);
	free(e->dead);
	free(e->ready);
	free(e->cpu);
	free(e->level_idx);
	free(e->steer.excl[0]);
	free(e->steer.excl[1]);
	for (size_t i = 0; i < e->steer.nexcl_files; i++)
		free(e->steer.excl_files[i]);
	free(e->steer.excl_files);
	free(e);
}

struct stats *
exp_stats(struct exp_engine *e)
{
	return e->stats;
}

bool
exp_hitting(const struct exp_engine *e, uint64_t t)
{
	return exp_on(e) && e->d_ns &&
	       t >= e->start_ns && t < e->hits_end_ns;
}

const struct ct_line *
exp_target_line(const struct exp_engine *e)
{
	return e->line;
}

const struct ct_func *
exp_target_func(const struct exp_engine *e)
{
	return e->func;
}

bool
exp_wants_full_chains(const struct exp_engine *e)
{
	return e->cfg.fixed_line && !e->fixed_found;
}

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
}

static void futex_catch_up(struct exp_engine *, struct tcb *, uint64_t);

static void
apply_hit(struct exp_engine *e, const struct hit_event *h)
{
	struct tcb *t = tcb_lookup(h->tid);
	uint64_t d;

	if (!t)
		return;
	/*
	 * A waiter credited only later would take its first hits behind G,
	 * where they raise its local but not G: the hitter absorbed its own
	 * hits (gt-mutex, syscall mode: G grew 0.52 ms an item, not 1.09).
	 */
	futex_catch_up(e, t, 0);
	d = e->d_ns * (e->cfg.cpu_switches ? e->cpu_scale : t->hit_scale ? t->hit_scale : 1000) /
	    1000;
	delay_hit(&e->g, &t->delay, h->time, d * (t->sample_scale ? t->sample_scale : 1000) / 1000);
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

static void apply_events(struct exp_engine *);

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
	drain_rings(e->s->smp, e->s->wake, NULL, DRAIN_CATCH_UP);
	apply_events(e);
}

/* New thread t, created by parent (NULL if unknown). */
static void
exp_thread_new(void *ctx, struct tcb *t, struct tcb *parent)
{
	struct exp_engine *e = ctx;
	uint64_t now = clock_now_ns();

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
	apply_events(e);	/* its own hits first */
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
static void
apply_events(struct exp_engine *e)
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
	}
	if (!w->wakee || !(next = tcb_lookup(w->wakee)))
		return;
	ready = next->ready_ns;
	next->ready_ns = 0;
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
	if (delay_wake(&e->g, &next->delay, w->time, holder_local, ready, 0))
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

static void
update_cpu_scale(struct exp_engine *e)
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
	uint64_t before, wl, blocked, gw;
	uint64_t circular = 0;

	if (w->sw) {
		apply_switch(e, w);
		return;
	}
	if (!(t = tcb_lookup(w->wakee)))
		return;
	t->ready_ns = w->time;
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
	if (delay_wake(&e->g, &t->delay, w->time, wl, blocked, circular))
		e->wakes_credited++;
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
 * (update_cpu_scale).
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

	if (now < t->cal_next_ns || !procfs_task_utime(&t->pf, t->proc->tgid, t->tid, &ut))
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

static void
update_scales(struct exp_engine *e, uint64_t now)
{
	for (struct tcb *t = tcb_first(); t; t = t->next) {
		uint64_t run, wait;

		if (t->delay.hits == t->ss_hits && t->hit_scale)
			continue;
		t->ss_hits = t->delay.hits;
		calibrate(e, t, now);
		/* Weighed per CPU instead (update_cpu_scale): no /proc read. */
		if (e->cfg.cpu_switches) {
			t->hit_scale = 1000;
			continue;
		}
		if (!procfs_task_schedstat(&t->pf, t->proc->tgid, t->tid, &run, &wait, NULL))
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

		uint64_t owed = delay_owed(&e->g, &t->delay);
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
static unsigned
pay(struct exp_engine *e, uint64_t now)
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
		if (!pausable(t) || (owed = delay_owed(&e->g, &t->delay)) < MIN_PAUSE_NS)
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
			add_ready(e, nready++, t);
			continue;
		}
		st = procfs_task_state(&t->pf, t->proc->tgid, t->tid);
		if (st == 'R' && t->futex_seen_ns) {
			/* Woken since the look, not sampled yet: it resumed just now. */
			futex_catch_up(e, t, now);
			if ((owed = delay_owed(&e->g, &t->delay)) < MIN_PAUSE_NS)
				continue;
		}
		if (st == 'R') {
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
			long nr = procfs_syscall(t->tid);

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

/* t stopped with a pause pending; true if it is held. */
static bool
exp_on_pause_stop(void *ctx, struct tcb *t, uint64_t now)
{
	struct exp_engine *e = ctx;

	return pause_on_stop(e->pz, t, now);
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

static void
forgive_all(struct exp_engine *e, uint64_t now)
{
	pause_release_all(e->pz);
	for (struct tcb *t = tcb_first(); t; t = t->next) {
		delay_forgive(&e->g, &t->delay, now);
		t->delay.paid_pending = 0;
		t->flags &= ~TCB_BLOCKED;
		t->futex_seen_ns = 0;
	}
}

/* Points with something counted: experiments need one. */
static bool
progress_seen(struct exp_engine *e, unsigned *primary)
{
	size_t n;
	struct progress_point *const *pts = progress_points(e->s->progress, &n);

	for (size_t i = 0; i < n; i++)
		if (pts[i]->count || pts[i]->arrivals) {
			*primary = (unsigned) i;
			return true;
		}
	return false;
}

static void
integrate(struct exp_engine *e, uint64_t now)
{
	size_t n;
	struct progress_point *const *pts = progress_points(e->s->progress, &n);

	for (size_t i = 0; i < e->npts && i < n; i++) {
		int64_t in = (int64_t) (pts[i]->arrivals - pts[i]->count);

		if (pts[i]->kind == PROGRESS_LATENCY && in > 0)
			e->area[i] += (double) in * (double) (now - e->last_ns);
	}
	e->last_ns = now;
}

static void
snapshot(struct exp_engine *e, uint64_t now)
{
	struct progress_point *const *pts = progress_points(e->s->progress, &e->npts);

	e->c0 = xrealloc(e->c0, (e->npts + 1) * sizeof(*e->c0));
	e->a0 = xrealloc(e->a0, (e->npts + 1) * sizeof(*e->a0));
	e->area = xrealloc(e->area, (e->npts + 1) * sizeof(*e->area));
	for (size_t i = 0; i < e->npts; i++) {
		e->c0[i] = pts[i]->count;
		e->a0[i] = pts[i]->arrivals;
		e->area[i] = 0;
	}
	e->last_ns = now;
}

/* FILE:LINE as a suffix of the path (Coz's rule), or a function name. */
static bool
find_fixed(struct exp_engine *e)
{
	const char *spec = e->cfg.fixed_line;
	const char *colon = strrchr(spec, ':');
	size_t n;

	if (e->fixed_found)
		return true;
	if (e->cfg.by_function || !colon) {
		struct ct_func *const *f = lines_funcs(e->s->lines, &n);

		for (size_t i = 0; i < n; i++)
			if (!strcmp(f[i]->name, spec)) {
				e->fixed_target = f[i]->id;
				e->cfg.by_function = true;
				return e->fixed_found = true;
			}
		return false;
	}
	{
		struct ct_line *const *l = lines_lines(e->s->lines, &n);
		size_t flen = (size_t) (colon - spec);
		unsigned long want = strtoul(colon + 1, NULL, 10);

		for (size_t i = 0; i < n; i++) {
			size_t len = strlen(l[i]->file);

			if (l[i]->line != want || len < flen ||
			    strncmp(l[i]->file + len - flen, spec, flen))
				continue;
			/* A whole path component: "a.c" must not match "data.c". */
			if (len > flen && flen && spec[0] != '/' && l[i]->file[len - flen - 1] != '/')
				continue;
			e->fixed_target = l[i]->id;
			return e->fixed_found = true;
		}
	}
	return false;
}

struct cand {
	unsigned target;
	uint64_t samples;
};

static int
cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return x->samples > y->samples ? -1 : x->samples < y->samples;
}

/* The in-scope targets with the most samples, best first. */
static size_t
candidates(struct exp_engine *e, struct cand *c)
{
	size_t n, k = 0;
	uint64_t total = 0;
	struct cand *all;

	if (e->cfg.by_function) {
		struct ct_func *const *f = lines_funcs(e->s->lines, &n);

		all = xcalloc(n + 1, sizeof(*all));
		for (size_t i = 0; i < n; i++)
			if (f[i]->samples && !steer_skips(e, f[i]->id))
				all[k++] = (struct cand) { f[i]->id, f[i]->samples };
	} else {
		struct ct_line *const *l = lines_lines(e->s->lines, &n);

		all = xcalloc(n + 1, sizeof(*all));
		for (size_t i = 0; i < n; i++)
			if (l[i]->samples && !steer_skips(e, l[i]->id))
				all[k++] = (struct cand) { l[i]->id, l[i]->samples };
	}
	qsort(all, k, sizeof(*all), cand_cmp);
	for (size_t i = 0; i < k; i++)
		total += all[i].samples;
	if (k > CANDIDATES_MAX)
		k = CANDIDATES_MAX;
	/* Below 1% of the samples a line cannot matter much: not worth a turn. */
	while (k > 1 && all[k - 1].samples * 100 < total)
		k--;
	memcpy(c, all, k * sizeof(*c));
	free(all);
	return k;
}

static bool
choose_target(struct exp_engine *e, unsigned point, unsigned *target)
{
	struct cand c[CANDIDATES_MAX + 1];
	size_t n;
	uint64_t sum = 0, r;
	double best = -1e300;
	size_t pick = 0;

	if (e->steer.pinned) {
		*target = e->steer.pin;
		return true;
	}
	if (e->cfg.fixed_line) {
		if (!find_fixed(e))
			return false;
		*target = e->fixed_target;
		return true;
	}
	if (!(n = candidates(e, c)))
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct stats_curve *cv = stats_curve_of(e->stats, point, c[i].target,
							      e->cfg.by_function);

		if (!cv || cv->n_exp < EXPLORE_MIN) {
			*target = c[i].target;
			return true;
		}
	}
	if (rnd(e) % 5 == 0) {
		for (size_t i = 0; i < n; i++)
			sum += c[i].samples;
		r = rnd(e) % sum;
		for (pick = 0; pick + 1 < n && r >= c[pick].samples; pick++)
			r -= c[pick].samples;
		*target = c[pick].target;
		return true;
	}
	for (size_t i = 0; i < n; i++) {
		const struct stats_curve *cv = stats_curve_of(e->stats, point, c[i].target,
							      e->cfg.by_function);
		double ucb = cv ? cv->impact_hi : 1e300;

		if (ucb > best) {
			best = ucb;
			pick = i;
		}
	}
	*target = c[pick].target;
	return true;
}

static unsigned
next_level(struct exp_engine *e, unsigned target)
{
	unsigned pct;

	if (e->cfg.fixed_speedup >= 0)
		return (unsigned) e->cfg.fixed_speedup;
	if (target >= e->n_level_idx) {
		size_t n = target + 64;

		e->level_idx = xrealloc(e->level_idx, n * sizeof(*e->level_idx));
		memset(e->level_idx + e->n_level_idx, 0,
		       (n - e->n_level_idx) * sizeof(*e->level_idx));
		e->n_level_idx = n;
	}
	/* The first level of the cycle that the focus allows. */
	for (size_t tries = 0; tries < sizeof(levels); tries++) {
		pct = levels[e->level_idx[target] % sizeof(levels)];
		e->level_idx[target]++;
		if (steer_level_ok(e, pct))
			break;
	}
	return pct;
}

/*
 * Where each thread may run (pay() counts the CPUs of the ready ones).
 * Once an experiment: threads pin themselves early, if at all, and a
 * syscall a thread costs ~0.2 us here (50 us at 256 threads).
 */
static void
read_affinity(struct exp_engine *e)
{
	cpu_set_t set;

	for (struct tcb *t = tcb_first(); t; t = t->next) {
		t->cpus = 0;
		if (!e->online_mask || sched_getaffinity(t->tid, sizeof(set), &set))
			continue;
		for (unsigned c = 0; c < e->ncpus; c++)
			if (CPU_ISSET(c, &set))
				t->cpus |= 1ULL << c;
	}
}

static void
try_start(struct exp_engine *e, uint64_t now)
{
	unsigned point, target, per_turn = e->cfg.fixed_speedup >= 0 ? 1 : 2;
	size_t n;

	if (e->steer.paused) {
		e->state = ST_IDLE;
		return;
	}
	if (!progress_seen(e, &point))
		return;
	if (e->phase == 0 || !e->have_turn_target) {
		if (!choose_target(e, point, &target))
			return;
		e->turn_target = target;
		e->have_turn_target = true;
		e->phase = 0;
	}
	target = e->turn_target;
	e->pct = e->phase == 0 ? 0 : next_level(e, target);
	e->phase = (e->phase + 1) % (per_turn + 1);
	e->target = target;
	if (e->cfg.by_function) {
		e->func = lines_funcs(e->s->lines, &n)[target];
		e->line = NULL;
	} else {
		e->line = lines_lines(e->s->lines, &n)[target];
		e->func = NULL;
	}
	e->d_ns = e->cfg.period_ns * e->pct / 100;
	read_affinity(e);
	forgive_all(e, now);
	e->g_start = e->g.global;
	e->start_ns = now;
	e->hits_end_ns = UINT64_MAX;
	e->end_ns = now + e->len_ns;
	e->selected = 0;
	snapshot(e, now);
	e->state = ST_RUNNING;
}

static void
finish(struct exp_engine *e, uint64_t now)
{
	size_t n;
	struct progress_point *const *pts = progress_points(e->s->progress, &n);
	uint64_t wall = now - e->start_ns, delay = e->g.global - e->g_start;
	uint64_t min_events = UINT64_MAX;
	struct exp_record r = {
		.target = e->target,
		.is_func = e->cfg.by_function,
		.pct = e->pct,
		.start_ns = e->start_ns,
		.wall_ns = wall,
		.delay_ns = delay,
		.selected_samples = e->selected,
	};

	integrate(e, now);
	debug_msg("exp: end at %" PRIu64 ": %" PRIu64 " us of hits, %" PRIu64 " us of draining",
		  now / 1000, ((e->hits_end_ns < now ? e->hits_end_ns : now) - e->start_ns) / 1000,
		  e->hits_end_ns < now ? (now - e->hits_end_ns) / 1000 : 0);
	forgive_all(e, now);
	e->state = ST_COOLOFF;
	e->cool_until = now + COOLOFF_NS;
	/* More delay than time: the accounting went wrong; keep nothing. */
	if (delay >= wall)
		return;
	r.npoints = e->npts < n ? e->npts : n;
	r.points = xcalloc(r.npoints + 1, sizeof(*r.points));
	for (size_t i = 0; i < r.npoints; i++) {
		struct exp_point *p = &r.points[i];
		uint64_t events;

		p->point = (unsigned) i;
		p->latency = pts[i]->kind == PROGRESS_LATENCY;
		p->delta = pts[i]->count - e->c0[i];
		p->arrivals = pts[i]->arrivals - e->a0[i];
		p->inflight = e->area[i] / (double) wall;
		p->difference = pts[i]->arrivals > pts[i]->count ?
				pts[i]->arrivals - pts[i]->count : 0;
		events = p->latency ? p->arrivals : p->delta;
		if (events && events < min_events)
			min_events = events;
	}
	/*
	 * Too few events make a period out of a rounding error (Coz's HEAD
	 * drops them too); such a window only tells the length to grow.
	 */
	if (min_events == UINT64_MAX || min_events < MIN_EVENTS) {
		free(r.points);
	} else {
		stats_add(e->stats, &r);
		e->done++;
		e->baselines += e->pct == 0;
		e->delay_total += delay;
		e->wall_total += wall;
	}

	/* Enough events per experiment for a period worth measuring. */
	if (min_events == UINT64_MAX || min_events < TARGET_EVENTS)
		e->len_ns = e->len_ns * 2 < e->cfg.max_len_ns ? e->len_ns * 2 : e->cfg.max_len_ns;
	else if (min_events > 4 * TARGET_EVENTS && e->len_ns / 2 >= e->cfg.min_len_ns)
		e->len_ns /= 2;
}

void
exp_tick(struct exp_engine *e, uint64_t now)
{
	switch (e->state) {
	case ST_COOLOFF:
	case ST_IDLE:
		/* Switches and wake-ups keep coming: keep the accounts current. */
		apply_events(e);
		if (e->state == ST_COOLOFF && now < e->cool_until)
			return;
		try_start(e, now);
		return;
	case ST_RUNNING:
		apply_events(e);
		integrate(e, now);
		update_scales(e, now);
		update_cpu_scale(e);
		pause_settle(e->pz, now);
		if (now >= e->end_ns) {
			/* No more hits: let the running threads pay up. */
			e->state = ST_DRAINING;
			e->hits_end_ns = now;
			e->drain_start = now;
		}
		pay(e, now);
		return;
	case ST_DRAINING:
		apply_events(e);
		integrate(e, now);
		pause_settle(e->pz, now);
		if (!pay(e, now) || now - e->drain_start >= DRAIN_MAX_NS)
			finish(e, now);
		return;
	}
}

void
exp_finish(struct exp_engine *e)
{
	/* A partial experiment is dropped: the end of a run is not a sample. */
	forgive_all(e, clock_now_ns());
	e->state = ST_IDLE;
	e->nwk = 0;
	e->nhit = 0;
	e->ndead = 0;
}

/* The tick during experiments: longer once preemptions proved dear. */
static uint64_t
experiment_tick_ns(const struct exp_engine *e)
{
	return e->stolen_first >= DEAR_STEALS * DEAR_STEAL_NS ? TICK_DEAR_NS : TICK_EXPERIMENT_NS;
}

void
exp_summary(const struct exp_engine *e, uint64_t now, struct exp_summary *sm)
{
	const struct pause_stats *ps = pause_stats(e->pz);

	*sm = (struct exp_summary) {
		.done = e->done,
		.baselines = e->baselines,
		.delay_ns = e->delay_total,
		.exp_wall_ns = e->wall_total,
		.state = state_names[e->state],
		.line = e->state == ST_RUNNING ? e->line : NULL,
		.func = e->state == ST_RUNNING ? e->func : NULL,
		.pct = e->pct,
		.left_ns = e->state == ST_RUNNING && e->end_ns > now ? e->end_ns - now : 0,
		.len_ns = e->len_ns,
		.wakes = e->wakes,
		.wakes_credited = e->wakes_credited,
		.cpu_waits = e->cpu_waits,
		.cpu_waits_credited = e->cpu_waits_credited,
		.revoked_ns = e->revoked_ns,
		.tick_ns = experiment_tick_ns(e),
		.first_steal_ns = e->stolen_first / DEAR_STEALS,
		.first_steals = DEAR_STEALS,
		.steals = e->steals,
		.stolen_ns = e->stolen_ns,
		.stolen_paid_ns = e->stolen_paid_ns,
		.pauses = ps->held,
		.pauses_blocked = ps->in_syscall,
		.pauses_deferred = e->deferred,
		.stop_lag_ns = ps->stop_lag_ns,
		.restart_lag_ns = ps->restart_lag_ns,
	};
}

uint64_t
exp_tick_ns(const struct exp_engine *e)
{
	return e->state == ST_IDLE ? TICK_IDLE_NS : experiment_tick_ns(e);
}

/* ---- Steering: what the TUI asks of the scheduler (steer.h) ---- */

static bool
steer_level_ok(const struct exp_engine *e, unsigned pct)
{
	return pct >= e->steer.focus_lo && pct <= e->steer.focus_hi;
}

static bool
excl_test(const struct exp_steer *st, bool is_func, unsigned id)
{
	return id < st->nexcl[is_func] && st->excl[is_func][id];
}

/* An excluded target, or a line of an excluded file. */
static bool
steer_skips(const struct exp_engine *e, unsigned target)
{
	const struct exp_steer *st = &e->steer;
	struct ct_line *const *l;
	size_t n;

	if (excl_test(st, e->cfg.by_function, target))
		return true;
	if (e->cfg.by_function || !st->nexcl_files)
		return false;
	l = lines_lines(e->s->lines, &n);
	for (size_t i = 0; target < n && i < st->nexcl_files; i++)
		if (!strcmp(l[target]->file, st->excl_files[i]))
			return true;
	return false;
}

/*
 * Drop the experiment under way (as at the end of a session: a partial
 * window is not a sample) and start a new turn, so that the next
 * experiment follows what was just asked.
 */
static void
steer_drop(struct exp_engine *e)
{
	uint64_t now = clock_now_ns();

	if (exp_on(e)) {
		forgive_all(e, now);
		e->state = ST_COOLOFF;
		e->cool_until = now + COOLOFF_NS;
		e->nwk = 0;
		e->nhit = 0;
		e->ndead = 0;
	}
	e->phase = 0;
	e->have_turn_target = false;
}

/* Is the experiment under way on this target? */
static bool
steer_current(const struct exp_engine *e, unsigned target, bool is_func)
{
	return exp_on(e) &&
	       e->target == target && e->cfg.by_function == is_func;
}

void
exp_pin(struct exp_engine *e, unsigned target)
{
	bool same = steer_current(e, target, e->cfg.by_function);

	e->steer.pinned = true;
	e->steer.pin = target;
	if (!same)
		steer_drop(e);
	else
		e->turn_target = target;
}

void
exp_unpin(struct exp_engine *e)
{
	e->steer.pinned = false;
}

void
exp_exclude(struct exp_engine *e, unsigned target, bool is_func, bool excluded)
{
	struct exp_steer *st = &e->steer;

	if (target >= st->nexcl[is_func]) {
		size_t n = target + 64;

		if (!excluded)
			return;
		st->excl[is_func] = xrealloc(st->excl[is_func], n);
		memset(st->excl[is_func] + st->nexcl[is_func], 0, n - st->nexcl[is_func]);
		st->nexcl[is_func] = n;
	}
	st->excl[is_func][target] = excluded;
	if (excluded && st->pinned && st->pin == target && is_func == e->cfg.by_function)
		st->pinned = false;
	if (excluded && steer_current(e, target, is_func))
		steer_drop(e);
}

bool
exp_excluded(const struct exp_engine *e, unsigned target, bool is_func)
{
	return excl_test(&e->steer, is_func, target);
}

void
exp_exclude_file(struct exp_engine *e, const char *file, bool excluded)
{
	struct exp_steer *st = &e->steer;
	size_t i;

	for (i = 0; i < st->nexcl_files && strcmp(st->excl_files[i], file); i++)
		;
	if (excluded && i == st->nexcl_files) {
		st->excl_files = xrealloc(st->excl_files, (i + 1) * sizeof(*st->excl_files));
		st->excl_files[st->nexcl_files++] = xstrdup(file);
	} else if (!excluded && i < st->nexcl_files) {
		free(st->excl_files[i]);
		st->excl_files[i] = st->excl_files[--st->nexcl_files];
	}
	if (excluded && exp_on(e) && e->line &&
	    !strcmp(e->line->file, file))
		steer_drop(e);
}

bool
exp_file_excluded(const struct exp_engine *e, const char *file)
{
	for (size_t i = 0; i < e->steer.nexcl_files; i++)
		if (!strcmp(e->steer.excl_files[i], file))
			return true;
	return false;
}

void
exp_levels_focus(struct exp_engine *e, unsigned lo, unsigned hi)
{
	if (lo > hi || hi > 100)
		lo = 0, hi = 100;
	e->steer.focus_lo = lo;
	e->steer.focus_hi = hi;
}

void
exp_set_paused(struct exp_engine *e, bool paused)
{
	e->steer.paused = paused;
	if (paused)
		steer_drop(e);
}

void
exp_reset_target(struct exp_engine *e, unsigned target, bool is_func)
{
	if (steer_current(e, target, is_func))
		steer_drop(e);
	stats_forget(e->stats, target, is_func);
	if (target < e->n_level_idx)
		e->level_idx[target] = 0;
}

void
exp_set_granularity(struct exp_engine *e, bool by_function)
{
	if (e->cfg.by_function == by_function)
		return;
	steer_drop(e);
	e->cfg.by_function = by_function;
	/* Ids name lines or functions: a pin means nothing any more. */
	e->steer.pinned = false;
}

void
exp_steering(const struct exp_engine *e, struct exp_steering *out)
{
	const struct exp_steer *st = &e->steer;

	*out = (struct exp_steering) {
		.paused = st->paused,
		.pinned = st->pinned,
		.pin = st->pin,
		.by_function = e->cfg.by_function,
		.focus_lo = st->focus_lo,
		.focus_hi = st->focus_hi,
		.nexcl_files = st->nexcl_files,
	};
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < st->nexcl[k]; i++)
			out->nexcl += st->excl[k][i];
}
