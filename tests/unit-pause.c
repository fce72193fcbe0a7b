/*
 * Unit test of src/ptrace/pause.c on a scripted kernel (fake-kernel.h,
 * through struct pause_sys_ops): no thread is stopped, no timer waited
 * for.  The rules of doc/design.md's "Causal experiments" it checks, each
 * with exact numbers:
 *  - a pause is credited from the thread's stop to its restart, not from
 *    the request (test_credit_from_stop), restarted when due within
 *    PAUSE_SLACK_NS (test_slack), longer when extended, never shorter
 *    (test_extend), cut to what it owes by its stop, not held if nothing
 *    (test_owed_at_stop), at once at its exit stop (test_hold);
 *  - a thread whose interrupt stop finds it in a blocking call is let go
 *    at once, uncredited, and marked blocked (test_in_syscall); so is one
 *    stopped while detaching, or after pause_release_all (test_release);
 *  - the stop lag: the time since the request it did not wait for a CPU,
 *    beyond the hold (test_stop_lag);
 *  - the restart cost from a task-clock counter: from PTRACE_CONT to a
 *    look during its first run, minus that run; the mean of the measured
 *    ones when the look cannot tell (test_restart_by_clock);
 *  - with switches followed, from PTRACE_CONT to the first run's switch
 *    out, minus that run, and for a thread that runs on until the next
 *    pause, to the switch out its stop records (test_restart_by_switch).
 *
 * Mutations each test was seen to fail against (then restored):
 *  - test_credit_from_stop: pause_on_stop() not moving pause_req_ns and
 *    pause_until_ns to the stop (restarted at 13.5 ms, credited 3.5 ms);
 *  - test_slack: PAUSE_SLACK_NS 0;
 *  - test_extend: pause_extend() taking a shorter debt too;
 *  - test_owed_at_stop: pause_on_stop() ignoring owed (held 1 ms for
 *    0.6), and holding a thread that owes nothing;
 *  - test_in_syscall: pause_on_stop() without the in_syscall check;
 *  - test_release: pause_release_all() leaving pause_until_ns of a pending
 *    pause (its stop then held);
 *  - test_stop_lag: stop_lag() not subtracting the wait for a CPU (0.3
 *    ms credited for 0.2);
 *  - test_restart_by_clock: restart_by_clock() crediting all of since
 *    (0.3 ms for 0.2);
 *  - test_restart_by_switch: restart_by_switch() not subtracting the run
 *    (0.4 ms for 0.25), and settle_at_request() dropping an entry on its
 *    first run (no credit for the run that ended with the stop).
 */
#include "config.h"
#include <stdlib.h>
#include "app/session.h"
#include "base/evloop.h"
#include "calc/delay.h"
#include "ptrace/pause.h"
#include "ptrace/tcb.h"
#include "fake-kernel.h"
#include "unit.h"

static struct session S;
static struct delay_global G;
static struct pauser *pz;

static void
setup(bool switches)
{
	S = (struct session) { .ev = evloop_new() };
	G = (struct delay_global) { 0 };
	fake_now = 0;
	pz = pause_new(&S, &G, switches, &fake_pause_sys);
}

static void
teardown(void)
{
	pause_free(pz);
	for (struct tcb *t = tcb_first(); t; t = t->next)
		CHECK(F(t)->clock_opens == F(t)->clock_closes, "thread %d: %u counters opened, %u closed",
		      (int) t->tid, F(t)->clock_opens, F(t)->clock_closes);
	fake_threads_free();
	evloop_free(S.ev);
}

static struct tcb *
thread(int i)
{
	struct tcb *t = fake_thread_new(i);

	delay_thread_init(&t->delay, &G, fake_now);
	return t;
}

/* What trace.c does at an interrupt stop with a pause pending, t owing owed. */
static bool
stop_owing(struct tcb *t, uint64_t at, uint64_t owed)
{
	bool held;

	fake_now = at;
	t->flags |= TCB_STOPPED;
	held = pause_on_stop(pz, t, at, owed);
	if (!held)
		t->flags &= ~TCB_STOPPED;	/* restarted */
	return held;
}

/* The same, its debt no less than asked. */
static bool
stop(struct tcb *t, uint64_t at)
{
	return stop_owing(t, at, UINT64_MAX);
}

static void
timer(uint64_t at)
{
	fake_now = at;
	pause_expire(pz, at);
}

/*
 * Asked at 10 ms for 1 ms, stopped at 13 ms (it ran or waited for a CPU
 * meanwhile, as it would have anyway): held until 14 ms, credited 1 ms.
 * From the request it would have been restarted at once (11 ms had
 * passed) and credited 3.5 ms at the 13.5 ms look.
 */
static void
test_credit_from_stop(void)
{
	struct tcb *t;
	const struct pause_stats *st;

	setup(false);
	t = thread(0);
	fake_now = 10 * MS;
	CHECK(pause_request(pz, t, 1 * MS, 10 * MS), "request refused");
	CHECK(F(t)->interrupts == 1 && (t->flags & TCB_PAUSE_PENDING) && pause_busy(pz) == 1,
	      "PTRACE_INTERRUPT sent, pause pending: %u", F(t)->interrupts);
	CHECK(stop(t, 13 * MS), "not held at its stop");
	CHECK((t->flags & TCB_PAUSED) && !(t->flags & TCB_PAUSE_PENDING), "flags %#x", t->flags);
	CHECK(hold_of(t) == 1 * MS && t->pause_req_ns == 13 * MS,
	      "the hold starts at the stop: from %llu for %llu",
	      (unsigned long long) t->pause_req_ns, (unsigned long long) hold_of(t));
	timer(13 * MS + 500 * US);
	CHECK(F(t)->conts == 0 && t->delay.paid_ns == 0, "restarted early, at 13.5 ms: paid %llu",
	      (unsigned long long) t->delay.paid_ns);
	timer(14 * MS);
	CHECK(F(t)->conts == 1 && F(t)->cont_at == 14 * MS, "PTRACE_CONT at 14 ms: %u", F(t)->conts);
	CHECK(t->delay.paid_ns == 1 * MS && t->delay.local == 1 * MS,
	      "credited the hold only: %llu", (unsigned long long) t->delay.paid_ns);
	CHECK(!(t->flags & (TCB_PAUSED | TCB_STOPPED)) && pause_busy(pz) == 0, "flags %#x",
	      t->flags);
	st = pause_stats(pz);
	CHECK(st->requests == 1 && st->held == 1 && st->held_ns == 1 * MS &&
	      st->requested_ns == 1 * MS && st->stop_lag_ns == 0,
	      "stats: %llu requests, %llu held, %llu ns held",
	      (unsigned long long) st->requests, (unsigned long long) st->held,
	      (unsigned long long) st->held_ns);
	teardown();
}

/* Restarted when due within PAUSE_SLACK_NS (20 us), not before. */
static void
test_slack(void)
{
	struct tcb *t;

	setup(false);
	t = thread(0);
	pause_request(pz, t, 1 * MS, 0);
	stop(t, 0);
	timer(975 * US);	/* 25 us early */
	CHECK(F(t)->conts == 0, "restarted 25 us early");
	timer(985 * US);	/* 15 us early: with the next one */
	CHECK(F(t)->conts == 1 && t->delay.paid_ns == 985 * US,
	      "restarted 15 us early, credited what it was held: %llu",
	      (unsigned long long) t->delay.paid_ns);
	teardown();
}

/* The debt grew while it was held: the hold grows with it, never shrinks. */
static void
test_extend(void)
{
	struct tcb *t;

	setup(false);
	t = thread(0);
	pause_request(pz, t, 1 * MS, 0);
	stop(t, 200 * US);			/* held until 1.2 ms */
	pause_extend(pz, t, 1500 * US, 500 * US);
	CHECK(t->pause_until_ns == 1700 * US, "extended to 1.7 ms: %llu",
	      (unsigned long long) t->pause_until_ns);
	pause_extend(pz, t, 500 * US, 600 * US);
	CHECK(t->pause_until_ns == 1700 * US, "a smaller debt shortens nothing: %llu",
	      (unsigned long long) t->pause_until_ns);
	timer(1200 * US);			/* the old end: looks, holds on */
	CHECK(F(t)->conts == 0, "restarted at the old end");
	timer(1700 * US);
	CHECK(F(t)->conts == 1 && t->delay.paid_ns == 1500 * US, "credited %llu",
	      (unsigned long long) t->delay.paid_ns);
	teardown();
}

/*
 * Owing less by its stop than asked (a wait credited meanwhile), a thread
 * is held for what it owes; owing nothing, it is let go unheld.
 */
static void
test_owed_at_stop(void)
{
	struct tcb *t, *u;

	setup(false);
	t = thread(0);
	u = thread(1);
	pause_request(pz, t, 1 * MS, 0);
	pause_request(pz, u, 1 * MS, 0);
	CHECK(stop_owing(t, 200 * US, 600 * US) && hold_of(t) == 600 * US,
	      "held for what it owes: %llu", (unsigned long long) hold_of(t));
	CHECK(!stop_owing(u, 300 * US, 0) && !(u->flags & (TCB_PAUSED | TCB_PAUSE_PENDING)),
	      "held owing nothing: flags %#x", u->flags);
	timer(800 * US);
	CHECK(F(t)->conts == 1 && t->delay.paid_ns == 600 * US && u->delay.paid_ns == 0,
	      "credited %llu and %llu", (unsigned long long) t->delay.paid_ns,
	      (unsigned long long) u->delay.paid_ns);
	CHECK(pause_stats(pz)->held == 1 && pause_stats(pz)->cleared == 1,
	      "stats: %llu held, %llu let go", (unsigned long long) pause_stats(pz)->held,
	      (unsigned long long) pause_stats(pz)->cleared);
	teardown();
}

/* At its exit stop: held there at once, no interrupt, credited from then. */
static void
test_hold(void)
{
	struct tcb *t;

	setup(false);
	t = thread(0);
	fake_now = 5 * MS;
	t->flags |= TCB_STOPPED | TCB_EXITING;
	pause_hold(pz, t, 2 * MS, 5 * MS);
	CHECK(F(t)->interrupts == 0 && (t->flags & TCB_PAUSED) && pause_busy(pz) == 1,
	      "held in its exit stop: %u interrupts", F(t)->interrupts);
	CHECK(pause_stats(pz)->held == 1, "counted as held");
	timer(7 * MS);
	CHECK(F(t)->conts == 1 && t->delay.paid_ns == 2 * MS, "credited %llu",
	      (unsigned long long) t->delay.paid_ns);
	teardown();
}

/*
 * The interrupt found it inside a blocking call: it was not running, so
 * holding it would pay nothing.  Let go at once, uncredited, marked
 * blocked; an epoll_wait set back is counted.  And a thread that cannot
 * be interrupted (gone, exiting) is not pending.
 */
static void
test_in_syscall(void)
{
	struct tcb *t, *u, *v;
	const struct pause_stats *st;

	setup(false);
	t = thread(0);
	u = thread(1);
	v = thread(2);
	pause_request(pz, t, 1 * MS, 0);
	pause_request(pz, u, 1 * MS, 0);
	fake[0].in_syscall = true;
	fake[0].rewound = true;
	fake[1].in_syscall = true;
	CHECK(!stop(t, 100 * US), "held inside a blocking call");
	CHECK(!stop(u, 100 * US), "held inside a blocking call");
	CHECK((t->flags & TCB_BLOCKED) && !(t->flags & (TCB_PAUSED | TCB_PAUSE_PENDING)),
	      "let go, marked blocked: flags %#x", t->flags);
	CHECK(pause_busy(pz) == 0 && t->delay.paid_ns == 0 && u->delay.paid_ns == 0,
	      "nothing held, nothing credited");
	timer(2 * MS);
	CHECK(F(t)->conts == 0 && F(u)->conts == 0, "trace.c restarts it, not the pauser");
	st = pause_stats(pz);
	CHECK(st->in_syscall == 2 && st->rewound == 1 && st->held == 0,
	      "stats: %llu in a call, %llu rewound", (unsigned long long) st->in_syscall,
	      (unsigned long long) st->rewound);
	fake[2].interrupt_fails = true;
	CHECK(!pause_request(pz, v, 1 * MS, 3 * MS), "a failed interrupt is a request");
	CHECK(!(v->flags & TCB_PAUSE_PENDING) && pause_busy(pz) == 0, "pending without an interrupt");
	v->flags |= TCB_EXITING;
	fake[2].interrupt_fails = false;
	CHECK(!pause_request(pz, v, 1 * MS, 3 * MS) && F(v)->interrupts == 0,
	      "an exiting thread interrupted");
	teardown();
}

/*
 * The end of an experiment: held threads are restarted at once, with what
 * they were held; one whose stop is still on its way is let go when it
 * comes.  While detaching, no stop is held.
 */
static void
test_release(void)
{
	struct tcb *b, *c, *d;

	setup(false);
	b = thread(1);
	c = thread(2);
	d = thread(3);
	pause_request(pz, b, 1 * MS, 0);
	pause_request(pz, c, 1 * MS, 0);
	stop(c, 1 * MS);
	fake_now = 1300 * US;
	pause_release_all(pz);
	CHECK(F(c)->conts == 1 && F(c)->cont_at == 1300 * US && c->delay.paid_ns == 300 * US,
	      "held one restarted now, credited 0.3 ms: %llu", (unsigned long long) c->delay.paid_ns);
	CHECK(F(b)->conts == 0 && b->pause_until_ns == 0, "pending one restarted before its stop");
	CHECK(!stop(b, 2 * MS) && pause_busy(pz) == 0 && b->delay.paid_ns == 0,
	      "a stop after the release held");
	pause_request(pz, d, 1 * MS, 3 * MS);
	S.detaching = true;
	CHECK(!stop(d, 3 * MS) && pause_busy(pz) == 0, "a stop held while detaching");
	S.detaching = false;
	teardown();
}

/*
 * Clock mode: asked at 10 ms, when its schedstat says it had waited 1 ms
 * for a CPU in all; stopped at 10.3 ms, after waiting 0.1 ms more.  Held
 * 1 ms, from 10.3 to 11.3 ms.  Since the request it was stopped (or on
 * its way there, not waiting for a CPU) 11.3 - 10 - 0.1 = 1.2 ms: the
 * stop lag is 0.2 ms beyond the hold, credited with it.
 */
static struct tcb *
stop_lag_pause(void)
{
	struct tcb *t = thread(0);

	fake[0] = (struct fake_thread) {
		.state = 'R', .schedstat_ok = true, .run = 5 * MS, .wait = 1 * MS, .slices = 10,
	};
	fake_now = 10 * MS;
	pause_request(pz, t, 1 * MS, 10 * MS);
	CHECK(F(t)->clock_opens == 1, "no task clock at the request (clock mode)");
	fake[0].wait = 1100 * US;
	fake[0].run = 5200 * US;
	fake[0].clock = 40 * US;
	stop(t, 10300 * US);
	timer(11300 * US);
	return t;
}

static void
test_stop_lag(void)
{
	struct tcb *t;
	const struct pause_stats *st;

	setup(false);
	t = stop_lag_pause();
	st = pause_stats(pz);
	CHECK(st->stop_lag_ns == 200 * US, "stop lag %llu, want 0.2 ms",
	      (unsigned long long) st->stop_lag_ns);
	CHECK(t->delay.paid_ns == 1200 * US && st->held_ns == 1 * MS,
	      "credited hold + lag: %llu", (unsigned long long) t->delay.paid_ns);
	/* Stopped as soon as asked, nothing beyond the hold. */
	fake_now = 20 * MS;
	pause_request(pz, t, 1 * MS, 20 * MS);
	stop(t, 20 * MS);
	timer(21 * MS);
	CHECK(st->stop_lag_ns == 200 * US && t->delay.paid_ns == 2200 * US,
	      "no lag when stopped at once: %llu", (unsigned long long) st->stop_lag_ns);
	teardown();
}

/*
 * Clock mode, continued: restarted at 11.3 ms (counter at 40 us,
 * schedstat 10 slices, 1.1 ms waited).  At 11.35 ms it has not run yet.
 * At 11.6 ms it is on its first run (11 slices), has waited 50 us for a
 * CPU and run 100 us: the restart cost 0.3 - 0.1 = 0.2 ms, credited.
 * The next pause's look finds it blocked already: the mean of the
 * measured ones, 0.2 ms.
 */
static void
test_restart_by_clock(void)
{
	struct tcb *t;
	const struct pause_stats *st;
	uint64_t paid;

	setup(false);
	t = stop_lag_pause();
	st = pause_stats(pz);
	paid = t->delay.paid_ns;			/* 1.2 ms */
	fake_now = 11350 * US;
	pause_settle(pz, fake_now);
	CHECK(t->delay.paid_ns == paid && st->settled == 0, "credited before its first run");
	fake[0].slices = 11;
	fake[0].wait = 1150 * US;
	fake[0].clock = 140 * US;
	fake_now = 11600 * US;
	pause_settle(pz, fake_now);
	CHECK(st->settled == 1 && st->restart_lag_ns == 200 * US,
	      "restart measured %llu, want 0.2 ms", (unsigned long long) st->restart_lag_ns);
	CHECK(t->delay.paid_ns == paid + 200 * US, "credited %llu",
	      (unsigned long long) (t->delay.paid_ns - paid));
	CHECK(F(t)->clock_closes == 1, "counter closed once measured");

	/* The next: restarted at 21 ms, seen at 21.2 ms run and blocked. */
	fake[0].slices = 20;
	fake_now = 20 * MS;
	pause_request(pz, t, 1 * MS, 20 * MS);
	fake[0].clock = 500 * US;
	stop(t, 20 * MS);
	timer(21 * MS);
	paid = t->delay.paid_ns;
	fake[0].slices = 21;
	fake[0].clock = 530 * US;
	fake[0].state = 'S';
	fake_now = 21200 * US;
	pause_settle(pz, fake_now);
	CHECK(st->settled == 1 && st->restart_lag_ns == 400 * US && t->delay.paid_ns == paid + 200 * US,
	      "not measurable: the mean, 0.2 ms: %llu", (unsigned long long) (t->delay.paid_ns - paid));
	teardown();
}

/*
 * Switches followed: no counter.  Restarted at 11 ms (schedstat run 5 ms,
 * 10 slices); at 11.2 ms on its first run, no switch out yet: nothing.
 * Its switch out at 11.4 ms, having run 0.15 ms: the restart cost 0.4 -
 * 0.15 = 0.25 ms.
 * Then a thread that runs on until the next pause: restarted at 13 ms
 * (run 5.2 ms), asked again at 14 ms while still on that run, stopped at
 * 14.1 ms (run 6.1 ms): its first run ended with the stop, and the stop's
 * switch out record (14.1 ms) comes after the restart at 15.1 ms.  The
 * restart cost (14.1 - 13) - (6.1 - 5.2) = 0.2 ms, credited.  That pause
 * also had 0.1 ms of stop lag (asked at 14, stopped at 14.1, no wait).
 */
static void
test_restart_by_switch(void)
{
	struct tcb *t;
	const struct pause_stats *st;
	uint64_t paid;

	setup(true);
	t = thread(0);
	st = pause_stats(pz);
	fake[0] = (struct fake_thread) {
		.state = 'R', .schedstat_ok = true, .run = 5 * MS, .wait = 1 * MS, .slices = 10,
	};
	fake_now = 10 * MS;
	pause_request(pz, t, 1 * MS, 10 * MS);
	stop(t, 10 * MS);
	timer(11 * MS);
	CHECK(F(t)->clock_opens == 0, "a task clock with switches followed");
	CHECK(t->delay.paid_ns == 1 * MS && st->stop_lag_ns == 0, "paid %llu",
	      (unsigned long long) t->delay.paid_ns);
	fake[0].slices = 11;
	fake[0].run = 5050 * US;
	fake_now = 11200 * US;
	pause_settle(pz, fake_now);
	CHECK(st->settled == 0 && t->delay.paid_ns == 1 * MS, "credited while on its first run");
	pause_switched_out(pz, t, 11400 * US);
	fake[0].run = 5150 * US;
	fake_now = 11500 * US;
	pause_settle(pz, fake_now);
	CHECK(st->settled == 1 && st->restart_lag_ns == 250 * US &&
	      t->delay.paid_ns == 1 * MS + 250 * US,
	      "restart %llu, want 0.25 ms", (unsigned long long) st->restart_lag_ns);

	fake[0].run = 5200 * US;
	fake_now = 12 * MS;
	pause_request(pz, t, 1 * MS, 12 * MS);
	stop(t, 12 * MS);
	timer(13 * MS);				/* restarted: run 5.2 ms, 11 slices */
	paid = t->delay.paid_ns;
	fake[0].slices = 12;
	fake[0].run = 6 * MS;
	fake_now = 14 * MS;
	pause_request(pz, t, 1 * MS, 14 * MS);	/* still on its first run */
	fake[0].run = 6100 * US;
	stop(t, 14100 * US);
	timer(15100 * US);
	CHECK(st->stop_lag_ns == 100 * US && t->delay.paid_ns == paid + 1100 * US,
	      "stop lag %llu, want 0.1 ms", (unsigned long long) st->stop_lag_ns);
	pause_switched_out(pz, t, 14100 * US);	/* the stop's record, read late */
	fake_now = 15300 * US;
	pause_settle(pz, fake_now);
	CHECK(st->settled == 2 && st->restart_lag_ns == 450 * US &&
	      t->delay.paid_ns == paid + 1100 * US + 200 * US,
	      "the run that ended with the stop: restart %llu, want 0.2 ms",
	      (unsigned long long) (st->restart_lag_ns - 250 * US));
	teardown();
}

int
main(void)
{
	test_credit_from_stop();
	test_slack();
	test_extend();
	test_owed_at_stop();
	test_hold();
	test_in_syscall();
	test_release();
	test_stop_lag();
	test_restart_by_clock();
	test_restart_by_switch();
	thread_stats_free_all();
	if (!failures)
		printf("unit-pause: all checks passed\n");
	return failures ? 1 : 0;
}
